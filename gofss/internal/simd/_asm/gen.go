package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// DPF Gen's level routine with AES-128 MMO run in place (dpfGenLevel's job with
// keys, gen_amd64.s): for each key of a tile, both parties' nodes expand into their
// left (L) and right (R) children, the level's correction word comes from the side
// away from alpha, and both parties move to the child on alpha's side.
//
// With 256-bit vectors a key's L outputs of both parties share a vector (party 0 in
// the low lane) and so do its R outputs, so the parties' XOR is one lane swap away
// and a choice by alpha's bit a blend; their round keys, the same in both lanes,
// come from a table the prologue builds. With 128-bit vectors each output has its
// own. A group is 8 vectors: 4 keys or 2. Registers after the rounds, per key: the
// alpha mask (10), the parties' L XOR R outputs (11, 12), the seed correction (13),
// scratch (14, 15); the control-bit mask (8), the shift counts (9).

// dpfGenRoutine generates dpfGenLevel<W>.
func dpfGenRoutine(w width) {
	name := "dpfGenLevel" + w.name
	TEXT(name, 0, "func(u0, u1, s, ch, alphas, rows *byte, stride, keys, padded int, cnt *[2]uint64, rk *[2][11][16]byte)")
	Pragma("noescape")
	perKey := 4 / w.blocks // vectors a key
	group := 8 / perKey    // keys a group
	Doc(name + " is dpfGenLevel with AES keys, in groups of " + fmt.Sprint(group) + " keys.")
	parked := AllocLocal(group * 2 * 16)
	one := AllocLocal(w.size()) // qwords of 1
	lsbv, cnt := w.vec(8), w.vec(9)
	var key func(side, r int) Mem
	if w.blocks == 2 {
		table := AllocLocal(2 * rounds * 32) // [side][round]: the key in both lanes
		Load(Param("rk"), RAX)
		for side := range 2 {
			for r := range rounds {
				VBROADCASTI128(Mem{Base: RAX, Disp: side*keyBytes + 16*r}, w.vec(10))
				VMOVDQU(w.vec(10), table.Offset(32*(side*rounds+r)))
			}
		}
		key = func(side, r int) Mem { return table.Offset(32 * (side*rounds + r)) }
	} else {
		Load(Param("rk"), RDX)
		key = func(side, r int) Mem { return Mem{Base: RDX, Disp: side*keyBytes + 16*r} }
	}
	MOVQ(U32(1), RAX)
	MOVQ(RAX, X10)
	VPBROADCASTQ(X10, w.vec(10))
	VMOVDQU(w.vec(10), one)
	w.spread(lsb, lsbv)
	Load(Param("cnt"), RAX)
	w.spread(Mem{Base: RAX}, cnt)
	Load(Param("u0"), RDI)
	Load(Param("u1"), RSI)
	Load(Param("alphas"), R12)
	Load(Param("rows"), R11)
	Load(Param("stride"), R13)
	Load(Param("keys"), R14)
	Load(Param("padded"), RCX)

	// state is the vector of key k's side outputs of party p (256-bit: both parties).
	state := func(k, side, p int) VecPhysical {
		if w.blocks == 2 {
			return w.vec(2*k + side)
		}
		return w.vec(4*k + 2*p + side)
	}
	Label(name + "_group")
	for k := range group {
		for p := 0; p < 2/w.blocks; p++ {
			x := state(k, 0, p)
			if w.blocks == 2 {
				VMOVDQU(Mem{Base: RDI, Disp: 16 * k}, x.AsX())
				VINSERTI128(U8(1), Mem{Base: RSI, Disp: 16 * k}, x, x)
			} else {
				VMOVDQU(Mem{Base: []GPPhysical{RDI, RSI}[p], Disp: 16 * k}, x)
			}
			VPANDN(x, lsbv, x)
			VMOVDQU(x, parked.Offset((2*k+p)*16))
			VPXOR(key(1, 0), x, state(k, 1, p))
			VPXOR(key(0, 0), x, x)
		}
	}
	for r := 1; r < rounds; r++ {
		for k := range group {
			for p := 0; p < 2/w.blocks; p++ {
				for side := range 2 {
					aes(r, key(side, r), state(k, side, p))
				}
			}
		}
	}
	amask, dl, dr, scw, t, u := w.vec(10), w.vec(11), w.vec(12), w.vec(13), w.vec(14), w.vec(15)
	for k := range group {
		for p := 0; p < 2/w.blocks; p++ {
			for side := range 2 {
				VPXOR(parked.Offset((2*k+p)*16), state(k, side, p), state(k, side, p))
			}
		}
		// a: alpha's bit at the level, as a mask.
		w.spread(Mem{Base: R12, Disp: 16 * k}, amask)
		VPSRLVQ(cnt, amask, amask)
		VPSHUFD(U8(0x4e), amask, t)
		VPOR(t, amask, amask)
		VPAND(one, amask, amask)
		VPXOR(t, t, t)
		VPSUBQ(amask, t, amask)
		// The parties' XOR of each side's outputs.
		if w.blocks == 2 {
			VPERM2I128(U8(0x01), state(k, 0, 0), state(k, 0, 0), dl)
			VPXOR(state(k, 0, 0), dl, dl)
			VPERM2I128(U8(0x01), state(k, 1, 0), state(k, 1, 0), dr)
			VPXOR(state(k, 1, 0), dr, dr)
		} else {
			VPXOR(state(k, 0, 0), state(k, 0, 1), dl)
			VPXOR(state(k, 1, 0), state(k, 1, 1), dr)
		}
		// The seed correction: the side away from alpha, clamped.
		VPXOR(dl, dr, scw)
		VPAND(amask, scw, scw)
		VPXOR(dr, scw, scw)
		VPANDN(scw, lsbv, scw)
		// The control-bit corrections tl = t(dl) ^ a ^ 1 (in dl), tr = t(dr) ^ a (in dr).
		VPAND(lsbv, amask, t)
		VPAND(lsbv, dr, dr)
		VPXOR(t, dr, dr)
		VPAND(lsbv, dl, dl)
		VPXOR(t, dl, dl)
		VPXOR(lsbv, dl, dl)
		// Each party's child on alpha's side.
		for p := 0; p < 2/w.blocks; p++ {
			l, r := state(k, 0, p), state(k, 1, p)
			VPXOR(l, r, r)
			VPAND(amask, r, r)
			VPXOR(r, l, l)
		}
		// The row, unless the key is padding: seed correction with tl, then tr alone.
		skip := fmt.Sprintf("%s_pad%d", name, k)
		CMPQ(R14, U8(k))
		JLE(LabelRef(skip))
		VPOR(dl, scw, t)
		VMOVDQU(t.AsX(), Mem{Base: R11})
		VPSHUFD(U8(0x03), dr, t)
		VMOVDQU(t.AsX(), Mem{Base: R11, Disp: 16})
		Label(skip)
		ADDQ(R13, R11)
		// The correction of the kept side: the seed's with that side's control bit.
		VPXOR(dl, dr, t)
		VPAND(amask, t, t)
		VPXOR(dl, t, t)
		VPOR(t, scw, scw)
		for p := 0; p < 2/w.blocks; p++ {
			kept := state(k, 0, p)
			if w.blocks == 2 {
				VMOVDQU(Mem{Base: RDI, Disp: 16 * k}, u.AsX())
				VINSERTI128(U8(1), Mem{Base: RSI, Disp: 16 * k}, u, u)
			} else {
				VMOVDQU(Mem{Base: []GPPhysical{RDI, RSI}[p], Disp: 16 * k}, u)
			}
			tmask(u, u)
			VPAND(scw, u, u)
			VPXOR(u, kept, kept)
			if w.blocks == 2 {
				VMOVDQU(kept.AsX(), Mem{Base: RDI, Disp: 16 * k})
				VEXTRACTI128(U8(1), kept, Mem{Base: RSI, Disp: 16 * k})
			} else {
				VMOVDQU(kept, Mem{Base: []GPPhysical{RDI, RSI}[p], Disp: 16 * k})
			}
		}
	}
	ADDQ(U32(16*group), RDI)
	ADDQ(U32(16*group), RSI)
	ADDQ(U32(16*group), R12)
	SUBQ(U32(group), R14)
	SUBQ(U32(group), RCX)
	JNZ(LabelRef(name + "_group"))
	VZEROUPPER()
	RET()
}

