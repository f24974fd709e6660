//go:build amd64 && !purego

#include "textflag.h"

// The one-key walk routines (onekey_amd64.go). A block's control bit is bit 96
// (bit 0 of dword 3). X14 holds the clamp mask: all ones but the control bit.

#define CLAMPMASK(tmp) \
	PCMPEQL X14, X14;                   \
	MOVQ    $0xfffffffeffffffff, tmp;   \
	PINSRQ  $1, tmp, X14

// LSBMASK sets M to all ones where block B's control bit is set, else zeros.
#define LSBMASK(B, M) \
	PSHUFD $0xff, B, M; \
	PSLLL  $31, M;      \
	PSRAL  $31, M

// CTLBIT puts bit r (0 or 1) in the control-bit position of X, zeros elsewhere.
#define CTLBIT(r, X) \
	MOVQ  r, X; \
	PSLLO $12, X

// ROUND1 applies round key off of the keys at K to X0.
#define ROUND1(op, K, off) \
	MOVOU off(K), X4; \
	op    X4, X0

// ROUND2 also applies round key off of the keys at V to X7.
#define ROUND2(op, K, V, off) \
	MOVOU off(K), X4; \
	op    X4, X0;     \
	MOVOU off(V), X5; \
	op    X5, X7

// func evalWalkAESNI(keys *WalkKeys, rows, sides, values, bits *byte, n, trByte int, seed *[16]byte, t uint8) uint8
// X0: the seed (clamped), X1: the control-bit mask, X2: what the child is XORed with
// after AES (the seed, and the masked correction), X6: the seed, X7: the value
// output (DCF).
TEXT ·evalWalkAESNI(SB), NOSPLIT, $0-73
	MOVQ keys+0(FP), R8
	MOVQ rows+8(FP), SI
	MOVQ sides+16(FP), DI
	MOVQ values+24(FP), DX
	MOVQ bits+32(FP), R12
	MOVQ n+40(FP), CX
	MOVQ trByte+48(FP), R13
	MOVQ seed+56(FP), AX
	MOVOU (AX), X0
	MOVBQZX t+64(FP), AX
	NEGQ AX
	MOVQ AX, X1
	PSHUFD $0x44, X1, X1
	CLAMPMASK(AX)
	TESTQ DX, DX
	JNZ   dcf_level

dpf_level:
	MOVBQZX (DI), AX
	ANDQ    $1, AX
	MOVQ    (R8)(AX*8), BX
	// The side's correction: tl (row byte 12) or tr (row byte trByte).
	MOVBQZX 12(SI), R10
	MOVBQZX (SI)(R13*1), R11
	TESTQ   AX, AX
	CMOVQNE R11, R10
	ANDQ    $1, R10
	MOVOU   (SI), X2
	PAND    X14, X2
	CTLBIT(R10, X3)
	POR     X3, X2
	PAND    X1, X2
	PXOR    X0, X2
	ROUND1(PXOR, BX, 0)
	ROUND1(AESENC, BX, 16)
	ROUND1(AESENC, BX, 32)
	ROUND1(AESENC, BX, 48)
	ROUND1(AESENC, BX, 64)
	ROUND1(AESENC, BX, 80)
	ROUND1(AESENC, BX, 96)
	ROUND1(AESENC, BX, 112)
	ROUND1(AESENC, BX, 128)
	ROUND1(AESENC, BX, 144)
	ROUND1(AESENCLAST, BX, 160)
	PXOR    X2, X0
	LSBMASK(X0, X1)
	PAND    X14, X0
	ADDQ    $32, SI
	INCQ    DI
	DECQ    CX
	JNZ     dpf_level
	JMP     done

dcf_level:
	MOVBQZX (DI), AX
	ANDQ    $1, AX
	MOVQ    (R8)(AX*8), BX
	MOVQ    16(R8)(AX*8), R9
	MOVBQZX 12(SI), R10
	MOVBQZX (SI)(R13*1), R11
	TESTQ   AX, AX
	CMOVQNE R11, R10
	ANDQ    $1, R10
	MOVOU   (SI), X2
	PAND    X14, X2
	CTLBIT(R10, X3)
	POR     X3, X2
	PAND    X1, X2
	PXOR    X0, X2
	MOVMSKPS X1, R11
	ANDQ    $1, R11
	MOVB    R11, (R12)
	MOVOU   X0, X6
	MOVOU   X0, X7
	ROUND2(PXOR, BX, R9, 0)
	ROUND2(AESENC, BX, R9, 16)
	ROUND2(AESENC, BX, R9, 32)
	ROUND2(AESENC, BX, R9, 48)
	ROUND2(AESENC, BX, R9, 64)
	ROUND2(AESENC, BX, R9, 80)
	ROUND2(AESENC, BX, R9, 96)
	ROUND2(AESENC, BX, R9, 112)
	ROUND2(AESENC, BX, R9, 128)
	ROUND2(AESENC, BX, R9, 144)
	ROUND2(AESENCLAST, BX, R9, 160)
	PXOR    X2, X0
	PXOR    X6, X7
	MOVOU   X7, (DX)
	LSBMASK(X0, X1)
	PAND    X14, X0
	ADDQ    $32, SI
	ADDQ    $16, DX
	INCQ    DI
	INCQ    R12
	DECQ    CX
	JNZ     dcf_level

done:
	MOVQ     seed+56(FP), AX
	MOVOU    X0, (AX)
	MOVMSKPS X1, AX
	ANDQ     $1, AX
	MOVB     AX, ret+72(FP)
	RET

