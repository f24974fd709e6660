// Command _asm generates the VAES-on-ymm routines of package aes128 (run `go generate`
// in the package): AES-128 MMO with VAES on 256-bit vectors and AVX2, for the CPUs
// that have VAES but not AVX-512 (Zen 3, Alder Lake).
//
// A vector holds two dst blocks. With m keys per source block (m = len(keys) for MMO,
// h = len(keys)/2 for MMOSelect), vector v holds dst blocks 2v and 2v+1: for m = 1 the
// source blocks 2v and 2v+1, for m = 2 and 4 one source block in both lanes. The
// round keys come from a table the Go side fills per call, [11 rounds][4 patterns]
// of 32 bytes, a pattern being the keys of the two lanes: MMO uses pattern 0, or for
// m = 4 patterns 0 and 1 on even and odd vectors; MMOSelect picks each vector's
// pattern from its sel bytes. Up to 8 vectors are in flight (VAESENC's latency is
// about 4 cycles at 2 per cycle); the rest of a batch goes 4, 2 and 1 vectors at a
// time, and an odd last block (m = 1) through the 128-bit forms, so no routine reads
// or writes a byte outside its buffers.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

const (
	rounds       = 11
	patternBytes = 32                 // one pattern of one round: two lanes' round keys
	roundBytes   = 4 * patternBytes   // a round's row of the table
	tableType    = "*[11][4][32]byte" // the round-key table
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

// mmo generates mmoVAES256M<m>(rk, dst, src, nd): nd dst blocks from src.
func mmo(m int) {
	name := fmt.Sprintf("mmoVAES256M%d", m)
	TEXT(name, NOSPLIT, "func(rk "+tableType+", dst, src *byte, nd int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes nd dst blocks of MMO with %d key(s) per source block, lanes' round keys in rk.", name, m))
	rk := Mem{Base: Load(Param("rk"), GP64())}
	dst := Mem{Base: Load(Param("dst"), GP64())}
	src := Mem{Base: Load(Param("src"), GP64())}
	nd := GP64()
	Load(Param("nd"), nd)
	s := shape{m}
	patterns := 1
	if m == 4 {
		patterns = 2
	}

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
				VMOVDQU(rk.Offset(r*roundBytes+p*patternBytes), keys[p])
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
		oneBlock(x, func(r int) Mem { return rk.Offset(r * roundBytes) })
		VPXOR(src, x, x)
		VMOVDQU(x, dst)
	}
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// mmoSelect generates mmoSelectVAES256H<h>(rk, dst, src, sel, nd) bad: nd dst blocks
// from src, the lanes of vector v taking pattern p(v) of rk, with for h = 1
// p(v) = sel[2v] + 2*sel[2v+1] (lane l from sel[2v+l]) and for h = 2 p(v) = sel[v].
// It stops at the first sel byte above 1 and reports it.
func mmoSelect(h int) {
	name := fmt.Sprintf("mmoSelectVAES256H%d", h)
	TEXT(name, NOSPLIT, "func(rk "+tableType+", dst, src, sel *byte, nd int) (bad bool)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes nd dst blocks of MMOSelect with %d key(s) of each half per source block; bad: a sel byte above 1, where it stopped.", name, h))
	rk := Load(Param("rk"), GP64())
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
				applyRound(r, Mem{Base: rk, Index: offs[v], Scale: 1, Disp: r * roundBytes}, x[v])
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
		oneBlock(x, func(r int) Mem { return Mem{Base: rk, Index: off, Scale: 1, Disp: r * roundBytes} })
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
