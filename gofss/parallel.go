package gofss

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// minParallelNs is the least work worth a goroutine: fanning out from a call that
// came in through cgo costs tens of microseconds.
const minParallelNs = 100_000

// forChunks calls fn on consecutive chunks [lo, hi) that cover [0, n). Work of about
// costNs nanoseconds per item runs on up to GOMAXPROCS goroutines when it is large
// enough to pay for them, inline otherwise.
func forChunks(n int, costNs float64, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := runtime.GOMAXPROCS(0)
	minItems := int(minParallelNs/costNs) + 1
	if workers == 1 || n < 2*minItems {
		fn(0, n)
		return
	}
	// A few chunks per worker even out uneven progress without many handoffs.
	chunk := max(minItems, (n+4*workers-1)/(4*workers))
	chunks := (n + chunk - 1) / chunk
	workers = min(workers, chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	var failure atomic.Value
	work := func() {
		// A panic on a worker would kill the process; hand it to the caller's
		// goroutine, where the binding's recover turns it into an error.
		defer func() {
			if r := recover(); r != nil {
				failure.CompareAndSwap(nil, panicValue{r})
			}
		}()
		for {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			fn(c*chunk, min(n, (c+1)*chunk))
		}
	}
	// The caller works too rather than only waiting: one goroutine fewer to start,
	// and called through cgo its goroutine is locked to the C thread, where parking
	// and waking it cost a thread hand-off.
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	if f := failure.Load(); f != nil {
		panic(f.(panicValue).v)
	}
}

type panicValue struct{ v any }
