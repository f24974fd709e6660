package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The Gen level routines with AES-128 MMO run in place (dpfGenLevel's and
// dcfGenLevel's jobs with keys, avx512.go): for each key of a tile, both parties'
// nodes expand into their left (L) and right (R) children (DCF: each child a seed
// and a value output: SL, VL, SR, VR), the level's correction word comes from the
// side away from alpha, and both parties move to the child on alpha's side.
//
// With 256-bit vectors a key's output o of both parties shares a vector (party 0 in
// the low lane), so the parties' XOR is one lane swap away and a choice by alpha's
// bit a blend; their round keys, the same in both lanes, come from a table the
// prologue builds. With 128-bit vectors each output has its own. A group is 8
// vectors: DPF 4 keys or 2, DCF 2 or 1. Registers after the rounds, per key: the
// alpha mask (10), the parties' L XOR R outputs (11, 12), the seed correction (13),
// scratch (14, 15); the control-bit mask (8), the shift counts (9). DCF works out
// the value correction first, with 11-15 as scratch, into the register of VL.
//
// DPF on 256-bit vectors reads alpha's bit before the rounds (BT on the level's
// qword) and runs each key's outputs as its kept side (alpha's) and its lost side,
// each under its own side's round keys (the table holds L, R, L; a general register
// a key holds where its kept side starts): the fold then selects no child, and the
// lost XOR is the seed correction as it is. That fold is about a third shorter,
// and a Gen of 4096 keys took 0.82 times the time (with the VEX moves below).
// Every move between general and vector registers is VEX-encoded: one legacy SSE
// instruction among VEX ones cost about 110 ns each time on Zen 3.

// genRoutine generates dpfGenLevel<W>, or with dcf dcfGenLevel<W>.
func genRoutine(w width, dcf bool) {
	name, outs, extra := "dpfGenLevel"+w.name, 2, ""
	if dcf {
		name, outs, extra = "dcfGenLevel"+w.name, 4, "vs, betas *byte, gt bool, ar *[8]uint64, "
	}
	TEXT(name, 0, fmt.Sprintf("func(u0, u1, s, ch, alphas, rows *byte, stride, keys, padded int, cnt *[2]uint64, %srk *[%d][11][16]byte)", extra, outs))
	Pragma("noescape")
	perKey := 2 * outs / w.blocks // vectors a key
	group := 8 / perKey           // keys a group
	Doc(name + " is " + name[:11] + " with AES keys, in groups of " + fmt.Sprint(group) + " keys.")
	parked := AllocLocal(group * 2 * 16)
	one := AllocLocal(w.size()) // qwords of 1
	lsbv, cnt := w.vec(8), w.vec(9)
	// keyed: DPF on 256-bit vectors takes each key's outputs as its kept side
	// (alpha's) and its lost side, each under that side's round keys: the table
	// holds L, R, L, and key k's kept side starts a · tableStride into it (in
	// base[k]), its lost side one stride on. The fold then selects nothing.
	keyed := w.blocks == 2 && !dcf
	const tableStride = rounds * 32
	base := []GPPhysical{RDX, R8, R9, R10}
	var key func(k, o, r int) Mem
	if w.blocks == 2 {
		var order []int // the table's outputs
		for o := range outs {
			order = append(order, o)
		}
		if keyed {
			order = append(order, 0)
		}
		table := AllocLocal(len(order) * tableStride) // [output][round]: the key in both lanes
		Load(Param("rk"), RAX)
		for i, o := range order {
			for r := range rounds {
				VBROADCASTI128(Mem{Base: RAX, Disp: o*keyBytes + 16*r}, w.vec(10))
				VMOVDQU(w.vec(10), table.Offset(i*tableStride+32*r))
			}
		}
		key = func(k, o, r int) Mem {
			if keyed {
				return table.Idx(base[k], 1).Offset(o*tableStride + 32*r)
			}
			return table.Offset(o*tableStride + 32*r)
		}
	} else {
		Load(Param("rk"), RDX)
		key = func(_, o, r int) Mem { return Mem{Base: RDX, Disp: o*keyBytes + 16*r} }
	}
	arith := &walk{w: w, name: name} // DCF's group arithmetic
	var gtv Mem                      // DCF: all ones for x > alpha
	if dcf {
		arith.consts = AllocLocal(consts * w.size())
		Load(Param("ar"), RAX)
		arith.loadArith()
		gtv = AllocLocal(w.size())
		Load(Param("gt"), RAX)
		NEGQ(RAX)
		VMOVQ(RAX, X10)
		VPBROADCASTQ(X10, w.vec(10))
		VMOVDQU(w.vec(10), gtv)
		Load(Param("vs"), R8)
		Load(Param("betas"), R9)
	}
	MOVQ(U32(1), RAX)
	VMOVQ(RAX, X10)
	VPBROADCASTQ(X10, w.vec(10))
	VMOVDQU(w.vec(10), one)
	w.spread(lsb, lsbv)
	Load(Param("cnt"), RAX)
	w.spread(Mem{Base: RAX}, cnt)
	Load(Param("u0"), RDI)
	Load(Param("u1"), RSI)
	Load(Param("alphas"), R12)
	Load(Param("rows"), R11)
	Load(Param("stride"), R13)
	Load(Param("keys"), R14)
	Load(Param("padded"), RCX)

	// state is the vector of key k's output o of party p (256-bit: both parties);
	// seed is that of the seed output of a side.
	state := func(k, o, p int) VecPhysical {
		if w.blocks == 2 {
			return w.vec(outs*k + o)
		}
		return w.vec(2*outs*k + outs*p + o)
	}
	seed := func(k, side, p int) VecPhysical { return state(k, side*outs/2, p) }
	if keyed {
		// The level's bit of alpha: bit BX of the qword at R12 (moved to the high
		// qword where the bit is there).
		MOVQ(Mem{Base: RAX}, RBX)
		MOVQ(RBX, R8)
		SHRQ(U8(6), R8)
		SHLQ(U8(3), R8)
		ADDQ(R8, R12)
		ANDQ(U8(63), RBX)
	}
	Label(name + "_group")
	if keyed {
		for k := range group {
			MOVQ(Mem{Base: R12, Disp: 16 * k}, RAX)
			XORQ(base[k], base[k])
			BTQ(RBX, RAX)
			SETCS(base[k].As8())
			IMUL3Q(U32(tableStride), base[k], base[k])
		}
	}
	// nodes loads key k's node of party p (256-bit vectors: of both) into x.
	nodes := func(k, p int, x VecPhysical) {
		if w.blocks == 2 {
			VMOVDQU(Mem{Base: RDI, Disp: 16 * k}, x.AsX())
			VINSERTI128(U8(1), Mem{Base: RSI, Disp: 16 * k}, x, x)
		} else {
			VMOVDQU(Mem{Base: []GPPhysical{RDI, RSI}[p], Disp: 16 * k}, x)
		}
	}
	for k := range group {
		for p := 0; p < 2/w.blocks; p++ {
			x := state(k, 0, p)
			nodes(k, p, x)
			VPANDN(x, lsbv, x)
			VMOVDQU(x, parked.Offset((2*k+p)*16))
			for o := outs - 1; o > 0; o-- {
				VPXOR(key(k, o, 0), x, state(k, o, p))
			}
			VPXOR(key(k, 0, 0), x, x)
		}
	}
	for r := 1; r < rounds; r++ {
		for k := range group {
			for p := 0; p < 2/w.blocks; p++ {
				for o := range outs {
					aes(r, key(k, o, r), state(k, o, p))
				}
			}
		}
	}
	amask, dl, dr, scw, t, u := w.vec(10), w.vec(11), w.vec(12), w.vec(13), w.vec(14), w.vec(15)
	// row writes key k's correction word, unless the key is padding: the seed
	// correction with tl, then tr alone (DPF, vcw nil) or with the value correction.
	row := func(k int, tl, tr, vcw VecPhysical) {
		skip := fmt.Sprintf("%s_pad%d", name, k)
		CMPQ(R14, U8(k))
		JLE(LabelRef(skip))
		VPOR(tl, scw, t)
		VMOVDQU(t.AsX(), Mem{Base: R11})
		if vcw != nil {
			VPOR(tr, vcw, t)
		} else {
			VPSHUFD(U8(0x03), tr, t)
		}
		VMOVDQU(t.AsX(), Mem{Base: R11, Disp: 16})
		Label(skip)
		ADDQ(R13, R11)
	}
	// nextSeeds moves each party of key k to its kept child: XORed, where the
	// party's control bit is 1, with corr (the seed correction with the kept side's
	// control-bit correction), and written back as the next level's node.
	nextSeeds := func(k int, corr VecPhysical) {
		for p := 0; p < 2/w.blocks; p++ {
			kept := seed(k, 0, p)
			nodes(k, p, u)
			tmask(u, u)
			VPAND(corr, u, u)
			VPXOR(u, kept, kept)
			if w.blocks == 2 {
				VMOVDQU(kept.AsX(), Mem{Base: RDI, Disp: 16 * k})
				VEXTRACTI128(U8(1), kept, Mem{Base: RSI, Disp: 16 * k})
			} else {
				VMOVDQU(kept, Mem{Base: []GPPhysical{RDI, RSI}[p], Disp: 16 * k})
			}
		}
	}
	// keyedFold is the fold of key k in the keyed layout (seed side 0 kept, 1
	// lost; base[k] holds a · tableStride), the parties' XORs of the kept and the
	// lost outputs in dl and dr.
	keyedFold := func(k int) {
		kx, lx := dl, dr
		MOVQ(base[k], RAX)
		NEGQ(RAX)
		SARQ(U8(63), RAX)
		VMOVQ(RAX, amask.AsX())
		VPBROADCASTQ(amask.AsX(), amask)
		// The parties' XORs of the kept and the lost outputs; the lost one,
		// clamped, is the seed correction.
		VPERM2I128(U8(0x01), seed(k, 0, 0), seed(k, 0, 0), kx)
		VPXOR(seed(k, 0, 0), kx, kx)
		VPERM2I128(U8(0x01), seed(k, 1, 0), seed(k, 1, 0), lx)
		VPXOR(seed(k, 1, 0), lx, lx)
		VPANDN(lx, lsbv, scw)
		// The control-bit corrections: lsb(kept XOR) ^ 1 on the kept side (in kx),
		// lsb(lost XOR) on the lost side (in lx); the kept side's goes with the seed
		// correction (in u), then the two become tl and tr by alpha's bit.
		VPAND(lsbv, kx, kx)
		VPXOR(lsbv, kx, kx)
		VPAND(lsbv, lx, lx)
		VPOR(kx, scw, u)
		VPXOR(kx, lx, t)
		VPAND(amask, t, t)
		VPXOR(t, kx, kx)
		VPXOR(t, lx, lx)
		row(k, kx, lx, nil)
		VMOVDQU(u, scw)
		nextSeeds(k, scw)
	}
	for k := range group {
		for p := 0; p < 2/w.blocks; p++ {
			for o := range outs {
				VPXOR(parked.Offset((2*k+p)*16), state(k, o, p), state(k, o, p))
			}
		}
		if keyed {
			keyedFold(k)
			continue
		}
		// a: alpha's bit at the level, as a mask.
		w.spread(Mem{Base: R12, Disp: 16 * k}, amask)
		VPSRLVQ(cnt, amask, amask)
		VPSHUFD(U8(0x4e), amask, t)
		VPOR(t, amask, amask)
		VPAND(one, amask, amask)
		VPXOR(t, t, t)
		VPSUBQ(amask, t, amask)
		var vcw VecPhysical
		if dcf {
			vcw = dcfGenValues(arith, k, amask, gtv, func(side, p int) VecPhysical { return state(k, 2*side+1, p) })
		}
		// The parties' XOR of each side's outputs.
		if w.blocks == 2 {
			VPERM2I128(U8(0x01), seed(k, 0, 0), seed(k, 0, 0), dl)
			VPXOR(seed(k, 0, 0), dl, dl)
			VPERM2I128(U8(0x01), seed(k, 1, 0), seed(k, 1, 0), dr)
			VPXOR(seed(k, 1, 0), dr, dr)
		} else {
			VPXOR(seed(k, 0, 0), seed(k, 0, 1), dl)
			VPXOR(seed(k, 1, 0), seed(k, 1, 1), dr)
		}
		// The seed correction: the side away from alpha, clamped.
		VPXOR(dl, dr, scw)
		VPAND(amask, scw, scw)
		VPXOR(dr, scw, scw)
		VPANDN(scw, lsbv, scw)
		// The control-bit corrections tl = t(dl) ^ a ^ 1 (in dl), tr = t(dr) ^ a (in dr).
		VPAND(lsbv, amask, t)
		VPAND(lsbv, dr, dr)
		VPXOR(t, dr, dr)
		VPAND(lsbv, dl, dl)
		VPXOR(t, dl, dl)
		VPXOR(lsbv, dl, dl)
		// Each party's child on alpha's side.
		for p := 0; p < 2/w.blocks; p++ {
			l, r := seed(k, 0, p), seed(k, 1, p)
			VPXOR(l, r, r)
			VPAND(amask, r, r)
			VPXOR(r, l, l)
		}
		// The row, then the correction of the kept side: the seed's with that
		// side's control bit.
		row(k, dl, dr, vcw)
		VPXOR(dl, dr, t)
		VPAND(amask, t, t)
		VPXOR(dl, t, t)
		VPOR(t, scw, scw)
		nextSeeds(k, scw)
	}
	ADDQ(U32(16*group), RDI)
	ADDQ(U32(16*group), RSI)
	ADDQ(U32(16*group), R12)
	if dcf {
		ADDQ(U32(16*group), R8)
		ADDQ(U32(16*group), R9)
	}
	SUBQ(U32(group), R14)
	SUBQ(U32(group), RCX)
	JNZ(LabelRef(name + "_group"))
	VZEROUPPER()
	RET()
}

// dcfGenValues works out key k's value correction (before its seeds change), in
// lane 0, from the value outputs value(side, p) (with 256-bit vectors both parties
// in one, p 0) and the alpha mask; it moves the key's running value V at R8 to the
// next level's and returns the register of the correction, masked (that of VL).
// With lose and keep the sides away from and on alpha's (from() applied), the
// correction is raw = lose1 - lose0 - V + beta (beta at R9 where the predicate holds
// on the lose side: the left for lt with a = 1, the right for gt with a = 0),
// negated where party 1's parent has its control bit set; V becomes V - keep1 +
// keep0 + raw = lose1 - lose0 + beta + keep0 - keep1 (the signs of the correction
// and of its use in V cancel).
func dcfGenValues(g *walk, k int, amask VecPhysical, gtv Mem, value func(side, p int) VecPhysical) VecPhysical {
	w := g.w
	x, y, t, v := w.vec(11), w.vec(12), w.vec(13), w.vec(14)
	for p := 0; p < 2/w.blocks; p++ {
		l, r := value(0, p), value(1, p)
		VPAND(g.c(cFrom), l, l)
		VPAND(g.c(cFrom), r, r)
		VPXOR(l, r, x)
		VPAND(amask, x, x)
		VPXOR(x, l, l) // keep
		VPXOR(x, r, r) // lose
	}
	keep0, lose0 := value(0, 0), value(1, 0)
	keep1, lose1 := value(0, 1), value(1, 1)
	if w.blocks == 2 { // party 1's lanes down
		VPERM2I128(U8(0x01), lose0, lose0, x)
		VPERM2I128(U8(0x01), keep0, keep0, y)
		lose1, keep1 = x, y
	}
	g.gsub(lose0, lose1, t) // lose1 - lose0
	g.gsub(keep1, keep0, t) // keep0 - keep1
	w.spread(Mem{Base: R9, Disp: 16 * k}, y)
	VPXOR(gtv, amask, t)
	VPAND(t, y, y)
	g.gadd(y, lose1, t) // + beta
	w.spread(Mem{Base: R8, Disp: 16 * k}, v)
	g.gadd(lose1, keep0, t)
	VMOVDQU(keep0.AsX(), Mem{Base: R8, Disp: 16 * k})
	g.gsub(v, lose1, t) // raw
	w.spread(Mem{Base: RSI, Disp: 16 * k}, y)
	tmask(y, y)
	VPAND(g.c(cNeg), y, y)
	VPXOR(y, lose1, lose1)
	VPSUBQ(y, lose1, lose1)
	VPAND(g.c(cMask), lose1, keep0)
	return keep0
}

// gsub sets x -= y in the group (t is clobbered), as gadd adds.
func (k *walk) gsub(y, x, t VecPhysical) {
	VPXOR(y, x, t)
	VPSUBQ(y, x, x)
	VPXOR(x, t, t)
	VPAND(k.c(cXor), t, t)
	VPXOR(t, x, x)
}

// ntCopy is one of the copies that store whole vectors non-temporally: its name, its
// vector register and the move that loads it.
type ntCopy struct {
	name string
	v    VecPhysical
	load func(ops ...Op)
}

var (
	copyNTAVX2   = ntCopy{"copyNTAVX2", Y0, func(ops ...Op) { VMOVDQU(ops[0], ops[1]) }}
	copyNTAVX512 = ntCopy{"copyNT", Z0, VMOVDQU64} // for AVX-512 CPUs
)

// copyNT generates c: blocks up to dst's first vector-aligned address and after
// its last go by 16-byte VEX stores (no legacy SSE next to the wide registers), the
// whole vectors between by non-temporal ones.
func copyNT(c ntCopy) {
	bytes := c.v.Size()
	TEXT(c.name, NOSPLIT, "func(dst, src *byte, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s copies n blocks from src to dst, the whole %d-byte lines of dst by non-temporal stores.", c.name, bytes))
	Load(Param("dst"), RDI)
	Load(Param("src"), RSI)
	Load(Param("n"), RCX)
	label := func(part string) string { return c.name + "_" + part }
	one := func(next string) {
		VMOVDQU(Mem{Base: RSI}, X0)
		VMOVDQU(X0, Mem{Base: RDI})
		ADDQ(U8(16), RSI)
		ADDQ(U8(16), RDI)
		DECQ(RCX)
		JMP(LabelRef(label(next)))
	}
	Label(label("head"))
	TESTQ(RCX, RCX)
	JZ(LabelRef(label("fence")))
	TESTQ(U32(bytes-1), RDI)
	JZ(LabelRef(label("body")))
	one("head")
	Label(label("body"))
	CMPQ(RCX, U8(bytes/16))
	JB(LabelRef(label("tail")))
	c.load(Mem{Base: RSI}, c.v)
	VMOVNTDQ(c.v, Mem{Base: RDI})
	ADDQ(U8(bytes), RSI)
	ADDQ(U8(bytes), RDI)
	SUBQ(U8(bytes/16), RCX)
	JMP(LabelRef(label("body")))
	Label(label("tail"))
	TESTQ(RCX, RCX)
	JZ(LabelRef(label("fence")))
	one("tail")
	Label(label("fence"))
	SFENCE()
	VZEROUPPER()
	RET()
}
