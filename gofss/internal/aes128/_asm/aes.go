// Command _asm generates the amd64 batch routines of package aes128 (run `go generate`
// in the package): AES-128 MMO, MMOSelect and the four-round AES Feistel pass of
// FeistelPass in three vector widths from one description, AES-NI on 128-bit
// vectors (SSE encodings, for every CPU with AES-NI), VAES on 256-bit vectors with
// AVX2 (Zen 3, Alder Lake: VAES without AVX-512) and VAES on 512-bit vectors
// (AVX-512 CPUs: EVEX encodings, 32 registers, opmasks); and the AES-NI latency
// routines on single blocks (walk.go).
//
// A vector holds w blocks (w = 1, 2 or 4) and vector v holds dst blocks w*v to
// w*v+w-1. With m keys per source block (m = len(keys) for MMO, h = len(keys)/2 for
// MMOSelect), dst block d comes from source block d/m. A pattern is the keys of a
// vector's lanes: pattern p has lane l from key lanes[w*p+l], lanes being the
// routines' first argument, 8 pointers to round keys ([11][16]byte) that the Go side
// sets per call. MMO uses patterns 0 to max(1, m/w)-1 in turn, each round's key built
// in a register per group of vectors (with 512-bit vectors once per call, held in
// registers). MMOSelect picks each vector's pattern from its sel bytes: with 128-bit
// vectors a pattern is one key, whose round keys it reads through its pointer; with
// 256-bit ones it first copies its patterns into a table on its stack, [11
// rounds][patterns][32], and reads round keys from it by index; with 512-bit ones
// it blends each round's key from two patterns held in registers, under an opmask
// made from the sel bytes.
//
// Up to 8 vectors are in flight (an AES round's latency is about 4 cycles at 1 or 2
// per cycle); the rest of a batch goes 4, 2 and 1 vectors at a time, and an odd last
// block of the 256-bit routines through the 128-bit forms, so no routine reads or
// writes a byte outside its buffers. The 512-bit routines take whole vectors; the
// Go side runs a batch's last 1 to 3 dst blocks through the 256-bit ones.
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
	rounds    = 11
	lanesType = "*[8]*[11][16]byte" // the lanes' round keys
	maxGroup  = 8                   // vectors in flight
)

// width is a vector width the routines come in.
type width struct {
	name   string // in the routines' names
	blocks int    // 16-byte blocks per vector
}

var (
	xmm = width{"AESNI", 1}
	ymm = width{"VAES256", 2}
	zmm = width{"VAES512", 4}
)

func main() {
	flag.Parse()
	ConstraintExpr("!purego")
	for _, w := range []width{xmm, ymm, zmm} {
		for _, m := range []int{1, 2, 4} {
			mmo(w, m)
		}
		for _, h := range []int{1, 2} {
			mmoSelect(w, h)
		}
		feistel(w)
	}
	var evex []string // the 512-bit routines, the only ones with EVEX encodings
	for _, name := range []string{"mmo%sM1", "mmo%sM2", "mmo%sM4", "mmoSelect%sH1", "mmoSelect%sH2", "feistel%s"} {
		evex = append(evex, fmt.Sprintf(name, zmm.name))
	}
	mmoOne()
	evalWalk()
	genWalk()
	hasVAES()
	Generate()
	asmvet.NoEVEXExcept(flag.Lookup("out").Value.String(), evex...)
	asmvet.NoSSEAmongVEX(flag.Lookup("out").Value.String())
}

// hasVAES reports CPUID leaf 7's VAES bit; x/sys/cpu reports VAES only with AVX-512.
// The caller checks AVX2 first, which implies leaf 7.
func hasVAES() {
	TEXT("hasVAES", NOSPLIT, "func() bool")
	Doc("hasVAES reports whether the CPU has VAES (CPUID leaf 7, ECX bit 9).")
	MOVL(U32(7), EAX)
	XORL(ECX, ECX)
	CPUID()
	SHRL(U8(9), ECX)
	ANDL(U32(1), ECX)
	Store(CL, ReturnIndex(0))
	RET()
}

