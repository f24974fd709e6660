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

// maxWorkers bounds the goroutines a call spreads its work over; 0: GOMAXPROCS.
var maxWorkers atomic.Int64

// SetMaxWorkers bounds the goroutines that one call spreads its work over to n
// (n <= 0: GOMAXPROCS, the default) and returns the bound before. Calls run
// inline with n = 1.
func SetMaxWorkers(n int) int { return int(maxWorkers.Swap(int64(max(n, 0)))) }

// Workers is the goroutines a call may spread its work over: GOMAXPROCS, at most
// the bound SetMaxWorkers set.
func Workers() int {
	w := runtime.GOMAXPROCS(0)
	if m := int(maxWorkers.Load()); m > 0 {
		w = min(w, m)
	}
	return w
}

// forChunks calls fn on consecutive chunks [lo, hi) that cover [0, n). Work of about
// costNs nanoseconds per item runs on up to Workers() goroutines when it is large
// enough to pay for them, inline otherwise: the caller and the helpers that are
// idle claim chunks in turn.
func forChunks(n int, costNs float64, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := Workers()
	minItems := int(minParallelNs/costNs) + 1
	if workers == 1 || n < 2*minItems {
		fn(0, n)
		return
	}
	j := &job{fn: fn, n: n, workers: workers, minChunk: max(1, minItems/4), finished: make(chan struct{})}
	j.left.Store(int64(n))
	for _, h := range helpersFor(workers - 1) {
		h.post(j)
	}
	// The caller works too rather than only waiting: called through cgo its
	// goroutine is locked to the C thread, where parking and waking it cost a
	// thread hand-off. It waits for the chunks, not for the helpers: a helper busy
	// with another call's chunks joins late or finds none left.
	j.run()
	j.wait()
	if f := j.failure.Load(); f != nil {
		panic(f.(panicValue).v)
	}
}

// job is one forChunks call: its chunks go to whoever claims them first, each a
// share of what is left (guided scheduling): large chunks while much is left,
// small ones at the end, so that the workers finish close together.
type job struct {
	fn         func(lo, hi int)
	n, workers int
	minChunk   int           // items in the smallest chunk
	next       atomic.Int64  // first item not claimed
	left       atomic.Int64  // items not finished
	finished   chan struct{} // closed when left reaches 0
	failure    atomic.Value  // the first panic of a chunk
}

func (j *job) run() {
	for {
		lo := int(j.next.Load())
		if lo >= j.n {
			return
		}
		hi := min(j.n, lo+max(j.minChunk, (j.n-lo)/(2*j.workers)))
		if j.next.CompareAndSwap(int64(lo), int64(hi)) {
			j.runChunk(lo, hi)
		}
	}
}

// runChunk runs fn on [lo, hi). A panic on a helper would kill the process; it is
// handed to the caller's goroutine, where the binding's recover turns it into an
// error.
func (j *job) runChunk(lo, hi int) {
	defer func() {
		if j.left.Add(int64(lo-hi)) == 0 {
			close(j.finished)
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			j.failure.CompareAndSwap(nil, panicValue{r})
		}
	}()
	j.fn(lo, hi)
}

type panicValue struct{ v any }

// wait returns when every chunk has finished. The last ones run on helpers; the
// caller watches for them for up to helperSpin before it parks: a goroutine that
// came in through cgo is locked to its C thread, and waking that thread from a
// park cost about 200 us (an idle vCPU), 3 ns per key of a 2^16-key DPF eval.
func (j *job) wait() {
	for start := time.Now(); time.Since(start) < helperSpin; {
		if j.left.Load() == 0 {
			return
		}
	}
	<-j.finished
}

// helper is a goroutine that runs the chunks of the jobs posted to it, kept for
// the life of the process so that a call need not start (and wake) one.
type helper struct {
	slot atomic.Pointer[job] // the job posted last, until the helper takes it
	wake chan struct{}       // a token for a parked helper
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
		helpers = append(helpers, h)
		go h.loop()
	}
	return helpers[:k]
}

// post gives j to h. A helper busy with another call's job takes j when done
// with that, if j is still the last posted; j's caller runs whatever no helper
// claims. Posting only to helpers marked idle would miss one that has finished
// its last chunk but not yet left the job: a back-to-back call would then run on
// its caller alone.
func (h *helper) post(j *job) {
	h.slot.Store(j)
	select {
	case h.wake <- struct{}{}:
	default: // a token is already waiting
	}
}

func (h *helper) loop() {
	for {
		h.next().run()
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
