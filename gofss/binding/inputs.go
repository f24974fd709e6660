package binding

import (
	"sync"

	"github.com/pyfss/pyfss/gofss"
)

// readInputs decodes n unsigned inputs (the argument name) of words 32-bit
// little-endian words each (1, 2 or 4), the three forms Python passes: int32, int64
// and (..., 4) int32 tensors. With words 0 every input is lo + hi*2^64: a Python
// int, passed without a tensor. The (..., 4) form is already the memory image of
// []Uint128 and is used in place; the others are widened into a pooled buffer, buf,
// for the caller to putInputs.
func readInputs(name string, addr uintptr, words, n int, lo, hi uint64) (xs []gofss.Uint128, buf *[]gofss.Uint128, err error) {
	if words == 4 {
		xs, err = view[gofss.Uint128](name, addr, n)
		return xs, nil, err
	}
	if words != 0 && words != 1 && words != 2 {
		return nil, nil, valueErrorf("%s: inputs must have 0, 1, 2 or 4 words each, not %d", name, words)
	}
	buf, _ = inputBufs.Get().(*[]gofss.Uint128)
	if buf == nil || cap(*buf) < n {
		buf = new([]gofss.Uint128)
		*buf = make([]gofss.Uint128, max(n, 0))
	}
	xs = (*buf)[:max(n, 0)]
	switch words {
	case 0:
		for i := range xs {
			xs[i] = gofss.Uint128{Lo: lo, Hi: hi}
		}
	case 1:
		in, err := view[uint32](name, addr, n)
		for i, v := range in {
			xs[i] = gofss.Uint128{Lo: uint64(v)}
		}
		return xs, buf, err
	case 2:
		in, err := view[uint64](name, addr, n)
		for i, v := range in {
			xs[i] = gofss.Uint128{Lo: v}
		}
		return xs, buf, err
	}
	return xs, buf, nil
}

// putInputs returns a readInputs buffer (nil: none) to the pool, unless it is so
// large that keeping it would hold on to memory for little gain.
func putInputs(buf *[]gofss.Uint128) {
	if buf != nil && cap(*buf) <= maxPooledInputs {
		inputBufs.Put(buf)
	}
}

// inputBufs recycles readInputs' buffers: a batch of 2^16 inputs is 1 MiB that
// would otherwise be allocated and zeroed on every call.
var inputBufs sync.Pool

// maxPooledInputs (16 MiB of inputs) bounds what the pool keeps; larger batches
// take long enough that allocating their buffer does not matter.
const maxPooledInputs = 1 << 20