func (w width) reg() VecVirtual {
	switch w.blocks {
	case 1:
		return XMM()
	case 2:
		return YMM()
	}
	return ZMM()
}

func (w width) patternBytes() int { return 16 * w.blocks }

// load loads a whole vector from m.
func (w width) load(m Mem, x VecVirtual) {
	switch w.blocks {
	case 1:
		MOVOU(m, x)
	case 2:
		VMOVDQU(m, x)
	default:
		VMOVDQU64(m, x)
	}
}

func (w width) store(x VecVirtual, m Mem) {
	switch w.blocks {
	case 1:
		MOVOU(x, m)
	case 2:
		VMOVDQU(x, m)
	default:
		VMOVDQU64(x, m)
	}
}

// spread loads the block at m into every lane of x.
func (w width) spread(m Mem, x VecVirtual) {
	switch w.blocks {
	case 1:
		MOVOU(m, x)
	case 2:
		VBROADCASTI128(m, x)
	default:
		VBROADCASTI32X4(m, x)
	}
}

// xor sets x ^= a: a register, or for the VEX forms also memory (the SSE forms need
// aligned memory).
func (w width) xor(a Op, x VecVirtual) {
	switch w.blocks {
	case 1:
		PXOR(a, x)
	case 2:
		VPXOR(a, x, x)
	default:
		VPXORQ(a, x, x)
	}
}

// round applies round r (the key XOR, a middle or the last round) with key to x; key
// is a register, or for the VEX forms also memory.
func (w width) round(r int, key Op, x VecVirtual) {
	last := r == rounds-1
	switch {
	case r == 0:
		w.xor(key, x)
	case w.blocks == 1 && last:
		AESENCLAST(key, x)
	case w.blocks == 1:
		AESENC(key, x)
	case last:
		vaes("VAESENCLAST", key, x)
	default:
		vaes("VAESENC", key, x)
	}
}

// roundFrom applies round r with the key at m, loading it into tmp first where the
// SSE forms would need it aligned.
func (w width) roundFrom(r int, m Mem, x, tmp VecVirtual) {
	if w.blocks == 1 {
		MOVOU(m, tmp)
		w.round(r, tmp, x)
		return
	}
	w.round(r, m, x)
}

// patternKey builds in y round r's key of the pattern whose lanes' keys are at
// lanes; with one key in all lanes, lanes holds just that one.
func (w width) patternKey(r int, lanes []Mem, y VecVirtual) {
	if len(lanes) == 1 {
		w.spread(lanes[0].Offset(16*r), y)
		return
	}
	// The broadcast writes all of y, so the register allocator sees y defined here.
	if w.blocks == 2 {
		VBROADCASTI128(lanes[0].Offset(16*r), y)
		VINSERTI128(U8(1), lanes[1].Offset(16*r), y, y)
		return
	}
	VBROADCASTI32X4(lanes[0].Offset(16*r), y)
	for l := 1; l < w.blocks; l++ {
		VINSERTI32X4(U8(l), lanes[l].Offset(16*r), y, y)
	}
}

// heldKeys builds, for 512-bit vectors, every round's key of each pattern in
// registers of their own before the loop ([round][pattern]): with 32 registers
// they stay there for the whole call. Narrower widths get nil and build them per
// group.
func (w width) heldKeys(pattern [][]Mem) [][]VecVirtual {
	if w.blocks < 4 {
		return nil
	}
	held := make([][]VecVirtual, rounds)
	for r := range held {
		for _, lanes := range pattern {
			y := w.reg()
			w.patternKey(r, lanes, y)
			held[r] = append(held[r], y)
		}
	}
	return held
}

// vaes emits a VAES instruction on ymm registers, which avo 0.5 knows only in its
// 128-bit forms; the register allocator sees its inputs and output as usual.
func vaes(op string, key, state Op) {
	Instruction(&ir.Instruction{
		Opcode:   op,
		Operands: []Op{key, state, state},
		Inputs:   []Op{key, state},
		Outputs:  []Op{state},
		ISA:      []string{"VAES", "AVX"},
	})
}

