// Command _asm generates the amd64 BLAKE3 routines of package hashes (run `go
// generate` in the package), twice from one description: for AVX2 and for AVX-512
// CPUs (AVX512VL, still on 256-bit vectors). The core is the keyed one-block
// compression of eight independent messages at once, one message per 32-bit lane.
// The 16 state words are the 16 ymm registers; with AVX2, state word 8 waits on the
// stack while its register is the temporary of the rotations by 12 and 7 (two
// shifts and an OR), while AVX-512's VPRORD rotates in one instruction and needs no
// temporary. The 16 message words, transposed once per group, are read from the
// stack as operands.
package main

import (
	"flag"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
	"github.com/pyfss/pyfss/gofss/internal/asmvet"
)

// schedule[r] are the message words of round r, in the order of its G functions:
// the message permutation applied r times (BLAKE3 specification, section 2.2).
var schedule = func() (s [7][16]int) {
	for i := range s[0] {
		s[0][i] = i
	}
	for r := 1; r < len(s); r++ {
		for i, p := range permutation {
			s[r][i] = s[r-1][p]
		}
	}
	return s
}()

// permutation is BLAKE3's message permutation: word i of a round's message is word
// permutation[i] of the round before's.
var permutation = [16]int{2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8}

// nextRound maps a round's four message vectors (x and y of its column step, then
// of its diagonal step, lane by lane as stepWords orders them) to the next round's:
// lane l of the next round's vector v is lane nextRound[v][l][1] of this round's
// vector nextRound[v][l][0]. The map is the same for every round.
var nextRound = func() (m [4][4][2]int) {
	var vectors [4][4]int // round 0's vectors' words
	for k := 0; k < 2; k++ {
		vectors[2*k], vectors[2*k+1] = stepWords(0, k)
	}
	var at [16][2]int
	for v, words := range vectors {
		for l, w := range words {
			at[w] = [2]int{v, l}
		}
	}
	for v, words := range vectors {
		for l, w := range words {
			m[v][l] = at[permutation[w]]
		}
	}
	return m
}()

// The state words each step of a round works on: a, b, c, d of its four G functions.
var (
	columns   = [4][4]int{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}
	diagonals = [4][4]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}
)

// keyedFlags are the flags of every compression here: CHUNK_START | CHUNK_END |
// ROOT | KEYED_HASH.
const keyedFlags = 1 | 2 | 8 | 16

// spilled is the state word that lives on the stack between its uses (AVX2).
const spilled = 8

type gen struct {
	// evex: the routines for AVX-512 CPUs (AVX512VL), whose VPRORD rotates a word in
	// one instruction and needs no temporary, so no state word waits on the stack.
	evex bool
	// wide: the state in 512-bit vectors (AVX-512), sixteen messages at once.
	wide        bool
	suffix      string // of the routines' names: AVX2 or AVX512
	v           [16]VecPhysical
	msg         [16]Mem
	slot        Mem // state word 8 (AVX2 only)
	rot16, rot8 Mem // VPSHUFB masks of the right rotations by 16 and 8
	iv, flags   Mem // BLAKE3's IV words 0-3 and the compressions' flags
	chain       chainData
	lanes       lanesData
}

func main() {
	iv := GLOBL("blake3_iv", RODATA|NOPTR)
	for i, w := range []uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a} {
		DATA(4*i, U32(w))
	}
	flags := GLOBL("blake3_flags", RODATA|NOPTR)
	DATA(0, U32(keyedFlags))
	ConstraintExpr("!purego")
	g := gen{
		v:     [16]VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15},
		rot16: byteRotation("blake3_rot16", 2),
		rot8:  byteRotation("blake3_rot8", 1),
		iv:    iv,
		flags: flags,
		chain: newChainData(),
		lanes: newLanesData(),
	}
	var avx2 []string
	for _, evex := range []bool{false, true} {
		g.evex, g.suffix = evex, map[bool]string{false: "AVX2", true: "AVX512"}[evex]
		g.generateMany(false)
		g.generateMany(true)
		generateOne(&g)
		generateLanes(&g)
		generateSteps(&g)
		if !evex {
			for _, base := range []string{"blake3x8", "blake3XH", "blake3One", "blake3ChainXH", "blake3ChainLanes", "blake3StepLanes"} {
				avx2 = append(avx2, base+"AVX2")
			}
		}
	}

	Generate()
	asmvet.NoEVEX(flag.Lookup("out").Value.String(), avx2...)
	asmvet.NoSSEAmongVEX(flag.Lookup("out").Value.String())
}

// name is the routine's name for g's CPUs.
func (g *gen) name(base string) string { return base + g.suffix }

// many is a routine of many messages a pass, one per 32-bit lane: blake3x8,
// whose messages are whole blocks, or blake3XH, which makes XH's messages
// (docs/spec.md section 15) from the leaves' inputs and seeds: a with its clamped
// bit set to bit, then s, then zeros.
type many struct {
	xh                 bool
	out, src, seeds    Register // src: the blocks, or XH's inputs a; seeds: XH's s
	groups, stride, cv Register // stride: bytes from one output to the next
	clear, bit         Mem      // XH: a's word 3 without its clamped bit, and the bit
}

