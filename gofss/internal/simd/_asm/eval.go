// Command _asm generates the fused Eval walks of package simd for CPUs without
// AVX-512 (run `go generate` in the package), the EvalAll level routines with AES
// keys (level.go) and DPF Gen's (gen.go): DPF and DCF Eval with AES-128 MMO, in
// two vector widths from one description, VAES on 256-bit vectors (2 blocks a vector:
// Zen 3, Alder Lake) and AES-NI on 128-bit vectors (1 block, VEX encodings: every CPU
// with AES-NI and AVX2). They do the job of the AVX-512 walks dpfEvalAes and
// dcfEvalAes (avx512.go) with the same arguments, in smaller groups. With -avx512
// it writes those AVX-512 routines instead, into a file of their own: the fused Eval
// walks, the EvalAll and Eval level routines and the Gen levels, with named
// registers (they were written by hand first and measured on AVX-512 CPUs; the
// generated ones assemble to the same machine code).
//
// A group of points walks down all levels with its nodes in registers. Only 16
// vector registers exist, so each vector's node and AES state share one: a level
// first readies every vector (the node's correction applied, the result parked in a
// stack slot, the register turned into the AES state of the clamped seed), then runs
// the rounds over all of them, 8 independent chains keeping the AES units busy, and
// ends by XORing the parked node back: MMO(seed) ^ t*correction. A lane's AES key
// depends on its side bit, so the prologue writes on the stack the round keys of
// every side pattern of a vector (2 with one block, 4 with two), and each vector's
// rounds read them through a pointer to its pattern, which it computes each level
// from its inputs' bits.
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
)

var (
	xregs = []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}
	yregs = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}
)

// The pattern pointers of a group's vectors; R11 points at the level's correction
// word of key 0, R14 at the group's correction-word offsets, CX at the level's side
// patterns, AX and R9 are scratch.
var patternRegs = []GPPhysical{RBX, RDX, RSI, RDI, R8, R10, R12, R13}

func (w width) vec(i int) VecPhysical {
	if w.blocks == 1 {
		return xregs[i]
	}
	return yregs[i]
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
	if w.blocks == 1 {
		VMOVDQU(m, x)
		return
	}
	VBROADCASTI128(m, x)
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
			VMOVDQU(key(j, r), w.vec(first+j))
		}
		for i, x := range states {
			aes(r, w.vec(first+i%k), x)
		}
	}
}

var lsb, notTr Mem

// avx512 selects the AVX-512 walk routines (avx512.go), which go to a file of their
// own.
var avx512 = flag.Bool("avx512", false, "generate the AVX-512 walk routines alone")