// oneBlock runs the rounds on the 128-bit x (VEX forms), round r's key at key(r): the
// odd last block of a 256-bit routine's batch, lane 0 of a pattern.
func oneBlock(x VecVirtual, key func(r int) Mem) {
	for r := 0; r < rounds; r++ {
		switch r {
		case 0:
			VPXOR(key(r), x, x)
		case rounds - 1:
			VAESENCLAST(key(r), x, x)
		default:
			VAESENC(key(r), x, x)
		}
	}
}

// ndDoc: the 512-bit routines take whole vectors of dst blocks only; the Go side
// runs the rest through the 256-bit ones.
func (w width) ndDoc() string {
	if w.blocks < 4 {
		return ""
	}
	return fmt.Sprintf(", nd a multiple of %d", w.blocks)
}

// shape says where a vector's source is, for w blocks per vector and m keys per
// source block.
type shape struct {
	w     width
	m     int
	pairs OpmaskVirtual // 512-bit vectors, m = 2: the qwords of a vector's 2 source blocks
}

func newShape(w width, m int) shape {
	s := shape{w: w, m: m}
	if 1 < m && m < w.blocks {
		s.pairs = K()
		r := GP32()
		MOVL(U32(0x0f), r)
		KMOVW(r, s.pairs)
	}
	return s
}

// fits says whether k vectors cover whole source blocks, so that a group of them
// starts the next at a source block and at pattern 0.
func (s shape) fits(k int) bool { return s.w.blocks*k%s.m == 0 }

func (s shape) srcBytes(k int) int { return 16 * s.w.blocks * k / s.m }

// srcOf is where vector v's first source block is.
func (s shape) srcOf(src Mem, v int) Mem { return src.Offset(16 * (s.w.blocks * v / s.m)) }

// load puts vector v's source (at src) in x: with one key per source block its
// blocks as they are; with m >= w keys, its one block spread over the lanes; in
// between (512-bit vectors, 2 keys) its two blocks a and b as a, a, b, b.
func (s shape) load(src Mem, v int, x VecVirtual) {
	at := s.srcOf(src, v)
	switch {
	case s.m >= s.w.blocks:
		s.w.spread(at, x)
	case s.m == 1:
		s.w.load(at, x)
	default:
		// The masked load reads the two blocks alone (a 256-bit broadcast, which
		// would too, measured 3-4% slower on Zen 4).
		VMOVDQU64_Z(at, s.pairs, x)
		VSHUFI64X2(U8(0x50), x, x, x)
	}
}

// feedForward XORs vector v's source back into x, the MMO step, via tmp.
func (s shape) feedForward(src Mem, v int, x, tmp VecVirtual) {
	if s.m == 1 && s.w.blocks > 1 {
		s.w.xor(s.srcOf(src, v), x) // VEX and EVEX: memory is fine
		return
	}
	s.load(src, v, tmp)
	s.w.xor(tmp, x)
}

// groups emits the loop over groups of inFlight vectors (up to 8) and the steps for
// 4, 2 and 1 left
// (those that cover whole source blocks), with group(k) emitting k vectors from the
// current pointers and advance(k) moving them on. nd counts the dst blocks left and
// ends below one vector's worth: 0, or an odd last block for 256-bit vectors with one
// key per source block.
func groups(name string, inFlight int, s shape, nd GPVirtual, group func(k int), advance func(k int)) {
	w := s.w.blocks
	Label(name + "_loop")
	CMPQ(nd, U8(inFlight*w))
	JB(LabelRef(name + "_rest"))
	group(inFlight)
	advance(inFlight)
	SUBQ(U8(inFlight*w), nd)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_rest")
	for k := maxGroup / 2; k >= 1; k /= 2 {
		if !s.fits(k) {
			continue
		}
		skip := fmt.Sprintf("%s_after%d", name, k)
		CMPQ(nd, U8(k*w))
		JB(LabelRef(skip))
		group(k)
		advance(k)
		SUBQ(U8(k*w), nd)
		Label(skip)
	}
}

// laneKeys loads the pointers lanes[i] for each i in idx.
func laneKeys(idx ...int) []Mem {
	p := Load(Param("lanes"), GP64())
	keys := make([]Mem, len(idx))
	for n, i := range idx {
		r := GP64()
		MOVQ(Mem{Base: p, Disp: 8 * i}, r)
		keys[n] = Mem{Base: r}
	}
	return keys
}

