package gofss

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// minParallelNs is the least work worth a goroutine: fanning out from a call that
// came in through cgo costs tens of microseconds.
const minParallelNs = 100_000

// helperSpin is how long a helper that ran out of work keeps looking for the next
// call's before it parks. Waking a parked helper took about 230 us on our 2-core
// VM (an idle vCPU has to be woken), 13% of a DPF eval of 2^16 keys on two cores;
// back-to-back calls, the common case, find it still looking.
const helperSpin = 300 * time.Microsecond

// forChunks calls fn on consecutive chunks [lo, hi) that cover [0, n). Work of about
// costNs nanoseconds per item runs on up to GOMAXPROCS goroutines when it is large
// enough to pay for them, inline otherwise: the caller and the helpers that are
// idle claim chunks in turn.
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
	j := &job{fn: fn, n: n, chunk: chunk, chunks: (n + chunk - 1) / chunk}
	j.done.Add(j.chunks)
	for _, h := range helpersFor(min(workers, j.chunks) - 1) {
		h.post(j)
	}
	// The caller works too rather than only waiting: called through cgo its
	// goroutine is locked to the C thread, where parking and waking it cost a
	// thread hand-off. It waits for the chunks, not for the helpers: a helper busy
	// with another call's chunks joins late or finds none left.
	j.run()
	j.done.Wait()
	if f := j.failure.Load(); f != nil {
		panic(f.(panicValue).v)
	}
}

// job is one forChunks call: its chunks go to whoever claims them first.
type job struct {
	fn               func(lo, hi int)
	n, chunk, chunks int
	next             atomic.Int64
	done             sync.WaitGroup // one count per chunk
	failure          atomic.Value   // the first panic of a chunk
}

func (j *job) run() {
	for {
		c := int(j.next.Add(1) - 1)
		if c >= j.chunks {
			return
		}
		j.runChunk(c)
	}
}

// runChunk runs chunk c. A panic on a helper would kill the process; it is handed
// to the caller's goroutine, where the binding's recover turns it into an error.
func (j *job) runChunk(c int) {
	defer j.done.Done()
	defer func() {
		if r := recover(); r != nil {
			j.failure.CompareAndSwap(nil, panicValue{r})
		}
	}()
	j.fn(c*j.chunk, min(j.n, (c+1)*j.chunk))
}

type panicValue struct{ v any }

// helper is a goroutine that runs the chunks of the jobs posted to it, kept for
// the life of the process so that a call need not start (and wake) one.
type helper struct {
	idle atomic.Bool // nothing posted since its last job: post may claim it
	slot atomic.Pointer[job]
	wake chan struct{} // a token for a parked helper
}

var (
	helpersMu sync.Mutex
	helpers   []*helper
)

// helpersFor returns k helpers, starting those missing.
func helpersFor(k int) []*helper {
	helpersMu.Lock()
	defer helpersMu.Unlock()
	for len(helpers) < k {
		h := &helper{wake: make(chan struct{}, 1)}
		h.idle.Store(true)
		helpers = append(helpers, h)
		go h.loop()
	}
	return helpers[:k]
}

// post gives j to h if h is idle; a busy helper is left to its job.
func (h *helper) post(j *job) {
	if !h.idle.CompareAndSwap(true, false) {
		return
	}
	h.slot.Store(j)
	select {
	case h.wake <- struct{}{}:
	default: // a token is already waiting
	}
}

func (h *helper) loop() {
	for {
		j := h.next()
		j.run()
		h.idle.Store(true)
	}
}

// next waits for a job: looking for it for helperSpin, then parked until woken.
func (h *helper) next() *job {
	for start := time.Now(); time.Since(start) < helperSpin; {
		if j := h.slot.Swap(nil); j != nil {
			return j
		}
		runtime.Gosched()
	}
	for {
		<-h.wake // tokens from posts the spin already served wake it for nothing
		if j := h.slot.Swap(nil); j != nil {
			return j
		}
	}
}
