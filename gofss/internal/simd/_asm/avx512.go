package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The AVX-512 Eval level routines of the portable walks (simd_amd64.go: DpfEvalLevel,
// DcfEvalLevel, for the PRGs whose output the walks compute apart; `-avx512` writes
// them to the file of the 512-bit routines). They have no narrower counterpart, so
// they are described here alone, with named registers: they were written by hand
// first and measured on AVX-512 CPUs, and generate the same machine code. Blocks
// sit 4 to a zmm register, one per 128-bit lane. Every routine keeps in Z31 the
// control-bit mask of a lane (bit 32 of the high qword); the group arithmetic reads
// the Arith masks from Z29 (From), Z28 (Xor), Z27 (Mask) and Z26 (Neg), as
// loadArith512 puts them.

// goVar is the package-level Go variable name, as the routines read it.
func goVar(name string) Mem { return NewDataAddr(Symbol{Name: "·" + name}, 0) }

var (
	lsbMask512 = goVar("lsbMask")
	laneBits   = goVar("laneBits")
	byteBits   = goVar("byteBits")
)

func avx512EvalLevels() {
	dpfEvalLevel512()
	dcfEvalLevel512()
}

// laneTest sets bits 0, 2, 4 and 6 of AX to whether lane 0-3 of x has a bit of m
// set in either qword (the odd bits are left as they come); k and r are scratch.
func laneTest(m, x VecPhysical, k OpmaskPhysical, r GPPhysical) {
	VPTESTMQ(m, x, k)
	KMOVW(k, EAX)
	MOVL(EAX, r)
	SHRL(U8(1), r)
	ORL(r, EAX)
}

func loadArith512(g GPPhysical) {
	for i, z := range []VecPhysical{Z29, Z28, Z27, Z26} {
		VBROADCASTI32X4(Mem{Base: g, Disp: 16 * i}, z)
	}
}

// gadd512 sets t to x + y in the group (x is clobbered): x ^ y where Xor (Z28) is
// set, else the qword sums.
func gadd512(y, x, t VecPhysical) { groupOp(zmm, anyArith, Z28, VPADDQ, y, x, t, t) }

// storeSeeds stores the children x (u, at DI) and their clamped seeds (s, at SI).
func storeSeeds(x VecPhysical) {
	VMOVDQU64(x, Mem{Base: RDI})
	VPANDNQ(x, Z31, x)
	VMOVDQU64(x, Mem{Base: RSI})
}

// The Eval routines take 4 points per iteration. Registers: DI u, SI s, R9 sides,
// DX ch, R10 next, BX xs, R8 offsets, R11 the level's correction words, CX points
// left; Z30 the shift counts of the next side bit, Z24 qwords of 1.

// evalArgs loads the arguments both Eval routines take, v (DCF's values) into R13
// where given, and the constants.
func evalArgs(dcf bool) {
	Load(Param("u"), RDI)
	Load(Param("s"), RSI)
	if dcf {
		Load(Param("v"), R13)
	}
	for _, a := range []struct {
		name string
		r    GPPhysical
	}{{"sides", R9}, {"ch", RDX}, {"next", R10}, {"xs", RBX}, {"off", R8}, {"rows", R11}, {"m", RCX}, {"cnt", RAX}} {
		Load(Param(a.name), a.r)
	}
	VBROADCASTI32X4(Mem{Base: RAX}, Z30)
	if dcf {
		Load(Param("ar"), RAX)
		loadArith512(RAX)
	}
	VBROADCASTI32X4(lsbMask512, Z31)
	MOVL(U32(1), EAX)
	VPBROADCASTQ(RAX, Z24)
}

// sideMask loads the sides of 4 points into K1, both qwords of a lane per side bit.
func sideMask() {
	MOVL(Mem{Base: R9}, EAX)
	PEXTL(byteBits, EAX, EAX)
	PDEPL(laneBits, EAX, EAX)
	LEAL(Mem{Base: RAX, Index: RAX, Scale: 2}, EAX)
	KMOVW(EAX, K1)
}

// rows loads the level's correction words of 4 points, at offsets o(offs) ..
// o+24(offs) from R11: their first blocks into c0 and their second into c1, through
// t0 and t1 (AX and idx: scratch).
// rowsAhead is how far ahead rows fetches each point's correction words: the line
// of the level after next. A tile's points are far apart in a large batch (a key's
// rows each), so the level's loads missed the cache, a quarter of a batched Eval.
const rowsAhead = 64

func rows(offs GPPhysical, o int, idx GPPhysical, t0, t1, c0, c1 VecPhysical) {
	for i, z := range []VecPhysical{t0, t1} {
		MOVQ(Mem{Base: offs, Disp: o + 16*i}, RAX)
		MOVQ(Mem{Base: offs, Disp: o + 16*i + 8}, idx)
		VMOVDQU64(Mem{Base: R11, Index: RAX, Scale: 1}, z.AsY())
		VINSERTI64X4(U8(1), Mem{Base: R11, Index: idx, Scale: 1}, z, z)
		PREFETCHT0(Mem{Base: R11, Index: RAX, Scale: 1, Disp: rowsAhead})
		PREFETCHT0(Mem{Base: R11, Index: idx, Scale: 1, Disp: rowsAhead})
	}
	VSHUFI64X2(U8(0x88), t1, t0, c0)
	VSHUFI64X2(U8(0xdd), t1, t0, c1)
}

// nextSides writes the next level's side bytes of 4 points.
func nextSides() {
	VMOVDQU64(Mem{Base: RBX}, Z8)
	VPSRLVQ(Z30, Z8, Z8)
	laneTest(Z24, Z8, K2, R12L)
	PEXTL(laneBits, EAX, EAX)
	PDEPL(byteBits, EAX, EAX)
	MOVL(EAX, Mem{Base: R10})
}

func evalNext(chStep int) {
	ADDQ(U8(4), R9)
	ADDQ(U8(4), R10)
	ADDQ(U8(32), R8)
	ADDQ(U8(64), RDI)
	ADDQ(U8(64), RSI)
	ADDQ(U32(chStep), RDX)
	ADDQ(U8(64), RBX)
	SUBQ(U8(4), RCX)
}

// dpfEvalLevel512 also ORs the second blocks of the rows it reads into *or (Z13
// gathers them): a DPF level row holds (0 or 1, 0, 0, 0) there, so the caller checks
// the keys' rows in one comparison instead of a pass over them.
func dpfEvalLevel512() {
	TEXT("dpfEvalLevel", NOSPLIT, "func(u, s, sides, ch, next, xs, off, rows *byte, m int, cnt, or *byte)")
	Pragma("noescape")
	evalArgs(false)
	VPXORQ(Z13, Z13, Z13)
	Label("dpfeval_loop")
	TESTQ(RCX, RCX)
	JZ(LabelRef("dpfeval_done"))
	sideMask()
	rows(R8, 0, R12, Z2, Z3, Z4, Z5)
	VPORQ(Z5, Z13, Z13)
	VPSHUFD(U8(0), Z5, Z5)                // tr, in every dword
	VPTERNLOGQ(U8(0xb8), Z5, Z31, K1, Z4) // right children: tr in the lsb
	VMOVDQU64(Mem{Base: RDI}, Z6)
	tmask(Z6, Z6)
	VMOVDQU64(Mem{Base: RDX}, Z7)
	VPTERNLOGQ(U8(0x78), Z4, Z6, Z7)
	storeSeeds(Z7)
	nextSides()
	evalNext(64)
	JMP(LabelRef("dpfeval_loop"))
	Label("dpfeval_done")
	VEXTRACTI64X4(U8(1), Z13, Y14)
	VPORQ(Y14, Y13, Y13)
	VEXTRACTI32X4(U8(1), Y13, X14)
	VPORQ(X14, X13, X13)
	Load(Param("or"), RAX)
	VPORQ(Mem{Base: RAX}, X13, X13)
	VMOVDQU64(X13, Mem{Base: RAX})
	VZEROUPPER()
	RET()
}

func dcfEvalLevel512() {
	TEXT("dcfEvalLevel", NOSPLIT, "func(u, s, v, sides, ch, next, xs, off, rows *byte, m int, cnt, ar *byte)")
	Pragma("noescape")
	evalArgs(true)
	Label("dcfeval_loop")
	TESTQ(RCX, RCX)
	JZ(LabelRef("dcfeval_done"))
	sideMask()
	rows(R8, 0, R12, Z2, Z3, Z4, Z5)
	VPTERNLOGQ(U8(0xb8), Z5, Z31, K1, Z4) // right children: tr (lsb of the value block)
	VMOVDQU64(Mem{Base: RDI}, Z6)
	tmask(Z6, Z6)
	VMOVDQU64(Mem{Base: RDX}, Z0)
	VMOVDQU64(Mem{Base: RDX, Disp: 64}, Z1)
	VSHUFI64X2(U8(0x88), Z1, Z0, Z7) // seeds
	VSHUFI64X2(U8(0xdd), Z1, Z0, Z9) // values
	VPTERNLOGQ(U8(0x78), Z4, Z6, Z7)
	storeSeeds(Z7)
	VPANDQ(Z29, Z9, Z9)
	VPTERNLOGQ(U8(0x80), Z29, Z5, Z6) // t*from(value correction)
	gadd512(Z6, Z9, Z10)
	VMOVDQU64(Mem{Base: R13}, Z11)
	gadd512(Z10, Z11, Z12)
	VMOVDQU64(Z12, Mem{Base: R13})
	ADDQ(U8(64), R13)
	nextSides()
	evalNext(128)
	JMP(LabelRef("dcfeval_loop"))
	Label("dcfeval_done")
	VZEROUPPER()
	RET()
}
