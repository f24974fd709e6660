package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The MMO and MMOSelect routines on 512-bit VAES (vaes_amd64.go; `-vaes512` writes
// them to their own file, whose Go declarations take the package's own types): 4
// blocks per zmm register, round keys in Z8-Z18 (MMOSelect's second set in
// Z19-Z29), the VPERMQ indices of the vaesShape in Z30, the source's qword load
// mask in K1. Registers are named, not allocated: the routines were written by hand
// first and measured on AVX-512 CPUs, and generate the same machine code.

// vaesShape's field offsets (vaes_amd64.go checks them at compile time).
const (
	shapePerm    = 0
	shapeSrcStep = 64
	shapeSrcMask = 72
	shapeSelDep  = 80
	shapeSelFill = 88
	shapeSelIter = 96
	shapeSelVec  = 104
)

var (
	zKeysA = []VecPhysical{Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18}
	zKeysB = []VecPhysical{Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29}
	zPerm  = Z30
)

// laneKeys512 builds in keys the round keys of the lanes' keys at p (a *[4]*Key,
// a Key starting with its round keys), each lane's from its own key.
func laneKeys512(p GPPhysical, keys []VecPhysical) {
	lanes := []GPPhysical{R8, R9, R10, R11}
	for l, r := range lanes {
		MOVQ(Mem{Base: p, Disp: 8 * l}, r)
	}
	for i, k := range keys {
		VBROADCASTI32X4(Mem{Base: R8, Disp: 16 * i}, k)
		for l, r := range lanes[1:] {
			VINSERTI32X4(U8(l+1), Mem{Base: r, Disp: 16 * i}, k, k)
		}
	}
}

// loadShape loads the shape's permutation into Z30, its source step into R12 (and
// three steps into R13) and its source mask into K1 through scratch, returning the
// shape's pointer (AX).
func loadShape(scratch GPPhysical) GPPhysical {
	Load(Param("shape"), RAX)
	VMOVDQU64(Mem{Base: RAX, Disp: shapePerm}, zPerm)
	MOVQ(Mem{Base: RAX, Disp: shapeSrcStep}, R12)
	MOVQ(Mem{Base: RAX, Disp: shapeSrcMask}, scratch)
	KMOVW(scratch.As32(), K1)
	return RAX
}

// vload loads the source of one vector (the qwords in mask k at addr), spreads it
// over the lanes into c and starts the state s.
func vload(addr Mem, k OpmaskPhysical, c, s VecPhysical) {
	VMOVDQU64_Z(addr, k, c)
	VPERMQ(c, zPerm, c)
	VPXORQ(zKeysA[0], c, s)
}

// srcAt is where vector v (of 8) of a group starts: v/4 steps of 4 after SI at DX.
func srcAt(v int) Mem {
	base := RSI
	if v >= 4 {
		base = RDX
	}
	switch v % 4 {
	case 1:
		return Mem{Base: base, Index: R12, Scale: 1}
	case 2:
		return Mem{Base: base, Index: R12, Scale: 2}
	case 3:
		return Mem{Base: base, Index: R13, Scale: 1}
	}
	return Mem{Base: base}
}

func mmoVAES512() {
	TEXT("mmoVAESAsm", NOSPLIT, "func(dst, src *byte, nd int, lanes *[4]*[11][16]byte, shape *byte, tailSrc, tailDst uint64)")
	Pragma("noescape")
	Load(Param("lanes"), RAX)
	laneKeys512(RAX, zKeysA)
	loadShape(RBX)
	LEAQ(Mem{Base: R12, Index: R12, Scale: 2}, R13)
	Load(Param("dst"), RDI)
	Load(Param("src"), RSI)
	Load(Param("nd"), RCX)

	states := []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7}
	sources := []VecPhysical{Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26}
	Label("loop8")
	CMPQ(RCX, U8(32))
	JB(LabelRef("loop1"))
	LEAQ(Mem{Base: RSI, Index: R12, Scale: 4}, RDX)
	for v, s := range states {
		vload(srcAt(v), K1, sources[v], s)
	}
	for r := 1; r < rounds; r++ {
		for _, s := range states {
			zround(r, zKeysA[r], s)
		}
	}
	for v, s := range states {
		VPXORQ(sources[v], s, s)
	}
	for v, s := range states {
		VMOVDQU64(s, Mem{Base: RDI, Disp: 64 * v})
	}
	LEAQ(Mem{Base: RSI, Index: R12, Scale: 8}, RSI)
	ADDQ(U32(512), RDI)
	SUBQ(U8(32), RCX)
	JMP(LabelRef("loop8"))

	// one runs a vector whose source mask is k through the rounds into Z0.
	one := func(k OpmaskPhysical) {
		vload(Mem{Base: RSI}, k, Z19, Z0)
		for r := 1; r < rounds; r++ {
			zround(r, zKeysA[r], Z0)
		}
		VPXORQ(Z19, Z0, Z0)
	}
	Label("loop1")
	CMPQ(RCX, U8(4))
	JB(LabelRef("tail"))
	one(K1)
	VMOVDQU64(Z0, Mem{Base: RDI})
	ADDQ(R12, RSI)
	ADDQ(U8(64), RDI)
	SUBQ(U8(4), RCX)
	JMP(LabelRef("loop1"))

	Label("tail")
	TESTQ(RCX, RCX)
	JZ(LabelRef("done"))
	Load(Param("tailSrc"), RAX)
	KMOVW(EAX, K2)
	Load(Param("tailDst"), RAX)
	KMOVW(EAX, K3)
	one(K2)
	VMOVDQU64(Z0, K3, Mem{Base: RDI})

	Label("done")
	VZEROUPPER()
	RET()
}

