// Command _asm generates the amd64 routines of package chacha (run `go generate` in
// the package). The blocks routines run the PRG on a chunk of seeds at once, one seed
// per 32-bit lane: 8 seeds per chunk with AVX2, 16 with AVX-512. The 16 state words
// are 16 vectors; seeds are transposed into that layout on the way in and back on
// the way out. The rows routines are for a few seeds, where a chunk would mostly
// compute padding: a seed's state is four vectors, one per row (see generateRows).
// The walk routines chain one-seed row states down a DPF or DCF tree (see
// generateWalk).
package main

import (
	"flag"
	"math/bits"
	"strconv"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
	"github.com/pyfss/pyfss/gofss/internal/asmvet"
)

// modes are the routine modes, numbered as the mode constants of chacha_amd64.go. A
// mode lists its outputs per seed; each names the state row it comes from when the
// seed's sel byte is 0 and when it is 1 (the same row for Expand, which has no sel).
var modes = [][][2]int{
	{{1, 1}},                         // Expand, mul 1
	{{0, 0}, {1, 1}},                 // Expand, mul 2
	{{0, 0}, {1, 1}, {2, 2}, {3, 3}}, // Expand, mul 4
	{{0, 1}},                         // ExpandSelect, mul 2
	{{0, 2}, {1, 3}},                 // ExpandSelect, mul 4
}

func main() {
	ConstraintExpr("!purego")
	consts := newConstants()
	generate(&routine{name: "blocksAVX2", wide: false, c: consts})
	generate(&routine{name: "blocksAVX512", wide: true, c: consts})
	generateRows(&routine{name: "rowsAVX2", wide: false, c: consts})
	generateRows(&routine{name: "rowsAVX512", wide: true, c: consts})
	generateRows(&routine{name: "rowsAVX512ShiftRot", wide: true, shiftRot: true, c: consts})
	generateWalk(&routine{name: "walkAVX2", wide: false, c: consts})
	generateWalk(&routine{name: "walkAVX512", wide: true, c: consts})
	generateWalk(&routine{name: "walkAVX512ShiftRot", wide: true, shiftRot: true, c: consts})
	generatePoints(&routine{name: "pointsAVX2", wide: false, c: consts}, 1)
	generatePoints(&routine{name: "pointsAVX512", wide: true, c: consts}, 2)
	generatePoints(&routine{name: "pointsAVX512One", wide: true, c: consts}, 1)
	generateChildren(&routine{name: "childrenAVX2", wide: false, c: consts})
	generateChildren(&routine{name: "childrenAVX512", wide: true, c: consts})
	generateDcfChildren(&routine{name: "dcfChildrenAVX2", wide: false, c: consts})
	generateDcfChildren(&routine{name: "dcfChildrenAVX512", wide: true, c: consts})
	generateCpuid()
	Generate()
	// rowsAVX512 and walkAVX512 too: their only AVX-512 instruction is VPROLD, which
	// must not need more than AVX512VL.
	asmvet.NoEVEX(flag.Lookup("out").Value.String(), "blocksAVX2", "rowsAVX2", "rowsAVX512",
		"walkAVX2", "walkAVX512", "pointsAVX2", "childrenAVX2", "dcfChildrenAVX2")
	asmvet.NoSSEAmongVEX(flag.Lookup("out").Value.String())
}

type constants struct {
	rot16, rot8    Mem // VPSHUFB masks: AVX2 has no vector rotate
	selAVX2        Mem // VPERMD indices that put sel bytes in state lane order
	selAVX512      Mem
	pairLo, pairHi Mem // VPERMI2Q indices that interleave two rows' blocks per seed
	selPair        Mem // VPSHUFB indices that spread sel byte h over 128-bit half h
	ctrlByte       Mem // VPSHUFB indices that copy byte 12, a block's control bit, everywhere
	signBit        Mem // a word's top bit
	lowBit         Mem // a word's bit 0: the control bit, in word 3 of a block
	ones           Mem // all ones, a ymm register's worth
	clearCtrl      Mem // all ones but a block's control bit
}

func newConstants() constants {
	var c constants
	c.rot16 = GLOBL("rot16", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		DATA(i, U8(i%16&^3+(i+2)%4))
	}
	c.rot8 = GLOBL("rot8", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		DATA(i, U8(i%16&^3+(i+3)%4))
	}
	c.selAVX2 = laneOrder("sel_avx2", 8)
	c.selAVX512 = laneOrder("sel_avx512", 16)
	c.pairLo = qwords("pair_lo", 0, 1, 8, 9, 2, 3, 10, 11)
	c.pairHi = qwords("pair_hi", 4, 5, 12, 13, 6, 7, 14, 15)
	c.selPair = GLOBL("sel_pair", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		DATA(i, U8(i/16))
	}
	c.ctrlByte = GLOBL("ctrl_byte", RODATA|NOPTR)
	for i := 0; i < 16; i++ {
		DATA(i, U8(12))
	}
	c.signBit = GLOBL("sign_bit", RODATA|NOPTR)
	DATA(0, U32(1<<31))
	c.lowBit = GLOBL("low_bit", RODATA|NOPTR)
	DATA(0, U32(1))
	c.ones = GLOBL("ones", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		DATA(i, U8(0xff))
	}
	c.clearCtrl = GLOBL("clear_ctrl", RODATA|NOPTR)
	for i := 0; i < 16; i++ {
		mask := U8(0xff)
		if i == 12 {
			mask = 0xfe
		}
		DATA(i, mask)
	}
	return c
}

// laneOrder is the seed index held by each lane of a state vector: a chunk is loaded
// as 4 vectors of 128-bit blocks and transposed inside each 128-bit part, so with
// p parts, lane 4g+k holds seed p*k+g.
func laneOrder(name string, lanes int) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for j := 0; j < lanes; j++ {
		DATA(4*j, U32(lanes/4*(j%4)+j/4))
	}
	return m
}

func qwords(name string, v ...uint64) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i, x := range v {
		DATA(8*i, U64(x))
	}
	return m
}

// routine generates one function; wide selects AVX-512 over AVX2, and shiftRot
// the rotations of rotlXor for a set of rows alone (AVX-512).
type routine struct {
	name     string
	wide     bool
	shiftRot bool
	c        constants

	dst, src, sel, in Register
	x                 [16]VecVirtual // the state, word 4r+w = row r, word w
	seed              [4]Mem         // AVX2, and AVX-512 pairs: the transposed seed words, kept for the final XOR
	seedReg           [4]VecVirtual  // AVX-512: the same, in registers
	slot              [16]Mem        // AVX2: where a spilled state word lives (AVX-512 pairs: the second chunk's)
	spilled           [16]bool
	seedSlots         bool // AVX-512: the seeds wait in seed (pairs, point walks), not seedReg
}

func generate(k *routine) {
	flags := NOSPLIT
	if k.wide {
		flags = 0 // the pairs' frame passes the NOSPLIT limit
	}
	TEXT(k.name, flags, "func(dst, src, sel *byte, chunks, mode int, in *[6]uint32)")
	Pragma("noescape")
	Doc(k.name+" runs the PRG on chunks*"+strconv.Itoa(k.lanes())+" seeds of src and writes the outputs",
		"that mode asks for to dst. in is state row 0 and then nonce0, nonce1; sel (one",
		"byte per seed) is read by the select modes only.")
	k.dst = Load(Param("dst"), GP64())
	k.src = Load(Param("src"), GP64())
	k.sel = Load(Param("sel"), GP64())
	chunks := Load(Param("chunks"), GP64())
	mode := Load(Param("mode"), GP64())
	k.in = Load(Param("in"), GP64())
	for i := range k.x {
		k.x[i] = k.vec()
	}
	if !k.wide {
		// 16 state words fill all 16 ymm registers, so two of the words in row 2 wait
		// on the stack while the quarter-rounds that do not touch them run.
		frame := alignedLocal(8*32, 32)
		for w := range k.seed {
			k.seed[w] = frame.Offset(32 * w)
			k.slot[8+w] = frame.Offset(128 + 32*w)
		}
	}

	if k.wide {
		k.pairs(chunks, func(c int) {
			k.initState(k.loadWords(Mem{Base: k.src}.Offset(c * k.lanes() * 16)))
		}, func(_ int, infix string) {
			k.storeModes(mode, infix)
			ADDQ(U32(k.lanes()), k.sel)
		}, func() {
			ADDQ(U32(2*k.lanes()*16), k.src)
		})
	}
	Label(k.name + "_chunk")
	CMPQ(chunks, Imm(0))
	JE(LabelRef(k.name + "_done"))
	k.loadState()

	k.rounds(k.name+"_round", nil)
	k.storeModes(mode, "")

	ADDQ(U32(k.lanes()*16), k.src)
	ADDQ(U32(k.lanes()), k.sel)
	DECQ(chunks)
	JMP(LabelRef(k.name + "_chunk"))

	Label(k.name + "_done")
	VZEROUPPER()
	RET()
}

// storeModes writes the chunk's outputs as mode asks, at labels with the given
// infix. The mode is the same for every chunk, so these branches predict perfectly.
// Mode 0 falls through.
func (k *routine) storeModes(mode Register, infix string) {
	label := func(m int) string { return k.name + infix + "_mode" + strconv.Itoa(m) }
	stored := k.name + infix + "_stored"
	for m := len(modes) - 1; m > 0; m-- {
		CMPQ(mode, U8(m))
		JE(LabelRef(label(m)))
	}
	for m, outs := range modes {
		Label(label(m))
		k.storeOutputs(outs)
		ADDQ(U32(k.lanes()*len(outs)*16), k.dst)
		JMP(LabelRef(stored))
	}
	Label(stored)
}