// mmo generates mmo<W>M<m>(lanes, dst, src, nd): nd dst blocks from src.
func mmo(w width, m int) {
	name := fmt.Sprintf("mmo%sM%d", w.name, m)
	TEXT(name, NOSPLIT, "func(lanes "+lanesType+", dst, src *byte, nd int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes nd dst blocks of MMO with %d key(s) per source block%s.", name, m, w.ndDoc()))
	s := newShape(w, m)
	patterns := max(1, m/w.blocks)
	var pattern [][]Mem // the lanes' keys of each pattern
	if m == 1 {
		pattern = [][]Mem{laneKeys(0)} // one key in all lanes
	} else {
		var idx []int
		for i := 0; i < patterns*w.blocks; i++ {
			idx = append(idx, i)
		}
		lanes := laneKeys(idx...)
		for p := 0; p < patterns; p++ {
			pattern = append(pattern, lanes[p*w.blocks:(p+1)*w.blocks])
		}
	}
	dst := Mem{Base: Load(Param("dst"), GP64())}
	src := Mem{Base: Load(Param("src"), GP64())}
	nd := GP64()
	Load(Param("nd"), nd)

	held := w.heldKeys(pattern)
	group := func(k int) {
		x := make([]VecVirtual, k)
		for v := range x {
			x[v] = w.reg()
			s.load(src, v, x[v])
		}
		// With the keys held (32 registers) the sources stay in registers too, for
		// the feed-forward: loaded, and spread or shuffled, once.
		var kept []VecVirtual
		if held != nil {
			kept = make([]VecVirtual, k)
			for v := range kept {
				kept[v] = w.reg()
				VMOVDQA64(x[v], kept[v])
			}
		}
		built := make([]VecVirtual, patterns) // each round's keys, where not held
		for p := range built {
			built[p] = w.reg()
		}
		for r := 0; r < rounds; r++ {
			keys := built
			if held != nil {
				keys = held[r]
			} else {
				for p := range keys {
					w.patternKey(r, pattern[p], keys[p])
				}
			}
			for v := range x {
				w.round(r, keys[v%patterns], x[v])
			}
		}
		tmp := w.reg()
		for v := range x {
			if kept != nil {
				w.xor(kept[v], x[v])
			} else {
				s.feedForward(src, v, x[v], tmp)
			}
			w.store(x[v], dst.Offset(16*w.blocks*v))
		}
	}
	advance := func(k int) {
		ADDQ(U32(s.srcBytes(k)), src.Base)
		ADDQ(U32(16*w.blocks*k), dst.Base)
	}
	groups(name, maxGroup, s, nd, group, advance)

	if w.blocks == 2 && m == 1 {
		// An odd last block: lane 0 of pattern 0.
		TESTQ(nd, nd)
		JZ(LabelRef(name + "_done"))
		x := XMM()
		VMOVDQU(src, x)
		oneBlock(x, func(r int) Mem { return pattern[0][0].Offset(16 * r) })
		VPXOR(src, x, x)
		VMOVDQU(x, dst)
	}
	Label(name + "_done")
	if w.blocks > 1 {
		VZEROUPPER()
	}
	RET()
}

