package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The AVX-512 per-level routines of the tree walks (simd_amd64.go; `-avx512` writes
// them to their own file). Blocks sit 4 to a zmm register, one per 128-bit lane.
// Registers are named, not allocated: the routines were written by hand first and
// measured on AVX-512 CPUs, and generate the same machine code. Every routine keeps
// in Z31 the control-bit mask of a lane (bit 32 of the high qword); the group
// arithmetic reads the Arith masks from Z29 (From), Z28 (Xor), Z27 (Mask) and Z26
// (Neg), as loadArith512 puts them.

// goVar is the package-level Go variable name, as the routines read it.
func goVar(name string) Mem { return NewDataAddr(Symbol{Name: "·" + name}, 0) }

var (
	lsbMask512 = goVar("lsbMask")
	laneBits   = goVar("laneBits")
	byteBits   = goVar("byteBits")
)

func avx512Walks() {
	dpfLevel512(false)
	dpfLevel512(true)
	dcfLevel512(false)
	dcfLevel512(true)
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

// arith512 is the group's + that the variant being generated takes (byArith512).
var arith512 arithKind

// byArith512 is byArith for the AVX-512 routines, the Xor mask in xor; body's labels
// come from the label function it gets, each variant's its own.
func byArith512(name string, xor VecPhysical, body func(label func(string) string)) {
	byArith(zmm, name, xor, &arith512, func(prefix string) {
		body(func(s string) string { return prefix + "_" + s })
	})
}

// gadd512 sets t to x + y in the group (x is clobbered): x ^ y where Xor is set,
// else the qword sums; one instruction in byArith512's variants.
func gadd512(y, x, t VecPhysical) { groupOp(zmm, arith512, Z28, VPADDQ, y, x, t, t) }

// sign negates x under Neg (two's complement: (x ^ Neg) - Neg) and keeps Mask's bits.
func sign(x VecPhysical) {
	VPXORQ(Z26, x, x)
	VPSUBQ(Z26, x, x)
	VPANDQ(Z27, x, x)
}

// tailMasks: K1 covers one parent (2 qwords), K2 its two children (4 qwords).
func tailMasks() {
	MOVL(U32(0x03), EAX)
	KMOVW(EAX, K1)
	MOVL(U32(0x0f), EAX)
	KMOVW(EAX, K2)
}

// With lane keys (raw nil, so DX = 0) the EvalAll routines run AES-128 MMO
// themselves, on the parents' clamped seeds: each lane of a vector runs its own
// fixed key (DPF: left, right, left, right; DCF: SL, VL, SR, VR), so the round keys
// sit in Z8-Z18 for the whole call and a parent's PRG output never goes through
// memory. The main loops run 4 vectors' rounds interleaved (Z19-Z22): one vector's
// rounds are a chain of dependent AES operations, too long to overlap with the next
// parents' on its own.

var zRoundKeys = []VecPhysical{Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18}

// laneSetup loads the lane keys into Z8-Z18, and K3 with the high two lanes, when
// the routine got them (its keys argument), and the tail masks.
func laneSetup() {
	Load(Param("keys"), RAX)
	TESTQ(RAX, RAX)
	JZ(LabelRef("lanesetup_done"))
	for r, z := range zRoundKeys {
		VMOVDQU64(Mem{Base: RAX, Disp: 64 * r}, z)
	}
	MOVL(U32(0xff00), EAX)
	KMOVW(EAX, K3)
	Label("lanesetup_done")
	tailMasks()
}

// mmo512 sets x to AES(s) ^ s for the lanes' keys, s holding clamped seeds.
func mmo512(s, x VecPhysical) {
	VPXORQ(Z8, s, x)
	for r := 1; r < rounds; r++ {
		aes(r, zRoundKeys[r], x)
	}
	VPXORQ(s, x, x)
}

// prg1 sets x to the PRG output of the parent at off(BX), its clamped seed in every
// lane (DPF: the parent's L, R twice; DCF: its SL, VL, SR, VR).
func prg1(off int, x VecPhysical) {
	VBROADCASTI32X4(Mem{Base: RBX, Disp: off}, Z19)
	VPANDNQ(Z19, Z31, Z19)
	mmo512(Z19, x)
}

// dpfSeeds sets x to the seeds (s0, s0, s1, s1) of the two parents at off(BX),
// unclamped.
func dpfSeeds(off int, x VecPhysical) {
	VBROADCASTI32X4(Mem{Base: RBX, Disp: off}, x)
	VBROADCASTI32X4(Mem{Base: RBX, Disp: off + 16}, K3, x)
}

// laneRounds runs rounds 1-10 on Z19-Z22.
func laneRounds() {
	for r := 1; r < rounds; r++ {
		for _, x := range []VecPhysical{Z19, Z20, Z21, Z22} {
			aes(r, zRoundKeys[r], x)
		}
	}
}

// start and feed are MMO's first and last steps for a vector x of unclamped seeds s
// (the seeds are loaded twice rather than kept: the DCF routines have no registers
// to spare): x = clamp(s) ^ round key 0, and x ^= clamp(s).
func start(x VecPhysical)   { VPTERNLOGQ(U8(0x9c), Z31, Z8, x) }
func feed(s, x VecPhysical) { VPTERNLOGQ(U8(0xb4), Z31, s, x) }

// prg4 sets Z19-Z22 to the PRG output of the parents at BX, load(off, x) putting
// the seeds at off in x: DPF's two parents a vector (32 bytes), DCF's one (16).
func prg4(step int, load func(off int, x VecPhysical)) {
	xs := []VecPhysical{Z19, Z20, Z21, Z22}
	for i, x := range xs {
		load(step*i, x)
	}
	for _, x := range xs {
		start(x)
	}
	laneRounds()
	for i, x := range xs {
		load(step*i, Z23)
		feed(Z23, x)
	}
}

func broadcastBlock(off int, x VecPhysical) { VBROADCASTI32X4(Mem{Base: RBX, Disp: off}, x) }

// raw sets outs to the PRG output of the next two parents: read from raw at DX, or
// run here by prg.
func raw(aes, done string, outs []VecPhysical, prg func()) {
	TESTQ(RDX, RDX)
	JZ(LabelRef(aes))
	for i, x := range outs {
		VMOVDQU64(Mem{Base: RDX, Disp: 64 * i}, x)
	}
	ADDQ(U32(64*len(outs)), RDX)
	JMP(LabelRef(done))
	Label(aes)
	prg()
	Label(done)
}

// dpfChild corrects the children x of the two parents in the low half of p (Z30:
// the corrections of a left and a right child, twice).
func dpfChild(x, p VecPhysical) {
	VSHUFI64X2(U8(0x50), p, p, p)
	tmask(p, p)
	VPTERNLOGQ(U8(0x78), Z30, p, x)
}

// dpfLeaf turns the corrected child x into the output Z3 = from(clamp(x)) + t*Z25.
func dpfLeaf(x VecPhysical) {
	tmask(x, Z2)
	VPANDQ(Z25, Z2, Z2)
	VPANDQ(Z29, x, x)
	gadd512(Z2, x, Z3)
	sign(Z3)
}

// storeSeeds stores the children x (u, at DI) and their clamped seeds (s, at SI),
// under mask k where given.
func storeSeeds(x VecPhysical, k ...Op) {
	VMOVDQU64(append([]Op{x}, append(k, Mem{Base: RDI})...)...)
	VPANDNQ(x, Z31, x)
	VMOVDQU64(append([]Op{x}, append(k, Mem{Base: RSI})...)...)
}

// dpfLevel512 generates dpfLevel (the children of m parents) or, leaves, dpfLeaves
// (their outputs).
func dpfLevel512(leaves bool) {
	name, sig := "dpfLevel", "func(u, s, raw, parents *byte, m int, cw *byte, keys *byte)"
	if leaves {
		name, sig = "dpfLeaves", "func(dst, raw, parents *byte, m int, cw, v, ar *byte, keys *byte)"
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	label := func(s string) string { return map[bool]string{false: "dpflevel_", true: "dpfleaves_"}[leaves] + s }
	if leaves {
		Load(Param("dst"), RDI)
	} else {
		Load(Param("u"), RDI)
		Load(Param("s"), RSI)
	}
	Load(Param("raw"), RDX)
	Load(Param("parents"), RBX)
	Load(Param("m"), RCX)
	Load(Param("cw"), RAX)
	VBROADCASTI64X4(Mem{Base: RAX}, Z30)
	if leaves {
		Load(Param("v"), RAX)
		VBROADCASTI32X4(Mem{Base: RAX}, Z25)
		Load(Param("ar"), RAX)
		loadArith512(RAX)
	}
	VBROADCASTI32X4(lsbMask512, Z31)
	laneSetup()

	// loops emits the loops over the parents and the one left, with their labels.
	loops := func(label func(string) string) {
		// pair writes what the two parents at BX make from their PRG output x, and
		// advances past them.
		pair := func(x VecPhysical) {
			VMOVDQU64(Mem{Base: RBX}, Y1)
			dpfChild(x, Z1)
			if leaves {
				dpfLeaf(x)
				VMOVDQU64(Z3, Mem{Base: RDI})
			} else {
				VMOVDQU64(x, Mem{Base: RDI})
				VPANDNQ(x, Z31, x)
				VMOVDQU64(x, Mem{Base: RSI})
			}
			ADDQ(U8(32), RBX)
			ADDQ(U8(64), RDI)
			if !leaves {
				ADDQ(U8(64), RSI)
			}
		}

		levelLoops(label, 8, func() {
			prg4(32, dpfSeeds)
			for _, x := range []VecPhysical{Z19, Z20, Z21, Z22} {
				pair(x)
			}
		}, []VecPhysical{Z0}, func() {
			dpfSeeds(0, Z19)
			VPANDNQ(Z19, Z31, Z19)
			mmo512(Z19, Z0)
		}, func() { pair(Z0) })
		VMOVDQU64_Z(Mem{Base: RBX}, K1, Z1)
		TESTQ(RDX, RDX)
		JZ(LabelRef(label("tailaes")))
		VMOVDQU64_Z(Mem{Base: RDX}, K2, Z0)
		JMP(LabelRef(label("tailchild")))
		Label(label("tailaes"))
		prg1(0, Z0)
		Label(label("tailchild"))
		dpfChild(Z0, Z1)
		if leaves {
			dpfLeaf(Z0)
			VMOVDQU64(Z3, K2, Mem{Base: RDI})
		} else {
			storeSeeds(Z0, K2)
		}

		Label(label("done"))
	}
	if leaves {
		byArith512(name, Z28, loops)
	} else {
		loops(label)
	}
	VZEROUPPER()
	RET()
}

// levelLoops emits a level routine's loops over its m parents (CX), up to its
// tail: groups of the given parents (group: their PRG, run here, and their
// children) while the routine runs the AES itself (DX, raw, is 0), then pairs of
// parents (pair), whose PRG output raw reads into outs or prg runs, and then, with
// one parent left, what follows, up to label("done").
func levelLoops(label func(string) string, parents int, group func(), outs []VecPhysical, prg, pair func()) {
	big := label(fmt.Sprintf("loop%d", parents))
	Label(big)
	TESTQ(RDX, RDX)
	JNZ(LabelRef(label("loop")))
	CMPQ(RCX, U8(parents))
	JB(LabelRef(label("loop")))
	group()
	SUBQ(U8(parents), RCX)
	JMP(LabelRef(big))

	Label(label("loop"))
	CMPQ(RCX, U8(2))
	JB(LabelRef(label("tail")))
	raw(label("aes"), label("child"), outs, prg)
	pair()
	SUBQ(U8(2), RCX)
	JMP(LabelRef(label("loop")))

	Label(label("tail"))
	TESTQ(RCX, RCX)
	JZ(LabelRef(label("done")))
}

// dcfChild splits the PRG output r0, r1 of two parents into their children's
// seeds Z2, corrected under the parents' control bits (low half of p), and their
// values Z7: the parents' values (low half of pv) plus from(V) + t*Z25.
func dcfChild(r0, r1, p, pv VecPhysical) {
	VSHUFI64X2(U8(0x88), r1, r0, Z2)
	VSHUFI64X2(U8(0xdd), r1, r0, Z3)
	VSHUFI64X2(U8(0x50), p, p, p)
	VSHUFI64X2(U8(0x50), pv, pv, pv)
	tmask(p, p)
	VPTERNLOGQ(U8(0x78), Z30, p, Z2)
	VPANDQ(Z29, Z3, Z3)
	VPANDQ(Z25, p, p)
	gadd512(p, Z3, Z5)
	gadd512(pv, Z5, Z7)
}

// dcfLeaf turns corrected children Z2 with values Z7 into outputs Z5:
// Z7 + from(clamp(Z2)) + t*Z24.
func dcfLeaf() {
	tmask(Z2, Z3)
	VPANDQ(Z24, Z3, Z3)
	VPANDQ(Z29, Z2, Z2)
	gadd512(Z3, Z2, Z4)
	gadd512(Z7, Z4, Z5)
	sign(Z5)
}

// dcfLevel512 generates dcfLevel (the children of m parents, their seeds and
// values) or, leaves, dcfLeaves (their outputs).
func dcfLevel512(leaves bool) {
	name, sig := "dcfLevel", "func(u, s, v, raw, parents, pv *byte, m int, cw, vcw, ar, keys *byte)"
	if leaves {
		name, sig = "dcfLeaves", "func(dst, raw, parents, pv *byte, m int, cw, vcw, ar, keys *byte)"
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	if leaves {
		Load(Param("dst"), RDI)
	} else {
		Load(Param("u"), RDI)
		Load(Param("s"), RSI)
		Load(Param("v"), R8)
	}
	Load(Param("raw"), RDX)
	Load(Param("parents"), RBX)
	Load(Param("pv"), R9)
	Load(Param("m"), RCX)
	Load(Param("cw"), RAX)
	VBROADCASTI64X4(Mem{Base: RAX}, Z30)
	Load(Param("vcw"), RAX)
	VBROADCASTI32X4(Mem{Base: RAX}, Z25)
	if leaves {
		VBROADCASTI32X4(Mem{Base: RAX, Disp: 16}, Z24)
	}
	Load(Param("ar"), RAX)
	loadArith512(RAX)
	VBROADCASTI32X4(lsbMask512, Z31)
	laneSetup()

	// loops emits the loops over the parents and the one left, with their labels.
	loops := func(label func(string) string) {
		// pair writes what the two parents at BX and R9 make from their PRG output
		// r0, r1, and advances past them.
		pair := func(r0, r1 VecPhysical) {
			VMOVDQU64(Mem{Base: RBX}, Y4)
			VMOVDQU64(Mem{Base: R9}, Y6)
			dcfChild(r0, r1, Z4, Z6)
			if leaves {
				dcfLeaf()
				VMOVDQU64(Z5, Mem{Base: RDI})
			} else {
				storeSeeds(Z2)
				VMOVDQU64(Z7, Mem{Base: R8})
			}
			ADDQ(U8(32), RBX)
			ADDQ(U8(32), R9)
			ADDQ(U8(64), RDI)
			if !leaves {
				ADDQ(U8(64), RSI)
				ADDQ(U8(64), R8)
			}
		}

		levelLoops(label, 4, func() {
			prg4(16, broadcastBlock)
			pair(Z19, Z20)
			pair(Z21, Z22)
		}, []VecPhysical{Z0, Z1}, func() {
			prg1(0, Z0)
			prg1(16, Z1)
		}, func() { pair(Z0, Z1) })
		// The one parent left (Z1 is left as is: it feeds only lanes that are not
		// stored).
		VMOVDQU64_Z(Mem{Base: RBX}, K1, Z4)
		VMOVDQU64_Z(Mem{Base: R9}, K1, Z6)
		TESTQ(RDX, RDX)
		JZ(LabelRef(label("tailaes")))
		VMOVDQU64(Mem{Base: RDX}, Z0)
		JMP(LabelRef(label("tailchild")))
		Label(label("tailaes"))
		prg1(0, Z0)
		Label(label("tailchild"))
		dcfChild(Z0, Z1, Z4, Z6)
		if leaves {
			dcfLeaf()
			VMOVDQU64(Z5, K2, Mem{Base: RDI})
		} else {
			storeSeeds(Z2, K2)
			VMOVDQU64(Z7, K2, Mem{Base: R8})
		}

		Label(label("done"))
	}
	byArith512(name, Z28, loops)
	VZEROUPPER()
	RET()
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
func rows(offs GPPhysical, o int, idx GPPhysical, t0, t1, c0, c1 VecPhysical) {
	for i, z := range []VecPhysical{t0, t1} {
		MOVQ(Mem{Base: offs, Disp: o + 16*i}, RAX)
		MOVQ(Mem{Base: offs, Disp: o + 16*i + 8}, idx)
		VMOVDQU64(Mem{Base: R11, Index: RAX, Scale: 1}, z.AsY())
		VINSERTI64X4(U8(1), Mem{Base: R11, Index: idx, Scale: 1}, z, z)
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

func dpfEvalLevel512() {
	TEXT("dpfEvalLevel", NOSPLIT, "func(u, s, sides, ch, next, xs, off, rows *byte, m int, cnt *byte)")
	Pragma("noescape")
	evalArgs(false)
	Label("dpfeval_loop")
	TESTQ(RCX, RCX)
	JZ(LabelRef("dpfeval_done"))
	sideMask()
	rows(R8, 0, R12, Z2, Z3, Z4, Z5)
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