// pairs runs chunks two at a time while two are left (AVX-512): with one chunk's four
// quarter-rounds a step, each a chain of an add, a XOR and a two-cycle rotation,
// the vector units sat idle a fifth of the time (Zen 4: a double round took 61
// cycles for 96 operations that issue two a cycle; two chunks' interleaved 107).
// head(c) sets k.x to chunk c's initial state, tail(c, infix) writes chunk c's
// outputs from k.x with labels at infix, and next moves the pointers past both.
// The 32 state words fill all 32 registers, so the seeds wait on the stack, and
// the second chunk's words go there while the first chunk's outputs are written.
// The loop falls through to the label name_chunk of the one-chunk loop.
func (k *routine) pairs(chunks Register, head func(c int), tail func(c int, infix string), next func()) {
	size := 4 * k.lanes()
	frame := alignedLocal(24*size, size)
	first, second := k.x, [16]VecVirtual{}
	for i := range second {
		second[i] = k.vec()
	}
	seeds := [2][4]Mem{}
	for w := range 4 {
		seeds[0][w], seeds[1][w] = frame.Offset(size*w), frame.Offset(size*(4+w))
	}
	for i := range k.slot {
		k.slot[i] = frame.Offset(size * (8 + i))
	}
	k.seedSlots = true
	Label(k.name + "_pair")
	CMPQ(chunks, Imm(2))
	JL(LabelRef(k.name + "_chunk"))
	for c, x := range [2][16]VecVirtual{first, second} {
		k.x, k.seed = x, seeds[c]
		head(c)
	}
	k.pairRounds(first, second, k.name+"_pair_round", nil)
	for i, v := range second {
		k.move(v, k.slot[i])
	}
	k.x, k.seed = first, seeds[0]
	tail(0, "_first")
	k.x, k.seed = second, seeds[1]
	k.spilled = [16]bool{}
	for i := range k.spilled {
		k.spilled[i] = true
	}
	tail(1, "_second")
	next()
	SUBQ(U8(2), chunks)
	JMP(LabelRef(k.name + "_pair"))
	k.x, k.seedSlots, k.spilled = first, false, [16]bool{}
}

// pairRounds runs the rounds on two chunks' states, step by step interleaved, in a
// loop at label; each, if not nil, emits what runs once a double round beside them.
func (k *routine) pairRounds(first, second [16]VecVirtual, label string, each func()) {
	rounds := GP64()
	MOVQ(U32(10), rounds)
	Label(label)
	if each != nil {
		each()
	}
	for _, qs := range [][][4]int{columns, diagonals} {
		for _, step := range quarterSteps {
			for _, x := range [2][16]VecVirtual{first, second} {
				k.x = x
				k.runStep(qs, step)
			}
		}
	}
	DECQ(rounds)
	JNZ(LabelRef(label))
}

func (k *routine) lanes() int {
	if k.wide {
		return 16
	}
	return 8
}

func (k *routine) vec() VecVirtual {
	if k.wide {
		return ZMM()
	}
	return YMM()
}

// loadState builds the initial state of a chunk: row 0 and row 3 from in, rows 1
// and 2 from the transposed seeds.
func (k *routine) loadState() { k.initState(k.loadWords(Mem{Base: k.src})) }

// loadWords loads a chunk of blocks from m and transposes them into words, one
// block per lane.
func (k *routine) loadWords(m Mem) [4]VecVirtual {
	var blocks [4]VecVirtual
	for i := range blocks {
		blocks[i] = k.vec()
		k.move(m.Offset(i*k.lanes()*4), blocks[i])
	}
	return k.transpose(blocks)
}

// storeWords is loadWords backwards: it writes words as a chunk of blocks to m.
func (k *routine) storeWords(words [4]VecVirtual, m Mem) {
	for i, b := range k.transpose(words) {
		k.move(b, m.Offset(i*k.lanes()*4))
	}
}

// initState sets the state to row 0 and row 3 from in and rows 1 and 2 to seed, one
// seed per lane, and keeps the seed for the final XOR.
func (k *routine) initState(seed [4]VecVirtual) {
	var from [4]Op
	for w, s := range seed {
		if k.wide && !k.seedSlots {
			k.seedReg[w] = s
		} else {
			k.move(s, k.seed[w])
		}
		from[w] = s
	}
	k.initRows(from)
}

var (
	columns   = [][4]int{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}
	diagonals = [][4]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}
)

// rounds runs the 20 rounds on the state, in a loop at label, as pairRounds does.
func (k *routine) rounds(label string, each func()) {
	rounds := GP64()
	MOVQ(U32(10), rounds)
	Label(label)
	if each != nil {
		each()
	}
	k.doubleRound()
	DECQ(rounds)
	JNZ(LabelRef(label))
}

func (k *routine) doubleRound() {
	if k.wide {
		k.quarterRounds(columns)
		k.quarterRounds(diagonals)
		return
	}
	// Words 10 and 11 are spilled on entry and on exit, so the loop body is the same
	// for every iteration.
	k.quarterRounds(columns[:2])
	k.spill(8)
	k.spill(9)
	k.quarterRounds(columns[2:])
	k.quarterRounds(diagonals[:2])
	k.spill(10)
	k.spill(11)
	k.quarterRounds(diagonals[2:])
}

// quarterStep is one step of a quarter-round, a += b; d ^= a; d <<<= rot, with the
// quarter-round's words a, b and d at those indices of its four.
type quarterStep struct{ a, b, d, rot int }

var quarterSteps = []quarterStep{{0, 1, 3, 16}, {2, 3, 1, 12}, {0, 1, 3, 8}, {2, 3, 1, 7}}

// quarterRounds runs independent quarter-rounds step by step, interleaved.
func (k *routine) quarterRounds(qs [][4]int) {
	for _, s := range quarterSteps {
		k.runStep(qs, s)
	}
}

func (k *routine) runStep(qs [][4]int, s quarterStep) {
	for _, q := range qs {
		a, b := k.word(q[s.a]), k.word(q[s.b])
		VPADDD(b, a, a)
	}
	for _, q := range qs {
		a, d := k.word(q[s.a]), k.word(q[s.d])
		k.xor(a, d, d)
	}
	for _, q := range qs {
		k.rotate(k.word(q[s.d]), s.rot)
	}
}

func (k *routine) rotate(v VecVirtual, n int) {
	switch {
	case k.wide:
		VPROLD(U8(n), v, v)
	case n == 16:
		VPSHUFB(k.c.rot16, v, v)
	case n == 8:
		VPSHUFB(k.c.rot8, v, v)
	default:
		t := like(v)
		VPSLLD(U8(n), v, t)
		VPSRLD(U8(32-n), v, v)
		VPOR(t, v, v)
	}
}

// word returns state word i in its register, reloading it if it was spilled.
func (k *routine) word(i int) VecVirtual {
	if k.spilled[i] {
		k.move(k.slot[i], k.x[i])
		k.spilled[i] = false
	}
	return k.x[i]
}

func (k *routine) spill(i int) {
	k.move(k.x[i], k.slot[i])
	k.spilled[i] = true
}

// storeOutputs XORs the rows that outs names with their initial values, picks the
// row per seed in the select modes, and writes them seed by seed to dst.
func (k *routine) storeOutputs(outs [][2]int) {
	var pick Op
	if outs[0][0] != outs[0][1] {
		pick = k.selMask()
	}
	out := func(j int) [4]VecVirtual {
		var v [4]VecVirtual
		for w := range v {
			lo, hi := outs[j][0], outs[j][1]
			v[w] = k.output(lo, w)
			if hi != lo {
				k.blend(pick, v[w], k.output(hi, w))
			}
		}
		return k.transpose(v)
	}
	if len(outs) == 1 {
		for i, v := range out(0) {
			k.move(v, Mem{Base: k.dst}.Offset(i*k.lanes()*4))
		}
		return
	}
	// Outputs are stored in pairs: a vector takes output 2p of one seed and output
	// 2p+1 of the same seed next to it.
	stride := 16 * len(outs)
	for p := 0; p < len(outs)/2; p++ {
		a, b := out(2*p), out(2*p+1)
		for i := range a {
			k.storePair(a[i], b[i], 32*p, stride, i*k.lanes()/4)
		}
	}
}

// output is word w of state row r XORed with its initial value.
func (k *routine) output(r, w int) VecVirtual {
	v := k.rowWord(r, w)
	switch {
	case r == 0:
		k.xorBroadcast(Mem{Base: k.in}.Offset(4*w), v)
	case r == 3 && w >= 2:
		k.xorBroadcast(Mem{Base: k.in}.Offset(16+4*(w-2)), v)
	case r == 3:
		// nonce row words 0 and 1 start at zero
	case k.wide && !k.seedSlots:
		k.xor(k.seedReg[w], v, v)
	default:
		k.xor(k.seed[w], v, v)
	}
	return v
}

// storePair writes the blocks of a and b (each holding one block per seed in its
// 128-bit parts, for the seeds from seed s on) as 32-byte pairs at
// dst + seed*stride + off.
func (k *routine) storePair(a, b VecVirtual, off, stride, s int) {
	at := func(seed int) Mem { return Mem{Base: k.dst}.Offset(seed*stride + off) }
	if a.Size() == 32 {
		for h, imm := range []uint8{0x20, 0x31} {
			t := YMM()
			VPERM2I128(U8(imm), b, a, t)
			VMOVDQU(t, at(s+h))
		}
		return
	}
	for h, idx := range []Mem{k.c.pairLo, k.c.pairHi} {
		t := ZMM()
		VMOVDQU64(idx, t)
		VPERMI2Q(b, a, t)
		if stride == 32 {
			VMOVDQU64(t, at(s+2*h))
		} else {
			// Extracting to memory needs only AVX512F, unlike a store of the upper
			// registers' ymm halves.
			VEXTRACTI64X4(U8(0), t, at(s+2*h))
			VEXTRACTI64X4(U8(1), t, at(s+2*h+1))
		}
	}
}

