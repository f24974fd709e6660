// Command _asm generates the tree-walk routines of package simd (run `go generate`
// in the package). The fused Eval walks (DPF and DCF Eval with AES-128 MMO, this
// file) come from one description in three vector widths: AES-NI on 128-bit
// vectors (1 block a vector, VEX encodings: every CPU with AES-NI and AVX2), VAES
// on 256-bit vectors (2 blocks: Zen 3, Alder Lake) and VAES on 512-bit vectors (4
// blocks, EVEX encodings: AVX-512 CPUs), and so do the EvalAll levels (level.go)
// and the Gen levels (gen.go). With -avx512 it writes the 512-bit routines, into a
// file of their own, with the Eval level routines of the portable walks, which
// exist on AVX-512 alone (avx512.go).
//
// A group of points walks down all levels with its nodes in registers. A level
// first readies every vector (the node's correction applied, the result parked in a
// slot, the register turned into the AES state of the clamped seed), then runs the
// rounds over all of them, 8 independent chains keeping the AES units busy, and
// ends by XORing the parked node back: MMO(seed) ^ t*correction. With 16 vector
// registers (the narrower widths) the slots and the constants are on the stack; the
// 512-bit walks have 32, and keep both in registers. A lane's AES key depends on
// its side bit, so the prologue writes on the stack the round keys of every side
// pattern of a vector (2 with one block, 4 with two, 16 with four), and each
// vector's rounds read them through a pointer to its pattern, which it computes
// each level from its inputs' bits.
package main

import (
	"flag"
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
	"github.com/pyfss/pyfss/gofss/internal/asmvet"
)

const (
	rounds   = 11
	keyBytes = rounds * 16 // an expanded key, [11][16]byte
	rowBytes = 32          // a correction word, two blocks
)

// width is a vector width the walks come in.
type width struct {
	name   string // in the routines' names
	blocks int    // 16-byte blocks (points) per vector
}

var (
	xmm = width{"AESNI", 1}
	ymm = width{"VAES256", 2}
	zmm = width{"VAES512", 4} // written with -avx512
)

var (
	xregs = []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}
	yregs = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}
	zregs = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
		Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}
)

// The 512-bit walks' registers beyond the 16 the description shares with the
// narrower ones: dwords of 31 for tmask, and scratch for rows.
var (
	thirtyOnes = Z30
	rowScratch = Z31
)

// The pattern pointers of a group's vectors; R11 points at the level's correction
// word of key 0, R14 at the group's correction-word offsets, CX at the level's side
// patterns, AX and R9 are scratch.
var patternRegs = []GPPhysical{RBX, RDX, RSI, RDI, R8, R10, R12, R13}

func (w width) vec(i int) VecPhysical {
	switch w.blocks {
	case 1:
		return xregs[i]
	case 2:
		return yregs[i]
	}
	return zregs[i]
}

// wide is whether w's vectors need AVX-512 (EVEX) encodings, which name some
// instructions differently and test vectors through opmasks.
func (w width) wide() bool { return w.blocks == 4 }

func (w width) mov(src, dst Op) {
	if w.wide() {
		VMOVDQU64(src, dst)
	} else {
		VMOVDQU(src, dst)
	}
}

// vexOrEvex runs an instruction of three operands: its VEX form, or on 512-bit
// vectors its EVEX one.
func (w width) vexOrEvex(vex func(y, x, dst Op), evex func(...Op), y, x, dst Op) {
	if w.wide() {
		evex(y, x, dst)
	} else {
		vex(y, x, dst)
	}
}

func (w width) xor(y, x, dst Op) { w.vexOrEvex(VPXOR, VPXORQ, y, x, dst) }
func (w width) and(y, x, dst Op) { w.vexOrEvex(VPAND, VPANDQ, y, x, dst) }
func (w width) or(y, x, dst Op)  { w.vexOrEvex(VPOR, VPORQ, y, x, dst) }

// andn sets dst to y with x's bits cleared (^x & y), as VPANDN.
func (w width) andn(y, x, dst Op) { w.vexOrEvex(VPANDN, VPANDNQ, y, x, dst) }

// The combinations below are one VPTERNLOGQ on 512-bit vectors, two or three
// instructions on the narrower ones (through the scratch register they name).

// ternlog runs VPTERNLOGQ imm on c, b and a on 512-bit vectors (a takes bit 2 of
// the table's index, b bit 1, c bit 0), narrow on the other widths.
func (w width) ternlog(imm uint8, c, b, a Op, narrow func()) {
	if w.wide() {
		VPTERNLOGQ(U8(imm), c, b, a)
	} else {
		narrow()
	}
}