// generateMany writes blake3x8 (xh false) or blake3XH: eight messages a pass,
// and with AVX-512 sixteen (pairs) while two groups or more are left.
func (g *gen) generateMany(xh bool) {
	name, sig := g.name("blake3x8"), "func(out *[32]byte, cv *[8]uint32, blocks *[64]byte, groups int, blen uint32)"
	if xh {
		name, sig = g.name("blake3XH"), "func(out *[32]byte, cv *[8]uint32, as, ss *[16]byte, groups int, stride int, bit uint32)"
	}
	// With AVX-512, the frame of the groups taken in pairs is over the limit of
	// NOSPLIT routines: these get the stack check.
	TEXT(name, map[bool]attr.Attribute{false: NOSPLIT, true: 0}[g.evex], sig)
	Pragma("noescape")
	if xh {
		Doc(name+" writes XH(as[i], ss[i])'s hash of message bit (0 or 1) to",
			"out+i*stride for the groups*8 leaves i: BLAKE3's keyed one-block compression",
			"under the key cv of a with its clamped bit (bit 0 of byte 12) set to bit,",
			"then s (32 bytes, zero-padded).")
	} else {
		Doc(name+" hashes groups*8 blocks of 64 bytes (messages of blen bytes,",
			"zero-padded) with BLAKE3's keyed one-block compression under the key cv, and",
			"writes the first 32 bytes of each output to out, in the blocks' order.")
	}
	m := many{xh: xh, out: Load(Param("out"), GP64()), cv: Load(Param("cv"), GP64())}
	blen, frame := GP32(), AllocLocal(20*32)
	for i := range g.msg {
		g.msg[i] = frame.Offset(32 * i)
	}
	g.slot = frame.Offset(16 * 32)
	blenSlot := frame.Offset(17 * 32)
	m.groups, m.stride = Load(Param("groups"), GP64()), GP64()
	if xh {
		m.src, m.seeds = Load(Param("as"), GP64()), Load(Param("ss"), GP64())
		Load(Param("stride"), m.stride)
		MOVL(U32(32), blen)
		m.clear, m.bit = frame.Offset(18*32), frame.Offset(19*32)
		bit, x := Load(Param("bit"), GP32()), XMM()
		VMOVD(bit, x)
		VPBROADCASTD(x, x.AsY())
		VMOVDQU(x.AsY(), m.bit)
		MOVL(U32(0xfffffffe), bit)
		VMOVD(bit, x)
		VPBROADCASTD(x, x.AsY())
		VMOVDQU(x.AsY(), m.clear)
	} else {
		m.src = Load(Param("blocks"), GP64())
		MOVQ(U32(32), m.stride)
		Load(Param("blen"), blen)
	}
	VMOVD(blen, X14)
	VPBROADCASTD(X14, Y14)
	VMOVDQU(Y14, blenSlot)
	if g.evex {
		g.pairs(&m, blen)
	}

	Label(name + "_group")
	CMPQ(m.groups, Imm(0))
	JE(LabelRef(name + "_done"))
	g.loadMessages(&m, 0, func(w int) Mem { return g.msg[w] })
	g.compress8(m.cv, blenSlot, m.words())
	Comment("The output words, transposed back to one row per message.")
	m.store(transpose(g.v[:8], g.v[8:]))
	m.advance(1)
	DECQ(m.groups)
	JMP(LabelRef(name + "_group"))

	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// words is how many of the message's words are not zero: XH's 8, a block's 16.
func (m *many) words() int {
	if m.xh {
		return 8
	}
	return 16
}

// loadMessages writes the words of group grp's messages (the group grp after src)
// to slot(w), one 256-bit vector per word, one lane per message.
func (g *gen) loadMessages(m *many, grp int, slot func(w int) Mem) {
	Comment("The message words, one vector per word, one lane per message.")
	for half := 0; half < m.words()/8; half++ {
		for l := 0; l < 8; l++ {
			if m.xh {
				VMOVDQU(Mem{Base: m.src, Disp: 16 * (8*grp + l)}, g.v[l].AsX())
				VINSERTI128(U8(1), Mem{Base: m.seeds, Disp: 16 * (8*grp + l)}, g.v[l], g.v[l])
			} else {
				VMOVDQU(Mem{Base: m.src, Disp: 64*(8*grp+l) + 32*half}, g.v[l])
			}
		}
		words := transpose(g.v[:8], g.v[8:])
		if m.xh {
			VPAND(m.clear, words[3], words[3])
			VPOR(m.bit, words[3], words[3])
		}
		for w, r := range words {
			VMOVDQU(r, slot(8*half+w))
		}
	}
}

// store writes the eight output rows, one per message, stride bytes apart from
// out on, and leaves out past them.
func (m *many) store(rows []VecPhysical) {
	for _, r := range rows {
		VMOVDQU(r, Mem{Base: m.out})
		ADDQ(m.stride, m.out)
	}
}

// advance moves the inputs past n groups.
func (m *many) advance(n int) {
	if m.xh {
		ADDQ(U32(8*16*n), m.src)
		ADDQ(U32(8*16*n), m.seeds)
		return
	}
	ADDQ(U32(8*64*n), m.src)
}

// pairs emits the loop of the AVX-512 routines that hashes their groups two at a
// time, one in each half of 512-bit vectors, while two or more are left: Zen 4 runs
// a 512-bit operation as two 256-bit halves, and one group's four dependency
// chains a step leave cycles idle that the other half's fill. The messages go
// through the 256-bit transposes into the halves of the message words on the
// stack; the outputs come back the same way, the second group's from the stack.
func (g *gen) pairs(m *many, blen Register) {
	wide := *g
	wide.wide = true
	wide.v = [16]VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15}
	frame := AllocLocal(17 * 64)
	for i := range wide.msg {
		wide.msg[i] = frame.Offset(64 * i)
	}
	blenSlot, high := frame.Offset(16*64), frame // high: over the message once used
	VPBROADCASTD(blen, Z14)
	VMOVDQU32(Z14, blenSlot)

	label := g.name(map[bool]string{false: "blake3x8", true: "blake3XH"}[m.xh])
	Label(label + "_pair")
	CMPQ(m.groups, Imm(2))
	JL(LabelRef(label + "_pairs_done"))
	for grp := 0; grp < 2; grp++ {
		g.loadMessages(m, grp, func(w int) Mem { return wide.msg[w].Offset(32 * grp) })
	}
	wide.compress8(m.cv, blenSlot, m.words())
	Comment("The output words, transposed back to one row per message: the first",
		"group's from the vectors' low halves, the second's from their high halves.")
	for i := 0; i < 8; i++ {
		VEXTRACTI64X4(U8(1), wide.v[i], high.Offset(32*i))
	}
	m.store(transpose(g.v[:8], g.v[8:]))
	for i := 0; i < 8; i++ {
		VMOVDQU(high.Offset(32*i), g.v[i])
	}
	m.store(transpose(g.v[:8], g.v[8:]))
	m.advance(2)
	SUBQ(U8(2), m.groups)
	JMP(LabelRef(label + "_pair"))
	Label(label + "_pairs_done")
}

