package gofss

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestForChunksCoversEachItemOnce(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	for _, n := range []int{0, 1, 7, 1000, 100_000} {
		for _, cost := range []float64{1, 1000, 1e6} {
			counts := make([]atomic.Int32, n)
			forChunks(n, cost, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					counts[i].Add(1)
				}
			})
			for i := range counts {
				require.EqualValues(t, 1, counts[i].Load(), "n=%d cost=%v item %d", n, cost, i)
			}
		}
	}
}

// A panic in any chunk, whichever goroutine runs it (the caller takes chunks too),
// must reach the caller, where the binding's recover turns it into an error.
func TestForChunksRelaysPanics(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	const n = 64
	for bad := range n {
		assert.PanicsWithValue(t, "chunk failed", func() {
			forChunks(n, 1e6, func(lo, hi int) {
				if lo <= bad && bad < hi {
					panic("chunk failed")
				}
			})
		}, "panicking item %d", bad)
	}
}