// orAnd sets dst |= x & y (t scratch).
func (w width) orAnd(x Op, y, dst, t VecPhysical) {
	w.ternlog(0xf8, x, y, dst, func() {
		w.and(x, y, t)
		w.or(t, dst, dst)
	})
}

// andAnd sets dst &= x & y, y a register on 512-bit vectors.
func (w width) andAnd(x, y Op, dst VecPhysical) {
	w.ternlog(0x80, x, y, dst, func() {
		w.and(x, dst, dst)
		w.and(y, dst, dst)
	})
}

// blend sets dst to y in the bits where mask is set (t scratch, may be y).
func (w width) blend(mask Op, y, dst, t VecPhysical) {
	w.ternlog(0xd8, mask, y, dst, func() {
		w.xor(dst, y, t)
		w.and(mask, t, t)
		w.xor(t, dst, dst)
	})
}

// xorAnd sets dst to (dst ^ y) & mask, y a register.
func (w width) xorAnd(y, mask Op, dst VecPhysical) {
	w.ternlog(0x28, mask, y, dst, func() {
		w.xor(y, dst, dst)
		w.and(mask, dst, dst)
	})
}

// park sets slot to x ^ (y & t) (y scratch).
func (w width) park(x, y, t VecPhysical, slot Op) {
	if w.wide() {
		w.mov(x, slot)
	}
	w.ternlog(0x78, t, y, slot, func() {
		w.and(t, y, y)
		w.xor(x, y, y)
		w.mov(y, slot)
	})
}

// test clears ZF where x has a bit set (K7 scratch), as VPTEST x, x.
func (w width) test(x VecPhysical) {
	if w.wide() {
		VPTESTMQ(x, x, K7)
		KORTESTW(K7, K7)
		return
	}
	VPTEST(x, x)
}

func (w width) size() int { return 16 * w.blocks }

// vecs is registers 0 to n-1.
func (w width) vecs(n int) []VecPhysical {
	vs := make([]VecPhysical, n)
	for i := range vs {
		vs[i] = w.vec(i)
	}
	return vs
}

// spread loads the block at m into every lane of x.
func (w width) spread(m Mem, x VecPhysical) {
	switch w.blocks {
	case 1:
		VMOVDQU(m, x)
	case 2:
		VBROADCASTI128(m, x)
	default:
		VBROADCASTI32X4(m, x)
	}
}

// aes runs AES round r (1 to 10) on x with the round key key (memory, or for the
// AVX-512 routines a register too); avo 0.5 knows the VAES instructions only in
// their 128-bit forms, so they go in as they are.
func aes(r int, key Op, x VecPhysical) {
	op := "VAESENC"
	if r == rounds-1 {
		op = "VAESENCLAST"
	}
	Instruction(&ir.Instruction{Opcode: op, Operands: []Op{key, x, x}, Inputs: []Op{key, x}, Outputs: []Op{x}, ISA: []string{"VAES", "AVX"}})
}

// keyedRounds runs AES rounds 1 to 10 on states, state i under key i % k of the k
// at key(j, r), each round loading its k keys once into the registers from first
// for all the states. As memory operands of every VAESENC (with 256-bit vectors on
// Zen 4) they took DCF Gen 1.28x the time.
func keyedRounds(w width, states []VecPhysical, k, first int, key func(j, r int) Mem) {
	for r := 1; r < rounds; r++ {
		for j := range min(k, len(states)) {
			w.mov(key(j, r), w.vec(first+j))
		}
		for i, x := range states {
			aes(r, w.vec(first+i%k), x)
		}
	}
}

var lsb, notTr Mem

// avx512 selects the 512-bit routines, which go to a file of their own.
var avx512 = flag.Bool("avx512", false, "generate the AVX-512 walk routines alone")