// mmoSelect generates mmoSelect<W>H<h>(lanes, dst, src, sel, nd) bad: nd dst blocks
// from src, lane l of vector v using key sel[i]*h + j for its dst block d = w*v+l,
// i = d/h and j = d%h. The patterns and the one of vector v, p(v):
//   - 128-bit: 2h patterns, key lanes[p] each; p(v) = sel[v/h]*h + v%h.
//   - 256-bit, h = 1: 4 patterns, lane l the key that bit l of p names;
//     p(v) = sel[2v] + 2*sel[2v+1].
//   - 256-bit, h = 2: 2 patterns, pattern p half p's two keys; p(v) = sel[v].
//   - 512-bit: 2 patterns, A (lanes[0:4]) and B (lanes[4:8]), every lane l with key
//     l%h of its half; each round's key of vector v blends them, lane by lane, from
//     B where the lane's sel byte is 1.
//
// It stops at the first sel byte above 1 and reports it.
func mmoSelect(w width, h int) {
	name := fmt.Sprintf("mmoSelect%sH%d", w.name, h)
	// 128-bit vectors read their round keys straight from the Keys, as a vector has
	// one; 256-bit ones copy their patterns into a table on the stack, first. Those
	// are not NOSPLIT: the table needs more stack than a NOSPLIT frame may take.
	// 512-bit ones hold both patterns in registers, 22 of their 32.
	attr := NOSPLIT
	if w.blocks == 2 {
		attr = 0
	}
	TEXT(name, attr, "func(lanes "+lanesType+", dst, src, sel *byte, nd int) (bad bool)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes nd dst blocks of MMOSelect with %d key(s) of each half per source block%s; bad: a sel byte above 1, where it stopped.", name, h, w.ndDoc()))
	pb := w.patternBytes()
	roundBytes := 16 // the stride of a Key's round keys
	var table Mem
	var lanesBase GPVirtual
	var held [][]VecVirtual
	switch w.blocks {
	case 1:
		lanesBase = GP64()
		Load(Param("lanes"), lanesBase)
	case 2:
		patterns := 4 / h
		roundBytes = patterns * pb
		table = AllocLocal(rounds * roundBytes)
		var idx []int
		for i := 0; i < patterns*w.blocks; i++ {
			idx = append(idx, i)
		}
		lanes := laneKeys(idx...)
		y := w.reg()
		for r := 0; r < rounds; r++ {
			for p := 0; p < patterns; p++ {
				w.patternKey(r, lanes[p*w.blocks:(p+1)*w.blocks], y)
				w.store(y, table.Offset(r*roundBytes+p*pb))
			}
		}
	default:
		lanes := laneKeys(0, 1, 2, 3, 4, 5, 6, 7)
		held = w.heldKeys([][]Mem{lanes[:4], lanes[4:]})
	}
	dst := Mem{Base: Load(Param("dst"), GP64())}
	src := Mem{Base: Load(Param("src"), GP64())}
	sel := Mem{Base: Load(Param("sel"), GP64())}
	nd := GP64()
	Load(Param("nd"), nd)
	s := newShape(w, h)
	tmp := GP32()

	// selBit loads sel byte i into r, leaving for any value above 1.
	selBit := func(i int, r GPVirtual) {
		MOVBLZX(sel.Offset(i), r.As32())
		CMPL(r.As32(), U8(1))
		JA(LabelRef(name + "_bad"))
	}
	// patternAt returns where vector v's round keys are in a table row: off, set
	// here, plus a constant.
	patternAt := func(v int, off GPVirtual) Mem {
		switch {
		case w.blocks == 1:
			// off = lanes[sel*h + v%h], the vector's key.
			selBit(v/h, off)
			if h == 2 {
				ADDL(off.As32(), off.As32())
			}
			MOVQ(Mem{Base: lanesBase, Index: off, Scale: 8, Disp: 8 * (v % h)}, off)
			return Mem{Base: off}
		case h == 1:
			selBit(2*v, off)
			selBit(2*v+1, tmp)
			LEAL(Mem{Base: off.As32(), Index: tmp, Scale: 2}, off.As32())
		default:
			selBit(v, off)
		}
		SHLL(U8(5), off.As32())
		return table.Idx(off, 1)
	}
	// blendMask returns vector v's mask of the qwords that take B: its w/h sel
	// bytes, each checked, one bit each (PEXT), spread to the first qword of the
	// bit's lanes (PDEP) and copied to the lanes' other qwords (the multiply).
	var bits, spread GPVirtual
	if held != nil {
		bits, spread = GP32(), GP32()
		MOVL(U32(0x01010101), bits)
		MOVL(U32(0x55), spread) // h = 1: a sel byte per lane
		if h == 2 {
			MOVL(U32(0x11), spread) // a sel byte per two lanes
		}
	}
	blendMask := func(v int) OpmaskVirtual {
		r := GP32()
		if h == 1 {
			MOVL(sel.Offset(4*v), r)
		} else {
			MOVWLZX(sel.Offset(2*v), r)
		}
		TESTL(U32(0xfefefefe), r)
		JNZ(LabelRef(name + "_bad"))
		PEXTL(bits, r, r)
		PDEPL(spread, r, r)
		IMUL3L(U8(1<<(2*h)-1), r, r) // 3 or 15: all of a lane's (or two lanes') qwords
		k := K()
		KMOVW(r, k)
		return k
	}
	// vectorKeys readies vector v's round keys, returning how to run its round r
	// on x (with t to spare).
	vectorKeys := func(v int) func(r int, x, t VecVirtual) {
		if held == nil {
			at := patternAt(v, GP64())
			return func(r int, x, t VecVirtual) { w.roundFrom(r, at.Offset(r*roundBytes), x, t) }
		}
		k := blendMask(v)
		return func(r int, x, t VecVirtual) {
			VPBLENDMQ(held[r][1], held[r][0], k, t)
			w.round(r, t, x)
		}
	}

	group := func(k int) {
		round := make([]func(r int, x, t VecVirtual), k)
		for v := range round {
			round[v] = vectorKeys(v)
		}
		x := make([]VecVirtual, k)
		for v := range x {
			x[v] = w.reg()
			s.load(src, v, x[v])
		}
		t := w.reg()
		for r := 0; r < rounds; r++ {
			for v := range x {
				round[v](r, x[v], t)
			}
		}
		for v := range x {
			s.feedForward(src, v, x[v], t)
			w.store(x[v], dst.Offset(16*w.blocks*v))
		}
	}
	advance := func(k int) {
		ADDQ(U32(s.srcBytes(k)), src.Base)
		ADDQ(U32(16*w.blocks*k), dst.Base)
		ADDQ(U32(w.blocks*k/h), sel.Base)
	}
	// 512-bit vectors: K1-K7 hold a blend mask per vector in flight, and with h = 2
	// the load mask of newShape.
	inFlight := maxGroup
	if held != nil {
		inFlight = 6
	}
	groups(name, inFlight, s, nd, group, advance)

	if w.blocks == 2 && h == 1 {
		// An odd last block: lane 0 of pattern sel.
		TESTQ(nd, nd)
		JZ(LabelRef(name + "_done"))
		off := GP64()
		selBit(0, off)
		SHLL(U8(5), off.As32())
		x := XMM()
		VMOVDQU(src, x)
		oneBlock(x, func(r int) Mem { return table.Idx(off, 1).Offset(r * roundBytes) })
		VPXOR(src, x, x)
		VMOVDQU(x, dst)
	}
	for _, bad := range []int{0, 1} {
		if bad == 0 {
			Label(name + "_done")
		} else {
			Label(name + "_bad")
		}
		MOVB(U8(bad), tmp.As8())
		Store(tmp.As8(), Return("bad"))
		if w.blocks > 1 {
			VZEROUPPER()
		}
		RET()
	}
}