// rotr rotates each word of x right by n: one VPRORD on AVX-512; else one VPSHUFB
// for whole bytes, two shifts and an OR through tmp for the others.
func (g *gen) rotr(n int, x, tmp Op) {
	switch {
	case g.evex:
		VPRORD(U8(n), x, x)
	case n == 16:
		VPSHUFB(g.rot16, x, x)
	case n == 8:
		VPSHUFB(g.rot8, x, x)
	default:
		VPSRLD(U8(n), x, tmp)
		VPSLLD(U8(32-n), x, x)
		VPOR(tmp, x, x)
	}
}

// rotrTemp is a temporary for rotr by n where it needs one (AVX2, not by whole
// bytes): a register of its own for each rotation, since one register kept for
// all of them would stay taken through the whole compression.
func (g *gen) rotrTemp(n int, reg func() VecVirtual) Op {
	if g.evex || n%8 == 0 {
		return nil
	}
	return reg()
}

// generateOne writes blake3One, the compression of a single message, for a
// chain of hashes each waiting on the one before, and blake3ChainXH, which runs
// VDPF's proof chain over many leaves in one call: the proof stays in registers from
// one step to the next, and the upper half of the chain's vectors compresses the
// next leaf's second XH message meanwhile (the chain waits on the latency of its
// compressions, and leaves most of the vector units idle).
func generateOne(g *gen) {
	name := g.name("blake3One")
	TEXT(name, NOSPLIT, "func(out *[32]byte, cv *[8]uint32, block *[64]byte, blen uint32)")
	Pragma("noescape")
	Doc(name+" hashes block (a message of blen bytes, zero-padded) with BLAKE3's",
		"keyed one-block compression under the key cv, and writes the first 32 bytes",
		"of the output to out.")
	out := Load(Param("out"), GP64())
	cv := Load(Param("cv"), GP64())
	block := Load(Param("block"), GP64())
	blen := Load(Param("blen"), GP32())
	var rows [4]VecVirtual
	for i := range rows {
		rows[i] = XMM()
		VMOVDQU(Mem{Base: block, Disp: 16 * i}, rows[i])
	}
	lo, hi := compressRows(g, xmm, func(a, b, c, d VecVirtual) {
		VMOVDQU(Mem{Base: cv}, a)
		VMOVDQU(Mem{Base: cv, Disp: 16}, b)
		VMOVDQU(g.iv, c)
		// Row d: counter 0 (two words), blen, the flags.
		VPXOR(d, d, d)
		VPINSRD(U8(2), blen, d, d)
		VPINSRD(U8(3), g.flags, d, d)
	}, rows)
	VMOVDQU(lo, Mem{Base: out})
	VMOVDQU(hi, Mem{Base: out, Disp: 16})
	RET()

	generateChain(g)
}

func xmm() VecVirtual { return XMM() }
func ymm() VecVirtual { return YMM() }

// chainData are blake3ChainXH's constants.
type chainData struct {
	rowD   Mem // row d of H' (64 bytes), then of XH (32)
	setBit Mem // what XH's second message sets in a
}

func newChainData() chainData {
	rowD := GLOBL("blake3_rows_d", RODATA|NOPTR)
	for i, w := range []uint32{0, 0, 64, keyedFlags, 0, 0, 32, keyedFlags} {
		DATA(4*i, U32(w))
	}
	setBit := GLOBL("blake3_xh_bit", RODATA|NOPTR)
	DATA(0, U64(0))
	DATA(8, U64(1<<32))
	return chainData{rowD, setBit}
}

