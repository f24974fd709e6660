package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The latency routines, AES-NI on single blocks: mmoOneAESNI (one source block under
// up to four keys) and the one-key tree walks evalWalkAESNI and genWalkAESNI
// (onekey_amd64.go). A block's control bit is bit 96, bit 0 of dword 3.

const walkKeysType = "*[4]*[11][16]byte"

// rounds1 runs the 11 rounds on x with the round keys at keys, each loaded into tmp;
// last, where given, replaces the last round's key (a key XORed with what the
// result is XORed with next, which saves that XOR on the latency path).
func rounds1(keys Mem, x, tmp VecVirtual, last VecVirtual) {
	for r := 0; r < rounds; r++ {
		if r == rounds-1 && last != nil {
			xmm.round(r, last, x)
			continue
		}
		xmm.roundFrom(r, keys.Offset(16*r), x, tmp)
	}
}

// lastKey returns the last round key at keys XORed with b.
func lastKey(keys Mem, b VecVirtual) VecVirtual {
	k := XMM()
	MOVOU(keys.Offset(16*(rounds-1)), k)
	PXOR(b, k)
	return k
}

func mmoOne() {
	TEXT("mmoOneAESNI", NOSPLIT, "func(keys []*[11][16]byte, dst, src *byte)")
	Pragma("noescape")
	Doc("mmoOneAESNI writes dst block j = AES(keys[j], src) XOR src for every key: one",
		"source block under every key, with no set-up before the rounds; the keys'",
		"encryptions are independent, so out-of-order execution overlaps them.")
	keys := Load(Param("keys").Base(), GP64())
	n := Load(Param("keys").Len(), GP64())
	dst := Load(Param("dst"), GP64())
	src := XMM()
	MOVOU(Mem{Base: Load(Param("src"), GP64())}, src)
	TESTQ(n, n)
	JZ(LabelRef("one_done"))
	Label("one_key")
	k := GP64()
	MOVQ(Mem{Base: keys}, k)
	x, tmp := XMM(), XMM()
	MOVOU(src, x)
	rounds1(Mem{Base: k}, x, tmp, lastKey(Mem{Base: k}, src))
	MOVOU(x, Mem{Base: dst})
	ADDQ(U8(16), dst)
	ADDQ(U8(8), keys)
	DECQ(n)
	JNZ(LabelRef("one_key"))
	Label("one_done")
	RET()
}

// clampMask returns all ones but the control bit.
func clampMask() VecVirtual {
	m, t := XMM(), GP64()
	PCMPEQL(m, m)
	MOVQ(U64(0xfffffffeffffffff), t)
	PINSRQ(U8(1), t, m)
	return m
}

// lsbMask sets m to all ones where b's control bit is set, else zeros.
func lsbMask(b, m VecVirtual) {
	PSHUFD(U8(0xff), b, m)
	PSLLL(U8(31), m)
	PSRAL(U8(31), m)
}

// ctlBit returns a block with bit 0 of r in the control-bit position, zeros elsewhere.
func ctlBit(r Register) VecVirtual {
	x := XMM()
	MOVQ(r, x)
	PSLLO(U8(12), x)
	return x
}

// maskBit returns the byte 0 or 1 of a mask's (from lsbMask) control bit, in a
// 32-bit register.
func maskBit(m VecVirtual) GPVirtual {
	r := GP32()
	MOVMSKPS(m, r)
	ANDL(U8(1), r)
	return r
}

// walkArgs loads the arguments both walks start with: the walk keys, where the
// rows, side bytes, DCF values and bits are, and the levels.
func walkArgs() (keys, rows, sides, values, bits, n GPVirtual) {
	for _, a := range []struct {
		name string
		r    *GPVirtual
	}{{"keys", &keys}, {"rows", &rows}, {"sides", &sides}, {"values", &values}, {"bits", &bits}, {"n", &n}} {
		*a.r = GP64()
		Load(Param(a.name), *a.r)
	}
	return
}

func evalWalk() {
	TEXT("evalWalkAESNI", NOSPLIT, "func(keys "+walkKeysType+", rows, sides, values, bits *byte, n, trByte int, seed *[16]byte, t uint8) uint8")
	Pragma("noescape")
	Doc("evalWalkAESNI is WalkKeys.Eval's routine; values nil: DPF. Only bit 0 of a",
		"side byte counts; n >= 1.")
	keys, rows, sides, values, bits, n := walkArgs()
	trByte := Load(Param("trByte"), GP64())
	seed := XMM()
	MOVOU(Mem{Base: Load(Param("seed"), GP64())}, seed)
	// tMask: all ones where the parent's control bit is 1.
	t := GP64()
	Load(Param("t"), t)
	NEGQ(t)
	tMask := XMM()
	MOVQ(t, tMask)
	PSHUFD(U8(0x44), tMask, tMask)
	clamp := clampMask()
	TESTQ(values, values)
	JNZ(LabelRef("dcf_level"))

	// level emits one level's step; dcf adds the value output.
	level := func(name string, dcf bool) {
		Label(name)
		side := GP64()
		MOVBQZX(Mem{Base: sides}, side)
		ANDQ(U8(1), side)
		seedKeys := GP64()
		MOVQ(Mem{Base: keys, Index: side, Scale: 8}, seedKeys)
		// The side's correction: tl (row byte 12) or tr (row byte trByte), applied
		// where the parent's control bit is 1, and the seed, both XORed into the
		// child after AES.
		tc, tr := GP64(), GP64()
		MOVBQZX(Mem{Base: rows, Disp: 12}, tc)
		MOVBQZX(Mem{Base: rows, Index: trByte, Scale: 1}, tr)
		TESTQ(side, side)
		CMOVQNE(tr, tc)
		ANDQ(U8(1), tc)
		corr := XMM()
		MOVOU(Mem{Base: rows}, corr)
		PAND(clamp, corr)
		POR(ctlBit(tc), corr)
		PAND(tMask, corr)
		PXOR(seed, corr)
		tmp := XMM()
		if dcf {
			valueKeys := GP64()
			MOVQ(Mem{Base: keys, Index: side, Scale: 8, Disp: 16}, valueKeys)
			MOVB(maskBit(tMask).As8(), Mem{Base: bits})
			v := XMM()
			MOVOU(seed, v)
			rounds1(Mem{Base: valueKeys}, v, tmp, lastKey(Mem{Base: valueKeys}, seed))
			MOVOU(v, Mem{Base: values})
			ADDQ(U8(16), values)
			INCQ(bits)
		}
		rounds1(Mem{Base: seedKeys}, seed, tmp, lastKey(Mem{Base: seedKeys}, corr))
		lsbMask(seed, tMask)
		PAND(clamp, seed)
		ADDQ(U8(32), rows)
		INCQ(sides)
		DECQ(n)
		JNZ(LabelRef(name))
	}
	level("dpf_level", false)
	JMP(LabelRef("done"))
	level("dcf_level", true)

	Label("done")
	MOVOU(seed, Mem{Base: Load(Param("seed"), GP64())})
	Store(maskBit(tMask).As8(), ReturnIndex(0))
	RET()
}

func genWalk() {
	TEXT("genWalkAESNI", NOSPLIT, "func(keys "+walkKeysType+", rows, sides, values, bits *byte, n int, seeds *[2][16]byte) uint8")
	Pragma("noescape")
	Doc("genWalkAESNI is WalkKeys.Gen's routine; values nil: DPF. Only bit 0 of a",
		"side byte counts; n >= 1.")
	keys, rows, sides, values, bits, n := walkArgs()
	seedsAt := Mem{Base: Load(Param("seeds"), GP64())}
	// The parties' seeds (clamped) and control-bit masks: party 0's bit is 0, party 1's 1.
	s0, s1, t0, t1 := XMM(), XMM(), XMM(), XMM()
	MOVOU(seedsAt, s0)
	MOVOU(seedsAt.Offset(16), s1)
	PXOR(t0, t0)
	PCMPEQL(t1, t1)
	clamp := clampMask()
	one := GP64()
	MOVQ(U32(1), one)
	ctl := ctlBit(one) // the control bit alone
	// Round keys: the seed outputs' L and R, the value outputs' L and R (DCF).
	var k [4]Mem
	for i := range k {
		r := GP64()
		MOVQ(Mem{Base: keys, Disp: 8 * i}, r)
		k[i] = Mem{Base: r}
	}

	Label("gen_level")
	a := GP64() // alpha's bit
	MOVBQZX(Mem{Base: sides}, a)
	ANDQ(U8(1), a)
	// Each party's two children (L, R), and for DCF the two value outputs; the
	// AES rounds of all of them side by side.
	l0, r0, l1, r1 := XMM(), XMM(), XMM(), XMM()
	vl0, vr0, vl1, vr1 := XMM(), XMM(), XMM(), XMM()
	tmp := XMM()
	// children runs each round on the seed outputs (keys k[0], k[1]) and, with dcf,
	// on the value outputs (k[2], k[3]): up to eight blocks in flight.
	children := func(dcf bool) {
		outs := [][2][2]VecVirtual{{{l0, l1}, {r0, r1}}}
		if dcf {
			outs = append(outs, [2][2]VecVirtual{{vl0, vl1}, {vr0, vr1}})
		}
		for _, o := range outs {
			for _, side := range o {
				MOVOU(s0, side[0])
				MOVOU(s1, side[1])
			}
		}
		for r := 0; r < rounds; r++ {
			for j, o := range outs {
				for i, side := range o {
					MOVOU(k[2*j+i].Offset(16*r), tmp)
					xmm.round(r, tmp, side[0])
					xmm.round(r, tmp, side[1])
				}
			}
		}
	}
	TESTQ(values, values)
	JZ(LabelRef("gen_seeds_only"))
	children(true)
	for i, x := range []VecVirtual{vl0, vr0, vl1, vr1} {
		s := s0
		if i >= 2 {
			s = s1
		}
		PXOR(s, x)
		MOVOU(x, Mem{Base: values, Disp: 16 * i})
	}
	ADDQ(U8(64), values)
	MOVB(maskBit(t1).As8(), Mem{Base: bits})
	INCQ(bits)
	JMP(LabelRef("gen_fold"))
	Label("gen_seeds_only")
	children(false)

	Label("gen_fold")
	PXOR(s0, l0)
	PXOR(s0, r0)
	PXOR(s1, l1)
	PXOR(s1, r1)
	// The parties' XORs on each side; tl and tr from their control bits.
	lx, rx := XMM(), XMM()
	MOVOU(l0, lx)
	PXOR(l1, lx)
	MOVOU(r0, rx)
	PXOR(r1, rx)
	tl, tr := GP32(), GP32()
	PEXTRD(U8(3), lx, tl)
	ANDL(U8(1), tl)
	XORL(a.As32(), tl)
	XORL(U8(1), tl)
	PEXTRD(U8(3), rx, tr)
	ANDL(U8(1), tr)
	XORL(a.As32(), tr)
	// am: alpha's bit as a mask; kept: the XOR on side a, lost: on the other side.
	am, zero := XMM(), XMM()
	MOVQ(a, am)
	PXOR(zero, zero)
	PSUBQ(am, zero)
	PSHUFD(U8(0x44), zero, am)
	lost, kept := XMM(), XMM()
	MOVOU(lx, lost)
	PXOR(rx, lost)
	PAND(am, lost)
	MOVOU(lx, kept)
	PXOR(lost, kept)
	PXOR(rx, lost)
	PAND(clamp, lost) // the seed correction
	// The row: the seed correction with tl, then tr, then zeros.
	row := ctlBit(tl.As64())
	POR(lost, row)
	MOVOU(row, Mem{Base: rows})
	MOVQ(tr.As64(), Mem{Base: rows, Disp: 16})
	MOVQ(U32(0), Mem{Base: rows, Disp: 24})
	// Each party keeps its side-a child, XORed where its control bit is 1 with the
	// seed correction carrying the kept side's control-bit correction, lsb(kept) ^ 1.
	for _, p := range [2][2]VecVirtual{{l0, r0}, {l1, r1}} {
		d := XMM()
		MOVOU(p[0], d)
		PXOR(p[1], d)
		PAND(am, d)
		PXOR(d, p[0])
	}
	corr := XMM()
	MOVOU(kept, corr)
	PANDN(ctl, corr) // in vectors: the bit's trip through a GP register took 8 cycles of a level's chain
	POR(lost, corr)
	c0 := XMM()
	MOVOU(corr, c0)
	PAND(t0, c0)
	PXOR(c0, l0)
	PAND(t1, corr)
	PXOR(corr, l1)
	lsbMask(l0, t0)
	MOVOU(l0, s0)
	PAND(clamp, s0)
	lsbMask(l1, t1)
	MOVOU(l1, s1)
	PAND(clamp, s1)
	ADDQ(U8(32), rows)
	INCQ(sides)
	DECQ(n)
	JNZ(LabelRef("gen_level"))

	MOVOU(s0, seedsAt)
	MOVOU(s1, seedsAt.Offset(16))
	Store(maskBit(t1).As8(), ReturnIndex(0))
	RET()
}