func main() {
	flag.Parse()
	ConstraintExpr("!purego")
	if *avx512 {
		avx512EvalLevels()
		lsb = lsbMask512
		notTr = GLOBL("evalnottr", RODATA|NOPTR)
		DATA(0, U64(0xfffffffffffffffe))
		DATA(8, U64(0xffffffffffffffff))
		dpf(zmm)
		dcf(zmm)
		dpfLevelRoutine(zmm, false)
		dpfLevelRoutine(zmm, true)
		dcfLevelRoutine(zmm, false)
		dcfLevelRoutine(zmm, true)
		rowPairIndices()
		genRoutine(zmm, false)
		genRoutine(zmm, true)
		Generate()
		asmvet.NoSSEAmongVEX(flag.Lookup("out").Value.String())
		return
	}
	lsb = GLOBL("evalLsb", RODATA|NOPTR) // a node's control bit
	DATA(0, U64(0))
	DATA(8, U64(1<<32))
	notTr = GLOBL("evalNotTr", RODATA|NOPTR) // all but tr in a DPF word's second block
	DATA(0, U64(0xfffffffffffffffe))
	DATA(8, U64(0xffffffffffffffff))
	for _, w := range []width{ymm, xmm} {
		dpf(w)
		dcf(w)
		dpfLevelRoutine(w, false)
		dpfLevelRoutine(w, true)
		dcfLevelRoutine(w, false)
		dcfLevelRoutine(w, true)
		genRoutine(w, false)
		genRoutine(w, true)
	}
	copyNT(copyNTAVX2)
	copyNT(copyNTAVX512)
	Generate()
	asmvet.NoEVEXExcept(flag.Lookup("out").Value.String(), copyNTAVX512.name)
	asmvet.NoSSEAmongVEX(flag.Lookup("out").Value.String())
}

// Offsets of the constants a walk keeps on its stack, each broadcast to a vector:
// the Arith's four masks (in its order), notTr and the DCF walk's bad bits.
const (
	cFrom = iota
	cXor
	cMask
	cNeg
	cNotTr
	cBad
	consts
)

// walk is the frame and registers of one routine.
type walk struct {
	w       width
	name    string
	vectors int       // per group
	steps   int       // prefetch steps a level
	arith   arithKind // the group's + in the variant being generated
	pattern int       // bytes per side pattern: 11 round keys and the side mask
	tables  int       // bytes of one table of patterns (DCF has two: seed and value keys)
	table   Mem
	align   int // of the table: 32 bytes, or a vector's
	tableAt Mem // the table's aligned start
	consts  Mem
	slots   Mem // per vector: the corrected node; DCF also the clamped seed
	sides   Mem // per vector, sideBytes: byte b its pattern at input bit b
	// 8-byte locals: the group's nodes and inputs, groups and levels left, the
	// prefetch state (pf's next range, the next address, the end, lines per step).
	u, xs, groups, levels, pf, pfNext, pfEnd, pfPer Mem
	labels                                          int
}

const sideBytes = 128 // an input's bits

func newWalk(w width, name string, vectors, tables, slots int) *walk {
	k := &walk{w: w, name: name, vectors: vectors, pattern: (rounds + 1) * w.size(), steps: 2}
	switch {
	case w.wide():
		// Measured on Zen 4 (DPF eval, 2^16 keys, best of 6): 42.6 ns/key with
		// the prefetches issued once a level, 38.0 with a step after every round.
		k.steps = rounds - 1
	case vectors*w.blocks <= 8:
		k.steps = 1 // a small group's keys are a few lines a level
	}
	k.tables = (1 << w.blocks) * k.pattern
	k.align = max(32, w.size())
	k.table = AllocLocal(tables*k.tables + k.align)
	k.tableAt = AllocLocal(8)
	if !w.wide() {
		k.consts = AllocLocal(consts * w.size())
		k.slots = AllocLocal(slots * vectors * w.size())
	}
	k.sides = AllocLocal(vectors * sideBytes)
	for _, m := range []*Mem{&k.u, &k.xs, &k.groups, &k.levels, &k.pf, &k.pfNext, &k.pfEnd, &k.pfPer} {
		*m = AllocLocal(8)
	}
	return k
}

// c is constant i, and slot slot i: on 512-bit vectors in registers (Z16 on), on
// the narrower ones, whose registers the walks use up, on the stack.
func (k *walk) c(i int) Op {
	if k.w.wide() {
		return zregs[16+i]
	}
	return k.consts.Offset(i * k.w.size())
}

func (k *walk) slot(i int) Op {
	if k.w.wide() {
		return zregs[16+consts+i]
	}
	return k.slots.Offset(i * k.w.size())
}

func (k *walk) label(s string) string {
	k.labels++
	return fmt.Sprintf("%s_%s%d", k.name, s, k.labels)
}

