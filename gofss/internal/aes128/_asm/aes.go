// Command _asm generates the VAES-on-ymm routines of package aes128 (run `go generate`
// in the package): AES-128 MMO with VAES on 256-bit vectors and AVX2, for the CPUs
// that have VAES but not AVX-512 (Zen 3, Alder Lake).
//
// A vector holds two dst blocks. With m keys per source block (m = len(keys) for MMO,
// h = len(keys)/2 for MMOSelect), vector v holds dst blocks 2v and 2v+1: for m = 1 the
// source blocks 2v and 2v+1, for m = 2 and 4 one source block in both lanes. A
// pattern is the keys of a vector's two lanes: pattern p has lane l from key
// lanes[2p+l], lanes being the routines' first argument, 8 pointers to round keys
// ([11][16]byte) that the Go side sets per call. MMO uses pattern 0, or for m = 4
// patterns 0 and 1 on even and odd vectors, each round's key built in a register per
// group of vectors. MMOSelect picks each vector's pattern from its sel bytes, so it
// first copies its patterns into a table on its stack, [11 rounds][patterns][32], and
// reads round keys from it by index. Up to 8 vectors are in flight (VAESENC's latency is
// about 4 cycles at 2 per cycle); the rest of a batch goes 4, 2 and 1 vectors at a
// time, and an odd last block (m = 1) through the 128-bit forms, so no routine reads
// or writes a byte outside its buffers.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"regexp"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

const (
	rounds       = 11
	patternBytes = 32                  // one pattern of one round: two lanes' round keys
	lanesType    = "*[8]*[11][16]byte" // the lanes' round keys, two per pattern
)

func main() {
	ConstraintExpr("!purego")
	for _, m := range []int{1, 2, 4} {
		mmo(m)
	}
	for _, h := range []int{1, 2} {
		mmoSelect(h)
	}
	hasVAES()
	Generate()
	checkVEX(flag.Lookup("out").Value.String())
}