// feistel generates feistel<W>(keys, vs, n, h, mask): FeistelPass over the n values
// at vs, n a multiple of a vector's 2w values (64-bit lanes), in place. A vector of
// values V splits into two of AES blocks, A = its even values and B = its odd ones,
// each zero-extended to a block; after round r's 11 AES rounds on both, the low
// words of A and B interleave back into V's order as F, and
// V = (V & mask) << h | (V >> h ^ F & mask).
func feistel(w width) {
	name := "feistel" + w.name
	TEXT(name, NOSPLIT, "func(keys *[4]*[11][16]byte, vs *uint64, n int, h, mask uint64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s runs the four Feistel rounds of FeistelPass over n values at vs, n a multiple of %d.", name, 2*w.blocks))
	kp := Load(Param("keys"), GP64())
	keys := make([]Mem, 4)
	for r := range keys {
		k := GP64()
		MOVQ(Mem{Base: kp, Disp: 8 * r}, k)
		keys[r] = Mem{Base: k}
	}
	vs := Mem{Base: Load(Param("vs"), GP64())}
	n := Load(Param("n"), GP64())
	count, mask := XMM(), w.reg()
	if w.blocks == 1 {
		MOVQ(Load(Param("h"), GP64()), count)
		MOVQ(Load(Param("mask"), GP64()), mask)
		PUNPCKLQDQ(mask, mask)
	} else {
		// VEX moves: a legacy SSE instruction among VEX ones costs a state
		// transition (on Zen 3, a hundred nanoseconds or more).
		VMOVQ(Load(Param("h"), GP64()), count)
		m := XMM()
		VMOVQ(Load(Param("mask"), GP64()), m)
		VPBROADCASTQ(m, mask)
	}
	perVector := 2 * w.blocks // values
	// Four vectors of values (eight of blocks) in flight; sixteen of blocks with
	// AVX-512's 32 registers.
	inFlight := 4
	if w.blocks == 4 {
		inFlight = 8
	}

	group := func(k int) {
		v := make([]VecVirtual, k)
		for i := range v {
			v[i] = w.reg()
			w.load(vs.Offset(16*w.blocks*i), v[i])
		}
		for fr := range keys {
			a, b := make([]VecVirtual, k), make([]VecVirtual, k)
			for i := range v {
				a[i], b[i] = w.reg(), w.reg()
				w.evenOdd(v[i], mask, a[i], b[i])
			}
			key := w.reg()
			for r := 0; r < rounds; r++ {
				w.spread(keys[fr].Offset(16*r), key)
				for i := range v {
					w.round(r, key, a[i])
					w.round(r, key, b[i])
				}
			}
			for i := range v {
				w.feistelStep(v[i], a[i], b[i], mask, count)
			}
		}
		for i := range v {
			w.store(v[i], vs.Offset(16*w.blocks*i))
		}
	}
	for _, k := range []int{inFlight, 1} {
		loop, next := fmt.Sprintf("%s_by%d", name, k), fmt.Sprintf("%s_after%d", name, k)
		Label(loop)
		CMPQ(n, U8(k*perVector))
		JB(LabelRef(next))
		group(k)
		ADDQ(U32(16*w.blocks*k), vs.Base)
		SUBQ(U8(k*perVector), n)
		JMP(LabelRef(loop))
		Label(next)
	}
	if w.blocks > 1 {
		VZEROUPPER()
	}
	RET()
}