// buildTable writes table t: pattern p's lane l gets the expanded key at
// keyOff(bit l of p) from AX, and with sides the control-bit mask where that bit is 1.
func (k *walk) buildTable(t int, keyOff func(side int) int, sides bool) {
	w := k.w
	LEAQ(k.table.Offset(k.align-1), R10)
	ANDQ(I32(-k.align), R10)
	MOVQ(R10, k.tableAt)
	if w.wide() {
		k.blendTable(t, keyOff, sides)
		return
	}
	VPXOR(X11, X11, X11)
	VMOVDQU(lsb, X12)
	for p := 0; p < 1<<w.blocks; p++ {
		base := t*k.tables + p*k.pattern
		for l := 0; l < w.blocks; l++ {
			side := p >> l & 1
			for r := 0; r < rounds; r++ {
				VMOVDQU(Mem{Base: RAX, Disp: keyOff(side) + 16*r}, X10)
				VMOVDQU(X10, Mem{Base: R10, Disp: base + r*w.size() + 16*l})
			}
			if sides {
				VMOVDQU([]VecPhysical{X11, X12}[side], Mem{Base: R10, Disp: base + rounds*w.size() + 16*l})
			}
		}
	}
}

// blendTable is buildTable for 512-bit vectors, whose 16 patterns of 4 lanes
// would be 700 copies unrolled: a loop over the patterns blends each round's keys
// of the two sides (in Z0-Z10 and Z11-Z21) under an opmask of the pattern's bits.
func (k *walk) blendTable(t int, keyOff func(side int) int, sides bool) {
	for r := range rounds {
		VBROADCASTI32X4(Mem{Base: RAX, Disp: keyOff(0) + 16*r}, zregs[r])
		VBROADCASTI32X4(Mem{Base: RAX, Disp: keyOff(1) + 16*r}, zregs[rounds+r])
	}
	VBROADCASTI32X4(lsb, Z23)
	if t > 0 {
		ADDQ(U32(t*k.tables), R10)
	}
	XORL(ECX, ECX)
	loop := k.label("table")
	Label(loop)
	MOVL(ECX, R9L)
	PDEPL(laneBits, R9L, R9L)
	LEAL(Mem{Base: R9, Index: R9, Scale: 2}, R9L) // both qwords of a lane
	KMOVW(R9L, K1)
	for r := range rounds {
		VPBLENDMQ(zregs[rounds+r], zregs[r], K1, Z22)
		VMOVDQA64(Z22, Mem{Base: R10, Disp: 64 * r})
	}
	if sides {
		VMOVDQA64_Z(Z23, K1, Z22)
		VMOVDQA64(Z22, Mem{Base: R10, Disp: 64 * rounds})
	}
	ADDQ(U32(k.pattern), R10)
	INCL(ECX)
	CMPL(ECX, U8(16))
	JB(LabelRef(loop))
}

// controlMask loads into x the mask of a lane's control bit, and what tmask needs.
func (w width) controlMask(x VecPhysical) {
	w.spread(lsb, x)
	if w.wide() {
		MOVL(U32(31), EAX)
		VPBROADCASTD(EAX, thirtyOnes)
	}
}

// loadArith broadcasts the Arith at AX into the constants.
func (k *walk) loadArith() {
	for i := cFrom; i <= cNeg; i++ {
		k.w.spread(Mem{Base: RAX, Disp: 16 * i}, k.w.vec(10))
		k.w.mov(k.w.vec(10), k.c(i))
	}
}

// args puts the arguments where the walk keeps them.
func (k *walk) args() {
	Load(Param("u"), RAX)
	MOVQ(RAX, k.u)
	Load(Param("xs"), RAX)
	MOVQ(RAX, k.xs)
	Load(Param("groups"), RAX)
	MOVQ(RAX, k.groups)
	Load(Param("pf"), RAX)
	MOVQ(RAX, k.pf)
	Load(Param("off"), R14)
}

// groupStart readies a group's prefetches (the next group's correction words,
// spread over its levels, k.steps steps a level: issued in one burst the misses
// stall the loads), its side patterns and its first level.
func (k *walk) groupStart() {
	MOVQ(k.pf, R9)
	Load(Param("rows"), RAX)
	MOVQ(Mem{Base: R9, Disp: 8}, R11)
	ADDQ(RAX, R11)
	MOVQ(R11, k.pfEnd)
	ADDQ(Mem{Base: R9}, RAX)
	MOVQ(RAX, k.pfNext)
	SUBQ(RAX, R11)
	SHRQ(U8(6), R11)
	Load(Param("levels"), RAX)
	IMUL3Q(U32(k.steps), RAX, RAX)
	ADDQ(RAX, R11)
	XORL(EDX, EDX)
	XCHGQ(RAX, R11)
	DIVQ(R11) // lines per step, rounded up by one
	MOVQ(RAX, k.pfPer)
	ADDQ(U8(16), k.pf)

	k.sidePatterns()
	Load(Param("rows"), R11)
	Load(Param("levels"), RAX)
	MOVQ(RAX, k.levels)
	LEAQ(k.sides.Offset(-1).Idx(RAX, 1), RCX) // input bit levels-1, the first level's
}