// selMask turns the chunk's sel bytes into a blend mask in state lane order: a
// vector of all-ones where sel is 0 (AVX2) or an opmask set where sel is 1.
func (k *routine) selMask() Op {
	s, idx := k.vec(), k.vec()
	VPMOVZXBD(Mem{Base: k.sel}, s)
	if !k.wide {
		VMOVDQU(k.c.selAVX2, idx)
		VPERMD(s, idx, s)
		zero := YMM()
		VPXOR(zero, zero, zero)
		VPCMPEQD(zero, s, s)
		return s
	}
	VMOVDQU32(k.c.selAVX512, idx)
	VPERMD(s, idx, s)
	m := K()
	VPTESTMD(s, s, m)
	return m
}

// blend sets lo to hi in the lanes whose seed has sel 1.
func (k *routine) blend(pick Op, lo, hi VecVirtual) {
	if k.wide {
		VPBLENDMD(hi, lo, pick, lo)
	} else {
		VPBLENDVB(pick, lo, hi, lo)
	}
}

func (k *routine) move(src, dst Op) {
	if k.wide {
		VMOVDQU32(src, dst)
	} else {
		VMOVDQU(src, dst)
	}
}

func (k *routine) xor(a, b, dst Op) {
	if k.wide {
		VPXORD(a, b, dst)
	} else {
		VPXOR(a, b, dst)
	}
}

func (k *routine) xorBroadcast(m Mem, v VecVirtual) {
	if k.wide {
		VPXORD_BCST(m, v, v)
		return
	}
	t := YMM()
	VPBROADCASTD(m, t)
	VPXOR(t, v, v)
}

// transpose is a 4x4 transpose of 32-bit words within each 128-bit part: word j of
// part g of v[i] becomes word i of part g of result j. It turns blocks into state
// words and back.
func (k *routine) transpose(v [4]VecVirtual) [4]VecVirtual {
	var t, o [4]VecVirtual
	for i := range t {
		t[i], o[i] = k.vec(), k.vec()
	}
	VPUNPCKLDQ(v[1], v[0], t[0])
	VPUNPCKHDQ(v[1], v[0], t[1])
	VPUNPCKLDQ(v[3], v[2], t[2])
	VPUNPCKHDQ(v[3], v[2], t[3])
	VPUNPCKLQDQ(t[2], t[0], o[0])
	VPUNPCKHQDQ(t[2], t[0], o[1])
	VPUNPCKLQDQ(t[3], t[1], o[2])
	VPUNPCKHQDQ(t[3], t[1], o[3])
	return o
}

// like returns a new register of v's size.
func like(v Register) VecVirtual {
	switch v.Size() {
	case 16:
		return XMM()
	case 32:
		return YMM()
	}
	return ZMM()
}

// generateRows generates a routine that runs the PRG on a few seeds, such as the one
// seed per key that a single-point Eval expands per level. A seed's state is four
// vectors, one row each: the column round works on whole rows, and rotating rows 0,
// 2 and 3 by one, two and three words lines the diagonals up as columns (row 1,
// which the last step of a quarter-round writes, stays put so that the shuffles are
// off the critical path). The rounds of a seed are one long dependency chain, so
// seeds go in groups that share its latency: two per ymm register, one per 128-bit
// half, and two such state sets interleaved.
func generateRows(k *routine) {
	TEXT(k.name, NOSPLIT, "func(dst, src, sel *byte, n, mode int, in *[6]uint32)")
	Pragma("noescape")
	Doc(k.name+" runs the PRG on n seeds of src, up to four at a time, and writes the",
		"outputs that mode asks for to dst. in and sel are as for blocks"+k.name[4:]+".")
	k.dst = Load(Param("dst"), GP64())
	k.src = Load(Param("src"), GP64())
	k.sel = Load(Param("sel"), GP64())
	n := Load(Param("n"), GP64())
	mode := Load(Param("mode"), GP64())
	k.in = Load(Param("in"), GP64())

	// Rows 0 and 3 of the initial state (0, 0, nonce0, nonce1) in both halves.
	row0, row3 := YMM(), YMM()
	VBROADCASTI128(Mem{Base: k.in}, row0)
	VPBROADCASTQ(Mem{Base: k.in}.Offset(16), row3)
	VPSLLDQ(U8(8), row3, row3)

	// Each group loops while n has that many seeds left. After the first, fewer
	// than 4 are left, so at most one of the others runs, once.
	groups := [][]int{{2, 2}, {2, 1}, {2}, {1}}
	for g, sets := range groups {
		next := k.name + "_done"
		if g+1 < len(groups) {
			next = groupLabel(k.name, groups[g+1])
		}
		k.rowGroup(sets, next, n, mode, row0, row3)
	}
	Label(k.name + "_done")
	VZEROUPPER()
	RET()
}

// groupLabel is the label of the loop of the group of sets in function name.
func groupLabel(name string, sets []int) string {
	for _, w := range sets {
		name += "_" + strconv.Itoa(w)
	}
	return name
}

// rowSet is the state of one seed (in xmm registers) or two (ymm).
type rowSet struct {
	first int // the index of its first seed in the group
	x     [4]VecVirtual
	init  [4]Register // the initial rows, for the outputs
}

// rowGroup runs a group of state sets of the given numbers of seeds for as long as
// n has that many seeds left, then goes on at label next.
func (k *routine) rowGroup(widths []int, next string, n, mode Register, row0, row3 VecVirtual) {
	name := groupLabel(k.name, widths)
	seeds := 0
	var sets []*rowSet
	for _, w := range widths {
		st := &rowSet{first: seeds}
		var r0, r3 Register = row0, row3
		if w == 1 {
			r0, r3 = row0.AsX(), row3.AsX()
		}
		seed := like(r0)
		st.init = [4]Register{r0, seed, seed, r3}
		for r := range st.x {
			st.x[r] = like(r0)
		}
		sets = append(sets, st)
		seeds += w
	}
	Label(name)
	CMPQ(n, U8(seeds))
	JB(LabelRef(next))
	for _, st := range sets {
		VMOVDQU(Mem{Base: k.src}.Offset(16*st.first), st.init[1])
		for r, x := range st.x {
			VMOVDQU(st.init[r], x)
		}
	}

	k.rowRounds(name+"_round", sets)

	for m := len(modes) - 1; m > 0; m-- {
		CMPQ(mode, U8(m))
		JE(LabelRef(name + "_mode" + strconv.Itoa(m)))
	}
	for m, outs := range modes {
		Label(name + "_mode" + strconv.Itoa(m))
		for _, st := range sets {
			k.storeRows(st, outs)
		}
		ADDQ(U32(seeds*len(outs)*16), k.dst)
		JMP(LabelRef(name + "_next"))
	}
	Label(name + "_next")
	ADDQ(U8(seeds*16), k.src)
	ADDQ(U8(seeds), k.sel)
	SUBQ(U8(seeds), n)
	JMP(LabelRef(name))
}

// rowRounds runs the 20 rounds on the state rows of every set, in a loop at label.
func (k *routine) rowRounds(label string, sets []*rowSet) {
	rounds := GP64()
	MOVQ(U32(10), rounds)
	Label(label)
	k.rowRound(sets)
	k.rotateRows(sets, 0x93, 0x39, 0x4e)
	k.rowRound(sets)
	k.rotateRows(sets, 0x39, 0x93, 0x4e)
	DECQ(rounds)
	JNZ(LabelRef(label))
}

// rowRound is a column round on the state rows of every set, or a diagonal one once
// they are rotated into place. The sets' instructions interleave.
func (k *routine) rowRound(sets []*rowSet) {
	for _, s := range []int{16, 12, 8, 7} {
		// a += b; d ^= a; d <<<= s, or c += d; b ^= c; b <<<= s.
		sum, add, xor := 0, 1, 3
		if s == 12 || s == 7 {
			sum, add, xor = 2, 3, 1
		}
		for _, st := range sets {
			VPADDD(st.x[add], st.x[sum], st.x[sum])
		}
		if k.shiftRot && len(sets) == 1 {
			rotlXor(sets[0].x[xor], sets[0].x[sum], s)
			continue
		}
		for _, st := range sets {
			VPXOR(st.x[sum], st.x[xor], st.x[xor])
		}
		for _, st := range sets {
			k.rotate(st.x[xor], s)
		}
	}
}

// rotlXor sets x to (x ^ y) rotated left by n, as rotl(x, n) ^ (y << n) ^ (y >>
// 32-n), for one set of rows alone, whose rounds are a chain of dependent
// operations (the one-key walk): x is a step old, so only two shifts side by side
// and one VPTERNLOGD follow y. On Zen 4, where VPROLD takes 2 cycles (and delays the
// one-cycle operations around it; hashes/_asm's rotrXor measured the same), that is
// 2 cycles where the XOR and VPROLD took 3. Where VPROLD takes 1 (Intel), both
// forms take 2 cycles, and the six operations of this one crowd the chain's: the
// VPROLD routines walk in 0.78 of the time there.
func rotlXor(x, y VecVirtual, n int) {
	xl, yl, yh := like(x), like(y), like(y)
	VPSLLD(U8(n), x, xl)
	VPSRLD(U8(32-n), x, x)
	VPORD(xl, x, x)
	VPSLLD(U8(n), y, yl)
	VPSRLD(U8(32-n), y, yh)
	VPTERNLOGD(U8(0x96), yl, yh, x) // x ^ yl ^ yh
}

// rotateRows shuffles the words of rows 0, 2 and 3 of every set.
func (k *routine) rotateRows(sets []*rowSet, imm0, imm2, imm3 uint8) {
	for _, st := range sets {
		VPSHUFD(U8(imm0), st.x[0], st.x[0])
		VPSHUFD(U8(imm2), st.x[2], st.x[2])
		VPSHUFD(U8(imm3), st.x[3], st.x[3])
	}
}