func main() {
	flag.Parse()
	ConstraintExpr("!purego")
	if *avx512 {
		avx512Walks()
		avx512Gens()
		avx512Evals()
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
	tableAt Mem // the table's 32-byte aligned start
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
	if vectors*w.blocks <= 8 {
		k.steps = 1 // a small group's keys are a few lines a level
	}
	k.tables = (1 << w.blocks) * k.pattern
	k.table = AllocLocal(tables*k.tables + 32)
	k.tableAt = AllocLocal(8)
	k.consts = AllocLocal(consts * w.size())
	k.slots = AllocLocal(slots * vectors * w.size())
	k.sides = AllocLocal(vectors * sideBytes)
	for _, m := range []*Mem{&k.u, &k.xs, &k.groups, &k.levels, &k.pf, &k.pfNext, &k.pfEnd, &k.pfPer} {
		*m = AllocLocal(8)
	}
	return k
}

func (k *walk) c(i int) Mem    { return k.consts.Offset(i * k.w.size()) }
func (k *walk) slot(i int) Mem { return k.slots.Offset(i * k.w.size()) }

func (k *walk) label(s string) string {
	k.labels++
	return fmt.Sprintf("%s_%s%d", k.name, s, k.labels)
}

// buildTable writes table t: pattern p's lane l gets the expanded key at
// keyOff(bit l of p) from AX, and with sides the control-bit mask where that bit is 1.
func (k *walk) buildTable(t int, keyOff func(side int) int, sides bool) {
	w := k.w
	LEAQ(k.table.Offset(31), R10)
	ANDQ(I8(-32), R10)
	MOVQ(R10, k.tableAt)
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

// loadArith broadcasts the Arith at AX into the constants.
func (k *walk) loadArith() {
	for i := cFrom; i <= cNeg; i++ {
		k.w.spread(Mem{Base: RAX, Disp: 16 * i}, k.w.vec(10))
		VMOVDQU(k.w.vec(10), k.c(i))
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
// byte at sides + sideBytes*v + b has bit l set where lane l's input has bit b set. An
// input byte spreads over 8 bytes without BMI2 (slow on Zen 2): multiplied into every
// byte, each byte keeps its own bit, and adding 0x7f moves that to bit 7.
func (k *walk) sidePatterns() {
	w := k.w
	rep, sel, add, top, n, xs := RBX, RDX, RSI, RDI, R8, R10
	MOVQ(U64(0x0101010101010101), rep)
	MOVQ(U64(0x8040201008040201), sel)
	MOVQ(U64(0x7f7f7f7f7f7f7f7f), add)
	MOVQ(U64(0x8080808080808080), top)
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
			IMULQ(rep, RAX)
			ANDQ(sel, RAX)
			ADDQ(add, RAX)
			ANDQ(top, RAX)
			SHRQ(U8(7-l), RAX)
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
	if k.steps == 1 && r == 5 || k.steps == 2 && (r == 3 || r == 7) {
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
// into c1, their second into c2.
func (k *walk) rows(v int, c1, c2 VecPhysical) {
	at := func(r GPPhysical, d int) Mem { return Mem{Base: R11, Index: r, Scale: 1, Disp: d} }
	MOVQ(Mem{Base: R14, Disp: 8 * k.w.blocks * v}, RAX)
	if k.w.blocks == 1 {
		VMOVDQU(at(RAX, 0), c1)
		VMOVDQU(at(RAX, 16), c2)
		return
	}
	MOVQ(Mem{Base: R14, Disp: 8 * (2*v + 1)}, R9)
	VMOVDQU(at(RAX, 0), c1.AsX())
	VINSERTI128(U8(1), at(R9, 0), c1, c1)
	VMOVDQU(at(RAX, 16), c2.AsX())
	VINSERTI128(U8(1), at(R9, 16), c2, c2)
}

// tmask sets every bit of each lane of t to the control bit of that lane of u.
func tmask(u, t VecPhysical) {
	VPSHUFD(U8(0xff), u, t)
	VPSLLD(U8(31), t, t)
	VPSRAD(U8(31), t, t)
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
func (k *walk) gadd(y, x, t VecPhysical) { k.group(VPADDQ, y, x, t) }

// gsub sets x -= y in the group, as gadd adds.
func (k *walk) gsub(y, x, t VecPhysical) { k.group(VPSUBQ, y, x, t) }

// group sets x to x op y in the group, op a qword addition or subtraction.
func (k *walk) group(op func(...Op), y, x, t VecPhysical) {
	switch k.arith {
	case addArith:
		op(y, x, x)
	case xorArith:
		VPXOR(y, x, x)
	default:
		VPXOR(y, x, t)
		op(y, x, x)
		VPXOR(x, t, t)
		VPAND(k.c(cXor), t, t)
		VPXOR(t, x, x)
	}
}

// byArith emits body twice, for the two kinds of the group's + that the Xor mask
// tells apart at run time (x scratch): addition alone (uint32, uint64), and XOR
// alone (bytes), each group operation one instruction instead of five. The
// routines take the Xor mask to be all zeros or all ones, as every group's is
// (simdAriths in package gofss gives them no other). body(prefix) begins at the
// label prefix+"_group" and ends where the routine goes on.
func (k *walk) byArith(x VecPhysical, body func(prefix string)) {
	VMOVDQU(k.c(cXor), x)
	VPTEST(x, x)
	JNZ(LabelRef(k.name + "_xor_group"))
	k.arith = addArith
	body(k.name + "_add")
	JMP(LabelRef(k.name + "_done"))
	k.arith = xorArith
	body(k.name + "_xor")
	Label(k.name + "_done")
	k.arith = anyArith
}

// output negates x under Neg, keeps it to Mask and stores it as vector v's outputs.
func (k *walk) output(v int, x VecPhysical) {
	VPXOR(k.c(cNeg), x, x)
	VPSUBQ(k.c(cNeg), x, x)
	VPAND(k.c(cMask), x, x)
	MOVQ(k.u, RAX)
	VMOVDQU(x, Mem{Base: RAX, Disp: k.w.size() * v})
}

const sig = "func(u, xs *byte, off *int, rows *byte, groups, levels int, keys *[%d][11][16]byte, ar *[8]uint64, pf *int) (bad bool)"

// dpf generates dpfEval<W>, dpfEvalAes's job with 8 vectors (8 or 16 points) a group.
// Registers: the 8 vectors' nodes (AES states during the rounds), the control-bit
// mask (8), the bits of the words' second blocks that must be zero (9), scratch (10-12).
func dpf(w width) {
	name := "dpfEval" + w.name
	TEXT(name, 0, fmt.Sprintf(sig, 2))
	Pragma("noescape")
	Doc(name + " is dpfEvalAes in groups of " + fmt.Sprint(8*w.blocks) + " points.")
	k := newWalk(w, name, 8, 1, 1)
	lsbv, bad, c1, c2, t := w.vec(8), w.vec(9), w.vec(10), w.vec(11), w.vec(12)
	Load(Param("keys"), RAX)
	k.buildTable(0, func(side int) int { return side * keyBytes }, true)
	w.spread(lsb, lsbv)
	VPXOR(bad, bad, bad)
	w.spread(notTr, c1)
	VMOVDQU(c1, k.c(cNotTr))
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
		VMOVDQU(Mem{Base: RAX, Disp: w.size() * v}, w.vec(v))
	}

	Label(name + "_level")
	for v := range 8 {
		u, p := w.vec(v), patternRegs[v]
		k.patternOf(v, p)
		k.rows(v, c1, c2)
		VPAND(k.c(cNotTr), c2, t)
		VPOR(t, bad, bad)
		VPSHUFD(U8(0), c2, c2) // tr in every dword's lsb
		// The correction: the first block, whose control bit is tl, with tr instead
		// in the lanes whose side is 1.
		VPXOR(c1, c2, c2)
		VPAND(Mem{Base: p, Disp: rounds * w.size()}, c2, c2)
		VPXOR(c2, c1, c1)
		tmask(u, t)
		VPANDN(u, lsbv, u)
		VPAND(t, c1, c1)
		VPXOR(u, c1, c1)
		VMOVDQU(c1, k.slot(v))
		VPXOR(Mem{Base: p}, u, u)
	}
	for r := 1; r < rounds; r++ {
		for v := range 8 {
			aes(r, Mem{Base: patternRegs[v], Disp: r * w.size()}, w.vec(v))
		}
		prefetchAfter(r, k)
	}
	for v := range 8 {
		VPXOR(k.slot(v), w.vec(v), w.vec(v))
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
		VPAND(lsbv, c1, t)
		VPOR(t, c2, c2)
		VPOR(c2, bad, bad)
		tmask(u, t)
		VPAND(k.c(cFrom), c1, c1)
		VPAND(t, c1, c1)
		VPAND(k.c(cFrom), u, u)
		k.gadd(c1, u, c2)
		k.output(v, u)
	}
	JMP(LabelRef(name + "_next"))
	Label(name + "_nodes")
	MOVQ(k.u, RAX)
	for v := range 8 {
		VMOVDQU(w.vec(v), Mem{Base: RAX, Disp: w.size() * v})
	}
	Label(name + "_next")
	k.groupEnd(name + "_group")

	VPTEST(bad, bad)
	SETNE(AL)
	Store(AL, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// dcf generates dcfEval<W>, dcfEvalAes's job with 4 vectors (4 or 8 points) a group.
// Registers: the nodes (0-3, the seed outputs' AES states during the rounds), the
// value outputs' AES states (4-7), the control-bit mask (8), the values accumulated
// along the paths (9-12), scratch (13-15). The value table follows the seed table.
func dcf(w width) {
	name := "dcfEval" + w.name
	TEXT(name, 0, fmt.Sprintf(sig, 4))
	Pragma("noescape")
	Doc(name + " is dcfEvalAes in groups of " + fmt.Sprint(4*w.blocks) + " points.")
	k := newWalk(w, name, 4, 2, 2)
	lsbv, c1 := w.vec(8), w.vec(13)
	Load(Param("keys"), RAX)
	// Seed outputs: keys 0 (left) and 2 (right); value outputs: keys 1 and 3.
	k.buildTable(0, func(side int) int { return 2 * side * keyBytes }, true)
	k.buildTable(1, func(side int) int { return (2*side + 1) * keyBytes }, false)
	w.spread(lsb, lsbv)
	VPXOR(c1, c1, c1)
	VMOVDQU(c1, k.c(cBad))
	Load(Param("ar"), RAX)
	k.loadArith()
	k.args()
	k.byArith(c1, func(prefix string) { dcfGroups(k, prefix) })
	VMOVDQU(k.c(cBad), w.vec(4))
	VPTEST(w.vec(4), w.vec(4))
	SETNE(AL)
	Store(AL, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// dcfGroups emits the DCF walk's loop over groups, its labels named name.
func dcfGroups(k *walk, name string) {
	w := k.w
	lsbv, c1, c2, t := w.vec(8), w.vec(13), w.vec(14), w.vec(15)
	node, seed := func(v int) Mem { return k.slot(v) }, func(v int) Mem { return k.slot(4 + v) }

	Label(name + "_group")
	k.groupStart()
	MOVQ(k.u, RAX)
	for v := range 4 {
		VMOVDQU(Mem{Base: RAX, Disp: w.size() * v}, w.vec(v))
		VPXOR(w.vec(9+v), w.vec(9+v), w.vec(9+v))
	}

	Label(name + "_level")
	for v := range 4 {
		u, sv, acc, p := w.vec(v), w.vec(4+v), w.vec(9+v), patternRegs[v]
		k.patternOf(v, p)
		k.rows(v, c1, c2)
		// The seed correction: the first block, whose control bit is tl, with the
		// second's (tr) in the lanes whose side is 1.
		VPXOR(c1, c2, t)
		VPAND(Mem{Base: p, Disp: rounds * w.size()}, t, t)
		VPXOR(t, c1, c1)
		tmask(u, t)
		VPAND(t, c1, c1)
		VPAND(t, c2, c2)
		VPAND(k.c(cFrom), c2, c2)
		k.gadd(c2, acc, t) // V += t*from(v_cw)
		VPANDN(u, lsbv, u)
		VMOVDQU(u, seed(v))
		VPXOR(u, c1, c1)
		VMOVDQU(c1, node(v))
		VPXOR(Mem{Base: p, Disp: k.tables}, u, sv)
		VPXOR(Mem{Base: p}, u, u)
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
		VPXOR(node(v), u, u)
		VPXOR(seed(v), sv, sv)
		VPAND(k.c(cFrom), sv, sv)
		k.gadd(sv, acc, t) // V += from(value output)
	}
	k.levelEnd(name + "_level")

	// The leaves: V + from(leaf) + t*from(v_cw_n); the last word's first block and
	// second control bit join the bits that must be zero (in register 4).
	bad := w.vec(4)
	VPXOR(bad, bad, bad)
	for v := range 4 {
		u, acc := w.vec(v), w.vec(9+v)
		k.rows(v, c1, c2)
		VPAND(lsbv, c2, t)
		VPOR(c1, t, t)
		VPOR(t, bad, bad)
		tmask(u, t)
		VPAND(t, c2, c2)
		VPAND(k.c(cFrom), c2, c2)
		VPAND(k.c(cFrom), u, u)
		k.gadd(c2, u, t)
		k.gadd(u, acc, t)
		k.output(v, acc)
	}
	VPOR(k.c(cBad), bad, bad)
	VMOVDQU(bad, k.c(cBad))
	k.groupEnd(name + "_group")
}