// sidePatterns writes the group's side patterns: for vector v and input bit b, the
// byte at sides + sideBytes*v + b has bit l set where lane l's input has bit b set.
// An input byte spreads over 8 bytes through BMI2's PDEP on AVX-512 CPUs (on Zen 4
// DPF eval took 1.02-1.03x the time with the way below), and without BMI2 where it is
// slow (Zen 2): multiplied into every byte, each byte keeps its own bit, and adding
// 0x7f moves that to bit 7.
func (k *walk) sidePatterns() {
	w := k.w
	rep, sel, add, top, n, xs := RBX, RDX, RSI, RDI, R8, R10
	spread := func(l int) {
		IMULQ(rep, RAX)
		ANDQ(sel, RAX)
		ADDQ(add, RAX)
		ANDQ(top, RAX)
		SHRQ(U8(7-l), RAX)
	}
	if w.wide() {
		lanes := []GPPhysical{RBX, RDX, RSI, RDI}
		for l, r := range lanes {
			MOVQ(U64(0x0101010101010101<<l), r)
		}
		spread = func(l int) { PDEPQ(lanes[l], RAX, RAX) }
	} else {
		MOVQ(U64(0x0101010101010101), rep)
		MOVQ(U64(0x8040201008040201), sel)
		MOVQ(U64(0x7f7f7f7f7f7f7f7f), add)
		MOVQ(U64(0x8080808080808080), top)
	}
	MOVQ(k.xs, xs)
	LEAQ(k.sides, RCX)
	Load(Param("levels"), n)
	ADDQ(U8(7), n)
	SHRQ(U8(3), n) // input bytes the levels read
	loop := k.label("sides")
	Label(loop)
	for v := 0; v < k.vectors; v++ {
		for l := 0; l < w.blocks; l++ {
			MOVBQZX(Mem{Base: xs, Disp: 16 * (w.blocks*v + l)}, RAX)
			spread(l)
			if l == 0 {
				MOVQ(RAX, R9)
			} else {
				ORQ(RAX, R9)
			}
		}
		MOVQ(R9, Mem{Base: RCX, Disp: sideBytes * v})
	}
	INCQ(xs)
	ADDQ(U8(8), RCX)
	DECQ(n)
	JNZ(LabelRef(loop))
}

// prefetchAfter issues a prefetch step after round r of a level where it is one of
// the walk's steps: after round 5, or 3 and 7. A step after every round costs more
// instructions than it hides misses.
func prefetchAfter(r int, k *walk) {
	if k.steps == rounds-1 || k.steps == 1 && r == 5 || k.steps == 2 && (r == 3 || r == 7) {
		k.prefetch()
	}
}

// prefetch issues one step of the group's prefetches, into L2.
func (k *walk) prefetch() {
	loop, done := k.label("pf"), k.label("pfdone")
	MOVQ(k.pfNext, RAX)
	MOVQ(k.pfPer, R9)
	Label(loop)
	CMPQ(RAX, k.pfEnd)
	JAE(LabelRef(done))
	PREFETCHT1(Mem{Base: RAX})
	ADDQ(U8(64), RAX)
	DECQ(R9)
	JNZ(LabelRef(loop))
	Label(done)
	MOVQ(RAX, k.pfNext)
}

// levelEnd moves to the next level's correction words and input bit, and loops.
func (k *walk) levelEnd(loop string) {
	ADDQ(U8(rowBytes), R11)
	DECQ(RCX)
	DECQ(k.levels)
	JNZ(LabelRef(loop))
}

// groupEnd moves to the next group, and loops.
func (k *walk) groupEnd(loop string) {
	n := k.vectors * k.w.size()
	ADDQ(U32(n), k.u)
	ADDQ(U32(n), k.xs)
	ADDQ(U32(8*k.vectors*k.w.blocks), R14)
	DECQ(k.groups)
	JNZ(LabelRef(loop))
}

// patternOf points p at the pattern of vector v's sides at this level.
func (k *walk) patternOf(v int, p GPPhysical) {
	MOVBQZX(Mem{Base: RCX, Disp: sideBytes * v}, p)
	IMUL3Q(U32(k.pattern), p, p)
	ADDQ(k.tableAt, p)
}