// generateChain writes blake3ChainXH.
func generateChain(g *gen) {
	rowD, setBit := g.chain.rowD, g.chain.setBit
	name := g.name("blake3ChainXH")
	TEXT(name, NOSPLIT, "func(pi *[64]byte, xh0, xh1 *[32]byte, as, ss *[16]byte, ts *uint8, cs *[64]byte, n int, hcv, xcv *[8]uint32)")
	Pragma("noescape")
	Doc(name+" folds n leaves' pieces into the proof pi, in order. Leaf i's",
		"piece is XH(as[i], ss[i]), XORed with cs where bit 0 of ts[i] is 1: its first",
		"half is xh0[i], its second the hash of XH's second message, xh1 for leaf 0, and",
		"for the others compressed here beside the step before. Each step hashes the",
		"64-byte message pi ^ piece with the keyed one-block BLAKE3 under hcv (XH is",
		"keyed by xcv) and XORs the output's first 32 bytes into pi's.")
	pi := Load(Param("pi"), GP64())
	xh0 := Load(Param("xh0"), GP64())
	xh1 := Load(Param("xh1"), GP64())
	nextA := Load(Param("as"), GP64())
	nextS := Load(Param("ss"), GP64())
	ts := Load(Param("ts"), GP64())
	cs := Load(Param("cs"), GP64())
	n := Load(Param("n"), GP64())
	// The two keys side by side: rows a and b of both lanes.
	keys := AllocLocal(64)
	for half, cv := range []Register{Load(Param("hcv"), GP64()), Load(Param("xcv"), GP64())} {
		for row := 0; row < 2; row++ {
			x := XMM()
			VMOVDQU(Mem{Base: cv, Disp: 16 * row}, x)
			VMOVDQU(x, keys.Offset(32*row+16*half))
		}
	}
	// The proof's first half in registers; the second half of the next leaf's XH
	// (the XH lane's output) on the stack, which frees two registers.
	p0, p1, e := XMM(), XMM(), AllocLocal(32)
	VMOVDQU(Mem{Base: pi}, p0)
	VMOVDQU(Mem{Base: pi, Disp: 16}, p1)
	for i := 0; i < 2; i++ { // the second half of leaf 0's XH
		x := XMM()
		VMOVDQU(Mem{Base: xh1, Disp: 16 * i}, x)
		VMOVDQU(x, e.Offset(16*i))
	}
	ADDQ(U8(16), nextA)
	ADDQ(U8(16), nextS)

	Label("chain_step")
	CMPQ(n, Imm(0))
	JE(LabelRef("chain_done"))
	// The message's rows: the piece with cs masked in by t, then the proof. Words
	// 0-7 wait on the step before, 8-15 (pi's last 32 bytes, which the chain leaves
	// alone) on the XH lane of the step before.
	t, tMask := GP32(), XMM()
	MOVBLZX(Mem{Base: ts}, t)
	ANDL(U8(1), t)
	NEGL(t)
	VMOVD(t, tMask)
	VPSHUFD(U8(0), tMask, tMask)
	var rows [4]VecVirtual
	for i := range rows {
		rows[i] = XMM()
		VPAND(Mem{Base: cs, Disp: 16 * i}, tMask, rows[i])
		switch i {
		case 0:
			VPXOR(Mem{Base: xh0}, rows[i], rows[i])
			VPXOR(p0, rows[i], rows[i])
		case 1:
			VPXOR(Mem{Base: xh0, Disp: 16}, rows[i], rows[i])
			VPXOR(p1, rows[i], rows[i])
		case 2:
			VPXOR(e, rows[i], rows[i])
			VPXOR(Mem{Base: pi, Disp: 32}, rows[i], rows[i])
		case 3:
			VPXOR(e.Offset(16), rows[i], rows[i])
			VPXOR(Mem{Base: pi, Disp: 48}, rows[i], rows[i])
		}
	}
	// XH's second message of the next leaf (at the last step this leaf's again, its
	// output unused, so that nothing past the inputs is read): a with its clamped bit
	// set, s, zeros.
	pa, ps, back := GP64(), GP64(), GP64()
	MOVQ(nextA, pa)
	MOVQ(nextS, ps)
	CMPQ(n, Imm(1))
	LEAQ(Mem{Base: nextA, Disp: -16}, back)
	CMOVQEQ(back, pa)
	LEAQ(Mem{Base: nextS, Disp: -16}, back)
	CMOVQEQ(back, ps)
	xm0, xm1 := XMM(), XMM()
	VMOVDQU(Mem{Base: pa}, xm0)
	VPOR(setBit, xm0, xm0)
	VMOVDQU(Mem{Base: ps}, xm1)
	// The first round's rows in both lanes (rows 2 and 3 of XH's message are zero,
	// as the VEX forms above left the upper halves).
	r0, r1 := YMM(), YMM()
	VINSERTI128(U8(1), xm0, rows[0].AsY(), r0)
	VINSERTI128(U8(1), xm1, rows[1].AsY(), r1)
	first := [4]VecVirtual{r0, r1, rows[2].AsY().(VecVirtual), rows[3].AsY().(VecVirtual)}
	lo, hi := compressRows(g, ymm, func(a, b, c, d VecVirtual) {
		VMOVDQU(keys, a)
		VMOVDQU(keys.Offset(32), b)
		VBROADCASTI128(g.iv, c)
		VMOVDQU(rowD, d)
	}, first)
	VPXOR(lo.AsX(), p0, p0)
	VPXOR(hi.AsX(), p1, p1)
	VEXTRACTI128(U8(1), lo, e)
	VEXTRACTI128(U8(1), hi, e.Offset(16))
	ADDQ(U8(32), xh0)
	ADDQ(U8(16), nextA)
	ADDQ(U8(16), nextS)
	INCQ(ts)
	DECQ(n)
	JMP(LabelRef("chain_step"))
	Label("chain_done")
	VMOVDQU(p0, Mem{Base: pi})
	VMOVDQU(p1, Mem{Base: pi, Disp: 16})
	VZEROUPPER()
	RET()
}

