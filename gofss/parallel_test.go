package gofss

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// Chunks are a share of what is left when claimed: the first a quarter of the items
// (two workers), then smaller and smaller, down to the least chunk at the end, so
// that the workers finish close together.
func TestForChunksShrinkTowardTheEnd(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	const n, cost = 100_000, 1000 // 101 items pay for a goroutine; the least chunk is 25
	var mu sync.Mutex
	sizes := map[int]int{} // chunk start -> size
	forChunks(n, cost, func(lo, hi int) {
		mu.Lock()
		sizes[lo] = hi - lo
		mu.Unlock()
	})
	require.Equal(t, n/4, sizes[0])
	prevSize := n
	for lo := 0; lo < n; lo += sizes[lo] {
		require.Contains(t, sizes, lo, "no chunk starts at %d", lo)
		require.LessOrEqual(t, sizes[lo], prevSize, "chunk at %d grew", lo)
		prevSize = sizes[lo]
	}
	require.LessOrEqual(t, prevSize, 25, "last chunk")
}

// Chunks run on helpers while the caller runs its own: chunk 0 waits for another
// chunk to start, which only another goroutine can do.
func TestForChunksRunsOnHelpers(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	for round := range 3 { // a fresh helper, then one found spinning or parked
		started := make(chan struct{}, 64)
		var waited atomic.Bool
		forChunks(64, 1e6, func(lo, hi int) {
			if lo == 0 {
				select {
				case <-started:
					waited.Store(true)
				case <-time.After(5 * time.Second):
				}
				return
			}
			started <- struct{}{}
		})
		require.True(t, waited.Load(), "round %d: no other goroutine ran a chunk", round)
		time.Sleep(time.Duration(round) * helperSpin)
	}
}

// Calls from many goroutines at once share the helpers: a helper busy with one call's
// chunks joins another late or not at all, which still covers each of its items once.
func TestForChunksConcurrentCalls(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := range 50 {
				n := 1000 + 37*g + rep
				counts := make([]atomic.Int32, n)
				forChunks(n, 1000, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						counts[i].Add(1)
					}
				})
				for i := range counts {
					if c := counts[i].Load(); c != 1 {
						t.Errorf("caller %d rep %d: item %d ran %d times", g, rep, i, c)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// SetMaxWorkers bounds the goroutines below GOMAXPROCS: with a bound of 1 a call
// runs inline, its items in one chunk; with none, GOMAXPROCS again.
func TestSetMaxWorkers(t *testing.T) {
	prevProcs := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prevProcs)
	prev := SetMaxWorkers(1)
	defer SetMaxWorkers(prev)
	require.Equal(t, 1, Workers())
	var chunks atomic.Int32
	forChunks(1000, 1e6, func(lo, hi int) {
		chunks.Add(1)
		assert.Equal(t, [2]int{0, 1000}, [2]int{lo, hi})
	})
	require.EqualValues(t, 1, chunks.Load())
	require.Equal(t, 1, SetMaxWorkers(3))
	require.Equal(t, 3, Workers())
	SetMaxWorkers(0)
	require.Equal(t, 4, Workers())
}
