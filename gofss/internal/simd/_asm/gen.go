package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The Gen level routines (package simd's DpfGenLevel and DcfGenLevel) in all three
// widths, with AES-128 MMO run in place (on 512-bit vectors also from the PRG's
// output in memory): for each key of a tile, both parties' nodes expand into their
// left (L) and right (R) children (DCF: each child a seed and a value output: SL,
// VL, SR, VR), the level's correction word comes from the side away from alpha, and
// both parties move to the child on alpha's side.
//
// A vector holds one party's output o of w.blocks consecutive keys (a unit of keys,
// lane i key i of the unit): the parties' XOR is one VPXOR, every step after the AES
// works on all of a unit's keys at once, and a unit's nodes, alphas and values load
// as one vector. The round keys, the same in every lane, are broadcast into a table
// by the prologue for 256- and 512-bit vectors, and each round loads its keys into
// registers 10-13 (keyedRounds). A group is 8 vectors: 2 units for DPF, 1 for DCF.
// Registers after the rounds: the alpha mask (10), the parties' L XOR R outputs
// (11, 12), the seed correction (13), scratch (14, 15); the control-bit mask (8),
// the shift counts (9). DCF works out the value correction first, with 11-14 as
// scratch, into the register of VL. On 512-bit vectors the parked parents and the
// constants are in registers 16-29.
//
// Every move between general and vector registers is VEX-encoded: one legacy SSE
// instruction among VEX ones cost about 110 ns each time on Zen 3.

// genRoutine generates dpfGenLevel<W>, or with dcf dcfGenLevel<W>. On 512-bit
// vectors it also takes the PRG's output from ch instead of running AES (rk nil),
// for the other PRGs: the states come from memory, and each party's kept child,
// clamped, goes to s as the next level's PRG input.
func genRoutine(w width, dcf bool) {
	name, outs, extra := "dpfGenLevel"+w.name, 2, ""
	if dcf {
		name, outs, extra = "dcfGenLevel"+w.name, 4, "vs, betas *byte, gt bool, ar *[8]uint64, "
	}
	TEXT(name, 0, fmt.Sprintf("func(u0, u1, s, ch, alphas, rows *byte, stride, keys, padded int, cnt *[2]uint64, %srk *[%d][11][16]byte)", extra, outs))
	Pragma("noescape")
	units := 8 / (2 * outs)   // units a group: w.blocks keys, a vector a party and output
	group := units * w.blocks // keys a group
	step := group
	if w.wide() && !dcf {
		step = w.blocks // see groups
	}
	Doc(name + " is " + name[:11] + " with AES keys, in steps of " + fmt.Sprint(step) + " keys.")
	// The parked nodes and the constants: on the stack, or on 512-bit vectors in
	// the registers after those of the group arithmetic's constants (16-21).
	var parked func(i int) Op
	var one Op // qwords of 1
	if w.wide() {
		parked = func(i int) Op { return zregs[22+i] }
		one = Z26
	} else {
		slots := AllocLocal(2 * units * w.size())
		parked = func(i int) Op { return slots.Offset(i * w.size()) }
		one = AllocLocal(w.size())
	}
	lsbv, cnt := w.vec(8), w.vec(9)
	var key func(o, r int) Mem
	var keyTable func()
	switch w.blocks {
	case 1:
		Load(Param("rk"), RDX)
		key = func(o, r int) Mem { return Mem{Base: RDX, Disp: o*keyBytes + 16*r} }
	case 2:
		table := AllocLocal(outs * rounds * 32) // [output][round]: the key in both lanes
		Load(Param("rk"), RAX)
		for o := range outs {
			for r := range rounds {
				VBROADCASTI128(Mem{Base: RAX, Disp: o*keyBytes + 16*r}, w.vec(10))
				VMOVDQU(w.vec(10), table.Offset((o*rounds+r)*32))
			}
		}
		key = func(o, r int) Mem { return table.Offset((o*rounds + r) * 32) }
	default:
		// A 64-byte aligned table at DX, [output][round]: the key in every lane.
		table := AllocLocal(outs*rounds*64 + 64)
		keyTable = func() {
			Load(Param("rk"), RAX)
			LEAQ(table.Offset(63), RDX)
			ANDQ(I8(-64), RDX)
			for o := range outs {
				for r := range rounds {
					VBROADCASTI32X4(Mem{Base: RAX, Disp: o*keyBytes + 16*r}, w.vec(10))
					VMOVDQA64(w.vec(10), Mem{Base: RDX, Disp: (o*rounds + r) * 64})
				}
			}
		}
		key = func(o, r int) Mem { return Mem{Base: RDX, Disp: (o*rounds + r) * 64} }
	}
	arith := &walk{w: w, name: name} // DCF's group arithmetic
	var gtv Op                       // DCF: all ones for x > alpha
	if dcf {
		if !w.wide() {
			arith.consts = AllocLocal(consts * w.size())
		}
		Load(Param("ar"), RAX)
		arith.loadArith()
		gtv = Z27
		if !w.wide() {
			gtv = AllocLocal(w.size())
		}
		Load(Param("gt"), RAX)
		NEGQ(RAX)
		VMOVQ(RAX, X10)
		VPBROADCASTQ(X10, w.vec(10))
		w.mov(w.vec(10), gtv)
		Load(Param("vs"), R8)
		Load(Param("betas"), R9)
	}
	MOVQ(U32(1), RAX)
	VMOVQ(RAX, X10)
	VPBROADCASTQ(X10, w.vec(10))
	w.mov(w.vec(10), one)
	w.controlMask(lsbv)
	if w.wide() {
		VMOVDQU64(rowPairTable, rowPairs[0])
		VMOVDQU64(rowPairTable.Offset(64), rowPairs[1])
	}
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
	// With ch (BX: party 0's PRG output; party 1's chHalf bytes on), s at DX
	// receives the kept children, clamped (party 1's sHalf bytes on).
	var chHalf, sHalf Mem
	if w.wide() {
		chHalf, sHalf = AllocLocal(8), AllocLocal(8)
	}
	// half is the address of party p's part at base, off bytes on.
	half := func(base GPPhysical, h Mem, p, off int) Mem {
		if p == 0 {
			return Mem{Base: base, Disp: off}
		}
		MOVQ(h, RAX)
		return Mem{Base: base, Index: RAX, Scale: 1, Disp: off}
	}
	// aesStates runs the PRG on the parents of units us (register sets and units at
	// the node pointers both), into their states, but for MMO's last step (feed).
	aesStates := func(us ...int) {
		for _, u := range us {
			for p := range 2 {
				x := state(u, 0, p)
				w.mov(unitAt(w, nodes[p], u), x)
				w.andn(x, lsbv, x)
				w.mov(x, parked(2*u+p))
				for o := outs - 1; o > 0; o-- {
					w.xor(key(o, 0), x, state(u, o, p))
				}
				w.xor(key(0, 0), x, x)
			}
		}
		var states []VecPhysical
		for _, u := range us {
			for p := range 2 {
				for o := range outs {
					states = append(states, state(u, o, p))
				}
			}
		}
		keyedRounds(w, states, outs, 10, key)
	}
	// feed ends unit u's PRG with AES: MMO's last step, the parked parents XORed in.
	feed := func(raw bool, u int) {
		if raw {
			return
		}
		for p := range 2 {
			for o := range outs {
				w.xor(parked(2*u+p), state(u, o, p), state(u, o, p))
			}
		}
	}
	// rawStates reads the states of units us from ch, a key's outputs one after the
	// other, sorted into a vector per output.
	rawStates := func(us ...int) {
		t := w.vecs(16)[10:]
		for _, u := range us {
			for p := range 2 {
				for i := range outs {
					VMOVDQU64(half(RBX, chHalf, p, (u*outs+i)*w.size()), t[i])
				}
				if outs == 2 { // L, R
					VSHUFI64X2(U8(0x88), t[1], t[0], state(u, 0, p))
					VSHUFI64X2(U8(0xdd), t[1], t[0], state(u, 1, p))
					continue
				}
				// SL, VL, SR, VR: the pairs of the first two keys, of the last
				// two, then each output's four.
				VSHUFI64X2(U8(0x88), t[1], t[0], t[4])
				VSHUFI64X2(U8(0xdd), t[1], t[0], t[5])
				VSHUFI64X2(U8(0x88), t[3], t[2], t[0])
				VSHUFI64X2(U8(0xdd), t[3], t[2], t[1])
				VSHUFI64X2(U8(0x88), t[0], t[4], state(u, 0, p))
				VSHUFI64X2(U8(0xdd), t[0], t[4], state(u, 2, p))
				VSHUFI64X2(U8(0x88), t[1], t[5], state(u, 1, p))
				VSHUFI64X2(U8(0xdd), t[1], t[5], state(u, 3, p))
			}
		}
	}
	states := func(raw bool, us ...int) {
		if raw {
			rawStates(us...)
		} else {
			aesStates(us...)
		}
	}
	amask, dl, dr, scw, t, m := w.vec(10), w.vec(11), w.vec(12), w.vec(13), w.vec(14), w.vec(15)
	// row writes the correction words of unit u's keys, but for padding keys: the
	// seed correction with tl, then tr alone (DPF, vcw nil) or with the value
	// correction. Its labels begin with prefix.
	row := func(prefix string, u int, tl, tr, vcw VecPhysical) {
		w.or(tl, scw, t)
		if vcw != nil {
			w.or(tr, vcw, m)
		} else {
			VPSHUFD(U8(0x03), tr, m)
		}
		// On 512-bit vectors, the rows of keys 0, 1 into rowScratch and those of
		// keys 2, 3 into t, a row to a ymm.
		if w.wide() {
			VMOVDQA64(t, rowScratch)
			VPERMT2Q(m, rowPairs[0], rowScratch)
			VPERMT2Q(m, rowPairs[1], t)
		}
		for i := range w.blocks {
			k := w.blocks*u + i
			skip := fmt.Sprintf("%s_pad%d", prefix, k)
			CMPQ(R14, U8(k))
			JLE(LabelRef(skip))
			switch {
			case w.wide():
				pair := []VecPhysical{rowScratch, t}[i/2]
				if i%2 == 0 {
					VMOVDQU64(pair.AsY(), Mem{Base: R11})
				} else {
					VEXTRACTI64X4(U8(1), pair, Mem{Base: R11})
				}
			case i == 0:
				VMOVDQU(t.AsX(), Mem{Base: R11})
				VMOVDQU(m.AsX(), Mem{Base: R11, Disp: 16})
			default:
				VEXTRACTI128(U8(1), t, Mem{Base: R11})
				VEXTRACTI128(U8(1), m, Mem{Base: R11, Disp: 16})
			}
			Label(skip)
			ADDQ(R13, R11)
		}
	}
	// level emits the rest of the level for unit u, from its states: the
	// correction words, the parties' nodes (and with raw their seeds) moved to the
	// kept children. Its labels begin with prefix.
	level := func(prefix string, u int, raw bool) {
		// a: alpha's bit at the level, as a mask.
		w.mov(unitAt(w, R12, u), amask)
		VPSRLVQ(cnt, amask, amask)
		VPSHUFD(U8(0x4e), amask, t)
		w.or(t, amask, amask)
		w.and(one, amask, amask)
		w.xor(t, t, t)
		VPSUBQ(amask, t, amask)
		var vcw VecPhysical
		if dcf {
			vcw = dcfGenValues(arith, u, amask, gtv, func(side, p int) VecPhysical { return state(u, 2*side+1, p) })
		}
		// The parties' XOR of each side's outputs.
		w.xor(seed(u, 0, 0), seed(u, 0, 1), dl)
		w.xor(seed(u, 1, 0), seed(u, 1, 1), dr)
		// The seed correction: the side away from alpha, clamped.
		w.pick(amask, dl, dr, scw)
		w.andn(scw, lsbv, scw)
		// The control-bit corrections tl = t(dl) ^ a ^ 1 (in dl), tr = t(dr) ^ a (in dr).
		w.and(lsbv, amask, t)
		w.ternlog(0x6a, t, lsbv, dr, func() {
			w.and(lsbv, dr, dr)
			w.xor(t, dr, dr)
		})
		w.ternlog(0xa6, t, lsbv, dl, func() {
			w.and(lsbv, dl, dl)
			w.xor(t, dl, dl)
			w.xor(lsbv, dl, dl)
		})
		// Each party's child on alpha's side.
		for p := range 2 {
			l, r := seed(u, 0, p), seed(u, 1, p)
			w.pick(amask, r, l, l)
		}
		// The rows, then the correction of the kept side: the seed's with that
		// side's control bit.
		row(prefix, u, dl, dr, vcw)
		w.pick(amask, dr, dl, t)
		w.or(t, scw, scw)
		// Each party moves to its kept child: XORed with the correction where
		// the party's control bit is 1, and written back as the next level's node.
		for p := range 2 {
			kept := seed(u, 0, p)
			w.mov(unitAt(w, nodes[p], u), m)
			w.tmask(m, m)
			w.ternlog(0x78, scw, m, kept, func() {
				w.and(scw, m, m)
				w.xor(m, kept, kept)
			})
			w.mov(kept, unitAt(w, nodes[p], u))
			if raw {
				w.andn(kept, lsbv, kept)
				w.mov(kept, half(RDX, sHalf, p, u*w.size()))
			}
		}
	}
	// advance moves past keys keys.
	advance := func(keys int, raw bool) {
		ADDQ(U32(16*keys), RDI)
		ADDQ(U32(16*keys), RSI)
		ADDQ(U32(16*keys), R12)
		if dcf {
			ADDQ(U32(16*keys), R8)
			ADDQ(U32(16*keys), R9)
		}
		if raw {
			ADDQ(U32(16*outs*keys), RBX)
			ADDQ(U32(16*keys), RDX)
		}
		SUBQ(U32(keys), R14)
		SUBQ(U32(keys), RCX)
	}
	// groups emits the loop over the keys, its labels named loop: a group (8 states)
	// an iteration. On 512-bit vectors, where a padded tile's keys are a multiple
	// of a unit but not of DPF's group of two, DPF goes a unit a step instead, and
	// each step first starts the next unit's PRG (in the second unit's registers,
	// moved to the first's for the next step), which then runs beside the step's
	// other work: without it the routine took 1.15x the time (Zen 4). On the
	// narrower widths the same took DPF Gen 1.05x the time of the groups.
	groups := func(loop string, raw bool) {
		if dcf || !w.wide() {
			Label(loop)
			us := []int{0, 1}[:units]
			states(raw, us...)
			for _, u := range us {
				feed(raw, u)
				level(loop, u, raw)
			}
			advance(group, raw)
			JNZ(LabelRef(loop))
			return
		}
		states(raw, 0)
		feed(raw, 0)
		Label(loop)
		CMPQ(RCX, U8(w.blocks))
		JBE(LabelRef(loop + "_last"))
		states(raw, 1)
		feed(raw, 1)
		Label(loop + "_last")
		level(loop, 0, raw)
		advance(w.blocks, raw)
		JZ(LabelRef(loop + "_done"))
		for p := range 2 {
			for o := range outs {
				w.mov(state(1, o, p), state(0, o, p))
			}
		}
		JMP(LabelRef(loop))
		Label(loop + "_done")
	}
	// levels emits the routine's loops for the PRG's output from ch or from the
	// AES run here, as prefix says.
	levels := func(prefix string, raw bool) {
		if dcf {
			w.mov(arith.c(cXor), w.vec(10))
			byArith(w, prefix, w.vec(10), &arith.arith, func(prefix string) { groups(prefix+"_group", raw) })
		} else {
			groups(prefix+"_group", raw)
		}
	}
	if !w.wide() {
		levels(name, false)
		VZEROUPPER()
		RET()
		return
	}
	Load(Param("ch"), RBX)
	TESTQ(RBX, RBX)
	JNZ(LabelRef(name + "_ch"))
	keyTable()
	levels(name+"_aes", false)
	VZEROUPPER()
	RET()
	Label(name + "_ch")
	Load(Param("padded"), RAX)
	SHLQ(U8(4), RAX)
	MOVQ(RAX, sHalf)
	IMUL3Q(U8(outs), RAX, RAX)
	MOVQ(RAX, chHalf)
	Load(Param("s"), RDX)
	levels(name+"_raw", true)
	VZEROUPPER()
	RET()
}

// The VPERMT2Q indices that pair the first and second blocks of 4 keys' rows (in
// two vectors, the first's qwords 0-7 and the second's 8-15): those of keys 0 and
// 1, then of keys 2 and 3; in registers for the 512-bit Gen routines.
var (
	rowPairTable Mem
	rowPairs     = []VecPhysical{Z28, Z29}
)

func rowPairIndices() {
	rowPairTable = GLOBL("genrowpairs", RODATA|NOPTR)
	for i, v := range []uint64{0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15} {
		DATA(8*i, U64(v))
	}
}

// pick sets dst to a where mask (all ones or zeros in each lane) is set, else b:
// one instruction for the three of an XOR select, VPBLENDVB or on 512-bit vectors
// VPTERNLOGQ (after a move of b into dst, which must not be a).
func (w width) pick(mask, a, b, dst VecPhysical) {
	if !w.wide() {
		VPBLENDVB(mask, a, b, dst)
		return
	}
	if dst == a && a != b {
		panic("pick: dst is a")
	}
	if dst != b {
		VMOVDQA64(b, dst)
	}
	VPTERNLOGQ(U8(0xd8), mask, a, dst)
}

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
func dcfGenValues(g *walk, u int, amask VecPhysical, gtv Op, value func(side, p int) VecPhysical) VecPhysical {
	w := g.w
	x, y, t, v := w.vec(11), w.vec(12), w.vec(13), w.vec(14)
	for p := range 2 {
		l, r := value(0, p), value(1, p)
		w.and(g.c(cFrom), l, x)
		w.and(g.c(cFrom), r, r)
		w.pick(amask, r, x, l) // keep
		w.pick(amask, x, r, r) // lose
	}
	keep0, lose0 := value(0, 0), value(1, 0)
	keep1, lose1 := value(0, 1), value(1, 1)
	g.gsub(lose0, lose1, t) // lose1 - lose0
	g.gsub(keep1, keep0, t) // keep0 - keep1
	w.mov(unitAt(w, R9, u), y)
	w.xor(gtv, amask, t)
	w.and(t, y, y)
	g.gadd(y, lose1, t) // + beta
	w.mov(unitAt(w, R8, u), v)
	g.gadd(lose1, keep0, t)
	w.mov(keep0, unitAt(w, R8, u))
	g.gsub(v, lose1, t) // raw
	w.mov(unitAt(w, RSI, u), y)
	w.tmask(y, y)
	w.and(g.c(cNeg), y, y)
	w.xor(y, lose1, lose1)
	VPSUBQ(y, lose1, lose1)
	w.and(g.c(cMask), lose1, keep0)
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