// nextMessage emits the next round's message vectors from this round's, vs
// (nextRound): each takes its lanes from two or three of them, by one VSHUFPS (two
// lanes of each of two vectors) or two (the single lanes of two vectors first),
// then a VPSHUFD into order. These take a cycle each, and so leave the
// compression's own operations undelayed, where gathers from memory take more
// operations and a VPERMD four cycles.
func nextMessage(reg func() VecVirtual, vs [4]VecVirtual) (next [4]VecVirtual) {
	for v, src := range nextRound {
		lanes := map[int][]int{} // source vector -> its lanes here
		for _, s := range src {
			lanes[s[0]] = append(lanes[s[0]], s[1])
		}
		var pair, single []int // the sources of two lanes, of one
		for u := range vs {
			switch len(lanes[u]) {
			case 0:
			case 1:
				single = append(single, u)
			case 2:
				pair = append(pair, u)
			default:
				panic("nextMessage: three lanes from one vector")
			}
		}
		a := pair[0]
		var placed [4][2]int // the source of each lane of the VSHUFPS's result
		placed[0], placed[1] = [2]int{a, lanes[a][0]}, [2]int{a, lanes[a][1]}
		var high VecVirtual // and the vector whose lanes hi give its lanes 2 and 3
		var hi [2]int
		switch {
		case len(pair) == 2:
			b := pair[1]
			high, hi = vs[b], [2]int(lanes[b])
			placed[2], placed[3] = [2]int{b, hi[0]}, [2]int{b, hi[1]}
		case len(single) == 2:
			s0, s1 := single[0], single[1]
			high, hi = reg(), [2]int{0, 2}
			VSHUFPS(U8(lanes[s0][0]*0x05|lanes[s1][0]*0x50), vs[s1], vs[s0], high)
			placed[2], placed[3] = [2]int{s0, lanes[s0][0]}, [2]int{s1, lanes[s1][0]}
		default:
			panic("nextMessage: a vector from more than three others")
		}
		x := reg()
		VSHUFPS(U8(placed[0][1]|placed[1][1]<<2|hi[0]<<4|hi[1]<<6), high, vs[a], x)
		var order [4]int // lane l takes lane order[l] of x
		for l, want := range src {
			for p, got := range placed {
				if got == want {
					order[l] = p
				}
			}
		}
		if order != [4]int{0, 1, 2, 3} {
			VPSHUFD(U8(order[0]|order[1]<<2|order[2]<<4|order[3]<<6), x, x)
		}
		next[v] = x
	}
	return next
}

// shuffled builds the vector of message words w[0..3] from the message's rows
// (four words each) in registers, for the first round's two steps, whose words
// come in these orders: the even or odd words of two rows, rotated by a lane for
// the diagonal step.
func shuffled(reg func() VecVirtual, rows [4]VecVirtual, w [4]int) VecVirtual {
	base := min(w[0], w[1])
	straight := [4]int{base, base + 2, base + 4, base + 6}
	turned := [4]int{base + 6, base, base + 2, base + 4}
	if base%8 > 1 || w != straight && w != turned {
		panic("shuffled: not a first-round word order")
	}
	x, lo := reg(), base/8*2
	VSHUFPS(U8(0x88|uint8(base&1)*0x55), rows[lo+1], rows[lo], x) // words 0, 2 of each row (1, 3)
	if w == turned {
		VPSHUFD(U8(0x93), x, x) // lane i takes lane i-1
	}
	return x
}

// compressRows emits the keyed one-block compression with the state rows set by
// init, and returns the rows of the output's first 32 bytes (a ^ c, b ^ d). The
// state is four vectors (reg makes them: xmm for one message, ymm for two, one per
// 128-bit lane), one per row of four words, so a step's four G functions run side by
// side in one vector. For the diagonal step rows a, c and d turn by three, one and
// two words and lane i runs diagonal i-1 (message words in that order); row b stays,
// since it is the last one each step computes and a turn would wait on it. The
// message is in rows too (words 0-3, 4-7, ...): the first round's vectors come
// from them by shuffles, each later round's from the round before's (nextMessage).
func compressRows(g *gen, reg func() VecVirtual, init func(a, b, c, d VecVirtual), rows [4]VecVirtual) (VecVirtual, VecVirtual) {
	a, b, c, d := reg(), reg(), reg(), reg()
	init(a, b, c, d)

	half := func(mw VecVirtual, first bool, rotD, rotB int) {
		if first {
			// a and b are the key's; the message may come last (the chain's).
			VPADDD(b, a, a)
			VPADDD(mw, a, a)
		} else {
			VPADDD(mw, a, a)
			VPADDD(b, a, a)
		}
		if g.evex {
			rotrXor(rotD, d, a, reg)
			VPADDD(d, c, c)
			rotrXor(rotB, b, c, reg)
			return
		}
		VPXOR(a, d, d)
		g.rotr(rotD, d, g.rotrTemp(rotD, reg))
		VPADDD(d, c, c)
		VPXOR(c, b, b)
		g.rotr(rotB, b, g.rotrTemp(rotB, reg))
	}
	var message [4]VecVirtual // x and y of the round's two steps
	for r := range schedule {
		Commentf("Round %d.", r)
		if r > 0 {
			message = nextMessage(reg, message)
		}
		for k, rot := range [2][3]uint8{{0x93, 0x39, 0x4e}, {0x39, 0x93, 0x4e}} {
			if r == 0 { // each step's vectors just before it, to hold fewer registers
				x, y := stepWords(0, k)
				message[2*k], message[2*k+1] = shuffled(reg, rows, x), shuffled(reg, rows, y)
			}
			half(message[2*k], r == 0 && k == 0, 16, 12)
			half(message[2*k+1], false, 8, 7)
			// Rows a, c, d to the diagonals and, after them, back.
			VPSHUFD(U8(rot[0]), a, a)
			VPSHUFD(U8(rot[1]), c, c)
			VPSHUFD(U8(rot[2]), d, d)
		}
	}
	VPXOR(c, a, a)
	VPXOR(d, b, b)
	return a, b
}