// checkVEX fails if the register allocator used a register that only AVX-512 can
// encode: the assembler would pick an EVEX encoding that AVX2-only CPUs, the ones
// these routines are for, cannot run.
func checkVEX(file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	if r := regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`).Find(b); r != nil {
		log.Fatalf("%s uses %s, which needs AVX-512", file, r)
	}
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

// roundOp names the instruction of round r: the key XOR, a middle or the last round.
func roundOp(r int) string {
	switch r {
	case 0:
		return "VPXOR"
	case rounds - 1:
		return "VAESENCLAST"
	}
	return "VAESENC"
}

// applyRound applies round r with key (a register or memory operand) to state.
func applyRound(r int, key, state Op) {
	if r == 0 {
		VPXOR(key, state, state)
		return
	}
	vaes(roundOp(r), key, state)
}

// shape says where vector v's source is for m keys per source block.
type shape struct{ m int }

func (s shape) srcBytes(vectors int) int { return vectors * 2 * 16 / s.m }

// load puts vector v's source blocks (at src) in x.
func (s shape) load(src Mem, v int, x VecVirtual) {
	if s.m == 1 {
		VMOVDQU(src.Offset(32*v), x)
		return
	}
	VBROADCASTI128(src.Offset(16*(2*v/s.m)), x)
}

// feedForward XORs vector v's source back into x, the MMO step, via tmp.
func (s shape) feedForward(src Mem, v int, x, tmp VecVirtual) {
	if s.m == 1 {
		VPXOR(src.Offset(32*v), x, x)
		return
	}
	s.load(src, v, tmp)
	VPXOR(tmp, x, x)
}

// groups emits the loop over groups of 8 vectors and the steps for 4, 2 and 1 left,
// with group(k) emitting k vectors from the current pointers and advance(k) moving
// them on; nd counts the dst blocks left, 2 per vector, and ends as 0 or 1.
func groups(name string, nd GPVirtual, group func(k int), advance func(k int)) {
	Label(name + "_loop8")
	CMPQ(nd, U8(16))
	JB(LabelRef(name + "_tail4"))
	group(8)
	advance(8)
	SUBQ(U8(16), nd)
	JMP(LabelRef(name + "_loop8"))
	for _, k := range []int{4, 2, 1} {
		Label(fmt.Sprintf("%s_tail%d", name, k))
		CMPQ(nd, U8(2*k))
		next := fmt.Sprintf("%s_tail%d", name, k/2)
		if k == 1 {
			next = name + "_odd"
		}
		JB(LabelRef(next))
		group(k)
		advance(k)
		SUBQ(U8(2*k), nd)
	}
	Label(name + "_odd")
}

// oneBlock runs the rounds on the 128-bit x, round r's key at key(r): the odd last
// block of a batch, lane 0 of a pattern.
func oneBlock(x VecVirtual, key func(r int) Mem) {
	for r := 0; r < rounds; r++ {
		switch roundOp(r) {
		case "VPXOR":
			VPXOR(key(r), x, x)
		case "VAESENC":
			VAESENC(key(r), x, x)
		default:
			VAESENCLAST(key(r), x, x)
		}
	}
}

// laneKeys loads the pointers lanes[0:n].
func laneKeys(n int) []Mem {
	p := Load(Param("lanes"), GP64())
	keys := make([]Mem, n)
	for i := range keys {
		r := GP64()
		MOVQ(Mem{Base: p, Disp: 8 * i}, r)
		keys[i] = Mem{Base: r}
	}
	return keys
}

// patternKey builds in y round r's key of the pattern whose lanes' keys are lo, hi.
// (The broadcast writes all of y, so the register allocator sees y defined here.)
func patternKey(r int, lo, hi Mem, y VecVirtual) {
	VBROADCASTI128(lo.Offset(16*r), y)
	VINSERTI128(U8(1), hi.Offset(16*r), y, y)
}

// mmo generates mmoVAES256M<m>(lanes, dst, src, nd): nd dst blocks from src.
func mmo(m int) {
	name := fmt.Sprintf("mmoVAES256M%d", m)
	TEXT(name, NOSPLIT, "func(lanes "+lanesType+", dst, src *byte, nd int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes nd dst blocks of MMO with %d key(s) per source block.", name, m))
	patterns := 1
	if m == 4 {
		patterns = 2
	}
	lanes := laneKeys(min(m, 2*patterns))
	dst := Mem{Base: Load(Param("dst"), GP64())}
	src := Mem{Base: Load(Param("src"), GP64())}
	nd := GP64()
	Load(Param("nd"), nd)
	s := shape{m}

	group := func(k int) {
		x := make([]VecVirtual, k)
		for v := range x {
			x[v] = YMM()
			s.load(src, v, x[v])
		}
		keys := make([]VecVirtual, patterns)
		for p := range keys {
			keys[p] = YMM()
		}
		for r := 0; r < rounds; r++ {
			for p := range keys {
				if m == 1 {
					VBROADCASTI128(lanes[0].Offset(16*r), keys[p])
				} else {
					patternKey(r, lanes[2*p], lanes[2*p+1], keys[p])
				}
			}
			for v := range x {
				applyRound(r, keys[v%patterns], x[v])
			}
		}
		tmp := YMM()
		for v := range x {
			s.feedForward(src, v, x[v], tmp)
			VMOVDQU(x[v], dst.Offset(32*v))
		}
	}
	advance := func(k int) {
		ADDQ(U32(s.srcBytes(k)), src.Base)
		ADDQ(U32(32*k), dst.Base)
	}
	groups(name, nd, group, advance)

	if m == 1 {
		// An odd last block: lane 0 of pattern 0, in the 128-bit forms.
		TESTQ(nd, nd)
		JZ(LabelRef(name + "_done"))
		x := XMM()
		VMOVDQU(src, x)
		oneBlock(x, func(r int) Mem { return lanes[0].Offset(16 * r) })
		VPXOR(src, x, x)
		VMOVDQU(x, dst)
	}
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// mmoSelect generates mmoSelectVAES256H<h>(lanes, dst, src, sel, nd) bad: nd dst
// blocks from src, the lanes of vector v taking pattern p(v), with for h = 1
// p(v) = sel[2v] + 2*sel[2v+1] (lane l from sel[2v+l], 4 patterns) and for h = 2
// p(v) = sel[v] (2 patterns). It stops at the first sel byte above 1 and reports it.
func mmoSelect(h int) {
	name := fmt.Sprintf("mmoSelectVAES256H%d", h)
	// Not NOSPLIT: the table needs more stack than a NOSPLIT frame may take.
	TEXT(name, 0, "func(lanes "+lanesType+", dst, src, sel *byte, nd int) (bad bool)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes nd dst blocks of MMOSelect with %d key(s) of each half per source block; bad: a sel byte above 1, where it stopped.", name, h))
	patterns := 4 / h
	roundBytes := patterns * patternBytes
	table := AllocLocal(rounds * roundBytes)
	{
		lanes := laneKeys(2 * patterns)
		y := YMM()
		for r := 0; r < rounds; r++ {
			for p := 0; p < patterns; p++ {
				patternKey(r, lanes[2*p], lanes[2*p+1], y)
				VMOVDQU(y, table.Offset(r*roundBytes+p*patternBytes))
			}
		}
	}
	dst := Mem{Base: Load(Param("dst"), GP64())}
	src := Mem{Base: Load(Param("src"), GP64())}
	sel := Mem{Base: Load(Param("sel"), GP64())}
	nd := GP64()
	Load(Param("nd"), nd)
	s := shape{h}
	selPerVector := 2 / h
	tmp := GP32()

	// patternOffset sets off to the byte offset of vector v's pattern in a table row.
	patternOffset := func(v int, off GPVirtual) {
		MOVBLZX(sel.Offset(selPerVector*v), off.As32())
		CMPL(off.As32(), U8(1))
		JA(LabelRef(name + "_bad"))
		if h == 1 {
			MOVBLZX(sel.Offset(2*v+1), tmp)
			CMPL(tmp, U8(1))
			JA(LabelRef(name + "_bad"))
			LEAL(Mem{Base: off.As32(), Index: tmp, Scale: 2}, off.As32())
		}
		SHLL(U8(5), off.As32())
	}

	group := func(k int) {
		offs := make([]GPVirtual, k)
		for v := range offs {
			offs[v] = GP64()
			patternOffset(v, offs[v])
		}
		x := make([]VecVirtual, k)
		for v := range x {
			x[v] = YMM()
			s.load(src, v, x[v])
		}
		for r := 0; r < rounds; r++ {
			for v := range x {
				applyRound(r, table.Idx(offs[v], 1).Offset(r*roundBytes), x[v])
			}
		}
		ff := YMM()
		for v := range x {
			s.feedForward(src, v, x[v], ff)
			VMOVDQU(x[v], dst.Offset(32*v))
		}
	}
	advance := func(k int) {
		ADDQ(U32(s.srcBytes(k)), src.Base)
		ADDQ(U32(32*k), dst.Base)
		ADDQ(U32(selPerVector*k), sel.Base)
	}
	groups(name, nd, group, advance)

	if h == 1 {
		// An odd last block: lane 0 of pattern sel, in the 128-bit forms.
		TESTQ(nd, nd)
		JZ(LabelRef(name + "_done"))
		off := GP64()
		MOVBLZX(sel, off.As32())
		CMPL(off.As32(), U8(1))
		JA(LabelRef(name + "_bad"))
		SHLL(U8(5), off.As32())
		x := XMM()
		VMOVDQU(src, x)
		oneBlock(x, func(r int) Mem { return table.Idx(off, 1).Offset(r * roundBytes) })
		VPXOR(src, x, x)
		VMOVDQU(x, dst)
	}
	Label(name + "_done")
	MOVB(U8(0), tmp.As8())
	Store(tmp.As8(), Return("bad"))
	VZEROUPPER()
	RET()
	Label(name + "_bad")
	MOVB(U8(1), tmp.As8())
	Store(tmp.As8(), Return("bad"))
	VZEROUPPER()
	RET()
}
