package main

import (
	"fmt"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The EvalAll level routines (package simd's DpfLevel, DpfLeaves, DcfLevel and
// DcfLeaves) in all three widths: a row of parents expanded into their children
// with the AES run in place (on 512-bit vectors also from the PRG's output in
// memory). A vector holds w children: with 512-bit vectors two parents' (lanes L,
// R, L, R), with 256-bit vectors a parent's two, with 128-bit ones one. A group is
// 8 vectors (wideGroup on 512-bit vectors), the rest of a row goes a parent at a
// time (on 512-bit vectors two, then a last one in half a vector). Registers: the
// AES states (0-7), the control-bit mask (8), the children's seed corrections (9,
// and 10 with 128-bit vectors: left, right), scratch (11-13) and the leaves' value
// correction (14). SI walks the parents, DI the children (u or dst), R8 their
// seeds, CX counts the parents left, DX holds the LaneKeys (round r's keys at 64r:
// L, R, L, R).

const levelGroup = 8 // vectors

// wideGroup is the group on 512-bit vectors: with 8 there (16 DPF parents) EvalAll
// took 1.04x the time on Zen 4 (the routines written for AVX-512 first ran 4).
const wideGroup = 4

const levelSig = "func(%s, parents *byte, m int, cw *[4]uint64, %skeys *[11][4][16]byte)"

// dpfLevelRoutine generates dpfLevel<W> (leaves false: u and s receive the children
// and their clamped seeds) or dpfLeaves<W> (dst receives from(child) + t*v, negated
// under Neg and kept to Mask; a loop for each kind of the group's +, as byArith
// says). On 512-bit vectors a vector holds two parents' children (L, R, L, R, the
// LaneKeys' order), the parked nodes and the constants are in registers (16-29), a
// last parent takes half a vector, and with raw (not nil) the PRG's output comes
// from there instead of the AES run here, for the other PRGs.
func dpfLevelRoutine(w width, leaves bool) {
	name, args, extra := "dpfLevel"+w.name, "u, s *byte", ""
	if leaves {
		name, args, extra = "dpfLeaves"+w.name, "dst *byte", "v *[2]uint64, ar *[8]uint64, "
	}
	if w.wide() {
		args = strings.TrimSuffix(args, " *byte") + ", raw *byte"
	}
	TEXT(name, 0, fmt.Sprintf(levelSig, args, extra))
	Pragma("noescape")
	Doc(name + " is the EvalAll routine of the same name without w's suffix, with AES keys.")
	k := &walk{w: w, name: name}
	parked := func(v int) Op { return zregs[22+v] }
	if !w.wide() {
		k.consts = AllocLocal(consts * w.size())
		slots := AllocLocal(levelGroup * w.size())
		parked = func(v int) Op { return slots.Offset(v * w.size()) }
	}
	lsbv, vv := w.vec(8), w.vec(14)
	if leaves {
		Load(Param("ar"), RAX)
		k.loadArith()
		Load(Param("v"), RAX)
		w.spread(Mem{Base: RAX}, vv)
		Load(Param("dst"), RDI)
	} else {
		Load(Param("u"), RDI)
		Load(Param("s"), R8)
	}
	levelSetup(w, lsbv)
	Load(Param("parents"), RSI)
	Load(Param("m"), RCX)
	Load(Param("keys"), RDX)

	parentsOf := func(v int, x VecPhysical, half bool) {
		w.parents(Mem{Base: RSI, Disp: 16 * (w.blocks * v / 2)}, x, half)
	}
	// children stores what the children x of vector v make: u and s, or the outputs.
	children := func(v int, x VecPhysical, half bool) {
		out := Mem{Base: RDI, Disp: v * w.size()}
		t, c := w.vec(11), w.vec(12)
		if !leaves {
			w.children(x, out, half)
			w.andn(x, lsbv, x)
			w.children(x, Mem{Base: R8, Disp: v * w.size()}, half)
			return
		}
		w.tmask(x, t)
		w.and(vv, t, t)
		w.and(k.c(cFrom), x, x)
		k.gadd(t, x, c)
		w.xor(k.c(cNeg), x, x)
		VPSUBQ(k.c(cNeg), x, x)
		w.and(k.c(cMask), x, x)
		w.children(x, out, half)
	}
	// cwOf is the correction of vector v's children.
	cwOf := func(v int) VecPhysical {
		if w.blocks == 1 && v%2 == 1 {
			return w.vec(10)
		}
		return w.vec(9)
	}
	// vectors emits n vectors' work: children w*v .. w*v+w-1 of the parents at SI.
	vectors := func(n int, half bool) {
		key := func(v, r int) Mem { return Mem{Base: RDX, Disp: 64*r + 16*(w.blocks*v%2)} }
		t, c := w.vec(11), w.vec(12)
		for v := range n {
			x := w.vec(v)
			parentsOf(v, x, half)
			w.tmask(x, t)
			w.andn(x, lsbv, x)
			w.and(cwOf(v), t, c)
			w.xor(x, c, c)
			w.mov(c, parked(v))
			w.xor(key(v, 0), x, x)
		}
		keys := max(1, 2/w.blocks) // L, R in turn with one block, both in a vector with two
		keyedRounds(w, w.vecs(n), keys, 11, key)
		for v := range n {
			x := w.vec(v)
			w.xor(parked(v), x, x)
			children(v, x, half)
		}
	}
	// rawVectors is vectors with the PRG's output at R10.
	rawVectors := func(n int, half bool) {
		t := w.vec(11)
		for v := range n {
			x := w.vec(v)
			parentsOf(v, t, half)
			w.tmask(t, t)
			if half {
				VMOVDQU64(Mem{Base: R10}, x.AsY())
			} else {
				w.mov(Mem{Base: R10, Disp: v * w.size()}, x)
			}
			VPTERNLOGQ(U8(0x78), t, w.vec(9), x) // x ^= cw & t
			children(v, x, half)
		}
	}
	advance := func(parents int, raw bool) {
		ADDQ(U32(16*parents), RSI)
		ADDQ(U32(32*parents), RDI)
		if !leaves {
			ADDQ(U32(32*parents), R8)
		}
		if raw {
			ADDQ(U32(32*parents), R10)
		}
		SUBQ(U32(parents), RCX)
	}
	loops := func(prefix string) {
		if !w.wide() {
			rowLoops(prefix, levelGroup*w.blocks/2, 2/w.blocks, func(n int) { vectors(n, false) }, func(p int) { advance(p, false) })
			return
		}
		wideLoops(prefix, R10, 1, vectors, rawVectors, advance)
	}
	if leaves {
		k.byArith(w.vec(0), loops)
	} else {
		loops(name)
	}
	VZEROUPPER()
	RET()
}

// levelSetup loads the level's seed corrections (the cw argument) into register 9
// (left, right; with 128-bit vectors the right into 10), the control-bit mask into
// lsbv, and what tmask needs.
func levelSetup(w width, lsbv VecPhysical) {
	Load(Param("cw"), RAX)
	switch w.blocks {
	case 1:
		VMOVDQU(Mem{Base: RAX}, w.vec(9))
		VMOVDQU(Mem{Base: RAX, Disp: 16}, w.vec(10))
	case 2:
		VMOVDQU(Mem{Base: RAX}, w.vec(9))
	default:
		VBROADCASTI64X4(Mem{Base: RAX}, w.vec(9))
	}
	w.controlMask(lsbv)
}

// parents loads at x the blocks at of the parents of a vector, each in its
// children's lanes; half: of one parent, in half a 512-bit vector (the blocks of
// one parent are read, no more).
func (w width) parents(at Mem, x VecPhysical, half bool) {
	if !w.wide() || half {
		w.spread(at, x)
		return
	}
	VMOVDQU64(at, x.AsY())
	VSHUFI64X2(U8(0x50), x, x, x)
}

// children stores the children x (their seeds, values or outputs) at at, those of
// a half vector where half says.
func (w width) children(x VecPhysical, at Mem, half bool) {
	if half {
		VMOVDQU(x.AsY(), at)
		return
	}
	w.mov(x, at)
}

// wideLoops emits a 512-bit level routine's loops (units of per vectors): aes's,
// with the AES run here, or where the raw argument (into r) is not nil fromRaw's,
// with the PRG's output read from there.
func wideLoops(prefix string, r GPPhysical, per int, aes, fromRaw func(n int, half bool), advance func(parents int, raw bool)) {
	Load(Param("raw"), r)
	TESTQ(r, r)
	JNZ(LabelRef(prefix + "_raw"))
	pairLoops(prefix+"_aes", wideGroup/per, per, aes, func(p int) { advance(p, false) })
	JMP(LabelRef(prefix + "_done"))
	Label(prefix + "_raw")
	pairLoops(prefix+"_raw", wideGroup/per, per, fromRaw, func(p int) { advance(p, true) })
	Label(prefix + "_done")
}

// pairLoops is rowLoops for 512-bit vectors, two parents a unit of per vectors:
// groups of units units while they last, then a unit at a time, then a last
// parent in half a unit.
func pairLoops(prefix string, units, per int, emit func(n int, half bool), advance func(int)) {
	Label(prefix + "_group")
	CMPQ(RCX, U32(2*units))
	JB(LabelRef(prefix + "_pair"))
	emit(units*per, false)
	advance(2 * units)
	JMP(LabelRef(prefix + "_group"))
	Label(prefix + "_pair")
	CMPQ(RCX, U8(2))
	JB(LabelRef(prefix + "_one"))
	emit(per, false)
	advance(2)
	JMP(LabelRef(prefix + "_pair"))
	Label(prefix + "_one")
	TESTQ(RCX, RCX)
	JZ(LabelRef(prefix + "_end"))
	emit(per, true)
	advance(1)
	Label(prefix + "_end")
}

// rowLoops emits a level routine's loops over the CX parents of a row: groups of
// perGroup parents (vectors(levelGroup)) while they last, then a parent at a time
// (vectors(one)), advance moving past the parents done. Its labels begin with
// prefix, the first prefix+"_group".
func rowLoops(prefix string, perGroup, one int, vectors, advance func(int)) {
	Label(prefix + "_group")
	CMPQ(RCX, U32(perGroup))
	JB(LabelRef(prefix + "_one"))
	vectors(levelGroup)
	advance(perGroup)
	JMP(LabelRef(prefix + "_group"))
	Label(prefix + "_one")
	TESTQ(RCX, RCX)
	JZ(LabelRef(prefix + "_end"))
	vectors(one)
	advance(1)
	JMP(LabelRef(prefix + "_one"))
	Label(prefix + "_end")
}

// dcfLevelRoutine generates dcfLevel<W> (u, s and v receive the children, their
// clamped seeds and values pv + from(V) + t*vcw) or dcfLeaves<W> (dst receives each
// child's value + from(child) + t(child)*last, negated under Neg and kept to Mask).
// Both have a loop for each kind of the group's + (byArith).
// A parent's 4 outputs (SL, VL, SR, VR, as the LaneKeys have them) take 4/w vectors;
// with 256-bit vectors its children's seeds (SL, SR) and values (VL, VR), a child's
// to a lane, the round keys sorted so; with 512-bit vectors those of two parents
// (SL, SR, SL, SR and VL, VR, VL, VR), a last parent taking half, and with raw (not
// nil) the PRG's output comes from there, as dpfLevelRoutine's. Registers as
// dpfLevelRoutine's, with the value correction in 11, scratch 12-15.
func dcfLevelRoutine(w width, leaves bool) {
	name, args := "dcfLevel"+w.name, "u, s, v *byte"
	if leaves {
		name, args = "dcfLeaves"+w.name, "dst *byte"
	}
	if w.wide() {
		args = strings.TrimSuffix(args, " *byte") + ", raw *byte"
	}
	TEXT(name, 0, fmt.Sprintf("func(%s, parents, pv *byte, m int, cw *[4]uint64, vcw *[4]uint64, ar *[8]uint64, keys *[11][4][16]byte)", args))
	Pragma("noescape")
	Doc(name + " is the EvalAll routine of the same name without w's suffix, with AES keys.")
	k := &walk{w: w, name: name}
	parked := func(p int) Op { return zregs[22+p] }
	var last Op = Z26
	if !w.wide() {
		k.consts = AllocLocal(consts * w.size())
		slots := AllocLocal(levelGroup * w.size())
		parked = func(p int) Op { return slots.Offset(p * w.size()) }
		last = AllocLocal(w.size())
	}
	lsbv, vcw := w.vec(8), w.vec(11)
	Load(Param("ar"), RAX)
	k.loadArith()
	Load(Param("vcw"), RAX)
	w.spread(Mem{Base: RAX}, vcw)
	if leaves {
		w.spread(Mem{Base: RAX, Disp: 16}, w.vec(12))
		w.mov(w.vec(12), last)
		Load(Param("dst"), RDI)
	} else {
		Load(Param("u"), RDI)
		Load(Param("s"), R8)
		Load(Param("v"), R10)
	}
	levelSetup(w, lsbv)
	Load(Param("parents"), RSI)
	Load(Param("pv"), R9)
	Load(Param("m"), RCX)
	Load(Param("keys"), RDX)

	per := max(2, 4/w.blocks)       // vectors a unit
	unit := max(1, w.blocks/2)      // parents a unit
	stride := max(64, per*w.size()) // a round's keys
	key := func(v, r int) Mem { return Mem{Base: RDX, Disp: stride*r + w.size()*(v%per)} }
	sortKeys := func() {
		// The LaneKeys hold a round's keys as SL, VL, SR, VR; a table on the stack
		// (then at DX), aligned to a vector, holds them as (SL, SR), (VL, VR), so
		// that a parent's two vectors come out of the rounds as its children's
		// seeds and values, with no lanes to swap.
		sorted := AllocLocal(rounds*stride + w.size())
		MOVQ(RDX, RAX)
		LEAQ(sorted.Offset(w.size()-1), RDX)
		ANDQ(I8(-w.size()), RDX)
		for r := range rounds {
			if w.wide() {
				VMOVDQU64(Mem{Base: RAX, Disp: 64 * r}, Z12)
				VSHUFI64X2(U8(0x88), Z12, Z12, Z13)
				VSHUFI64X2(U8(0xdd), Z12, Z12, Z12)
				VMOVDQA64(Z13, Mem{Base: RDX, Disp: stride * r})
				VMOVDQA64(Z12, Mem{Base: RDX, Disp: stride*r + 64})
				continue
			}
			for v := range 2 {
				VMOVDQU(Mem{Base: RAX, Disp: 64*r + 16*v}, X12)
				VINSERTI128(U8(1), Mem{Base: RAX, Disp: 64*r + 16*v + 32}, Y12, Y12)
				VMOVDQU(Y12, Mem{Base: RDX, Disp: 64*r + 32*v})
			}
		}
	}
	// unitOf loads at x the blocks at base of unit p's parents.
	unitOf := func(base GPPhysical, p int, x VecPhysical, half bool) {
		w.parents(Mem{Base: base, Disp: 16 * unit * p}, x, half)
	}
	// children finishes unit p's children from their seed outputs S and value
	// outputs V (one child, c0, with 128-bit vectors), t its parents' control-bit
	// masks and pv their values (spare, x: scratch).
	children := func(p, c0 int, S, V, spare, t, pv VecPhysical, half bool) {
		cw, x := w.vec(9+c0), w.vec(15)
		out := 32*unit*p + 16*c0 // the children's byte offset
		w.and(cw, t, x)
		w.xor(x, S, S)
		w.and(k.c(cFrom), V, V)
		w.and(vcw, t, x)
		k.gadd(x, V, spare)
		k.gadd(pv, V, x)
		if !leaves {
			w.children(S, Mem{Base: RDI, Disp: out}, half)
			w.andn(S, lsbv, S)
			w.children(S, Mem{Base: R8, Disp: out}, half)
			w.children(V, Mem{Base: R10, Disp: out}, half)
			return
		}
		w.tmask(S, x)
		w.and(last, x, x)
		w.and(k.c(cFrom), S, S)
		k.gadd(x, S, spare)
		k.gadd(S, V, x)
		w.xor(k.c(cNeg), V, V)
		VPSUBQ(k.c(cNeg), V, V)
		w.and(k.c(cMask), V, V)
		w.children(V, Mem{Base: RDI, Disp: out}, half)
	}
	// vectors emits n vectors' work: n/per units at SI.
	vectors := func(n int, half bool) {
		for v := range n {
			x := w.vec(v)
			if v%per == 0 {
				unitOf(RSI, v/per, x, half)
				w.andn(x, lsbv, x)
				w.mov(x, parked(v/per))
			} else {
				w.mov(w.vec(v-v%per), x)
			}
		}
		for v := range n {
			w.xor(key(v, 0), w.vec(v), w.vec(v))
		}
		keyedRounds(w, w.vecs(n), per, 12, key)
		t, pv, c := w.vec(12), w.vec(13), w.vec(14)
		for p := range n / per {
			seed := parked(p)
			for v := p * per; v < (p+1)*per; v++ {
				w.xor(seed, w.vec(v), w.vec(v))
			}
			unitOf(RSI, p, t, half)
			w.tmask(t, t)
			unitOf(R9, p, pv, half)
			// The children of unit p, w at a time: their seeds S and values V.
			for c0 := 0; c0 < 2; c0 += w.blocks {
				children(p, c0, w.vec(p*per+2*c0), w.vec(p*per+2*c0+1), c, t, pv, half)
			}
		}
	}
	// rawVectors is vectors with the PRG's output at R12 (512-bit vectors only):
	// each parent's SL, VL, SR, VR, sorted into a unit's seeds and values.
	rawVectors := func(n int, half bool) {
		t, pv, c := w.vec(12), w.vec(13), w.vec(14)
		for p := range n / per {
			S, V := w.vec(2*p), w.vec(2*p+1)
			if half {
				w.mov(Mem{Base: R12}, S)
				VSHUFI64X2(U8(0xdd), S, S, V)
				VSHUFI64X2(U8(0x88), S, S, S)
			} else {
				w.mov(Mem{Base: R12, Disp: 128 * p}, S)
				w.mov(Mem{Base: R12, Disp: 128*p + 64}, c)
				VSHUFI64X2(U8(0xdd), c, S, V)
				VSHUFI64X2(U8(0x88), c, S, S)
			}
			unitOf(RSI, p, t, half)
			w.tmask(t, t)
			unitOf(R9, p, pv, half)
			children(p, 0, S, V, c, t, pv, half)
		}
	}
	advance := func(parents int, raw bool) {
		ADDQ(U32(16*parents), RSI)
		ADDQ(U32(16*parents), R9)
		ADDQ(U32(32*parents), RDI)
		if !leaves {
			ADDQ(U32(32*parents), R8)
			ADDQ(U32(32*parents), R10)
		}
		if raw {
			ADDQ(U32(64*parents), R12)
		}
		SUBQ(U32(parents), RCX)
	}
	switch w.blocks {
	case 2:
		sortKeys()
	case 4: // keys nil: the PRG's output at raw
		TESTQ(RDX, RDX)
		JZ(LabelRef(name + "_sorted"))
		sortKeys()
		Label(name + "_sorted")
	}
	k.byArith(w.vec(0), func(prefix string) {
		if w.wide() {
			wideLoops(prefix, R12, per, vectors, rawVectors, advance)
			return
		}
		rowLoops(prefix, levelGroup/per, per, func(n int) { vectors(n, false) }, func(p int) { advance(p, false) })
	})
	VZEROUPPER()
	RET()
}