// storeRows XORs the rows of set st that outs names with their initial values,
// picks the row per seed in the select modes, and writes them seed by seed to dst.
func (k *routine) storeRows(st *rowSet, outs [][2]int) {
	x := st.x
	var pick VecVirtual
	if outs[0][0] != outs[0][1] {
		// VPBLENDVB reads the top bit of each byte: shifting the 0 or 1 of sel
		// there gives a mask that takes the second row where sel is 1.
		pick = like(x[0])
		sel := Mem{Base: k.sel}.Offset(st.first)
		if x[0].Size() == 16 {
			VPBROADCASTB(sel, pick)
		} else {
			VPBROADCASTW(sel, pick)
			VPSHUFB(k.c.selPair, pick, pick)
		}
		VPSLLW(U8(7), pick, pick)
	}
	o := make([]VecVirtual, len(outs))
	for j, rows := range outs {
		lo, hi := rows[0], rows[1]
		VPXOR(st.init[lo], x[lo], x[lo])
		o[j] = x[lo]
		if hi != lo {
			VPXOR(st.init[hi], x[hi], x[hi])
			VPBLENDVB(pick, x[hi], x[lo], x[lo])
		}
	}
	stride := 16 * len(o)
	if x[0].Size() == 16 || len(o) == 1 {
		// One seed's outputs, or one output of each seed: already in dst order.
		for j, v := range o {
			VMOVDQU(v, Mem{Base: k.dst}.Offset(st.first*stride+16*j))
		}
		return
	}
	for p := 0; p < len(o)/2; p++ {
		k.storePair(o[2*p], o[2*p+1], 32*p, stride, st.first)
	}
}