// GROUND applies round key off to the seed outputs X4-X7 (L0, R0, L1, R1: keys at
// BX for L, R9 for R) and, with V set, to the value outputs X8-X11 (VL0, VR0, VL1,
// VR1: keys at R10, R11).
#define GROUND(op, off) \
	MOVOU off(BX), X12;  \
	op    X12, X4;       \
	op    X12, X6;       \
	MOVOU off(R9), X13;  \
	op    X13, X5;       \
	op    X13, X7

#define VROUND(op, off) \
	MOVOU off(R10), X12; \
	op    X12, X8;       \
	op    X12, X10;      \
	MOVOU off(R11), X13; \
	op    X13, X9;       \
	op    X13, X11

#define GROUNDS(R) \
	R(PXOR, 0);         \
	R(AESENC, 16);      \
	R(AESENC, 32);      \
	R(AESENC, 48);      \
	R(AESENC, 64);      \
	R(AESENC, 80);      \
	R(AESENC, 96);      \
	R(AESENC, 112);     \
	R(AESENC, 128);     \
	R(AESENC, 144);     \
	R(AESENCLAST, 160)

// func genWalkAESNI(keys *WalkKeys, rows, sides, values, bits *byte, n int, seeds *[2][16]byte) uint8
// X0, X1: the parties' seeds (clamped); X2, X3: their control-bit masks; R13:
// alpha's bit at this level.
TEXT ·genWalkAESNI(SB), NOSPLIT, $0-57
	MOVQ  keys+0(FP), R8
	MOVQ  rows+8(FP), SI
	MOVQ  sides+16(FP), DI
	MOVQ  values+24(FP), DX
	MOVQ  bits+32(FP), R12
	MOVQ  n+40(FP), CX
	MOVQ  seeds+48(FP), AX
	MOVOU (AX), X0
	MOVOU 16(AX), X1
	PXOR    X2, X2
	PCMPEQL X3, X3
	CLAMPMASK(AX)
	MOVQ  0(R8), BX
	MOVQ  8(R8), R9
	MOVQ  16(R8), R10
	MOVQ  24(R8), R11

gen_level:
	MOVBQZX (DI), R13
	ANDQ    $1, R13
	MOVOU   X0, X4
	MOVOU   X0, X5
	MOVOU   X1, X6
	MOVOU   X1, X7
	TESTQ   DX, DX
	JZ      gen_seeds_only
	MOVOU   X0, X8
	MOVOU   X0, X9
	MOVOU   X1, X10
	MOVOU   X1, X11
	GROUNDS(GROUND)
	GROUNDS(VROUND)
	PXOR    X0, X8
	PXOR    X0, X9
	PXOR    X1, X10
	PXOR    X1, X11
	MOVOU   X8, (DX)
	MOVOU   X9, 16(DX)
	MOVOU   X10, 32(DX)
	MOVOU   X11, 48(DX)
	ADDQ    $64, DX
	MOVMSKPS X3, AX
	ANDQ    $1, AX
	MOVB    AX, (R12)
	INCQ    R12
	JMP     gen_fold

gen_seeds_only:
	GROUNDS(GROUND)

gen_fold:
	PXOR    X0, X4
	PXOR    X0, X5
	PXOR    X1, X6
	PXOR    X1, X7
	// X8 = L0^L1, X9 = R0^R1; tl and tr from their control bits.
	MOVOU   X4, X8
	PXOR    X6, X8
	MOVOU   X5, X9
	PXOR    X7, X9
	PEXTRD  $3, X8, AX
	ANDQ    $1, AX
	XORQ    R13, AX
	XORQ    $1, AX
	PEXTRD  $3, X9, R8
	ANDQ    $1, R8
	XORQ    R13, R8
	// X12 = alpha's bit as a mask; X10 = the kept side's XOR, X11 = the lost side's.
	MOVQ    R13, X12
	PXOR    X13, X13
	PSUBQ   X12, X13
	PSHUFD  $0x44, X13, X12
	MOVOU   X8, X11
	PXOR    X9, X11
	PAND    X12, X11
	MOVOU   X8, X10
	PXOR    X11, X10
	PXOR    X9, X11
	PAND    X14, X11
	// The row: the seed correction with tl, then tr.
	CTLBIT(AX, X13)
	POR     X11, X13
	MOVOU   X13, (SI)
	MOVQ    R8, 16(SI)
	MOVQ    $0, 24(SI)
	// Each party keeps its side-a child: X4 (party 0), X6 (party 1).
	MOVOU   X4, X8
	PXOR    X5, X8
	PAND    X12, X8
	PXOR    X8, X4
	MOVOU   X6, X9
	PXOR    X7, X9
	PAND    X12, X9
	PXOR    X9, X6
	// X12 = the kept child's correction: the seed correction with lsb(X10) ^ 1.
	PEXTRD  $3, X10, AX
	NOTQ    AX
	ANDQ    $1, AX
	CTLBIT(AX, X12)
	POR     X11, X12
	MOVOU   X12, X13
	PAND    X2, X13
	PXOR    X13, X4
	PAND    X3, X12
	PXOR    X12, X6
	LSBMASK(X4, X2)
	MOVOU   X4, X0
	PAND    X14, X0
	LSBMASK(X6, X3)
	MOVOU   X6, X1
	PAND    X14, X1
	ADDQ    $32, SI
	INCQ    DI
	DECQ    CX
	JNZ     gen_level

	MOVQ     seeds+48(FP), AX
	MOVOU    X0, (AX)
	MOVOU    X1, 16(AX)
	MOVMSKPS X3, AX
	ANDQ     $1, AX
	MOVB     AX, ret+56(FP)
	RET
