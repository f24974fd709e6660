package gofss

import "sync"

// scratch is a call's working memory, carved into slices and recycled through a pool
// so that repeated and small calls do not allocate. Carved slices are not zeroed.
type scratch struct {
	blocks []Block
	bytes  []uint8
	ints   []int
	nb     int
	nu     int
	ni     int
	eval   evalState // kept here so that a small Eval does not allocate it
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// release returns sc to the pool; slices carved from it must no longer be used.
func (sc *scratch) release() {
	sc.nb, sc.nu, sc.ni = 0, 0, 0
	scratchPool.Put(sc)
}

func (sc *scratch) block(n int) []Block { return carve(&sc.blocks, &sc.nb, n) }
func (sc *scratch) byte(n int) []uint8  { return carve(&sc.bytes, &sc.nu, n) }
func (sc *scratch) int(n int) []int     { return carve(&sc.ints, &sc.ni, n) }

// carve takes n elements from *buf after the *used already taken. When they do not
// fit it starts a larger buffer; slices carved before keep the old one.
func carve[T any](buf *[]T, used *int, n int) []T {
	if *used+n > len(*buf) {
		*buf = make([]T, max(2*len(*buf), n, 256))
		*used = 0
	}
	s := (*buf)[*used : *used+n : *used+n]
	*used += n
	return s
}