// copyNT generates copyNTAVX2, copyNT (copy_amd64.s) on 256-bit vectors.
func copyNT() {
	TEXT("copyNTAVX2", NOSPLIT, "func(dst, src *byte, n int)")
	Pragma("noescape")
	Doc("copyNTAVX2 is copyNT with 256-bit stores.")
	Load(Param("dst"), RDI)
	Load(Param("src"), RSI)
	Load(Param("n"), RCX)
	one := func(label string) {
		VMOVDQU(Mem{Base: RSI}, X0)
		VMOVDQU(X0, Mem{Base: RDI})
		ADDQ(U8(16), RSI)
		ADDQ(U8(16), RDI)
		DECQ(RCX)
		JMP(LabelRef(label))
	}
	Label("copyNTAVX2_head")
	TESTQ(RCX, RCX)
	JZ(LabelRef("copyNTAVX2_fence"))
	TESTQ(U32(31), RDI)
	JZ(LabelRef("copyNTAVX2_body"))
	one("copyNTAVX2_head")
	Label("copyNTAVX2_body")
	CMPQ(RCX, U8(2))
	JB(LabelRef("copyNTAVX2_tail"))
	VMOVDQU(Mem{Base: RSI}, Y0)
	VMOVNTDQ(Y0, Mem{Base: RDI})
	ADDQ(U8(32), RSI)
	ADDQ(U8(32), RDI)
	SUBQ(U8(2), RCX)
	JMP(LabelRef("copyNTAVX2_body"))
	Label("copyNTAVX2_tail")
	TESTQ(RCX, RCX)
	JZ(LabelRef("copyNTAVX2_fence"))
	one("copyNTAVX2_tail")
	Label("copyNTAVX2_fence")
	SFENCE()
	VZEROUPPER()
	RET()
}
