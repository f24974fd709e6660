//go:build amd64 && !purego

package simd

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// CopyNT against copy, for every alignment of the destination and lengths around a
// few cache lines; the blocks around the destination stay untouched. Without
// AVX-512 it runs on 256-bit stores.
func TestCopyNT(t *testing.T) {
	if !Available && !hasAVX2AES {
		t.Skip("the CPU lacks AVX-512 and AVX2")
	}
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
