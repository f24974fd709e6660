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
// A vector holds one party's output o of w.blocks consecutive keys (a unit of keys,
// lane i key i of the unit), as the AVX-512 routines hold four: the parties' XOR is
// one VPXOR, every step after the AES works on all of a unit's keys at once, and a
// unit's nodes, alphas and values load as one vector. The round keys, the same in
// every lane, are broadcast into a table by the prologue for 256-bit vectors, and
// each round loads its keys into registers 10-13 (keyedRounds). A group is 8
// vectors: 2 units for DPF, 1 for DCF. Registers after the rounds: the
// alpha mask (10), the parties' L XOR R outputs (11, 12), the seed correction (13),
// scratch (14, 15); the control-bit mask (8), the shift counts (9). DCF works out
// the value correction first, with 11-14 as scratch, into the register of VL.
//
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
	units := 8 / (2 * outs)   // units a group: w.blocks keys, a vector a party and output
	group := units * w.blocks // keys a group
	Doc(name + " is " + name[:11] + " with AES keys, in groups of " + fmt.Sprint(group) + " keys.")
	parked := AllocLocal(2 * units * w.size())
	one := AllocLocal(w.size()) // qwords of 1
	lsbv, cnt := w.vec(8), w.vec(9)
	var key func(o, r int) Mem
	if w.blocks == 2 {
		table := AllocLocal(outs * rounds * 32) // [output][round]: the key in both lanes
		Load(Param("rk"), RAX)
		for o := range outs {
			for r := range rounds {
				VBROADCASTI128(Mem{Base: RAX, Disp: o*keyBytes + 16*r}, w.vec(10))
				VMOVDQU(w.vec(10), table.Offset((o*rounds+r)*32))
			}
		}
		key = func(o, r int) Mem { return table.Offset((o*rounds + r) * 32) }
	} else {
		Load(Param("rk"), RDX)
		key = func(o, r int) Mem { return Mem{Base: RDX, Disp: o*keyBytes + 16*r} }
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

	// state is the vector of unit u's output o of party p; seed is that of the seed
	// output of a side.
	state := func(u, o, p int) VecPhysical { return w.vec(2*outs*u + outs*p + o) }
	seed := func(u, side, p int) VecPhysical { return state(u, side*outs/2, p) }
	nodes := []GPPhysical{RDI, RSI} // the parties' nodes
	// groups emits the loop over groups, its labels named loop.
	groups := func(loop string) {
		Label(loop)
		for u := range units {
			for p := range 2 {
				x := state(u, 0, p)
				VMOVDQU(unitAt(w, nodes[p], u), x)
				VPANDN(x, lsbv, x)
				VMOVDQU(x, parked.Offset((2*u+p)*w.size()))
				for o := outs - 1; o > 0; o-- {
					VPXOR(key(o, 0), x, state(u, o, p))
				}
				VPXOR(key(0, 0), x, x)
			}
		}
		var states []VecPhysical
		for u := range units {
			for p := range 2 {
				for o := range outs {
					states = append(states, state(u, o, p))
				}
			}
		}
		keyedRounds(w, states, outs, 10, key)
		amask, dl, dr, scw, t, m := w.vec(10), w.vec(11), w.vec(12), w.vec(13), w.vec(14), w.vec(15)
		// row writes the correction words of unit u's keys, but for padding keys: the
		// seed correction with tl, then tr alone (DPF, vcw nil) or with the value
		// correction.
		row := func(u int, tl, tr, vcw VecPhysical) {
			VPOR(tl, scw, t)
			if vcw != nil {
				VPOR(tr, vcw, m)
			} else {
				VPSHUFD(U8(0x03), tr, m)
			}
			for i := range w.blocks {
				k := w.blocks*u + i
				skip := fmt.Sprintf("%s_pad%d", loop, k)
				CMPQ(R14, U8(k))
				JLE(LabelRef(skip))
				if i == 0 {
					VMOVDQU(t.AsX(), Mem{Base: R11})
					VMOVDQU(m.AsX(), Mem{Base: R11, Disp: 16})
				} else {
					VEXTRACTI128(U8(1), t, Mem{Base: R11})
					VEXTRACTI128(U8(1), m, Mem{Base: R11, Disp: 16})
				}
				Label(skip)
				ADDQ(R13, R11)
			}
		}
		for u := range units {
			for p := range 2 {
				for o := range outs {
					VPXOR(parked.Offset((2*u+p)*w.size()), state(u, o, p), state(u, o, p))
				}
			}
			// a: alpha's bit at the level, as a mask.
			VMOVDQU(unitAt(w, R12, u), amask)
			VPSRLVQ(cnt, amask, amask)
			VPSHUFD(U8(0x4e), amask, t)
			VPOR(t, amask, amask)
			VPAND(one, amask, amask)
			VPXOR(t, t, t)
			VPSUBQ(amask, t, amask)
			var vcw VecPhysical
			if dcf {
				vcw = dcfGenValues(arith, u, amask, gtv, func(side, p int) VecPhysical { return state(u, 2*side+1, p) })
			}
			// The parties' XOR of each side's outputs.
			VPXOR(seed(u, 0, 0), seed(u, 0, 1), dl)
			VPXOR(seed(u, 1, 0), seed(u, 1, 1), dr)
			// The seed correction: the side away from alpha, clamped.
			pick(amask, dl, dr, scw)
			VPANDN(scw, lsbv, scw)
			// The control-bit corrections tl = t(dl) ^ a ^ 1 (in dl), tr = t(dr) ^ a (in dr).
			VPAND(lsbv, amask, t)
			VPAND(lsbv, dr, dr)
			VPXOR(t, dr, dr)
			VPAND(lsbv, dl, dl)
			VPXOR(t, dl, dl)
			VPXOR(lsbv, dl, dl)
			// Each party's child on alpha's side.
			for p := range 2 {
				l, r := seed(u, 0, p), seed(u, 1, p)
				pick(amask, r, l, l)
			}
			// The rows, then the correction of the kept side: the seed's with that
			// side's control bit.
			row(u, dl, dr, vcw)
			pick(amask, dr, dl, t)
			VPOR(t, scw, scw)
			// Each party moves to its kept child: XORed with the correction where
			// the party's control bit is 1, and written back as the next level's node.
			for p := range 2 {
				kept := seed(u, 0, p)
				VMOVDQU(unitAt(w, nodes[p], u), m)
				tmask(m, m)
				VPAND(scw, m, m)
				VPXOR(m, kept, kept)
				VMOVDQU(kept, unitAt(w, nodes[p], u))
			}
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
		JNZ(LabelRef(loop))
	}
	if dcf {
		arith.byArith(w.vec(10), func(prefix string) { groups(prefix + "_group") })
	} else {
		groups(name + "_group")
	}
	VZEROUPPER()
	RET()
}

// pick sets dst to a where mask (all ones or zeros in each lane) is set, else b:
// one instruction for the three of an XOR select.
func pick(mask, a, b, dst VecPhysical) { VPBLENDVB(mask, a, b, dst) }

// unitAt is the vector of unit u's keys in the per-key array at base (a block a
// key).
func unitAt(w width, base GPPhysical, u int) Mem { return Mem{Base: base, Disp: u * w.size()} }

// dcfGenValues works out the value corrections of unit u's keys (before their seeds
// change) from the value outputs value(side, p) and the alpha mask; it moves the
// keys' running values V at R8 to the next level's and returns the register of the
// corrections, masked (that of VL). With lose and keep the sides away from and on
// alpha's (from() applied), a correction is raw = lose1 - lose0 - V + beta (beta at
// R9 where the predicate holds on the lose side: the left for lt with a = 1, the
// right for gt with a = 0), negated where party 1's parent has its control bit set;
// V becomes V - keep1 + keep0 + raw = lose1 - lose0 + beta + keep0 - keep1 (the
// signs of the correction and of its use in V cancel).
func dcfGenValues(g *walk, u int, amask VecPhysical, gtv Mem, value func(side, p int) VecPhysical) VecPhysical {
	w := g.w
	x, y, t, v := w.vec(11), w.vec(12), w.vec(13), w.vec(14)
	for p := range 2 {
		l, r := value(0, p), value(1, p)
		VPAND(g.c(cFrom), l, x)
		VPAND(g.c(cFrom), r, r)
		pick(amask, r, x, l) // keep
		pick(amask, x, r, r) // lose
	}
	keep0, lose0 := value(0, 0), value(1, 0)
	keep1, lose1 := value(0, 1), value(1, 1)
	g.gsub(lose0, lose1, t) // lose1 - lose0
	g.gsub(keep1, keep0, t) // keep0 - keep1
	VMOVDQU(unitAt(w, R9, u), y)
	VPXOR(gtv, amask, t)
	VPAND(t, y, y)
	g.gadd(y, lose1, t) // + beta
	VMOVDQU(unitAt(w, R8, u), v)
	g.gadd(lose1, keep0, t)
	VMOVDQU(keep0, unitAt(w, R8, u))
	g.gsub(v, lose1, t) // raw
	VMOVDQU(unitAt(w, RSI, u), y)
	tmask(y, y)
	VPAND(g.c(cNeg), y, y)
	VPXOR(y, lose1, lose1)
	VPSUBQ(y, lose1, lose1)
	VPAND(g.c(cMask), lose1, keep0)
	return keep0
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