// evenOdd sets a and b to the AES blocks of v's even and odd values' low halves
// (v & mask, each zero-extended to 128 bits).
func (w width) evenOdd(v, mask, a, b VecVirtual) {
	if w.blocks == 1 {
		MOVOU(v, b)
		PAND(mask, b)
		MOVQ(b, a) // and clears a's high word
		PSRLDQ(U8(8), b)
		return
	}
	if w.blocks == 2 {
		VPAND(mask, v, a)
	} else {
		VPANDQ(mask, v, a)
	}
	VPSRLDQ(U8(8), a, b)
	VPSLLDQ(U8(8), a, a)
	VPSRLDQ(U8(8), a, a)
}

// feistelStep finishes a Feistel round on v from its encrypted halves a (even
// values) and b (odd): v = (v & mask) << count | (v >> count ^ f & mask), f the
// low words of a and b interleaved. b is clobbered.
func (w width) feistelStep(v, a, b, mask VecVirtual, count VecVirtual) {
	if w.blocks == 1 {
		PUNPCKLQDQ(b, a)
		PAND(mask, a)
		MOVOU(v, b)
		PSRLQ(count, b)
		PXOR(b, a)
		PAND(mask, v)
		PSLLQ(count, v)
		POR(a, v)
		return
	}
	VPUNPCKLQDQ(b, a, a)
	if w.blocks == 2 {
		VPAND(mask, a, a)
		VPSRLQ(count, v, b)
		VPXOR(b, a, a)
		VPAND(mask, v, v)
		VPSLLQ(count, v, v)
		VPOR(a, v, v)
		return
	}
	// The EVEX forms of the same (AVX-512 has no VPAND, VPXOR, VPOR on zmm).
	VPANDQ(mask, a, a)
	VPSRLQ(count, v, b)
	VPXORQ(b, a, a)
	VPANDQ(mask, v, v)
	VPSLLQ(count, v, v)
	VPORQ(a, v, v)
}