// rotrXor sets x to (x ^ y) rotated right by n, as rotr(x, n) ^ rotr(y, n): the
// first waits on nothing new (x was set a step before), and y's rotation is two
// shifts side by side that one three-way XOR joins with it, so x is ready 2 cycles
// after y, where the XOR and a VPRORD take 3. x rotates by shifts and an OR too:
// VPRORD takes 2 cycles on Zen 4, and operations of more than one cycle among the
// chain's operations of one delay them (a loop of G functions in this form took
// 12.6 cycles a G; with VPRORD for x 15.1, in the XOR and VPRORD form 16.0). It
// costs more operations, which the routines whose compressions wait on each other
// have room for (docs/performance.md).
func rotrXor(n int, x, y VecVirtual, reg func() VecVirtual) {
	xl, yl, yh := reg(), reg(), reg()
	VPSRLD(U8(n), x, xl)
	VPSLLD(U8(32-n), x, x)
	VPORD(xl, x, x)
	VPSRLD(U8(n), y, yl)
	VPSLLD(U8(32-n), y, yh)
	VPTERNLOGD(U8(0x96), yl, yh, x) // x ^ yl ^ yh
}

// stepWords are the message words of step k (0: columns, 1: diagonals) of round
// r, lane by lane, for the G functions' first (x) and second (y) message inputs;
// lane i of the diagonal step runs diagonal i-1.
func stepWords(r, k int) (x, y [4]int) {
	w := schedule[r][8*k : 8*k+8]
	if k == 1 {
		return [4]int{w[6], w[0], w[2], w[4]}, [4]int{w[7], w[1], w[3], w[5]}
	}
	return [4]int{w[0], w[2], w[4], w[6]}, [4]int{w[1], w[3], w[5], w[7]}
}

// compress8 runs the keyed one-block compression of eight messages, one per lane:
// message word w in g.msg[w] for w below words (the others zero, which adds
// nothing), the key broadcast from cv, the message lengths from the vector at blen.
// It leaves output word i (v[i] ^ v[i+8]) in g.v[i], i < 8, and uses every vector
// register.
func (g *gen) compress8(cv Register, blen Mem, words int) {
	Comment("The state: the key, BLAKE3's IV, counter 0, blen and the flags.")
	for i := 0; i < 8; i++ {
		VPBROADCASTD(Mem{Base: cv, Disp: 4 * i}, g.v[i])
	}
	for i := 0; i < 4; i++ {
		VPBROADCASTD(g.iv.Offset(4*i), g.v[8+i])
	}
	if !g.evex {
		VMOVDQU(g.v[spilled], g.slot)
	}
	g.xor(g.v[12], g.v[12], g.v[12])
	g.xor(g.v[13], g.v[13], g.v[13])
	g.move(blen, g.v[14])
	VPBROADCASTD(g.flags, g.v[15])

	for r := range schedule {
		Commentf("Round %d.", r)
		g.step(columns, schedule[r][:8], words)
		g.step(diagonals, schedule[r][8:], words)
	}

	Comment("The output words v[i] ^ v[i+8].")
	if !g.evex {
		VMOVDQU(g.slot, g.v[spilled])
	}
	for i := 0; i < 8; i++ {
		g.xor(g.v[i+8], g.v[i], g.v[i])
	}
}

// xor and move are VPXOR and VMOVDQU, or on 512-bit vectors, which have no VEX
// forms, VPXORD and VMOVDQU32.
func (g *gen) xor(a, b, dst Op) {
	if g.wide {
		VPXORD(a, b, dst)
		return
	}
	VPXOR(a, b, dst)
}

func (g *gen) move(src, dst Op) {
	if g.wide {
		VMOVDQU32(src, dst)
		return
	}
	VMOVDQU(src, dst)
}

// lanesData are blake3ChainLanes's constants.
type lanesData struct {
	lens  Mem // blen of XH's messages, then of H''s
	bits  Mem // bit i in lane i
	clear Mem // a's word 3 without its clamped bit
	one   Mem
}

func newLanesData() lanesData {
	lens := GLOBL("blake3_lens", RODATA|NOPTR)
	DATA(0, U32(32))
	DATA(4, U32(64))
	bits := GLOBL("blake3_lane_bits", RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		DATA(4*i, U32(1<<i))
	}
	clear := GLOBL("blake3_xh_clear", RODATA|NOPTR)
	DATA(0, U32(^uint32(1)))
	one := GLOBL("blake3_one", RODATA|NOPTR)
	DATA(0, U32(1))
	return lanesData{lens, bits, clear, one}
}

