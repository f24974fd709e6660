// Package scatter appends entries to per-region lists: the first half of adding
// values into random places of an array larger than the caches. The lists are read
// back a region at a time later, so that the adds of each stay in cache; it is the
// appends, written at as many places of memory at once as there are regions, that
// this package makes fast (with prefetches, in the amd64 routine of _asm).
package scatter

import (
	"fmt"

	"github.com/pyfss/pyfss/gofss/internal/cpupath"
)

// Lists are per-region lists of entries (an offset in the region and a value of
// one or two words): region g's are at positions [start, Fill[g]) of Offs, Lo and,
// where values have two words, Hi (nil for one), from a start that the caller
// chose (and keeps, with each list's room).
type Lists struct {
	Fill   []int32
	Offs   []uint32
	Lo, Hi []uint64
}

// Append appends an entry for every i, of x = xs[i] & mask, to the list of region
// x >> shift: the offset x & (2^shift - 1), and the value shares[2i] (the low
// word) and, where l.Hi is not nil, shares[2i+1], at position Fill[x >> shift],
// which it advances. It panics where a position could fall outside the lists (a
// Fill below 0, or one within len(xs) of their end) or a region outside Fill; the
// caller keeps each region's list within its own room.
func (l *Lists) Append(xs []uint64, shares []uint64, mask uint64, shift uint) {
	if len(xs) == 0 {
		return
	}
	if err := l.check(len(xs), len(shares), mask, shift); err != nil {
		panic(err)
	}
	impls.Ops().append(l, xs, shares, mask, shift)
}

func (l *Lists) check(n, words int, mask uint64, shift uint) error {
	if words < 2*n {
		return fmt.Errorf("scatter: %d share words for %d inputs", words, n)
	}
	if shift >= 64 || mask>>shift >= uint64(len(l.Fill)) {
		return fmt.Errorf("scatter: regions up to %d (mask %#x, shift %d), but %d lists", mask>>min(shift, 63), mask, shift, len(l.Fill))
	}
	end := min(len(l.Offs), len(l.Lo))
	if l.Hi != nil {
		end = min(end, len(l.Hi))
	}
	for g, p := range l.Fill {
		if p < 0 || int(p) > end-n {
			return fmt.Errorf("scatter: region %d's list at %d has no room for %d entries in lists of %d", g, p, n, end)
		}
	}
	return nil
}

// appendGeneric is Append's portable loop.
func appendGeneric(l *Lists, xs []uint64, shares []uint64, mask uint64, shift uint) {
	low := uint64(1)<<shift - 1
	fill, offs, lo := l.Fill, l.Offs, l.Lo
	shares = shares[:2*len(xs)]
	if hi := l.Hi; hi != nil {
		for i, x := range xs {
			x &= mask
			p := fill[x>>shift]
			offs[p], lo[p], hi[p] = uint32(x&low), shares[2*i], shares[2*i+1]
			fill[x>>shift] = p + 1
		}
		return
	}
	for i, x := range xs {
		x &= mask
		p := fill[x>>shift]
		offs[p], lo[p] = uint32(x&low), shares[2*i]
		fill[x>>shift] = p + 1
	}
}

type ops struct {
	append func(l *Lists, xs []uint64, shares []uint64, mask uint64, shift uint)
}

// Generic names the portable implementation, which every CPU runs.
const Generic = "generic"

var impls = cpupath.New("scatter", append(archBackends(), &cpupath.Impl[ops]{Name: Generic, Available: true, Ops: ops{appendGeneric}})...)

// Backend names the implementation in use.
func Backend() string { return impls.Name() }

// Backends lists the implementations that this CPU can run, fastest first.
func Backends() []string { return impls.Names() }

// SetBackend selects an implementation by name (for tests and benchmarks that
// compare paths) and returns the previous one's name. It is not safe to call while
// other goroutines use the package.
func SetBackend(name string) (string, error) { return impls.Set(name) }
