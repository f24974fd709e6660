// Command _asm generates the amd64 routines of package scatter (run `go generate` in
// the package): Lists.Append's loop, in two forms from one description, for values
// of one word (appendLo) and of two (appendLoHi).
//
// The loop is Append's portable one with a prefetch of each list it writes, a few
// lines ahead of the entry just written. The lists are much larger than the caches
// and are written at many places at once (one per region), too many for the
// hardware's stream prefetchers to follow, so without it each store that starts a
// line waits for that line to come from memory. A prefetch reads nothing that the
// program sees and cannot fault: the ones past a list's end are harmless.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// ahead is how many entries ahead of the one written each list is prefetched: two
// lines of the offsets, four of the values. From 16 to 128 entries measured the
// same on the Zen 3 development VM; none was better than 2 lines.
const ahead = 32

func main() {
	ConstraintExpr("!purego")
	appendRoutine(false)
	appendRoutine(true)
	Generate()
}

// appendRoutine generates appendLo (wide false) or appendLoHi: for each of the n
// inputs x = xs[i] & mask, p = fill[x >> shift]; offs[p] = x & (2^shift - 1),
// lo[p] = shares[2i] (and hi[p] = shares[2i+1]); fill[x >> shift] = p + 1. The Go
// side has checked that every p it can reach is inside the lists.
func appendRoutine(wide bool) {
	name, sig := "appendLo", "func(xs *uint64, n int, shares *uint64, mask uint64, shift uint64, fill *int32, offs *uint32, lo *uint64)"
	if wide {
		name, sig = "appendLoHi", "func(xs *uint64, n int, shares *uint64, mask uint64, shift uint64, fill *int32, offs *uint32, lo, hi *uint64)"
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(fmt.Sprintf("%s is Append's loop over n inputs, for values of %s.", name, map[bool]string{false: "one word", true: "two words"}[wide]))
	xs := Load(Param("xs"), GP64())
	n := Load(Param("n"), GP64())
	shares := Load(Param("shares"), GP64())
	mask := Load(Param("mask"), GP64())
	shift := Load(Param("shift"), GP64())
	fill := Load(Param("fill"), GP64())
	offs := Load(Param("offs"), GP64())
	lo := Load(Param("lo"), GP64())
	var hi Register
	if wide {
		hi = Load(Param("hi"), GP64())
	}
	low := GP64()
	MOVQ(U32(1), low)
	SHLXQ(shift, low, low)
	DECQ(low)

	TESTQ(n, n)
	JZ(LabelRef(name + "_done"))
	Label(name + "_loop")
	x, g, p, v := GP64(), GP64(), GP64(), GP64()
	MOVQ(Mem{Base: xs}, x)
	ANDQ(mask, x)
	SHRXQ(shift, x, g)
	MOVLQSX(Mem{Base: fill, Index: g, Scale: 4}, p)
	ANDQ(low, x)
	MOVL(x.As32(), Mem{Base: offs, Index: p, Scale: 4})
	MOVQ(Mem{Base: shares}, v)
	MOVQ(v, Mem{Base: lo, Index: p, Scale: 8})
	if wide {
		MOVQ(Mem{Base: shares, Disp: 8}, v)
		MOVQ(v, Mem{Base: hi, Index: p, Scale: 8})
	}
	PREFETCHT0(Mem{Base: offs, Index: p, Scale: 4, Disp: 4 * ahead})
	PREFETCHT0(Mem{Base: lo, Index: p, Scale: 8, Disp: 8 * ahead})
	if wide {
		PREFETCHT0(Mem{Base: hi, Index: p, Scale: 8, Disp: 8 * ahead})
	}
	INCL(p.As32())
	MOVL(p.As32(), Mem{Base: fill, Index: g, Scale: 4})
	ADDQ(U8(8), xs)
	ADDQ(U8(16), shares)
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))
	Label(name + "_done")
	RET()
}