// zround applies middle or last round r (r >= 1) with key to s.
func zround(r int, key, s VecPhysical) {
	if r == rounds-1 {
		vaes("VAESENCLAST", key, s)
		return
	}
	vaes("VAESENC", key, s)
}

// MMOSelect: every lane blends its round keys from A (Z8-Z18) and B (Z19-Z29) under
// its vector's mask, so six vectors (masks K2-K7) are in flight. On Zen 4 the blends
// cost about a third of MMO's throughput; a per-call table of round keys for all 16
// lane patterns, read as memory operands, measured slower still.
func mmoSelectVAES512() {
	selBad := GLOBL("selbad", RODATA|NOPTR) // any bit but bit 0 of each sel byte
	DATA(0, U32(0xfefefefe))

	TEXT("mmoSelectVAESAsm", 0, "func(dst, src, sel *byte, nd int, a, b *[4]*[11][16]byte, shape *byte, tailSrc, tailDst, tailSel uint64) (bad bool)")
	Pragma("noescape")
	scratch := AllocLocal(448) // 6 vectors, cache-line aligned
	Load(Param("a"), RAX)
	laneKeys512(RAX, zKeysA)
	Load(Param("b"), RAX)
	laneKeys512(RAX, zKeysB)
	shape := loadShape(RDX)
	MOVQ(Mem{Base: shape, Disp: shapeSelDep}, R14)
	MOVQ(Mem{Base: shape, Disp: shapeSelFill}, R15)
	MOVQ(Mem{Base: shape, Disp: shapeSelIter}, R10)
	LEAQ(Mem{Base: R12, Index: R12, Scale: 2}, R13)
	MOVQ(R12, R8)
	SHRQ(U8(4), R8) // sel bytes per vector
	LEAQ(scratch.Offset(63), R11)
	ANDQ(I32(^63), R11)
	XORL(R9L, R9L)
	Load(Param("dst"), RDI)
	Load(Param("src"), RSI)
	Load(Param("sel"), RBX)
	Load(Param("nd"), RCX)

	// selMask loads the sel bytes in mask K2 at BX, records in R9 any that is not 0
	// or 1, and leaves in AX one byte of qword blend mask per vector.
	selMask := func() {
		VMOVDQU8_Z(Mem{Base: RBX}, K2, Y31)
		VPTESTMD_BCST(selBad, Y31, K3)
		KMOVD(K3, EAX)
		ORL(EAX, R9L)
		VPTESTMB(Y31, Y31, K3)
		KMOVD(K3, EAX)
		PDEPQ(R14, RAX, RAX)
		IMULQ(R15, RAX)
	}
	// sload loads vector i's source at addr into s, spread over its lanes, and keeps
	// a copy in scratch slot i (at R11) for the MMO XOR: registers are all taken.
	sload := func(addr Mem, s VecPhysical, i int) {
		VMOVDQU64_Z(addr, K1, s)
		VPERMQ(s, zPerm, s)
		VMOVDQA64(s, Mem{Base: R11, Disp: 64 * i})
	}
	// rounds runs every round on vectors vs, vector v's key blended under
	// masks[v] through temps[v].
	states := []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5}
	masks := []OpmaskPhysical{K2, K3, K4, K5, K6, K7}
	temps := []VecPhysical{Z31, Z6, Z7, Z31, Z6, Z7}
	selRounds := func(vs int) {
		for r := 0; r < rounds; r++ {
			for v := range vs {
				VPBLENDMQ(zKeysB[r], zKeysA[r], masks[v], temps[v])
				switch r {
				case 0:
					VPXORQ(temps[v], states[v], states[v])
				default:
					zround(r, temps[v], states[v])
				}
			}
		}
	}
	// vector runs one vector at SI: sel bytes in mask K2, source in mask K1.
	vector := func() {
		selMask()
		KMOVW(EAX, K2)
		sload(Mem{Base: RSI}, Z0, 0)
		selRounds(1)
		VPXORQ(Mem{Base: R11}, Z0, Z0)
	}

	Label("loop6")
	CMPQ(RCX, U8(24))
	JB(LabelRef("loop1"))
	KMOVD(R10L, K2)
	selMask()
	for v, k := range masks {
		if v > 0 {
			SHRQ(U8(8), RAX)
		}
		KMOVW(EAX, k)
	}
	LEAQ(Mem{Base: RSI, Index: R12, Scale: 4}, RDX)
	for v, s := range states {
		sload(srcAt(v), s, v)
	}
	selRounds(len(states))
	for v, s := range states {
		VPXORQ(Mem{Base: R11, Disp: 64 * v}, s, s)
	}
	for v, s := range states {
		VMOVDQU64(s, Mem{Base: RDI, Disp: 64 * v})
	}
	LEAQ(Mem{Base: RDX, Index: R12, Scale: 2}, RSI)
	ADDQ(U32(384), RDI)
	LEAQ(Mem{Base: R8, Index: R8, Scale: 2}, RAX)
	LEAQ(Mem{Base: RBX, Index: RAX, Scale: 2}, RBX)
	SUBQ(U8(24), RCX)
	JMP(LabelRef("loop6"))

	Label("loop1")
	CMPQ(RCX, U8(4))
	JB(LabelRef("tail"))
	Load(Param("shape"), RAX)
	MOVQ(Mem{Base: RAX, Disp: shapeSelVec}, RAX)
	KMOVD(EAX, K2)
	vector()
	VMOVDQU64(Z0, Mem{Base: RDI})
	ADDQ(R12, RSI)
	ADDQ(U8(64), RDI)
	ADDQ(R8, RBX)
	SUBQ(U8(4), RCX)
	JMP(LabelRef("loop1"))

	Label("tail")
	TESTQ(RCX, RCX)
	JZ(LabelRef("done"))
	Load(Param("tailSel"), RAX)
	KMOVD(EAX, K2)
	Load(Param("tailSrc"), RAX)
	KMOVW(EAX, K1)
	vector()
	Load(Param("tailDst"), RAX)
	KMOVW(EAX, K3)
	VMOVDQU64(Z0, K3, Mem{Base: RDI})

	Label("done")
	TESTL(R9L, R9L)
	bad, err := Return("bad").Resolve()
	if err != nil {
		panic(err)
	}
	SETNE(bad.Addr)
	VZEROUPPER()
	RET()
}
