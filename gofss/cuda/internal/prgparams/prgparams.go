// Package prgparams packs the public PRG parameters into the PrgParams struct that
// every kernel takes (cuda/prg.cuh): the ChaCha nonce, the AES-128 round keys and the
// AES S-box, as little-endian bytes.
//
// The round keys are expanded here, once per launch, so no GPU thread repeats the key
// schedule; the S-box travels with them so that the kernels carry no table of their
// own and the host check builds its tables from the same bytes.
package prgparams

import (
	"encoding/binary"
	"fmt"
)

// Size is sizeof(PrgParams): nonce[2] and aes_rk[4][44] as uint32, aes_sbox[256].
const Size = 4*(2+4*44) + 256

// MaxAESKeys is how many keys PrgParams has room for (DCF's mul).
const MaxAESKeys = 4

// Pack returns the PrgParams image. Keys beyond len(aesKeys) are left zero.
func Pack(nonce [2]uint32, aesKeys [][16]byte) ([]byte, error) {
	if len(aesKeys) > MaxAESKeys {
		return nil, fmt.Errorf("prgparams: %d AES keys, at most %d fit", len(aesKeys), MaxAESKeys)
	}
	b := make([]byte, Size)
	binary.LittleEndian.PutUint32(b[0:], nonce[0])
	binary.LittleEndian.PutUint32(b[4:], nonce[1])
	for i, key := range aesKeys {
		rk := ExpandKey(key)
		for j, w := range rk {
			binary.LittleEndian.PutUint32(b[8+4*(44*i+j):], w)
		}
	}
	copy(b[8+4*4*44:], sbox[:])
	return b, nil
}

// ExpandKey is the AES-128 key schedule (FIPS-197 section 5.2) with each word read
// little-endian from the key's bytes, the byte order the kernels' T-tables use.
func ExpandKey(key [16]byte) [44]uint32 {
	var w [44]uint32
	for i := range 4 {
		w[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	rcon := uint32(1)
	for i := 4; i < 44; i++ {
		t := w[i-1]
		if i%4 == 0 {
			// RotWord moves byte 0 to the top: a right rotation of a little-endian word.
			t = subWord(t>>8|t<<24) ^ rcon
			rcon = uint32(xtime(byte(rcon)))
		}
		w[i] = w[i-4] ^ t
	}
	return w
}

func subWord(w uint32) uint32 {
	return uint32(sbox[w&0xff]) | uint32(sbox[w>>8&0xff])<<8 | uint32(sbox[w>>16&0xff])<<16 | uint32(sbox[w>>24])<<24
}

// Sbox returns the AES S-box.
func Sbox() [256]byte { return sbox }

var sbox = makeSbox()

// makeSbox computes the S-box from its definition: the inverse in GF(2^8) (0 maps to
// 0) followed by the affine map of FIPS-197 section 5.1.1.
func makeSbox() [256]byte {
	var s [256]byte
	for x := range 256 {
		inv := gfInverse(byte(x))
		s[x] = inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63
	}
	return s
}

// gfInverse is x^254, the multiplicative inverse for x != 0.
func gfInverse(x byte) byte {
	r, sq := byte(1), x
	for range 7 {
		sq = gfMul(sq, sq)
		r = gfMul(r, sq)
	}
	return r
}

func gfMul(a, b byte) byte {
	var p byte
	for ; b != 0; b >>= 1 {
		if b&1 != 0 {
			p ^= a
		}
		a = xtime(a)
	}
	return p
}

func xtime(a byte) byte { return a<<1 ^ (a>>7)*0x1b }

func rotl8(b byte, n int) byte { return b<<n | b>>(8-n) }