// generateLanes writes blake3ChainLanes: eight proof chains over the same
// leaves' inputs, one per lane, each leaf's two XH messages and the chains' H'
// message compressed eight at a time. The proofs and the corrections stay
// transposed (one vector per word) from leaf to leaf; the seeds come in lane by
// lane and are transposed per leaf.
func generateLanes(g *gen) {
	lens, bits, clear, one := g.lanes.lens, g.lanes.bits, g.lanes.clear, g.lanes.one
	name := g.name("blake3ChainLanes")
	TEXT(name, 0, "func(pis, cs *[16][8]uint32, as, ss *[16]byte, soff *[8]int, ts *uint8, toff *[8]int, n int, hcv, xcv *[8]uint32)")
	Pragma("noescape")
	Doc(name+" steps eight proof chains, one per lane, over n leaves. The",
		"proofs pis and corrections cs are transposed: word w of lane i at [w][i]. Leaf",
		"j's input is as[j] for every lane; lane i's seed of leaf j is the 16 bytes at",
		"ss + soff[i] + 16j and its control bit bit 0 of the byte at ts + toff[i] + j.",
		"Each step hashes the lane's piece XH(a, s) ^ (cs where t is 1) XORed with its",
		"proof, keyed by hcv (XH by xcv), and XORs the output's first 32 bytes into the",
		"proof's. It reads the n inputs, the n seeds and bits at each lane's offsets, and",
		"nothing else.")
	pis := Load(Param("pis"), GP64())
	cs := Load(Param("cs"), GP64())
	as := Load(Param("as"), GP64())
	ss := Load(Param("ss"), GP64())
	soff := Load(Param("soff"), GP64())
	ts := Load(Param("ts"), GP64())
	toff := Load(Param("toff"), GP64())
	n := Load(Param("n"), GP64())

	// The frame (over NOSPLIT's limit, so the routine checks the stack): two
	// blocks of 17 vectors, XH's message (words 0-7: a, then s; 8-15 zero) and H''s,
	// each followed by its message length in every lane; then state word 8. The
	// routine's one compression reads the block at msg.
	frame := AllocLocal(35 * 32)
	xhBlock, chainBlock := frame, frame.Offset(17*32)
	g.slot = frame.Offset(34 * 32)
	VPXOR(Y0, Y0, Y0)
	for w := 8; w < 16; w++ {
		VMOVDQU(Y0, xhBlock.Offset(32*w))
	}
	VPBROADCASTD(lens, Y0)
	VMOVDQU(Y0, xhBlock.Offset(32*16))
	VPBROADCASTD(lens.Offset(4), Y0)
	VMOVDQU(Y0, chainBlock.Offset(32*16))

	Label("lanes_leaf")
	CMPQ(n, Imm(0))
	JE(LabelRef("lanes_done"))

	Comment("XH's first message: a in every lane (its clamped bit clear), each lane's s.")
	for w := 0; w < 4; w++ {
		VPBROADCASTD(Mem{Base: as, Disp: 4 * w}, Y0)
		if w == 3 {
			VPBROADCASTD(clear, Y1)
			VPAND(Y1, Y0, Y0)
		}
		VMOVDQU(Y0, xhBlock.Offset(32*w))
	}
	off := GP64()
	for i := 0; i < 8; i++ {
		MOVQ(Mem{Base: soff, Disp: 8 * i}, off)
		VMOVDQU(Mem{Base: ss, Index: off, Scale: 1}, g.v[i].AsX())
	}
	// Y0-Y3: lanes p and p+4 in the halves; then four words of eight lanes.
	for p := 0; p < 4; p++ {
		VINSERTI128(U8(1), g.v[p+4].AsX(), g.v[p], g.v[p])
	}
	VPUNPCKLDQ(Y1, Y0, Y4)
	VPUNPCKHDQ(Y1, Y0, Y5)
	VPUNPCKLDQ(Y3, Y2, Y6)
	VPUNPCKHDQ(Y3, Y2, Y7)
	VPUNPCKLQDQ(Y6, Y4, Y0)
	VPUNPCKHQDQ(Y6, Y4, Y1)
	VPUNPCKLQDQ(Y7, Y5, Y2)
	VPUNPCKHQDQ(Y7, Y5, Y3)
	for w := 0; w < 4; w++ {
		VMOVDQU(g.v[w], xhBlock.Offset(32*(4+w)))
	}

	// Three compressions a leaf, through one copy of the code: phase 0 and 1 are
	// XH's two messages (key xcv), phase 2 H''s (key hcv).
	msg, key, phase := GP64(), GP64(), GP64()
	LEAQ(xhBlock, msg)
	Load(Param("xcv"), key)
	XORQ(phase, phase)
	Label("lanes_compress")
	for w := range g.msg {
		g.msg[w] = Mem{Base: msg, Disp: 32 * w}
	}
	g.compress8(key, Mem{Base: msg, Disp: 32 * 16}, 16)
	CMPQ(phase, Imm(1))
	JE(LabelRef("lanes_xh_second"))
	JA(LabelRef("lanes_chain"))

	Comment("XH's first half; then its second message, the clamped bit set.")
	for w := 0; w < 8; w++ {
		VMOVDQU(g.v[w], chainBlock.Offset(32*w))
	}
	VPBROADCASTD(one, Y1)
	VPOR(xhBlock.Offset(32*3), Y1, Y0)
	VMOVDQU(Y0, xhBlock.Offset(32*3))
	INCQ(phase)
	JMP(LabelRef("lanes_compress"))

	Label("lanes_xh_second")
	Comment("H''s message: the proof ^ XH ^ (cs where the lane's t is 1).")
	t, tb := GP32(), GP32()
	XORL(tb, tb)
	for i := 0; i < 8; i++ {
		MOVQ(Mem{Base: toff, Disp: 8 * i}, off)
		MOVBLZX(Mem{Base: ts, Index: off, Scale: 1}, t)
		ANDL(U8(1), t)
		if i > 0 {
			SHLL(U8(i), t)
		}
		ORL(t, tb)
	}
	VMOVD(tb, X15)
	VPBROADCASTD(X15, Y15)
	VMOVDQU(bits, Y14)
	VPAND(Y14, Y15, Y15)
	VPCMPEQD(Y14, Y15, Y15)
	// Words 8-15 from XH's second half, still in Y0-Y7; 0-7 from its first,
	// stored above.
	for w := 0; w < 16; w++ {
		r := g.v[8+w%6]
		VPAND(Mem{Base: cs, Disp: 32 * w}, Y15, r)
		VPXOR(Mem{Base: pis, Disp: 32 * w}, r, r)
		if w < 8 {
			VPXOR(chainBlock.Offset(32*w), r, r)
		} else {
			VPXOR(g.v[w-8], r, r)
		}
		VMOVDQU(r, chainBlock.Offset(32*w))
	}
	LEAQ(chainBlock, msg)
	Load(Param("hcv"), key)
	INCQ(phase)
	JMP(LabelRef("lanes_compress"))

	Label("lanes_chain")
	for w := 0; w < 8; w++ {
		VPXOR(Mem{Base: pis, Disp: 32 * w}, g.v[w], g.v[w])
		VMOVDQU(g.v[w], Mem{Base: pis, Disp: 32 * w})
	}
	ADDQ(U8(16), as)
	ADDQ(U8(16), ss)
	INCQ(ts)
	DECQ(n)
	JMP(LabelRef("lanes_leaf"))
	Label("lanes_done")
	VZEROUPPER()
	RET()
}