// rows loads the correction words of vector v's points at R11: their first blocks
// into c1, their second into c2. On 512-bit vectors, two words a ymm load, then
// their blocks sorted out across the two.
func (k *walk) rows(v int, c1, c2 VecPhysical) {
	at := func(r GPPhysical, d int) Mem { return Mem{Base: R11, Index: r, Scale: 1, Disp: d} }
	off := func(i int, r GPPhysical) { MOVQ(Mem{Base: R14, Disp: 8 * (k.w.blocks*v + i)}, r) }
	switch k.w.blocks {
	case 1:
		off(0, RAX)
		VMOVDQU(at(RAX, 0), c1)
		VMOVDQU(at(RAX, 16), c2)
	case 2:
		off(0, RAX)
		off(1, R9)
		VMOVDQU(at(RAX, 0), c1.AsX())
		VINSERTI128(U8(1), at(R9, 0), c1, c1)
		VMOVDQU(at(RAX, 16), c2.AsX())
		VINSERTI128(U8(1), at(R9, 16), c2, c2)
	default:
		for i, z := range []VecPhysical{rowScratch, c2} {
			off(2*i, RAX)
			off(2*i+1, R9)
			VMOVDQU64(at(RAX, 0), z.AsY())
			VINSERTI64X4(U8(1), at(R9, 0), z, z)
		}
		VSHUFI64X2(U8(0x88), c2, rowScratch, c1)
		VSHUFI64X2(U8(0xdd), c2, rowScratch, c2)
	}
}

// tmask sets every bit of each lane of t to the control bit of that lane of u.
func tmask(u, t VecPhysical) {
	VPSHUFD(U8(0xff), u, t)
	VPSLLD(U8(31), t, t)
	VPSRAD(U8(31), t, t)
}

// tmask is tmask for the walks on w. On 512-bit vectors the shifts are the variable
// ones, by thirtyOnes: in the fused walks on Zen 4 those leave the AES unit free,
// the immediate ones do not.
func (w width) tmask(u, t VecPhysical) {
	if !w.wide() {
		tmask(u, t)
		return
	}
	VPSHUFD(U8(0xff), u, t)
	VPSLLVD(thirtyOnes, t, t)
	VPSRAVD(thirtyOnes, t, t)
}

// arithKind is the group's + that a routine's code is generated for.
type arithKind int

const (
	anyArith arithKind = iota // XOR where the Xor mask is set, qword addition elsewhere
	addArith                  // qword addition alone (uint32, uint64: Xor all zeros)
	xorArith                  // XOR alone (bytes: Xor all ones)
)

// gadd sets x += y in the group (t is clobbered): the qword sums, or x ^ y where
// Xor is set; one instruction in the addition-only and XOR-only variants.
func (k *walk) gadd(y, x, t VecPhysical) { groupOp(k.w, k.arith, k.c(cXor), VPADDQ, y, x, x, t) }

// gsub sets x -= y in the group, as gadd adds.
func (k *walk) gsub(y, x, t VecPhysical) { groupOp(k.w, k.arith, k.c(cXor), VPSUBQ, y, x, x, t) }

// groupOp sets dst, x or s, to x op y in a group whose + is a, op a qword addition
// or subtraction, xor the Xor mask (a register on 512-bit vectors where dst is s);
// x and s are clobbered. In the general formula, XOR where the mask is set and op
// elsewhere, s takes x ^ y and x the sums before the mask picks.
func groupOp(w width, a arithKind, xor Op, op func(...Op), y, x, dst, s VecPhysical) {
	switch {
	case a == addArith:
		op(y, x, dst)
	case a == xorArith:
		w.xor(y, x, dst)
	case w.wide() && dst == s:
		VPXORQ(y, x, s)
		op(y, x, x)
		VPTERNLOGQ(U8(0xe2), x, xor, s)
	case w.wide():
		VPXORQ(y, x, s)
		op(y, x, x)
		VPTERNLOGQ(U8(0xd8), xor, s, x)
	default:
		VPXOR(y, x, s)
		op(y, x, x)
		VPXOR(x, s, s)
		VPAND(xor, s, s)
		w.xor(s, x, dst)
	}
}

// byArith emits body twice, for the two kinds of the group's + that the Xor mask
// (in xor) tells apart at run time: addition alone (uint32, uint64), and XOR alone
// (bytes), each group operation one instruction instead of five (three on 512-bit
// vectors). The routines take the Xor mask to be all zeros or all ones, as every
// group's is (simdAriths in package gofss gives them no other). *kind is each
// variant's while body(prefix) emits it, its labels beginning with prefix, and
// anyArith after.
func byArith(w width, name string, xor VecPhysical, kind *arithKind, body func(prefix string)) {
	w.test(xor)
	JNZ(LabelRef(name + "_xor_start"))
	*kind = addArith
	body(name + "_add")
	JMP(LabelRef(name + "_end"))
	*kind = xorArith
	Label(name + "_xor_start")
	body(name + "_xor")
	Label(name + "_end")
	*kind = anyArith
}

