package gofss

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// hugeRange is every whole huge page inside the slice, whatever its length and start.
func TestHugeRange(t *testing.T) {
	buf := make([]Cw, 3*hugePage/32)
	for _, c := range [][2]int{{0, 0}, {0, 1}, {5, hugePage / 32}, {0, len(buf)}, {77, len(buf) - 3}, {1, 2*hugePage/32 + 1}} {
		cws := buf[c[0]:c[1]]
		r := hugeRange(cws)
		if len(cws) == 0 {
			require.Nil(t, r)
			continue
		}
		start := uintptr(unsafe.Pointer(&cws[0]))
		end := start + uintptr(len(cws))*32
		var wholePages uintptr
		for p := start &^ (hugePage - 1); p+hugePage <= end; p += hugePage {
			if p >= start {
				wholePages++
			}
		}
		if wholePages == 0 {
			require.Nil(t, r, "%v", c)
			continue
		}
		lo := uintptr(unsafe.Pointer(&r[0]))
		require.Zero(t, lo%hugePage, "%v", c)
		require.Zero(t, len(r)%hugePage, "%v", c)
		require.GreaterOrEqual(t, lo, start, "%v", c)
		require.LessOrEqual(t, lo+uintptr(len(r)), end, "%v", c)
		require.Equal(t, wholePages, uintptr(len(r))/hugePage, "%v", c)
	}
}