// generateWalk generates a routine that walks one point down a DPF (mul 2) or DCF
// (mul 4) tree, n levels of one-seed row states (see generateRows), with the seed
// and the control bit kept in registers from level to level. Only the rounds and a
// few instructions after them depend on the previous level; the correction word,
// the side and the control bit are set up while the previous level's rounds run.
func generateWalk(k *routine) {
	TEXT(k.name, NOSPLIT, "func(rows, sides, values, bits *byte, n, tr, mul int, in *[6]uint32, seed *[16]byte, t uint8) uint8")
	Pragma("noescape")
	Doc(k.name+" walks from seed (control bit clear) with control bit t down n levels",
		"and returns the leaf's control bit, the leaf's seed in seed. Level i expands",
		"with mul (2 or 4), takes side sides[i] and the correction word at rows+32i,",
		"whose control bit for side 1 is bit 0 of byte tr; with mul 4 it writes the",
		"side's value block to values+16i and the parent control bit to bits[i]. in",
		"is as for blocks"+k.name[4:]+".")
	rows := Load(Param("rows"), GP64())
	sides := Load(Param("sides"), GP64())
	values := Load(Param("values"), GP64())
	bits := Load(Param("bits"), GP64())
	n := Load(Param("n"), GP64())
	tr := Load(Param("tr"), GP64())
	mul := Load(Param("mul"), GP64())
	k.in = Load(Param("in"), GP64())
	seedp := Load(Param("seed"), GP64())
	t := Load(Param("t"), GP32())

	row0, row3 := XMM(), XMM()
	VMOVDQU(Mem{Base: k.in}, row0)
	VMOVQ(Mem{Base: k.in}.Offset(16), row3)
	VPSLLDQ(U8(8), row3, row3)
	// child is the block walked to with its control bit set to t, as the previous
	// level leaves it.
	child := XMM()
	VMOVDQU(Mem{Base: seedp}, child)
	b := GP32()
	MOVBLZX(Mem{Base: seedp}.Offset(12), b)
	ANDL(U8(1), t)
	ORL(t, b)
	VPINSRB(U8(12), b, child, child)

	done := k.name + "_done"
	CMPQ(mul, U8(4))
	JE(LabelRef(k.name + "_mul4"))
	for _, m := range []int{2, 4} {
		name := k.name + "_mul" + strconv.Itoa(m)
		Label(name)
		CMPQ(n, U8(0))
		JE(LabelRef(done))

		// The correction word's control bit is its own for side 0, byte tr's bit 0
		// for side 1: flip it where they differ and the side is 1.
		c12, d, side := GP32(), GP32(), GP32()
		MOVBLZX(Mem{Base: rows}.Offset(12), c12)
		MOVBLZX(Mem{Base: rows, Index: tr, Scale: 1}, d)
		MOVBLZX(Mem{Base: sides}, side)
		XORL(c12, d)
		ANDL(side, d)
		ANDL(U8(1), d)
		XORL(d, c12)
		corr := XMM()
		VMOVDQU(Mem{Base: rows}, corr)
		VPINSRB(U8(12), c12, corr, corr)
		// VPBLENDVB reads the top bit of each byte: shifting bit 0 of the control
		// byte or of the side there makes the masks.
		tmask, zero := XMM(), XMM()
		VPSHUFB(k.c.ctrlByte, child, tmask)
		VPSLLW(U8(7), tmask, tmask)
		VPXOR(zero, zero, zero)
		VPBLENDVB(tmask, corr, zero, corr)
		pick := XMM()
		VPBROADCASTB(Mem{Base: sides}, pick)
		VPSLLW(U8(7), pick, pick)
		if m == 4 {
			VPEXTRB(U8(12), child, b)
			ANDL(U8(1), b)
			MOVB(b.As8(), Mem{Base: bits})
		}

		seed := XMM()
		VPAND(k.c.clearCtrl, child, seed)
		st := &rowSet{}
		for r := range st.x {
			st.x[r] = XMM()
		}
		VMOVDQU(row0, st.x[0])
		VMOVDQU(seed, st.x[1])
		VMOVDQU(seed, st.x[2])
		VMOVDQU(row3, st.x[3])
		// The seed outputs' feed-forward rows with the correction folded in, so
		// that the rounds are followed by one XOR and the blend.
		k0, k1 := XMM(), XMM()
		VPXOR(row0, corr, k0)
		VPXOR(seed, corr, k1)
		k.rowRounds(name+"_round", []*rowSet{st})

		// The seed output is row 0 for side 0 and row 1 (mul 2) or 2 (mul 4) for
		// side 1; the value output of mul 4 is row 1 or 3.
		hi := st.x[m/2]
		VPXOR(k0, st.x[0], st.x[0])
		VPXOR(k1, hi, hi)
		VPBLENDVB(pick, hi, st.x[0], child)
		if m == 4 {
			VPXOR(seed, st.x[1], st.x[1])
			VPXOR(row3, st.x[3], st.x[3])
			VPBLENDVB(pick, st.x[3], st.x[1], st.x[1])
			VMOVDQU(st.x[1], Mem{Base: values})
			ADDQ(U8(16), values)
			INCQ(bits)
		}
		ADDQ(U8(32), rows)
		INCQ(sides)
		DECQ(n)
		JMP(LabelRef(name))
	}

	Label(done)
	VPEXTRB(U8(12), child, b)
	ANDL(U8(1), b)
	VPAND(k.c.clearCtrl, child, child)
	VMOVDQU(child, Mem{Base: seedp})
	Store(b.As8(), ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// generatePoints generates a routine that walks chunks (1 or 2) chunks of points (a
// chunk is one point per lane of the blocks routines' transposed state) down all n
// levels of their DPF (mul 2) or DCF (mul 4) trees in one call. Each level expands
// every lane's seed, picks its side's outputs, loads each lane's correction word
// from its own key (see loadRows) and applies it where the lane's control bit is
// set; DCF adds the level's value share to each point's sum. The loads and whatever
// else depends on the parents alone come before the rounds, so that they run beside
// them.
// Two chunks' rounds go step by step interleaved, as blocksAVX512's pairs do (one
// chunk's quarter-round steps leave the vector units idle: blocksAVX512 took 9.3 ns
// a seed with one chunk at a time on the Intel Xeon VM, 8.3 with two). Between
// levels the children and sums wait in the frame.
func generatePoints(k *routine, chunks int) {
	// Not NOSPLIT: the frame is over the limit of a function that skips the stack
	// check.
	TEXT(k.name, 0, "func(nodes, xs, rows *byte, offs, next *int32, n, tr, mul int, sums *byte, arith *[3][64]byte, in *[6]uint32, or *uint64, ahead *byte, aheadLen int)")
	Pragma("noescape")
	points := strconv.Itoa(chunks * k.lanes())
	Doc(k.name+" walks "+points+" points from nodes ("+points+" blocks, each a root seed with its",
		"control bit) down n levels and leaves their leaves, control bits included, in",
		"nodes. Point j's path is xs[j] ("+points+" blocks, little-endian 128-bit numbers):",
		"at level i it takes the side of bit 127-i, and the correction word at",
		"rows+offs[j]+32i, of which bit 0 of byte tr is the control-bit correction of side",
		"1. Level i expands with mul (2 or 4). In its last two levels it prefetches the",
		"first two rows at rows+next[j] ("+points+" offsets; next may be nil), the next",
		"call's, and fetches the aheadLen bytes at ahead into the L2 cache, two lines",
		"a double round (the next call's rows). With mul 2 it ORs into *or the second",
		"blocks of the rows it reads, bit 0 left out: zero in a DPF key's level rows. With",
		"mul 4 it writes to sums ("+points+" blocks) each point's sum over the levels of its",
		"value output and, where its parent control bit is set, its row's second block,",
		"each ANDed with mask arith[0] and added as XOR in the bits of mask arith[1], as",
		"64-bit addition in those of arith[2]; each mask is a block repeated over 64",
		"bytes. in is as for blocks"+strings.TrimSuffix(k.name[6:], "One")+".")
	xs := Load(Param("xs"), GP64())
	rows := Load(Param("rows"), GP64())
	offsp := Load(Param("offs"), GP64())
	n := Load(Param("n"), GP64())
	tr := Load(Param("tr"), GP64())
	mul := Load(Param("mul"), GP64())
	arith := Load(Param("arith"), GP64())
	k.in = Load(Param("in"), GP64())

	// A chunk's frame: children, seeds, corrections, sums and paths (4 slots each)
	// and its lanes' row offsets; then the spilled state words (AVX2: words 8-11;
	// AVX-512: the second chunk's 16 while the first one's outputs are picked) and
	// the OR of the rows read (DPF).
	size := 4 * k.lanes()
	const chunkSlots = 21
	frame := alignedLocal((chunks*chunkSlots+17)*size, size)
	slot := func(i int) Mem { return frame.Offset(i * size) }
	for i := range k.slot {
		k.slot[i] = slot(chunks*chunkSlots + i)
	}
	ahead := k.aheadSlots()
	trRows, level := GP64(), GP64()
	LEAQ(Mem{Base: rows, Index: tr, Scale: 1}, trRows)
	XORQ(level, level)
	fs := make([]*pointFrame, chunks)
	for c := range fs {
		f := &pointFrame{rows: rows, trRows: trRows, level: level, arith: arith, rowsOr: slot(chunks*chunkSlots + 16)}
		base := c * chunkSlots
		for w := range 4 {
			f.child[w], f.seed[w], f.corr[w] = slot(base+w), slot(base+4+w), slot(base+8+w)
			f.sum[w], f.path[w] = slot(base+12+w), slot(base+16+w)
		}
		f.off = slot(base + 20)
		fs[c] = f
		nodes := Load(Param("nodes"), GP64()) // loaded where used: registers are short
		for w, v := range k.loadWords(Mem{Base: nodes}.Offset(c * k.lanes() * 16)) {
			k.move(v, f.child[w])
		}
		for w, v := range k.loadWords(Mem{Base: xs}.Offset(c * k.lanes() * 16)) {
			k.move(v, f.path[w])
		}
		offs, idx := k.vec(), k.vec()
		k.move(Mem{Base: offsp}.Offset(c*k.lanes()*4), offs)
		k.move(k.laneOrder(), idx)
		VPERMD(offs, idx, offs)
		k.move(offs, f.off)
	}
	// The seeds wait in the frame for the final XOR.
	k.seedSlots = true
	states := make([][16]VecVirtual, chunks)
	for c := range states {
		for i := range states[c] {
			states[c][i] = k.vec()
		}
	}

	done := k.name + "_done"
	CMPQ(mul, U8(4))
	JE(LabelRef(k.name + "_mul4"))
	for _, m := range []int{2, 4} {
		name := k.name + "_mul" + strconv.Itoa(m)
		if m == 4 {
			// Zero as a child's word XORed with itself: a register XORed with itself
			// alone would be live from the entry on, and the pair's rounds take all 32.
			zero := k.vec()
			Label(name)
			k.move(fs[0].child[0], zero)
			k.xor(zero, zero, zero)
			for _, f := range fs {
				for _, s := range f.sum {
					k.move(zero, s)
				}
			}
		}
		if m == 2 {
			zero := k.vec()
			k.move(fs[0].child[0], zero)
			k.xor(zero, zero, zero)
			k.move(zero, fs[0].rowsOr)
		}
		Label(name + "_level")
		CMPQ(n, U8(0))
		JE(LabelRef(name + "_done"))
		k.prefetchNext(chunks, rows, level, n, name)
		for _, f := range fs {
			k.pointParents(m, f)
		}
		for c, f := range fs {
			k.x = states[c]
			k.initFromSlots(f.seed)
		}
		fetch := func() { k.prefetchAhead(ahead, name) }
		if chunks == 1 {
			k.rounds(name+"_round", fetch)
		} else {
			k.pairRounds(states[0], states[1], name+"_round", fetch)
			for i, v := range states[1] {
				k.move(v, k.slot[i])
			}
		}
		for c, f := range fs {
			k.x = states[c]
			if c == 1 {
				for i := range k.spilled {
					k.spilled[i] = true
				}
			}
			k.pointChildren(m, f)
		}
		k.spilled = [16]bool{}
		ADDQ(U8(32), rows)
		ADDQ(U8(32), trRows)
		INCQ(level)
		DECQ(n)
		JMP(LabelRef(name + "_level"))

		Label(name + "_done")
		if m == 2 {
			k.storeRowsOr(fs[0].rowsOr)
		}
		if m == 4 {
			sums := Load(Param("sums"), GP64())
			for c, f := range fs {
				for i, s := range f.sum {
					v := k.vec()
					k.move(s, v)
					k.move(v, Mem{Base: sums}.Offset((c*4+i)*size))
				}
			}
		}
		JMP(LabelRef(done))
	}

	Label(done)
	k.seedSlots = false
	for c, f := range fs {
		var leaves [4]VecVirtual
		for w := range leaves {
			leaves[w] = k.vec()
			k.move(f.child[w], leaves[w])
		}
		nodes := Load(Param("nodes"), GP64())
		k.storeWords(leaves, Mem{Base: nodes}.Offset(c*k.lanes()*16))
	}
	VZEROUPPER()
	RET()
}

// storeRowsOr ORs into *or the second blocks of loadRows' OR at m (its 128-bit
// parts 1 and 3), one 64-bit half into the other, bit 0 left out: the right
// child's control-bit correction, which may be set in any row.
func (k *routine) storeRowsOr(m Mem) {
	x := XMM()
	VMOVDQU(m.Offset(16), x)
	if k.wide {
		VPOR(m.Offset(48), x, x)
	}
	lo, hi := GP64(), GP64()
	VMOVQ(x, lo)
	VPEXTRQ(U8(1), x, hi)
	ANDQ(I8(-2), lo)
	ORQ(hi, lo)
	orp := Load(Param("or"), GP64())
	ORQ(lo, Mem{Base: orp})
}

// rowWord is word w of row r of the state after the rounds, in a register.
func (k *routine) rowWord(r, w int) VecVirtual {
	if !k.spilled[4*r+w] {
		return k.x[4*r+w]
	}
	// A fresh register rather than the word's own: after the rounds the word's
	// register may be taken, and the fresh one can share a dead word's.
	v := k.vec()
	k.move(k.slot[4*r+w], v)
	return v
}

// pointFrame is where generatePoints keeps a chunk's walk between levels: the
// children, their seeds and corrections (transposed words), the DCF sums (blocks),
// the paths (transposed words) and the lanes' row offsets; and the rows of the
// level, its tr bytes, the level's number and the OR of the rows read.
type pointFrame struct {
	child, seed, corr, sum, path [4]Mem
	off                          Mem
	rows, trRows                 Register
	level                        Register
	rowsOr                       Mem // the OR of the rows whole (see loadRows)
	t                            Op  // the parents' control bits (AVX-512), from pointParents to pointChildren
	arith                        Register
}

// prefetchLevels is how many levels ahead generatePoints fetches the lanes' rows:
// two levels' rounds outlast a miss to memory.
const prefetchLevels = 2

// pointParents is the part of a level of generatePoints' walk for mul m that needs
// the parents alone (the children of the previous level, or the roots, in the
// child slots): the seeds, the side's correction word (AVX2: in the lanes whose
// control bit is set, zero elsewhere) and the DCF sums' terms from the rows.
func (k *routine) pointParents(m int, f *pointFrame) {
	for w := range 4 {
		s := k.vec()
		k.move(f.child[w], s)
		if w == 3 {
			k.clearControl(s)
		}
		k.move(s, f.seed[w])
	}
	if k.wide {
		k.wideParents(m, f)
		return
	}
	words, second := k.loadRows(m, f)
	pick := k.pathMask(f)
	t := k.controlMask(f.child[3])
	offs := k.vec()
	k.move(f.off, offs)
	for w, c := range words {
		if w == 3 {
			// The control-bit correction is the row's own bit for side 0 and that
			// of byte tr for side 1: flip bit 0 where they differ.
			side := k.vec()
			k.move(c, side)
			k.blend(pick, side, k.gather(f.trRows, offs, 0))
			k.xor(c, side, side)
			VPSLLD(U8(31), side, side)
			VPSRLD(U8(31), side, side)
			k.xor(side, c, c)
		}
		k.and(t, c, c)
		k.move(c, f.corr[w])
	}
	if m == 4 {
		k.addRowSums(f, second, t)
	}
}

// wideParents is pointParents' AVX-512 part after the seeds: the control bits are
// an opmask, f.t, which pointChildren applies the corrections under, so they are
// kept whole.
func (k *routine) wideParents(m int, f *pointFrame) {
	words, second := k.loadRows(m, f)
	pick := k.pathMask(f)
	offs := k.vec()
	k.move(f.off, offs)
	// The control-bit correction is the row's own bit for side 0 and that of byte
	// tr for side 1: bit 0 from the side's, the rest from the row.
	side := k.vec()
	k.move(words[3], side)
	k.blend(pick, side, k.gather(f.trRows, offs, 0))
	VPTERNLOGD_BCST(U8(ternB&ternC|ternA&^ternC), k.c.lowBit, side, words[3])
	for w, c := range words {
		k.move(c, f.corr[w])
	}
	parent := k.vec()
	f.t = K()
	k.move(f.child[3], parent)
	VPTESTMD_BCST(k.c.lowBit, parent, f.t)
	if m == 4 {
		k.addRowSums(f, second, k.controlMask(f.child[3]))
	}
}

// addRowSums adds to the DCF sums the rows' second blocks (loadRows' second) where
// the lane's control bit is set in t (lane masks).
func (k *routine) addRowSums(f *pointFrame, second [4]VecVirtual, t VecVirtual) {
	// Block i's part g is point p*i+g's (p parts a vector), whose control bit is in
	// lane 4g+i.
	for i, b := range second {
		ti := k.vec()
		VPSHUFD(U8(0x55*i), t, ti)
		k.and(ti, b, b)
	}
	k.addToSums(f, second)
}

// clearControl clears the control bit, bit 0 of the words of a block's word 3, in s.
func (k *routine) clearControl(s VecVirtual) {
	if k.wide {
		VPTERNLOGD_BCST(U8(ternA&^ternC), k.c.lowBit, s, s)
		return
	}
	VPSRLD(U8(1), s, s)
	VPSLLD(U8(1), s, s)
}

// loadRows loads each lane's row of the level whole and returns the first blocks
// transposed into words and the second blocks as blocks (for DCF's sums), block i's
// part g point p*i+g's (p parts a vector), the layout transpose turns into lane
// 4g+i. For DPF (m 2) it ORs the second blocks into f.rowsOr. Gathering the first
// blocks a word at a time cost 5% of a 2^16-key DPF Eval on AVX-512, the OR in
// scalar registers 2.7%. It also fetches each lane's row two levels ahead: a load
// that misses the cache would stall the level's end, which the rounds cannot hide.
func (k *routine) loadRows(m int, f *pointFrame) (words, second [4]VecVirtual) {
	off := GP64()
	var first [4]VecVirtual
	var or VecVirtual
	if m == 2 {
		or = k.vec()
		k.move(f.rowsOr, or)
	}
	parts := k.lanes() / 4
	// row loads point q's row into v: whole (r 0) or as v's upper half (r 1).
	row := func(q int, v VecVirtual, r int) {
		MOVLQSX(f.off.Offset(4*(4*(q%parts)+q/parts)), off)
		PREFETCHT0(Mem{Base: f.rows, Index: off, Scale: 1, Disp: 32 * prefetchLevels})
		at := Mem{Base: f.rows, Index: off, Scale: 1}
		switch {
		case !k.wide:
			VMOVDQU(at, v)
		case r == 0:
			VBROADCASTI64X4(at, v) // a load alone, which sets all of v
		default:
			VINSERTI64X4(U8(1), at, v, v)
		}
	}
	for i := range 4 {
		// Two vectors of whole rows, points p*i .. p*i+p-1: with AVX-512 two rows
		// each, the first blocks their parts 0 and 2, the second blocks 1 and 3.
		var pair [2]VecVirtual
		for h := range pair {
			pair[h] = k.vec()
			for r := range parts / 2 {
				row(parts*i+parts/2*h+r, pair[h], r)
			}
		}
		first[i] = k.vec()
		k.halves(pair, true, first[i])
		if m == 4 {
			second[i] = k.vec()
			k.halves(pair, false, second[i])
			continue
		}
		if k.wide {
			VPTERNLOGD(U8(ternA|ternB|ternC), pair[1], pair[0], or)
		} else {
			k.or(pair[0], or, or)
			k.or(pair[1], or, or)
		}
	}
	if m == 2 {
		k.move(or, f.rowsOr)
	}
	return k.transpose(first), second
}

// halves sets dst to the first (or second) blocks of the rows in pair, in order.
func (k *routine) halves(pair [2]VecVirtual, first bool, dst VecVirtual) {
	if k.wide {
		imm := U8(0xdd) // parts 1, 3 of pair[0], then of pair[1]
		if first {
			imm = 0x88 // parts 0, 2
		}
		VSHUFI32X4(imm, pair[1], pair[0], dst)
		return
	}
	imm := U8(0x31)
	if first {
		imm = 0x20
	}
	VPERM2I128(imm, pair[1], pair[0], dst)
}

// aheadSlots keeps in the frame where generatePoints' fetches of the next call's
// rows are (slot 0) and how many lines are left (slot 1), from its parameters ahead
// and aheadLen: an even count, the first line fetched at once where it is odd.
func (k *routine) aheadSlots() [2]Mem {
	m := AllocLocal(16)
	slots := [2]Mem{m, m.Offset(8)}
	p, lines := Load(Param("ahead"), GP64()), Load(Param("aheadLen"), GP64())
	ADDQ(U8(63), lines)
	SHRQ(U8(6), lines)
	TESTQ(U32(1), lines)
	JZ(LabelRef(k.name + "_ahead_even"))
	PREFETCHT1(Mem{Base: p})
	ADDQ(U8(64), p)
	DECQ(lines)
	Label(k.name + "_ahead_even")
	MOVQ(p, slots[0])
	MOVQ(lines, slots[1])
	return slots
}

// prefetchAhead fetches the next two lines of the next call's rows (see aheadSlots)
// into the L2 cache, if any are left. Run once a double round, 20 lines a level, it
// covers a call's rows (at most 32 keys of n+1 rows, 32(n+1) lines) in its n levels
// for n >= 4, so that the call's per-lane fetches, two levels ahead, find them in L2
// rather than in memory, which those fetches did not wait out: the walk on 2^16 keys
// ran a level in 1.18x the PRG's time alone, in cache 1.06x. Fetches bunched at a
// level's start instead wait on one another: 40 a level ran 1.17x slower than 20.
func (k *routine) prefetchAhead(slots [2]Mem, name string) {
	left, p := GP64(), GP64()
	skip := name + "_ahead_skip"
	MOVQ(slots[1], left)
	TESTQ(left, left)
	JZ(LabelRef(skip))
	MOVQ(slots[0], p)
	PREFETCHT1(Mem{Base: p})
	PREFETCHT1(Mem{Base: p, Disp: 64})
	ADDQ(U8(128), p)
	MOVQ(p, slots[0])
	SUBQ(U8(2), left)
	MOVQ(left, slots[1])
	Label(skip)
}

// prefetchNext fetches, in the last two levels of generatePoints' walk (n levels
// left of the current one's number level, rows at its row), the first two rows of
// the next call's points: their offsets at next, unless it is nil. The first levels
// of a call would otherwise wait on memory, its rows fetched ahead of each level only
// from the call's start.
func (k *routine) prefetchNext(chunks int, rows, level, n Register, name string) {
	skip := name + "_next_done"
	CMPQ(n, U8(2))
	JA(LabelRef(skip))
	next := Load(Param("next"), GP64())
	TESTQ(next, next)
	JZ(LabelRef(skip))
	// The call's rows start at rows - 32*level, and the next call's point j fetches
	// its row 2-n, 32*(2-n) past its offset: at rows + 32*(2-level-n) + next[j].
	at := GP64()
	MOVQ(level, at)
	ADDQ(n, at)
	SHLQ(U8(5), at)
	NEGQ(at)
	LEAQ(Mem{Base: rows, Index: at, Scale: 1, Disp: 64}, at)
	off := GP64()
	for j := 0; j < chunks*k.lanes(); j++ {
		MOVLQSX(Mem{Base: next}.Offset(4*j), off)
		PREFETCHT0(Mem{Base: at, Index: off, Scale: 1})
	}
	Label(skip)
}

// pointChildren finishes a level of generatePoints' walk after the rounds on the
// state in k.x: the seed output is row 0 for side 0 and row 1 (mul 2) or 2 (mul 4)
// for side 1, XORed with the correction, the next child; the value output of mul
// 4, row 1 or 3, goes to the sums.
func (k *routine) pointChildren(m int, f *pointFrame) {
	k.seed = f.seed
	pick := k.pathMask(f)
	if m == 4 {
		var v [4]VecVirtual
		for w := range v {
			v[w] = k.output(1, w)
			k.blend(pick, v[w], k.output(3, w))
		}
		k.addToSums(f, k.transpose(v))
	}
	for w := range 4 {
		o := k.output(0, w)
		if k.wide {
			// Side 1's output in its lanes, the correction in those of f.t.
			VPXORD(k.seed[w], k.rowWord(m/2, w), pick, o)
			VPXORD(f.corr[w], o, f.t, o)
		} else {
			k.blend(pick, o, k.output(m/2, w))
			k.xor(f.corr[w], o, o)
		}
		k.move(o, f.child[w])
	}
}

// pathMask is the blend mask of the lanes' sides at level f.level, bit 127-i of
// their paths (word 3-i/32, bit 31-i%32), as selMask makes it: the word shifted
// left by i%32 has the side in its top bit.
func (k *routine) pathMask(f *pointFrame) Op {
	at, cnt, c := GP64(), GP64(), XMM()
	MOVQ(f.level, at)
	SHRQ(U8(5), at)
	NEGQ(at)
	SHLQ(U8(bits.TrailingZeros(uint(4*k.lanes()))), at)
	MOVQ(f.level, cnt)
	ANDQ(U8(31), cnt)
	VMOVQ(cnt, c)
	top := k.vec()
	k.move(Mem{Base: f.path[3].Base, Disp: f.path[3].Disp, Index: at, Scale: 1}, top)
	VPSLLD(c, top, top)
	if k.wide {
		m := K()
		VPTESTMD_BCST(k.c.signBit, top, m)
		return m
	}
	VPSRAD(U8(31), top, top)
	VPXOR(k.c.ones, top, top)
	return top
}

// initFromSlots is initState from seeds kept at seed (transposed words).
func (k *routine) initFromSlots(seed [4]Mem) {
	k.seed = seed
	k.initRows([4]Op{seed[0], seed[1], seed[2], seed[3]})
}

// initRows sets the state to row 0 and row 3 from in and rows 1 and 2 to seed.
func (k *routine) initRows(seed [4]Op) {
	for w := range seed {
		k.move(seed[w], k.x[4+w])
		k.move(k.x[4+w], k.x[8+w])
		VPBROADCASTD(Mem{Base: k.in}.Offset(4*w), k.x[w])
	}
	VPBROADCASTD(Mem{Base: k.in}.Offset(16), k.x[14])
	VPBROADCASTD(Mem{Base: k.in}.Offset(20), k.x[15])
	// Words 12 and 13 start at zero: XORed from word 14, not from themselves,
	// whose read would keep their registers live, and taken, from the entry on.
	k.xor(k.x[14], k.x[14], k.x[12])
	k.xor(k.x[14], k.x[14], k.x[13])
	if !k.wide {
		k.spill(10)
		k.spill(11)
	}
}

// addToSums adds a block per lane (ANDed with the group's From mask) to a DCF walk's
// sums in the group's arithmetic.
func (k *routine) addToSums(f *pointFrame, blocks [4]VecVirtual) {
	// The masks are 64 bytes apart, the size of the widest vector.
	from, xorBits, addBits := Mem{Base: f.arith}, Mem{Base: f.arith}.Offset(64), Mem{Base: f.arith}.Offset(128)
	for i, x := range blocks {
		sum := k.vec()
		k.move(f.sum[i], sum)
		k.and(from, x, x)
		k.groupAdd(sum, x, xorBits, addBits)
		k.move(sum, f.sum[i])
	}
}

// The truth tables of VPTERNLOG's operands, whose bitwise expressions are its
// immediates: A the destination's old value, B the register source, C the last
// source (a register or memory).
const (
	ternA = 0xf0
	ternB = 0xcc
	ternC = 0xaa
)

// groupAdd sets sum to sum + x: XOR in the bits of mask xorBits, 64-bit addition in
// those of addBits.
func (k *routine) groupAdd(sum, x VecVirtual, xorBits, addBits Mem) {
	s := k.vec()
	VPADDQ(x, sum, s)
	if k.wide {
		VPTERNLOGD(U8((ternA^ternB)&ternC), xorBits, x, sum)
		VPTERNLOGD(U8(ternA|ternB&ternC), addBits, s, sum)
		return
	}
	k.xor(x, sum, sum)
	k.and(xorBits, sum, sum)
	k.and(addBits, s, s)
	k.or(s, sum, sum)
}

// seedRounds emits the head of the children routines' chunk loop: the exit once
// no chunks are left, then the chunk's seeds loaded, their control bits kept in t
// (see seedState), and the rounds on them.
func (k *routine) seedRounds(chunks Register, t Op) {
	Label(k.name + "_chunk")
	CMPQ(chunks, Imm(0))
	JE(LabelRef(k.name + "_done"))
	k.seedState(0, t)
	k.rounds(k.name+"_round", nil)
}

// seedState sets the state to chunk c's nodes from k.src, their control bits
// cleared and kept in t: an opmask with AVX-512, lane masks in a frame slot with
// AVX2.
func (k *routine) seedState(c int, t Op) {
	seed := k.loadWords(Mem{Base: k.src}.Offset(c * k.lanes() * 16))
	if k.wide {
		VPTESTMD_BCST(k.c.lowBit, seed[3], t)
		VPTERNLOGD_BCST(U8(ternA&^ternC), k.c.lowBit, seed[3], seed[3])
	} else {
		k.move(k.controlMask(seed[3]), t)
		VPSRLD(U8(1), seed[3], seed[3])
		VPSLLD(U8(1), seed[3], seed[3])
	}
	k.initState(seed)
}

// controls returns where the children routines keep a chunk's control bits (see
// seedState): with AVX-512 an opmask for each of a pair's chunks; with AVX2, whose
// chunks come one at a time, the caller sets the first to a frame slot.
func (k *routine) controls() [2]Op {
	if k.wide {
		return [2]Op{K(), K()}
	}
	return [2]Op{}
}

// correct XORs the word at cw into every lane of o whose control bit is set in t,
// as seedState keeps them.
func (k *routine) correct(o VecVirtual, t Op, cw Mem) {
	if k.wide {
		VPXORD_BCST(cw, o, t, o)
		return
	}
	c := k.vec()
	VPBROADCASTD(cw, c)
	k.and(t, c, c)
	k.xor(c, o, o)
}

// controlMask is all ones in the lanes whose block's control bit (bit 0 of word 3,
// at m) is set.
func (k *routine) controlMask(m Op) VecVirtual {
	t := k.vec()
	if k.wide {
		VPSLLD(U8(31), m, t)
	} else {
		k.move(m, t) // AVX2's shift by an immediate takes a register only
		VPSLLD(U8(31), t, t)
	}
	VPSRAD(U8(31), t, t)
	return t
}

// blockControls is all ones over each block of x (blocks, or at memory) whose
// control bit, bit 0 of its word 3, is set.
func (k *routine) blockControls(x Op) VecVirtual {
	t := k.vec()
	VPSHUFD(U8(0xff), x, t) // word 3 over each block
	VPSLLD(U8(31), t, t)
	VPSRAD(U8(31), t, t)
	return t
}

// gather loads a word per lane from base+idx+disp. Its mask, which it clears, is
// set by comparing idx with itself, and its destination, which it merges into, is
// cleared as idx XOR idx: an instruction that sets a register from itself alone
// (KXNORW, VPCMPEQD x, x, VPXORD x, x) would read it before it is written, which
// keeps it live, and taken, from the function's entry on.
func (k *routine) gather(base Register, idx VecVirtual, disp int) VecVirtual {
	dst := k.vec()
	k.xor(idx, idx, dst)
	at := Mem{Base: base, Index: idx, Scale: 1, Disp: disp}
	if k.wide {
		all := K()
		VPCMPEQD(idx, idx, all)
		VPGATHERDD(at, all, dst)
		return dst
	}
	all := YMM()
	VPCMPEQD(idx, idx, all)
	VPGATHERDD(all, at, dst)
	return dst
}

func (k *routine) or(a, b, dst Op) {
	if k.wide {
		VPORD(a, b, dst)
	} else {
		VPOR(a, b, dst)
	}
}

func (k *routine) and(a, b, dst Op) {
	if k.wide {
		VPANDD(a, b, dst)
	} else {
		VPAND(a, b, dst)
	}
}

// laneOrder is the VPERMD indices that put seeds in state lane order.
func (k *routine) laneOrder() Mem {
	if k.wide {
		return k.c.selAVX512
	}
	return k.c.selAVX2
}

// generateChildren generates a routine that writes both children of a chunk of DPF
// tree nodes, corrected, in one pass: the rounds of the blocks routine (mul 2), then
// in each lane whose node's control bit is set the correction words XORed in, and
// the children stored next to each other, control bits in their lsb, as EvalAll's
// next level or leaves read them.
func generateChildren(k *routine) {
	flags := NOSPLIT
	if k.wide {
		flags = 0 // the pairs' frame passes the NOSPLIT limit
	}
	TEXT(k.name, flags, "func(dst, src *byte, chunks int, cws *[2][16]byte, leaf *[5][64]byte, in *[6]uint32)")
	Pragma("noescape")
	Doc(k.name+" expands chunks*"+strconv.Itoa(k.lanes())+" nodes of src (blocks, control bit t in bit 0",
		"of byte 12) with mul 2 and writes each node's children to dst, the left one (row",
		"0) XORed with cws[0] and the right one (row 1) with cws[1] where t is 1. With",
		"leaf not nil it writes leaf outputs instead: each child c (control bit t') as",
		"(c AND leaf[0]) + t'*leaf[4], then 0 minus that in the bits of leaf[3]; +",
		"is XOR in the bits of leaf[1] and 64-bit addition in those of leaf[2], and",
		"each mask is a block repeated over 64 bytes. in is as for blocks"+k.name[8:]+".")
	k.dst = Load(Param("dst"), GP64())
	k.src = Load(Param("src"), GP64())
	chunks := Load(Param("chunks"), GP64())
	cws := Load(Param("cws"), GP64())
	leaf := Load(Param("leaf"), GP64())
	k.in = Load(Param("in"), GP64())
	neg := k.negates(leaf)
	ts := k.controls()
	if !k.wide {
		// The control bits, the seeds and state words 8-11.
		frame := alignedLocal(9*32, 32)
		ts[0] = frame
		for w := range k.seed {
			k.seed[w] = frame.Offset(32 * (1 + w))
			k.slot[8+w] = frame.Offset(32 * (5 + w))
		}
	}
	for i := range k.x {
		k.x[i] = k.vec()
	}

	// tail writes chunk c's children (of the state in k.x), c chunks' worth past dst.
	tail := func(c int, infix string) {
		var child [2][4]VecVirtual
		for side := range child {
			for w := range child[side] {
				o := k.output(side, w)
				k.correct(o, ts[c], Mem{Base: cws}.Offset(16*side+4*w))
				child[side][w] = o
			}
		}
		blocks := [2][4]VecVirtual{k.transpose(child[0]), k.transpose(child[1])}
		// The leaf is the same for every chunk, so these branches predict perfectly.
		store := k.name + infix + "_store"
		TESTQ(leaf, leaf)
		JZ(LabelRef(store))
		m := func(i int) Mem { return Mem{Base: leaf}.Offset(64 * i) }
		for side, bs := range blocks {
			// The children's control bits as lane masks, from their words 3.
			t := k.controlMask(child[side][3])
			for j, x := range bs {
				// Vector j holds the blocks of lanes j, j+4, ...: lane 4g+j is
				// block g's.
				tj := k.vec()
				VPSHUFD(U8(0x55*j), t, tj)
				k.leafShare(x, tj, m)
			}
		}
		TESTQ(neg, neg)
		JZ(LabelRef(store))
		for _, bs := range blocks {
			for _, x := range bs {
				k.negate(x, m(3))
			}
		}
		Label(store)
		a, b := blocks[0], blocks[1]
		for i := range a {
			k.storePair(a[i], b[i], c*2*k.lanes()*16, 32, i*k.lanes()/4)
		}
	}
	if k.wide {
		k.pairs(chunks, func(c int) { k.seedState(c, ts[c]) }, tail, func() {
			ADDQ(U32(4*k.lanes()*16), k.dst)
			ADDQ(U32(2*k.lanes()*16), k.src)
		})
	}
	k.seedRounds(chunks, ts[0])
	tail(0, "")
	ADDQ(U32(2*k.lanes()*16), k.dst)
	ADDQ(U32(k.lanes()*16), k.src)
	DECQ(chunks)
	JMP(LabelRef(k.name + "_chunk"))

	Label(k.name + "_done")
	VZEROUPPER()
	RET()
}

// negates returns a register that is zero where the leaf masks at m (nil or not),
// as generateChildren's, negate nothing: party 0, or a group without addition.
func (k *routine) negates(m Register) Register {
	neg := GP64()
	XORQ(neg, neg)
	TESTQ(m, m)
	JZ(LabelRef(k.name + "_negates"))
	MOVQ(Mem{Base: m}.Offset(3*64), neg)
	ORQ(Mem{Base: m}.Offset(3*64+8), neg)
	Label(k.name + "_negates")
	return neg
}

// leafValue sets v, blocks of DCF path values, to the outputs at leaves s as
// generateDcfChildren's masks m(0..4) say.
func (k *routine) leafValue(v, s VecVirtual, m func(int) Mem) {
	k.leafShare(s, k.blockControls(s), m)
	k.groupAdd(v, s, m(1), m(2))
	k.negate(v, m(3))
}

// leafShare sets x, blocks of leaves, to (x AND m(0)) + t*m(4), with t all ones
// over the blocks whose control bit is set and zero elsewhere.
func (k *routine) leafShare(x, t VecVirtual, m func(int) Mem) {
	k.and(m(4), t, t)
	k.and(m(0), x, x)
	k.groupAdd(x, t, m(1), m(2))
}

// negate sets x to 0 - x (64-bit lanes) in the bits of mask neg.
func (k *routine) negate(x VecVirtual, neg Mem) {
	r := k.vec()
	k.xor(x, x, r) // zero; not r XOR r, which would keep r live from the entry on
	VPSUBQ(x, r, r)
	if k.wide {
		VPTERNLOGD(U8(ternA&^ternC|ternB&ternC), neg, r, x) // r where neg is set, else x
		return
	}
	n := k.vec()
	k.move(neg, n)
	k.and(n, r, r)
	VPANDN(x, n, x)
	k.or(r, x, x)
}

// generateDcfChildren generates generateChildren's routine for DCF (mul 4): each
// node's children, seeds corrected, and their path values, the node's value plus the
// child's value output plus, where the node's control bit is set, the value
// correction; at the last level the outputs themselves.
func generateDcfChildren(k *routine) {
	// Not NOSPLIT: the AVX-512 frame is over the limit of a function that skips the
	// stack check.
	TEXT(k.name, 0, "func(dst, dstV, src, srcV *byte, chunks int, cws *[3][16]byte, masks *[5][64]byte, leaf int, in *[6]uint32)")
	Pragma("noescape")
	Doc(k.name+" expands chunks*"+strconv.Itoa(k.lanes())+" DCF nodes of src (blocks, control bit t in bit 0",
		"of byte 12) with path values srcV with mul 4 and writes each node's children to",
		"dst, the left one (row 0) XORed with cws[0] and the right one (row 2) with cws[1]",
		"where t is 1, and their values to dstV: the node's value + (its row 1 or 3 AND",
		"masks[0]) + t*cws[2]. + is XOR in the bits of masks[1] and 64-bit addition in",
		"those of masks[2]. With leaf 1 it writes to dst the children's outputs instead:",
		"value + (child AND masks[0]) + t'*masks[4] (t' the child's control bit), then 0",
		"minus that in the bits of masks[3]. Masks are blocks repeated over 64 bytes. in",
		"is as for blocks"+k.name[11:]+".")
	k.dst = Load(Param("dst"), GP64())
	dstV := Load(Param("dstV"), GP64())
	k.src = Load(Param("src"), GP64())
	srcV := Load(Param("srcV"), GP64())
	chunks := Load(Param("chunks"), GP64())
	cws := Load(Param("cws"), GP64())
	masks := Load(Param("masks"), GP64())
	leaf := Load(Param("leaf"), GP64())
	k.in = Load(Param("in"), GP64())
	size := 4 * k.lanes()
	slots := 16 // a chunk's child seeds and value outputs as blocks
	first := 0
	if !k.wide {
		slots += 9 // the seeds, state words 8-11 and the control bits
		first = 9
	}
	frame := alignedLocal(slots*size, size)
	ts := k.controls()
	if !k.wide {
		for w := range k.seed {
			k.seed[w] = frame.Offset(size * w)
			k.slot[8+w] = frame.Offset(size * (4 + w))
		}
		ts[0] = frame.Offset(size * 8)
	}
	// out[c][i]: vector i of the blocks of output c: the left and right child seeds,
	// the left and right value outputs.
	var out [4][4]Mem
	for c := range out {
		for i := range out[c] {
			out[c][i] = frame.Offset(size * (first + 4*c + i))
		}
	}
	m := func(i int) Mem { return Mem{Base: masks}.Offset(64 * i) }
	for i := range k.x {
		k.x[i] = k.vec()
	}

	// tail writes chunk ch's children and values (of the state in k.x), ch chunks'
	// worth past dst and dstV, from its nodes and values ch chunks past src and srcV.
	tail := func(ch int, infix string) {
		// Seeds: rows 0 and 2, corrected; value outputs: rows 1 and 3.
		for c, row := range []int{0, 2, 1, 3} {
			var words [4]VecVirtual
			for w := range words {
				words[w] = k.output(row, w)
				if c < 2 {
					k.correct(words[w], ts[ch], Mem{Base: cws}.Offset(16*c+4*w))
				}
			}
			for i, b := range k.transpose(words) {
				k.move(b, out[c][i])
			}
		}

		in, outAt := ch*k.lanes()*16, ch*2*k.lanes()*16
		for i := range 4 {
			label := k.name + infix + "_leaf" + strconv.Itoa(i)
			next := k.name + infix + "_next" + strconv.Itoa(i)
			t := k.blockControls(Mem{Base: k.src}.Offset(in + i*size)) // the node's
			vcw := k.vec()
			k.broadcastBlock(Mem{Base: cws}.Offset(32), vcw)
			k.and(t, vcw, vcw)
			var v [2]VecVirtual
			for c := range v {
				v[c] = k.vec()
				k.move(Mem{Base: srcV}.Offset(in+i*size), v[c])
				raw := k.vec()
				k.move(out[2+c][i], raw)
				k.and(m(0), raw, raw)
				k.groupAdd(v[c], raw, m(1), m(2))
				k.groupAdd(v[c], vcw, m(1), m(2))
			}
			CMPQ(leaf, Imm(0))
			JNE(LabelRef(label))
			var s [2]VecVirtual
			for c := range s {
				s[c] = k.vec()
				k.move(out[c][i], s[c])
			}
			k.storePairAt(k.dst, s[0], s[1], outAt, i*k.lanes()/4)
			k.storePairAt(dstV, v[0], v[1], outAt, i*k.lanes()/4)
			JMP(LabelRef(next))

			Label(label)
			for c := range v {
				s := k.vec()
				k.move(out[c][i], s)
				k.leafValue(v[c], s, m)
			}
			k.storePairAt(k.dst, v[0], v[1], outAt, i*k.lanes()/4)
			Label(next)
		}
	}
	if k.wide {
		k.pairs(chunks, func(c int) { k.seedState(c, ts[c]) }, tail, func() {
			ADDQ(U32(4*k.lanes()*16), k.dst)
			ADDQ(U32(4*k.lanes()*16), dstV)
			ADDQ(U32(2*k.lanes()*16), k.src)
			ADDQ(U32(2*k.lanes()*16), srcV)
		})
	}
	k.seedRounds(chunks, ts[0])
	tail(0, "")
	ADDQ(U32(2*k.lanes()*16), k.dst)
	ADDQ(U32(2*k.lanes()*16), dstV)
	ADDQ(U32(k.lanes()*16), k.src)
	ADDQ(U32(k.lanes()*16), srcV)
	DECQ(chunks)
	JMP(LabelRef(k.name + "_chunk"))

	Label(k.name + "_done")
	VZEROUPPER()
	RET()
}

// storePairAt is storePair to base+off, for two outputs per seed.
func (k *routine) storePairAt(base Register, a, b VecVirtual, off, s int) {
	dst := k.dst
	k.dst = base
	k.storePair(a, b, off, 32, s)
	k.dst = dst
}

func (k *routine) broadcastBlock(m Mem, v VecVirtual) {
	if k.wide {
		VBROADCASTI32X4(m, v)
	} else {
		VBROADCASTI128(m, v)
	}
}

// alignedLocal reserves n bytes of the frame at an address aligned to align bytes,
// kept in a register: Go aligns the stack to 8 bytes only, and a vector access
// that crosses a cache line costs two.
func alignedLocal(n, align int) Mem {
	m := AllocLocal(n + align - 8)
	base := GP64()
	LEAQ(m.Offset(align-1), base)
	ANDQ(I8(-align), base)
	return Mem{Base: base}
}

// generateCpuid generates cpuid, which returns EAX, EBX, ECX and EDX of CPUID leaf
// leaf (subleaf 0).
func generateCpuid() {
	TEXT("cpuid", NOSPLIT, "func(leaf uint32) (a, b, c, d uint32)")
	Pragma("noescape")
	Doc("cpuid returns EAX, EBX, ECX and EDX of CPUID leaf leaf, subleaf 0.")
	Load(Param("leaf"), EAX)
	XORL(ECX, ECX)
	CPUID()
	Store(EAX, ReturnIndex(0))
	Store(EBX, ReturnIndex(1))
	Store(ECX, ReturnIndex(2))
	Store(EDX, ReturnIndex(3))
	RET()
}
