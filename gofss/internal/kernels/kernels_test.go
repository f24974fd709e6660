//go:build amd64 && !purego

package kernels

import (
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The round keys of FIPS-197 Appendix A.1.
func TestExpandKey(t *testing.T) {
	if !HasAES {
		t.Skip("no AES-NI")
	}
	var raw [16]byte
	hex.Decode(raw[:], []byte("2b7e151628aed2a6abf7158809cf4f3c"))
	rk := ExpandKey(raw)
	require.Equal(t, "2b7e151628aed2a6abf7158809cf4f3c", hex.EncodeToString(rk[0][:]))
	require.Equal(t, "a0fafe1788542cb123a339392a6c7605", hex.EncodeToString(rk[1][:]))
	require.Equal(t, "d014f9a8c9ee2589e13f0cc8b6630ca6", hex.EncodeToString(rk[10][:]))
}

// CopyNT against copy, for every alignment of the destination and lengths around a
// few cache lines; the blocks around the destination stay untouched.
func TestCopyNT(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]Block, 64)
	for lo := range 4 {
		for n := range 20 {
			src := make([]Block, n)
			for i := range src {
				src[i] = Block{r.Uint64(), r.Uint64()}
			}
			for i := range buf {
				buf[i] = Block{Lo: uint64(i)}
			}
			want := append([]Block(nil), buf...)
			copy(want[lo:], src)
			CopyNT(buf[lo:lo+n], src)
			require.Equal(t, want, buf, "offset %d, %d blocks", lo, n)
		}
	}
}
