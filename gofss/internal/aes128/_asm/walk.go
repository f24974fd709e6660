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

// rounds1 runs the 11 rounds on x with the round keys at keys, each loaded into tmp,
// but the last round's key is last: a key XORed with what the result is XORed
// with next, which saves that XOR on the latency path.
func rounds1(keys Mem, x, tmp, last VecVirtual) {
	allButLast(keys, x, tmp)
	xmm.round(rounds-1, last, x)
}

// allButLast runs the rounds before the last on x.
func allButLast(keys Mem, x, tmp VecVirtual) {
	for r := 0; r < rounds-1; r++ {
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

// pathSide shifts a walk's path (hi, lo), a 128-bit integer, left by one and
// returns the bit shifted out, the level's side, 0 or 1 in a 64-bit register.
func pathSide(lo, hi GPVirtual) GPVirtual {
	ADDQ(lo, lo)
	ADCQ(hi, hi)
	s := GP64()
	SETCS(s.As8())
	MOVBQZX(s.As8(), s)
	return s
}

// lanes is a group's addition in registers (the routines' lanes argument, Lanes in
// Go): a value is a block ANDed with from, x + y is (x ^ y) & xor | (x + y in each
// 64-bit half) & add.
type lanes struct{ from, xor, addMask VecVirtual }

func loadLanes(at Mem) lanes {
	g := lanes{XMM(), XMM(), XMM()}
	for i, r := range []VecVirtual{g.from, g.xor, g.addMask} {
		MOVOU(at.Offset(16*i), r)
	}
	return g
}

// add sets x to x + y; sub to x - y.
func (g lanes) add(x, y VecVirtual) { g.op(x, y, PADDQ) }
func (g lanes) sub(x, y VecVirtual) { g.op(x, y, PSUBQ) }

func (g lanes) op(x, y VecVirtual, arith func(mx, x Op)) {
	u := XMM()
	MOVOU(x, u)
	PXOR(y, u)
	arith(y, x)
	PAND(g.xor, u)
	PAND(g.addMask, x)
	POR(u, x)
}

// walkArgs loads the arguments both walks start with: the walk keys, where the
// rows are, the path and the levels.
func walkArgs() (keys, rows, lo, hi, n GPVirtual) {
	for _, a := range []struct {
		name string
		r    *GPVirtual
	}{{"keys", &keys}, {"rows", &rows}, {"lo", &lo}, {"hi", &hi}, {"n", &n}} {
		*a.r = GP64()
		Load(Param(a.name), *a.r)
	}
	return
}

func evalWalk() {
	TEXT("evalWalkAESNI", NOSPLIT, "func(keys "+walkKeysType+", rows *byte, lo, hi uint64, n, trByte int, seed *[16]byte, t uint8, lanes *[3][16]byte, sum *[16]byte) uint8")
	Pragma("noescape")
	Doc("evalWalkAESNI is WalkKeys.Eval's routine; lanes nil: DPF; n >= 1.")
	keys, rows, lo, hi, n := walkArgs()
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
	PAND(clamp, seed)
	lanesAt := Load(Param("lanes"), GP64())

	// level emits one level's step; with g (DCF) it adds the level's value to sum,
	// without (DPF) it ORs the row's bytes 16-31 into sum, for the caller's check
	// of the rows (only bit 0 of byte 16 may be set), which a pass of its own in Go
	// took 4% of a one-key Eval for.
	level := func(name string, g *lanes, sum VecVirtual) {
		Label(name)
		side := pathSide(lo, hi)
		seedKeys := GP64()
		MOVQ(Mem{Base: keys, Index: side, Scale: 8}, seedKeys)
		// The seed's rounds but the last first in program order: where operations
		// compete for a unit, the oldest ready one goes first, and these are the
		// latency path.
		tmp := XMM()
		clamped := XMM()
		MOVOU(seed, clamped)
		allButLast(Mem{Base: seedKeys}, seed, tmp)
		// The side's correction: tl (row byte 12) or tr (row byte trByte), applied
		// where the parent's control bit is 1, and the seed, both XORed into the
		// child in the last round.
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
		PXOR(clamped, corr)
		xmm.round(rounds-1, lastKey(Mem{Base: seedKeys}, corr), seed)
		if g != nil {
			// The side's value output and, where the parent's control bit is 1,
			// the row's value word: off the seeds' chain.
			valueKeys := GP64()
			MOVQ(Mem{Base: keys, Index: side, Scale: 8, Disp: 16}, valueKeys)
			v, w := XMM(), XMM()
			MOVOU(clamped, v)
			rounds1(Mem{Base: valueKeys}, v, XMM(), lastKey(Mem{Base: valueKeys}, clamped))
			PAND(g.from, v)
			MOVOU(Mem{Base: rows, Disp: 16}, w)
			PAND(g.from, w)
			PAND(tMask, w)
			g.add(v, w)
			g.add(sum, v)
		} else {
			words := XMM()
			MOVOU(Mem{Base: rows, Disp: 16}, words)
			POR(words, sum)
		}
		lsbMask(seed, tMask)
		PAND(clamp, seed)
		ADDQ(U8(32), rows)
		DECQ(n)
		JNZ(LabelRef(name))
	}
	sum := XMM()
	PXOR(sum, sum)
	TESTQ(lanesAt, lanesAt)
	JNZ(LabelRef("dcf"))
	level("dpf_level", nil, sum)
	JMP(LabelRef("done"))

	Label("dcf")
	g := loadLanes(Mem{Base: lanesAt})
	level("dcf_level", &g, sum)

	Label("done")
	MOVOU(sum, Mem{Base: Load(Param("sum"), GP64())})
	MOVOU(seed, Mem{Base: Load(Param("seed"), GP64())})
	Store(maskBit(tMask).As8(), ReturnIndex(0))
	RET()
}

func genWalk() {
	TEXT("genWalkAESNI", NOSPLIT, "func(keys "+walkKeysType+", rows *byte, lo, hi uint64, n int, seeds *[2][16]byte, lanes *[3][16]byte, beta *[2][16]byte, sum *[16]byte) uint8")
	Pragma("noescape")
	Doc("genWalkAESNI is WalkKeys.Gen's routine; lanes nil: DPF; n >= 1.")
	keys, rows, lo, hi, n := walkArgs()
	seedsAt := Mem{Base: Load(Param("seeds"), GP64())}
	// The parties' seeds (clamped) and control-bit masks: party 0's bit is 0, party 1's 1.
	s0, s1, t0, t1 := XMM(), XMM(), XMM(), XMM()
	MOVOU(seedsAt, s0)
	MOVOU(seedsAt.Offset(16), s1)
	PXOR(t0, t0)
	PCMPEQL(t1, t1)
	clamp := clampMask()
	tc0, tc1 := XMM(), XMM() // the masks without the control bit
	PXOR(tc0, tc0)
	MOVOU(clamp, tc1)
	PAND(clamp, s0)
	PAND(clamp, s1)
	lanesAt := Load(Param("lanes"), GP64())
	// DCF: the level's values (kept and lost side of party 0, then of party 1),
	// party 1's parent control-bit mask and the running value; then the clamp mask
	// and the control bit alone: on the stack, as the blocks in flight leave no
	// registers for them (the levels' folds load the masks).
	local := AllocLocal(8 * 16)
	MOVOU(clamp, local.Offset(96))
	one := GP64()
	MOVQ(U32(1), one)
	MOVOU(ctlBit(one), local.Offset(112))

	// level emits one level's step; with betaAt (DCF) also the row's value word and
	// the next running value, from the value outputs and beta.
	level := func(name string, betaAt GPVirtual) {
		dcf := betaAt != nil
		Label(name)
		// With alpha's bit a known before the AES rounds, the children come out as
		// kept (side a) and lost (side 1-a) under those sides' keys, so no select
		// waits on them; the seed correction is the lost children's XOR.
		a := pathSide(lo, hi)
		b := GP64()
		MOVQ(a, b)
		XORQ(U8(1), b)
		keyCount := 2 // the kept and the lost side's keys: seed outputs, then value outputs (DCF)
		if dcf {
			keyCount = 4
		}
		var k [4]Mem
		for i := range keyCount {
			r := GP64()
			MOVQ(Mem{Base: keys, Index: []GPVirtual{a, b}[i%2], Scale: 8, Disp: 16 * (i / 2)}, r)
			k[i] = Mem{Base: r}
		}
		k0, o0, k1, o1 := XMM(), XMM(), XMM(), XMM()
		tmp := XMM()
		outs := [][2][2]VecVirtual{{{k0, k1}, {o0, o1}}}
		if dcf {
			outs = append(outs, [2][2]VecVirtual{{XMM(), XMM()}, {XMM(), XMM()}})
		}
		for _, o := range outs {
			for _, side := range o {
				MOVOU(s0, side[0])
				MOVOU(s1, side[1])
			}
		}
		// DPF: the seed outputs' feed-forward XOR goes into their last round keys,
		// off the chain (DCF's value outputs take the registers that would need).
		var last [2][2]VecVirtual
		if !dcf {
			for i := range last {
				for p, s := range []VecVirtual{s0, s1} {
					last[i][p] = lastKey(k[i], s)
				}
			}
		}
		for r := 0; r < rounds; r++ {
			for j, o := range outs {
				for i, side := range o {
					if r == rounds-1 && !dcf {
						xmm.round(r, last[i][0], side[0])
						xmm.round(r, last[i][1], side[1])
						continue
					}
					MOVOU(k[2*j+i].Offset(16*r), tmp)
					xmm.round(r, tmp, side[0])
					xmm.round(r, tmp, side[1])
				}
			}
		}
		if dcf {
			v, from := outs[1], tmp
			MOVOU(Mem{Base: lanesAt}, from)
			for i, x := range []VecVirtual{v[0][0], v[1][0], v[0][1], v[1][1]} {
				PXOR([]VecVirtual{s0, s1}[i/2], x)
				PAND(from, x)
				MOVOU(x, local.Offset(16*i))
			}
			MOVOU(t1, local.Offset(64))
			PXOR(s0, k0)
			PXOR(s0, o0)
			PXOR(s1, k1)
			PXOR(s1, o1)
		}
		clamp := XMM()
		MOVOU(local.Offset(96), clamp)
		lost, kept := XMM(), XMM()
		MOVOU(o0, lost)
		PXOR(o1, lost)
		MOVOU(k0, kept)
		PXOR(k1, kept)
		// Each party's next seed: its kept child, XORed where its control bit is 1
		// with the seed correction, clamped; its control bit XORed there with the
		// kept side's control-bit correction, lsb(kept) ^ 1, which the clamp
		// leaves out of the seed (so the seeds do not wait on it): the bit is
		// lsb(child) ^ t·(lsb(kept) ^ 1).
		keepCorr, ctl := XMM(), XMM()
		MOVOU(kept, keepCorr)
		MOVOU(local.Offset(112), ctl) // SSE memory operands must be aligned: not the stack's
		PANDN(ctl, keepCorr)
		for _, p := range [][4]VecVirtual{{k0, t0, tc0, s0}, {k1, t1, tc1, s1}} {
			child, t, tc, seed := p[0], p[1], p[2], p[3]
			u := XMM()
			MOVOU(lost, u)
			PAND(tc, u)
			MOVOU(child, seed)
			PAND(clamp, seed)
			PXOR(u, seed)
			MOVOU(keepCorr, u)
			PAND(t, u)
			PXOR(child, u)
			lsbMask(u, t)
			MOVOU(t, tc)
			PAND(clamp, tc)
		}
		// The row: the seed correction with tl, then tr (DCF: with the value word,
		// below). On the kept side the bit is lsb(kept) ^ 1, on the lost side
		// lsb(lost); tl is the left side's, tr the right side's.
		tKeep, tLose := GP32(), GP32()
		PEXTRD(U8(3), kept, tKeep)
		NOTL(tKeep)
		ANDL(U8(1), tKeep)
		PEXTRD(U8(3), lost, tLose)
		ANDL(U8(1), tLose)
		swap := GP32()
		MOVL(tKeep, swap)
		XORL(tLose, swap)
		ANDL(a.As32(), swap)
		XORL(swap, tKeep) // tl
		XORL(swap, tLose) // tr
		PAND(clamp, lost)
		row := ctlBit(tKeep.As64())
		POR(lost, row)
		MOVOU(row, Mem{Base: rows})
		if dcf {
			valueWord(loadLanes(Mem{Base: lanesAt}), local, a, betaAt, tLose, Mem{Base: rows, Disp: 16})
		} else {
			MOVQ(tLose.As64(), Mem{Base: rows, Disp: 16})
			MOVQ(U32(0), Mem{Base: rows, Disp: 24})
		}
		ADDQ(U8(32), rows)
		DECQ(n)
		JNZ(LabelRef(name))
	}
	TESTQ(lanesAt, lanesAt)
	JNZ(LabelRef("dcf"))
	level("dpf_level", nil)
	JMP(LabelRef("done"))

	Label("dcf")
	sum := XMM()
	PXOR(sum, sum)
	MOVOU(sum, local.Offset(80))
	betaAt := GP64()
	Load(Param("beta"), betaAt)
	level("dcf_level", betaAt)
	MOVOU(local.Offset(80), sum)
	MOVOU(sum, Mem{Base: Load(Param("sum"), GP64())})

	Label("done")
	MOVOU(s0, seedsAt)
	MOVOU(s1, seedsAt.Offset(16))
	Store(maskBit(t1).As8(), ReturnIndex(0))
	RET()
}

// valueWord writes a DCF Gen level's value word with tr in its control bit to row,
// and moves the running value sum on: from the level's blocks at local (the kept
// and lost values of party 0, then of party 1, party 1's parent control-bit mask,
// sum), alpha's bit a and beta's two blocks at betaAt. With d = lose1 - lose0 +
// beta[a], the word is d - sum, negated where party 1's parent bit is 1, and the
// next sum d + keep0 - keep1 (the word moves sum by minus itself where the bit is
// set; the running value cancels, so the next one does not wait on this one).
func valueWord(g lanes, local Mem, a, betaAt GPVirtual, tr GPVirtual, row Mem) {
	keep := func(party int) Mem { return local.Offset(32 * party) }
	lose := func(party int) Mem { return local.Offset(32*party + 16) }
	d, y := XMM(), XMM()
	MOVOU(lose(1), d)
	MOVOU(lose(0), y)
	g.sub(d, y)
	betaOff := GP64()
	MOVQ(a, betaOff)
	SHLQ(U8(4), betaOff)
	MOVOU(Mem{Base: betaAt, Index: betaOff, Scale: 1}, y)
	g.add(d, y)
	w, sum := XMM(), XMM()
	MOVOU(local.Offset(80), sum)
	MOVOU(d, w)
	g.sub(w, sum)
	z := XMM()
	MOVOU(keep(0), y)
	MOVOU(keep(1), z)
	g.sub(y, z)
	g.add(d, y)
	MOVOU(d, local.Offset(80))
	// w ^ -w where party 1's parent bit is set, XORed into w.
	PXOR(z, z)
	g.sub(z, w)
	PXOR(w, z)
	MOVOU(local.Offset(64), y)
	PAND(y, z)
	PXOR(z, w)
	POR(ctlBit(tr.As64()), w)
	MOVOU(w, row)
}