// byArith is byArith for the walk, x scratch.
func (k *walk) byArith(x VecPhysical, body func(prefix string)) {
	k.w.mov(k.c(cXor), x)
	byArith(k.w, k.name, x, &k.arith, body)
}

// output negates x under Neg, keeps it to Mask and stores it as vector v's outputs.
func (k *walk) output(v int, x VecPhysical) {
	w := k.w
	w.xor(k.c(cNeg), x, x)
	VPSUBQ(k.c(cNeg), x, x)
	w.and(k.c(cMask), x, x)
	MOVQ(k.u, RAX)
	w.mov(x, Mem{Base: RAX, Disp: w.size() * v})
}

const sig = "func(u, xs *byte, off *int, rows *byte, groups, levels int, keys *[%d][11][16]byte, ar *[8]uint64, pf *int) (bad bool)"

// dpf generates dpfEval<W>, FusedEval.Dpf's walk with 8 vectors (8, 16 or 32
// points) a group.
// Registers: the 8 vectors' nodes (AES states during the rounds), the control-bit
// mask (8), the bits of the words' second blocks that must be zero (9), scratch (10-12).
func dpf(w width) {
	name := "dpfEval" + w.name
	TEXT(name, 0, fmt.Sprintf(sig, 2))
	Pragma("noescape")
	Doc(name + " is FusedEval.Dpf's walk in groups of " + fmt.Sprint(8*w.blocks) + " points.")
	k := newWalk(w, name, 8, 1, 1)
	lsbv, bad, c1, c2, t := w.vec(8), w.vec(9), w.vec(10), w.vec(11), w.vec(12)
	Load(Param("keys"), RAX)
	k.buildTable(0, func(side int) int { return side * keyBytes }, true)
	w.controlMask(lsbv)
	w.xor(bad, bad, bad)
	w.spread(notTr, c1)
	w.mov(c1, k.c(cNotTr))
	Load(Param("ar"), RAX)
	TESTQ(RAX, RAX)
	JZ(LabelRef(name + "_args"))
	k.loadArith()
	Label(name + "_args")
	k.args()

	Label(name + "_group")
	k.groupStart()
	MOVQ(k.u, RAX)
	for v := range 8 {
		w.mov(Mem{Base: RAX, Disp: w.size() * v}, w.vec(v))
	}

	Label(name + "_level")
	for v := range 8 {
		u, p := w.vec(v), patternRegs[v]
		k.patternOf(v, p)
		k.rows(v, c1, c2)
		w.orAnd(k.c(cNotTr), c2, bad, t)
		VPSHUFD(U8(0), c2, c2) // tr in every dword's lsb
		// The correction: the first block, whose control bit is tl, with tr instead
		// in the lanes whose side is 1.
		w.blend(Mem{Base: p, Disp: rounds * w.size()}, c2, c1, c2)
		w.tmask(u, t)
		w.andn(u, lsbv, u)
		w.park(u, c1, t, k.slot(v))
		w.xor(Mem{Base: p}, u, u)
	}
	for r := 1; r < rounds; r++ {
		for v := range 8 {
			aes(r, Mem{Base: patternRegs[v], Disp: r * w.size()}, w.vec(v))
		}
		prefetchAfter(r, k)
	}
	for v := range 8 {
		w.xor(k.slot(v), w.vec(v), w.vec(v))
	}
	k.levelEnd(name + "_level")

	// The leaves: with ar, from(leaf) + t*from(v_cw), the output correction word's
	// control bit and second block joining the bits that must be zero; else the nodes.
	Load(Param("ar"), RAX)
	TESTQ(RAX, RAX)
	JZ(LabelRef(name + "_nodes"))
	for v := range 8 {
		u := w.vec(v)
		k.rows(v, c1, c2)
		w.orAnd(lsbv, c1, c2, t)
		w.or(c2, bad, bad)
		w.tmask(u, t)
		w.andAnd(k.c(cFrom), t, c1)
		w.and(k.c(cFrom), u, u)
		k.gadd(c1, u, c2)
		k.output(v, u)
	}
	JMP(LabelRef(name + "_next"))
	Label(name + "_nodes")
	MOVQ(k.u, RAX)
	for v := range 8 {
		w.mov(w.vec(v), Mem{Base: RAX, Disp: w.size() * v})
	}
	Label(name + "_next")
	k.groupEnd(name + "_group")

	w.test(bad)
	SETNE(AL)
	Store(AL, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// dcf generates dcfEval<W>, FusedEval.Dcf's walk with 4 vectors (4, 8 or 16
// points) a group.
// Registers: the nodes (0-3, the seed outputs' AES states during the rounds), the
// value outputs' AES states (4-7), the control-bit mask (8), the values accumulated
// along the paths (9-12), scratch (13-15). The value table follows the seed table.
func dcf(w width) {
	name := "dcfEval" + w.name
	TEXT(name, 0, fmt.Sprintf(sig, 4))
	Pragma("noescape")
	Doc(name + " is FusedEval.Dcf's walk in groups of " + fmt.Sprint(4*w.blocks) + " points.")
	k := newWalk(w, name, 4, 2, 2)
	lsbv, c1 := w.vec(8), w.vec(13)
	Load(Param("keys"), RAX)
	// Seed outputs: keys 0 (left) and 2 (right); value outputs: keys 1 and 3.
	k.buildTable(0, func(side int) int { return 2 * side * keyBytes }, true)
	k.buildTable(1, func(side int) int { return (2*side + 1) * keyBytes }, false)
	w.controlMask(lsbv)
	w.xor(c1, c1, c1)
	w.mov(c1, k.c(cBad))
	Load(Param("ar"), RAX)
	k.loadArith()
	k.args()
	k.byArith(c1, func(prefix string) { dcfGroups(k, prefix) })
	w.mov(k.c(cBad), w.vec(4))
	w.test(w.vec(4))
	SETNE(AL)
	Store(AL, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// dcfGroups emits the DCF walk's loop over groups, its labels named name.
func dcfGroups(k *walk, name string) {
	w := k.w
	lsbv, c1, c2, t := w.vec(8), w.vec(13), w.vec(14), w.vec(15)
	node, seed := func(v int) Op { return k.slot(v) }, func(v int) Op { return k.slot(4 + v) }

	Label(name + "_group")
	k.groupStart()
	MOVQ(k.u, RAX)
	for v := range 4 {
		w.mov(Mem{Base: RAX, Disp: w.size() * v}, w.vec(v))
		w.xor(w.vec(9+v), w.vec(9+v), w.vec(9+v))
	}

	Label(name + "_level")
	for v := range 4 {
		u, sv, acc, p := w.vec(v), w.vec(4+v), w.vec(9+v), patternRegs[v]
		k.patternOf(v, p)
		k.rows(v, c1, c2)
		// The seed correction: the first block, whose control bit is tl, with the
		// second's (tr) in the lanes whose side is 1.
		w.blend(Mem{Base: p, Disp: rounds * w.size()}, c2, c1, t)
		w.tmask(u, t)
		w.and(t, c1, c1)
		w.andAnd(t, k.c(cFrom), c2)
		k.gadd(c2, acc, t) // V += t*from(v_cw)
		w.andn(u, lsbv, u)
		w.mov(u, seed(v))
		w.xor(u, c1, c1)
		w.mov(c1, node(v))
		w.xor(Mem{Base: p, Disp: k.tables}, u, sv)
		w.xor(Mem{Base: p}, u, u)
	}
	for r := 1; r < rounds; r++ {
		for v := range 4 {
			aes(r, Mem{Base: patternRegs[v], Disp: r * w.size()}, w.vec(v))
			aes(r, Mem{Base: patternRegs[v], Disp: k.tables + r*w.size()}, w.vec(4+v))
		}
		prefetchAfter(r, k)
	}
	for v := range 4 {
		u, sv, acc := w.vec(v), w.vec(4+v), w.vec(9+v)
		w.xor(node(v), u, u)
		w.xorAnd(seed(v), k.c(cFrom), sv)
		k.gadd(sv, acc, t) // V += from(value output)
	}
	k.levelEnd(name + "_level")

	// The leaves: V + from(leaf) + t*from(v_cw_n); the last word's first block and
	// second control bit join the bits that must be zero (in register 4).
	bad := w.vec(4)
	w.xor(bad, bad, bad)
	for v := range 4 {
		u, acc := w.vec(v), w.vec(9+v)
		k.rows(v, c1, c2)
		w.and(lsbv, c2, t)
		w.or(c1, t, t)
		w.or(t, bad, bad)
		w.tmask(u, t)
		w.andAnd(t, k.c(cFrom), c2)
		w.and(k.c(cFrom), u, u)
		k.gadd(c2, u, t)
		k.gadd(u, acc, t)
		k.output(v, acc)
	}
	w.or(k.c(cBad), bad, bad)
	w.mov(bad, k.c(cBad))
	k.groupEnd(name + "_group")
}
