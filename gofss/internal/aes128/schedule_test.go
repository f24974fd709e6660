package aes128

import (
	"crypto/aes"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The round keys of FIPS-197 Appendix A.1.
func TestRoundKeysFIPS197(t *testing.T) {
	var raw [16]byte
	hex.Decode(raw[:], []byte("2b7e151628aed2a6abf7158809cf4f3c"))
	rk := RoundKeys(raw)
	require.Equal(t, "2b7e151628aed2a6abf7158809cf4f3c", hex.EncodeToString(rk[0][:]))
	require.Equal(t, "a0fafe1788542cb123a339392a6c7605", hex.EncodeToString(rk[1][:]))
	require.Equal(t, "d014f9a8c9ee2589e13f0cc8b6630ca6", hex.EncodeToString(rk[10][:]))
}

// The S-box against values printed in FIPS-197 Figure 7.
func TestSBox(t *testing.T) {
	s := SBox()
	for x, want := range map[int]byte{0x00: 0x63, 0x01: 0x7c, 0x53: 0xed, 0xff: 0x16, 0x10: 0xca} {
		require.Equal(t, want, s[x], "S[%#x]", x)
	}
}

// A textbook AES-128 encryption from RoundKeys and SBox agrees with crypto/aes: the
// schedule and the S-box are what the GPU kernels build their tables from.
func TestRoundKeysEncrypt(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		var key, in [16]byte
		for i := range key {
			key[i], in[i] = byte(r.Uint32()), byte(r.Uint32())
		}
		c, err := aes.NewCipher(key[:])
		require.NoError(t, err)
		want := make([]byte, 16)
		c.Encrypt(want, in[:])
		require.Equal(t, want, textbookEncrypt(RoundKeys(key), in))
	}
}

func textbookEncrypt(rk [11][16]byte, s [16]byte) []byte {
	addRoundKey := func(k [16]byte) {
		for i := range s {
			s[i] ^= k[i]
		}
	}
	subShift := func() {
		var o [16]byte
		for c := range 4 {
			for r := range 4 {
				o[4*c+r] = sbox[s[4*((c+r)%4)+r]]
			}
		}
		s = o
	}
	mix := func() {
		for c := range 4 {
			a := s[4*c : 4*c+4]
			x := a[0] ^ a[1] ^ a[2] ^ a[3]
			a0 := a[0]
			a[0] ^= x ^ xtime(a[0]^a[1])
			a[1] ^= x ^ xtime(a[1]^a[2])
			a[2] ^= x ^ xtime(a[2]^a[3])
			a[3] ^= x ^ xtime(a[3]^a0)
		}
	}
	addRoundKey(rk[0])
	for r := 1; r < 10; r++ {
		subShift()
		mix()
		addRoundKey(rk[r])
	}
	subShift()
	addRoundKey(rk[10])
	return s[:]
}