// generateSteps writes blake3StepLanes: eight proof chains, one per lane,
// each taking its own run of pieces (Prove's case: the pieces are given, XH done).
func generateSteps(g *gen) {
	name := g.name("blake3StepLanes")
	TEXT(name, NOSPLIT, "func(pis *[16][8]uint32, pieces *[64]byte, poff *[8]int, n int, hcv *[8]uint32)")
	Pragma("noescape")
	Doc(name+" steps eight proof chains, one per lane, n pieces each: the",
		"proofs pis are transposed (word w of lane i at [w][i]); lane i's piece j is",
		"the 64 bytes at pieces + poff[i] + 64j. Each step hashes the proof ^ the piece",
		"with the keyed one-block BLAKE3 under hcv and XORs the output's first 32 bytes",
		"into the proof's. It reads the n pieces at each lane's offset and nothing else.")
	pis := Load(Param("pis"), GP64())
	pieces := Load(Param("pieces"), GP64())
	poff := Load(Param("poff"), GP64())
	n := Load(Param("n"), GP64())
	hcv := Load(Param("hcv"), GP64())

	frame := AllocLocal(18 * 32) // the message's words, state word 8, the length
	for w := range g.msg {
		g.msg[w] = frame.Offset(32 * w)
	}
	g.slot = frame.Offset(16 * 32)
	blen := frame.Offset(17 * 32)
	blenWord := GP32()
	MOVL(U32(64), blenWord)
	VMOVD(blenWord, X0)
	VPBROADCASTD(X0, Y0)
	VMOVDQU(Y0, blen)

	Label("steps_piece")
	CMPQ(n, Imm(0))
	JE(LabelRef("steps_done"))
	Comment("The message words, proof ^ piece, one vector per word, one lane per chain.")
	off := GP64()
	for half := 0; half < 2; half++ {
		for l := 0; l < 8; l++ {
			MOVQ(Mem{Base: poff, Disp: 8 * l}, off)
			VMOVDQU(Mem{Base: pieces, Index: off, Scale: 1, Disp: 32 * half}, g.v[l])
		}
		for w, r := range transpose(g.v[:8], g.v[8:]) {
			VPXOR(Mem{Base: pis, Disp: 32 * (8*half + w)}, r, r)
			VMOVDQU(r, g.msg[8*half+w])
		}
	}
	g.compress8(hcv, blen, 16)
	for w := 0; w < 8; w++ {
		VPXOR(Mem{Base: pis, Disp: 32 * w}, g.v[w], g.v[w])
		VMOVDQU(g.v[w], Mem{Base: pis, Disp: 32 * w})
	}
	ADDQ(U8(64), pieces)
	DECQ(n)
	JMP(LabelRef("steps_piece"))
	Label("steps_done")
	VZEROUPPER()
	RET()
}

// step runs four G functions side by side on the words of quads, with message
// words m[2j] and m[2j+1] for the j-th. State word 8 enters and leaves on the stack.
func (g *gen) step(quads [4][4]int, m []int, words int) {
	a, b, c, d := g.words(quads, 0), g.words(quads, 1), g.words(quads, 2), g.words(quads, 3)
	half := func(x, rotD, rotB int) {
		for j := range a {
			if w := m[2*j+x]; w < words {
				VPADDD(g.msg[w], a[j], a[j])
			}
			VPADDD(b[j], a[j], a[j])
		}
		for j := range d {
			g.xor(a[j], d[j], d[j])
			g.rotr(rotD, d[j], nil)
		}
		for j := range c {
			if quads[j][2] == spilled && !g.evex {
				VPADDD(g.slot, d[j], c[j]) // the register held a temporary
			} else {
				VPADDD(d[j], c[j], c[j])
			}
			g.xor(c[j], b[j], b[j])
		}
		tmp := g.v[spilled]
		if !g.evex {
			VMOVDQU(tmp, g.slot)
		}
		for j := range b {
			g.rotr(rotB, b[j], tmp)
		}
	}
	half(0, 16, 12)
	half(1, 8, 7)
}

func (g *gen) words(quads [4][4]int, k int) (r [4]VecPhysical) {
	for j, q := range quads {
		r[j] = g.v[q[k]]
	}
	return r
}

// byteRotation is the VPSHUFB mask that rotates each 32-bit word right by n bytes.
func byteRotation(name string, n int) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		DATA(i, U8(i&^3+(i+n)%4))
	}
	return m
}

// transpose turns 8 vectors of 8 words (rows) into 8 vectors holding word w of
// every row, in t (overwritten, returned in order); r is overwritten too.
func transpose(r, t []VecPhysical) []VecPhysical {
	for p := 0; p < 8; p += 2 {
		VPUNPCKLDQ(r[p+1], r[p], t[p])
		VPUNPCKHDQ(r[p+1], r[p], t[p+1])
	}
	// r[4q+k]: words k and k+4 of rows 4q .. 4q+3.
	for q := 0; q < 2; q++ {
		VPUNPCKLQDQ(t[4*q+2], t[4*q], r[4*q])
		VPUNPCKHQDQ(t[4*q+2], t[4*q], r[4*q+1])
		VPUNPCKLQDQ(t[4*q+3], t[4*q+1], r[4*q+2])
		VPUNPCKHQDQ(t[4*q+3], t[4*q+1], r[4*q+3])
	}
	for k := 0; k < 4; k++ {
		VPERM2I128(U8(0x20), r[4+k], r[k], t[k])
		VPERM2I128(U8(0x31), r[4+k], r[k], t[4+k])
	}
	return t
}
