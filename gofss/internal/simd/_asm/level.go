package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The EvalAll level routines of DPF with AES-128 MMO: dpfLevel's and dpfLeaves's
// jobs with keys (avx512.go), a row of parents expanded into their children with
// the AES run in place. A vector holds w children: with 256-bit vectors a parent's
// two (lanes L, R), with 128-bit ones one. A group is 8 vectors, the rest of a row
// goes a parent at a time. Registers: the AES states (0-7), the control-bit mask (8),
// the children's seed corrections (9, and 10 with 128-bit vectors: left, right),
// scratch (11-13) and the leaves' value correction (14). SI walks the parents, DI
// the children (u or dst), R8 their seeds, CX counts the parents left, DX holds the
// LaneKeys (round r's keys at 64r: L, R, L, R).

const levelGroup = 8 // vectors

const levelSig = "func(%s, parents *byte, m int, cw *[4]uint64, %skeys *[11][4][16]byte)"

// dpfLevelRoutine generates dpfLevel<W> (leaves false: u and s receive the children
// and their clamped seeds) or dpfLeaves<W> (dst receives from(child) + t*v, negated
// under Neg and kept to Mask; a loop for each kind of the group's +, as byArith
// says).
func dpfLevelRoutine(w width, leaves bool) {
	name, args, extra := "dpfLevel"+w.name, "u, s *byte", ""
	if leaves {
		name, args, extra = "dpfLeaves"+w.name, "dst *byte", "v *[2]uint64, ar *[8]uint64, "
	}
	TEXT(name, 0, fmt.Sprintf(levelSig, args, extra))
	Pragma("noescape")
	Doc(name + " is the EvalAll routine of the same name without w's suffix, with AES keys.")
	k := &walk{w: w, name: name}
	k.consts = AllocLocal(consts * w.size())
	parked := AllocLocal(levelGroup * w.size())
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
	Load(Param("cw"), RAX)
	if w.blocks == 2 {
		VMOVDQU(Mem{Base: RAX}, w.vec(9))
	} else {
		VMOVDQU(Mem{Base: RAX}, w.vec(9))
		VMOVDQU(Mem{Base: RAX, Disp: 16}, w.vec(10))
	}
	w.spread(lsb, lsbv)
	Load(Param("parents"), RSI)
	Load(Param("m"), RCX)
	Load(Param("keys"), RDX)

	// vectors emits n vectors' work: children w*v .. w*v+w-1 of the parents at SI.
	vectors := func(n int) {
		key := func(v, r int) Mem { return Mem{Base: RDX, Disp: 64*r + 16*(w.blocks*v%2)} }
		t, c := w.vec(11), w.vec(12)
		for v := range n {
			x := w.vec(v)
			w.spread(Mem{Base: RSI, Disp: 16 * (w.blocks * v / 2)}, x)
			tmask(x, t)
			VPANDN(x, lsbv, x)
			cw := w.vec(9)
			if w.blocks == 1 && v%2 == 1 {
				cw = w.vec(10)
			}
			VPAND(cw, t, c)
			VPXOR(x, c, c)
			VMOVDQU(c, parked.Offset(v*w.size()))
			VPXOR(key(v, 0), x, x)
		}
		keys := 2 / w.blocks // L, R in turn with one block, both in a vector with two
		keyedRounds(w, w.vecs(n), keys, 11, key)
		for v := range n {
			x, out := w.vec(v), Mem{Base: RDI, Disp: v * w.size()}
			VPXOR(parked.Offset(v*w.size()), x, x)
			if !leaves {
				VMOVDQU(x, out)
				VPANDN(x, lsbv, x)
				VMOVDQU(x, Mem{Base: R8, Disp: v * w.size()})
				continue
			}
			tmask(x, t)
			VPAND(vv, t, t)
			VPAND(k.c(cFrom), x, x)
			k.gadd(t, x, c)
			VPXOR(k.c(cNeg), x, x)
			VPSUBQ(k.c(cNeg), x, x)
			VPAND(k.c(cMask), x, x)
			VMOVDQU(x, out)
		}
	}
	advance := func(parents int) {
		ADDQ(U32(16*parents), RSI)
		ADDQ(U32(32*parents), RDI)
		if !leaves {
			ADDQ(U32(32*parents), R8)
		}
		SUBQ(U32(parents), RCX)
	}
	loops := func(prefix string) { rowLoops(prefix, levelGroup*w.blocks/2, 2/w.blocks, vectors, advance) }
	if leaves {
		k.byArith(w.vec(0), loops)
	} else {
		loops(name)
	}
	VZEROUPPER()
	RET()
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
// to a lane, the round keys sorted so. Registers as dpfLevelRoutine's, with the value correction in 11,
// scratch 12-15.
func dcfLevelRoutine(w width, leaves bool) {
	name, args := "dcfLevel"+w.name, "u, s, v *byte"
	if leaves {
		name, args = "dcfLeaves"+w.name, "dst *byte"
	}
	TEXT(name, 0, fmt.Sprintf("func(%s, parents, pv *byte, m int, cw *[4]uint64, vcw *[4]uint64, ar *[8]uint64, keys *[11][4][16]byte)", args))
	Pragma("noescape")
	Doc(name + " is the EvalAll routine of the same name without w's suffix, with AES keys.")
	k := &walk{w: w, name: name}
	k.consts = AllocLocal(consts * w.size())
	parked := AllocLocal(levelGroup * w.size())
	last := AllocLocal(w.size())
	lsbv, vcw := w.vec(8), w.vec(11)
	Load(Param("ar"), RAX)
	k.loadArith()
	Load(Param("vcw"), RAX)
	w.spread(Mem{Base: RAX}, vcw)
	if leaves {
		w.spread(Mem{Base: RAX, Disp: 16}, w.vec(12))
		VMOVDQU(w.vec(12), last)
		Load(Param("dst"), RDI)
	} else {
		Load(Param("u"), RDI)
		Load(Param("s"), R8)
		Load(Param("v"), R10)
	}
	Load(Param("cw"), RAX)
	VMOVDQU(Mem{Base: RAX}, w.vec(9))
	if w.blocks == 1 {
		VMOVDQU(Mem{Base: RAX, Disp: 16}, w.vec(10))
	}
	w.spread(lsb, lsbv)
	Load(Param("parents"), RSI)
	Load(Param("pv"), R9)
	Load(Param("m"), RCX)
	Load(Param("keys"), RDX)

	per := 4 / w.blocks // vectors a parent
	key := func(v, r int) Mem { return Mem{Base: RDX, Disp: 64*r + w.size()*(v%per)} }
	if w.blocks == 2 {
		// The LaneKeys hold a round's keys as SL, VL, SR, VR; a 32-byte aligned
		// table on the stack (then at DX) holds them as (SL, SR), (VL, VR), so that
		// a parent's two vectors come out of the rounds as its children's seeds and
		// values, with no lanes to swap.
		sorted := AllocLocal(rounds*64 + 32)
		MOVQ(RDX, RAX)
		LEAQ(sorted.Offset(31), RDX)
		ANDQ(I8(-32), RDX)
		for r := range rounds {
			for v := range 2 {
				VMOVDQU(Mem{Base: RAX, Disp: 64*r + 16*v}, X12)
				VINSERTI128(U8(1), Mem{Base: RAX, Disp: 64*r + 16*v + 32}, Y12, Y12)
				VMOVDQU(Y12, Mem{Base: RDX, Disp: 64*r + 32*v})
			}
		}
	}
	// vectors emits n vectors' work: n/per parents at SI.
	vectors := func(n int) {
		for v := range n {
			x := w.vec(v)
			if v%per == 0 {
				w.spread(Mem{Base: RSI, Disp: 16 * (v / per)}, x)
				VPANDN(x, lsbv, x)
				VMOVDQU(x, parked.Offset(v/per*w.size()))
			} else {
				VMOVDQU(w.vec(v-v%per), x)
			}
		}
		for v := range n {
			VPXOR(key(v, 0), w.vec(v), w.vec(v))
		}
		keyedRounds(w, w.vecs(n), per, 12, key)
		t, pv, c := w.vec(12), w.vec(13), w.vec(14)
		for p := range n / per {
			seed := parked.Offset(p * w.size())
			for v := p * per; v < (p+1)*per; v++ {
				VPXOR(seed, w.vec(v), w.vec(v))
			}
			w.spread(Mem{Base: RSI, Disp: 16 * p}, t)
			tmask(t, t)
			w.spread(Mem{Base: R9, Disp: 16 * p}, pv)
			// The children of parent p, w at a time: their seeds S and values V, with
			// spare and x scratch.
			for c0 := 0; c0 < 2; c0 += w.blocks {
				S, V, spare, cw, x := w.vec(p*per+2*c0), w.vec(p*per+2*c0+1), c, w.vec(9+c0), w.vec(15)
				out := 32*p + 16*c0 // the children's byte offset
				VPAND(cw, t, x)
				VPXOR(x, S, S)
				VPAND(k.c(cFrom), V, V)
				VPAND(vcw, t, x)
				k.gadd(x, V, spare)
				k.gadd(pv, V, x)
				if !leaves {
					VMOVDQU(S, Mem{Base: RDI, Disp: out})
					VPANDN(S, lsbv, S)
					VMOVDQU(S, Mem{Base: R8, Disp: out})
					VMOVDQU(V, Mem{Base: R10, Disp: out})
					continue
				}
				tmask(S, x)
				VPAND(last, x, x)
				VPAND(k.c(cFrom), S, S)
				k.gadd(x, S, spare)
				k.gadd(S, V, x)
				VPXOR(k.c(cNeg), V, V)
				VPSUBQ(k.c(cNeg), V, V)
				VPAND(k.c(cMask), V, V)
				VMOVDQU(V, Mem{Base: RDI, Disp: out})
			}
		}
	}
	advance := func(parents int) {
		ADDQ(U32(16*parents), RSI)
		ADDQ(U32(16*parents), R9)
		ADDQ(U32(32*parents), RDI)
		if !leaves {
			ADDQ(U32(32*parents), R8)
			ADDQ(U32(32*parents), R10)
		}
		SUBQ(U32(parents), RCX)
	}
	k.byArith(w.vec(0), func(prefix string) { rowLoops(prefix, levelGroup/per, per, vectors, advance) })
	VZEROUPPER()
	RET()
}
