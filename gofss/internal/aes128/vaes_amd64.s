//go:build amd64 && !purego

#include "textflag.h"
#include "go_asm.h"

// ENC is the offset of a Key's round keys.
#define ENC (Key_arch+archKey_enc)

// The VAES routines hold 4 blocks per zmm register: round keys in Z8-Z18, the
// VPERMQ indices of the vaesShape in Z30, the source's qword load mask in K1.

// LANEKEY builds in Z the round key at off for the lanes' keys R8-R11.
#define LANEKEY(off, Z) \
	VBROADCASTI32X4 off(R8), Z;        \
	VINSERTI32X4    $1, off(R9), Z, Z;  \
	VINSERTI32X4    $2, off(R10), Z, Z; \
	VINSERTI32X4    $3, off(R11), Z, Z

// LANEKEYS builds in K0-K10 the round keys of the lanes' keys at P (a *[4]*Key).
#define LANEKEYS(P, K0, K1, K2, K3, K4, K5, K6, K7, K8, K9, K10) \
	MOVQ 0(P), R8;      \
	MOVQ 8(P), R9;      \
	MOVQ 16(P), R10;    \
	MOVQ 24(P), R11;    \
	LEAQ ENC(R8), R8;   \
	LEAQ ENC(R9), R9;   \
	LEAQ ENC(R10), R10; \
	LEAQ ENC(R11), R11; \
	LANEKEY(0, K0);     \
	LANEKEY(16, K1);    \
	LANEKEY(32, K2);    \
	LANEKEY(48, K3);    \
	LANEKEY(64, K4);    \
	LANEKEY(80, K5);    \
	LANEKEY(96, K6);    \
	LANEKEY(112, K7);   \
	LANEKEY(128, K8);   \
	LANEKEY(144, K9);   \
	LANEKEY(160, K10)

// VLOAD loads the source of one vector (the qwords in mask K at addr), spreads it over
// the lanes into C and starts the state S.
#define VLOAD(addr, K, C, S) \
	VMOVDQU64.Z addr, K, C; \
	VPERMQ      C, Z30, C;  \
	VPXORQ      Z8, C, S

#define VALL8(op, K) \
	op K, Z0, Z0; \
	op K, Z1, Z1; \
	op K, Z2, Z2; \
	op K, Z3, Z3; \
	op K, Z4, Z4; \
	op K, Z5, Z5; \
	op K, Z6, Z6; \
	op K, Z7, Z7

#define VROUNDS1(S) \
	VAESENC     Z9, S, S;  \
	VAESENC     Z10, S, S; \
	VAESENC     Z11, S, S; \
	VAESENC     Z12, S, S; \
	VAESENC     Z13, S, S; \
	VAESENC     Z14, S, S; \
	VAESENC     Z15, S, S; \
	VAESENC     Z16, S, S; \
	VAESENC     Z17, S, S; \
	VAESENCLAST Z18, S, S

// func mmoVAESAsm(dst, src *byte, nd int, lanes *[4]*Key, shape *vaesShape, tailSrc, tailDst uint64)
TEXT ·mmoVAESAsm(SB), NOSPLIT, $0-56
	MOVQ lanes+24(FP), AX
	LANEKEYS(AX, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18)

	MOVQ      shape+32(FP), AX
	VMOVDQU64 vaesShape_perm(AX), Z30
	MOVQ      vaesShape_srcStep(AX), R12
	MOVQ      vaesShape_srcMask(AX), BX
	KMOVW     BX, K1
	LEAQ      (R12)(R12*2), R13
	MOVQ      dst+0(FP), DI
	MOVQ      src+8(FP), SI
	MOVQ      nd+16(FP), CX

loop8:
	CMPQ CX, $32
	JB   loop1
	LEAQ (SI)(R12*4), DX
	VLOAD((SI), K1, Z19, Z0)
	VLOAD((SI)(R12*1), K1, Z20, Z1)
	VLOAD((SI)(R12*2), K1, Z21, Z2)
	VLOAD((SI)(R13*1), K1, Z22, Z3)
	VLOAD((DX), K1, Z23, Z4)
	VLOAD((DX)(R12*1), K1, Z24, Z5)
	VLOAD((DX)(R12*2), K1, Z25, Z6)
	VLOAD((DX)(R13*1), K1, Z26, Z7)
	VALL8(VAESENC, Z9)
	VALL8(VAESENC, Z10)
	VALL8(VAESENC, Z11)
	VALL8(VAESENC, Z12)
	VALL8(VAESENC, Z13)
	VALL8(VAESENC, Z14)
	VALL8(VAESENC, Z15)
	VALL8(VAESENC, Z16)
	VALL8(VAESENC, Z17)
	VALL8(VAESENCLAST, Z18)
	VPXORQ    Z19, Z0, Z0
	VPXORQ    Z20, Z1, Z1
	VPXORQ    Z21, Z2, Z2
	VPXORQ    Z22, Z3, Z3
	VPXORQ    Z23, Z4, Z4
	VPXORQ    Z24, Z5, Z5
	VPXORQ    Z25, Z6, Z6
	VPXORQ    Z26, Z7, Z7
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, 64(DI)
	VMOVDQU64 Z2, 128(DI)
	VMOVDQU64 Z3, 192(DI)
	VMOVDQU64 Z4, 256(DI)
	VMOVDQU64 Z5, 320(DI)
	VMOVDQU64 Z6, 384(DI)
	VMOVDQU64 Z7, 448(DI)
	LEAQ      (SI)(R12*8), SI
	ADDQ      $512, DI
	SUBQ      $32, CX
	JMP       loop8

loop1:
	CMPQ CX, $4
	JB   tail
	VLOAD((SI), K1, Z19, Z0)
	VROUNDS1(Z0)
	VPXORQ    Z19, Z0, Z0
	VMOVDQU64 Z0, (DI)
	ADDQ      R12, SI
	ADDQ      $64, DI
	SUBQ      $4, CX
	JMP       loop1

tail:
	TESTQ CX, CX
	JZ    done
	MOVQ  tailSrc+40(FP), AX
	KMOVW AX, K2
	MOVQ  tailDst+48(FP), AX
	KMOVW AX, K3
	VLOAD((SI), K2, Z19, Z0)
	VROUNDS1(Z0)
	VPXORQ    Z19, Z0, Z0
	VMOVDQU64 Z0, K3, (DI)

done:
	VZEROUPPER
	RET

// MMOSelect: every lane blends its round keys from A (Z8-Z18) and B (Z19-Z29) under
// its vector's mask, so six vectors (masks K2-K7) are in flight. On Zen 4 the blends
// cost about a third of MMO's throughput; a per-call table of round keys for all 16
// lane patterns, read as memory operands, measured slower still.

DATA selbad<>+0(SB)/4, $0xfefefefe
GLOBL selbad<>(SB), RODATA|NOPTR, $4

// SELMASK loads the sel bytes in mask K2 at BX, records in R9 any that is not 0 or
// 1, and leaves in AX one byte of qword blend mask per vector.
#define SELMASK \
	VMOVDQU8.Z    (BX), K2, Y31;         \
	VPTESTMD.BCST selbad<>(SB), Y31, K3; \
	KMOVD         K3, AX;                \
	ORL           AX, R9;                \
	VPTESTMB      Y31, Y31, K3;          \
	KMOVD         K3, AX;                \
	PDEPQ         R14, AX, AX;           \
	IMULQ         R15, AX

// SLOAD loads the source of vector i at addr into S, spread over its lanes, and
// keeps a copy in scratch slot i (at R11) for the MMO XOR: registers are all taken.
#define SLOAD(addr, S, i) \
	VMOVDQU64.Z addr, K1, S; \
	VPERMQ      S, Z30, S;   \
	VMOVDQA64   S, (64*i)(R11)

// SROUND1 applies to S the round key blended from ka and kb under mask M, via T.
#define SROUND1(op, ka, kb, S, M, T) \
	VPBLENDMQ kb, ka, M, T; \
	op        T, S, S

#define SROUND6(op, ka, kb) \
	SROUND1(op, ka, kb, Z0, K2, Z31); \
	SROUND1(op, ka, kb, Z1, K3, Z6);  \
	SROUND1(op, ka, kb, Z2, K4, Z7);  \
	SROUND1(op, ka, kb, Z3, K5, Z31); \
	SROUND1(op, ka, kb, Z4, K6, Z6);  \
	SROUND1(op, ka, kb, Z5, K7, Z7)

// SROUNDS runs all rounds, R being SROUND6 or SROUND0 (vector 0 alone).
#define SROUNDS(R) \
	R(VPXORQ, Z8, Z19);       \
	R(VAESENC, Z9, Z20);      \
	R(VAESENC, Z10, Z21);     \
	R(VAESENC, Z11, Z22);     \
	R(VAESENC, Z12, Z23);     \
	R(VAESENC, Z13, Z24);     \
	R(VAESENC, Z14, Z25);     \
	R(VAESENC, Z15, Z26);     \
	R(VAESENC, Z16, Z27);     \
	R(VAESENC, Z17, Z28);     \
	R(VAESENCLAST, Z18, Z29)

#define SROUND0(op, ka, kb) SROUND1(op, ka, kb, Z0, K2, Z31)

// One vector at (SI): sel bytes in mask K2, source in mask K1.
#define SVECTOR \
	SELMASK;                     \
	KMOVW   AX, K2;              \
	SLOAD((SI), Z0, 0);          \
	SROUNDS(SROUND0);            \
	VPXORQ  (R11), Z0, Z0

// func mmoSelectVAESAsm(dst, src, sel *byte, nd int, a, b *[4]*Key, shape *vaesShape, tailSrc, tailDst, tailSel uint64) (bad bool)
TEXT ·mmoSelectVAESAsm(SB), $448-81
	MOVQ a+32(FP), AX
	LANEKEYS(AX, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18)
	MOVQ b+40(FP), AX
	LANEKEYS(AX, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29)

	MOVQ      shape+48(FP), AX
	VMOVDQU64 vaesShape_perm(AX), Z30
	MOVQ      vaesShape_srcStep(AX), R12
	MOVQ      vaesShape_srcMask(AX), DX
	KMOVW     DX, K1
	MOVQ      vaesShape_selDep(AX), R14
	MOVQ      vaesShape_selFill(AX), R15
	MOVQ      vaesShape_selIter(AX), R10
	LEAQ      (R12)(R12*2), R13
	MOVQ      R12, R8
	SHRQ      $4, R8                   // sel bytes per vector
	LEAQ      63(SP), R11
	ANDQ      $~63, R11                // scratch: 6 vectors, cache-line aligned
	XORL      R9, R9
	MOVQ      dst+0(FP), DI
	MOVQ      src+8(FP), SI
	MOVQ      sel+16(FP), BX
	MOVQ      nd+24(FP), CX

loop6:
	CMPQ  CX, $24
	JB    loop1
	KMOVD R10, K2
	SELMASK
	KMOVW AX, K2
	SHRQ  $8, AX
	KMOVW AX, K3
	SHRQ  $8, AX
	KMOVW AX, K4
	SHRQ  $8, AX
	KMOVW AX, K5
	SHRQ  $8, AX
	KMOVW AX, K6
	SHRQ  $8, AX
	KMOVW AX, K7
	LEAQ  (SI)(R12*4), DX
	SLOAD((SI), Z0, 0)
	SLOAD((SI)(R12*1), Z1, 1)
	SLOAD((SI)(R12*2), Z2, 2)
	SLOAD((SI)(R13*1), Z3, 3)
	SLOAD((DX), Z4, 4)
	SLOAD((DX)(R12*1), Z5, 5)
	SROUNDS(SROUND6)
	VPXORQ    (R11), Z0, Z0
	VPXORQ    64(R11), Z1, Z1
	VPXORQ    128(R11), Z2, Z2
	VPXORQ    192(R11), Z3, Z3
	VPXORQ    256(R11), Z4, Z4
	VPXORQ    320(R11), Z5, Z5
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, 64(DI)
	VMOVDQU64 Z2, 128(DI)
	VMOVDQU64 Z3, 192(DI)
	VMOVDQU64 Z4, 256(DI)
	VMOVDQU64 Z5, 320(DI)
	LEAQ      (DX)(R12*2), SI
	ADDQ      $384, DI
	LEAQ      (R8)(R8*2), AX
	LEAQ      (BX)(AX*2), BX
	SUBQ      $24, CX
	JMP       loop6

loop1:
	CMPQ      CX, $4
	JB        tail
	MOVQ      shape+48(FP), AX
	MOVQ      vaesShape_selVec(AX), AX
	KMOVD     AX, K2
	SVECTOR
	VMOVDQU64 Z0, (DI)
	ADDQ      R12, SI
	ADDQ      $64, DI
	ADDQ      R8, BX
	SUBQ      $4, CX
	JMP       loop1

tail:
	TESTQ     CX, CX
	JZ        done
	MOVQ      tailSel+72(FP), AX
	KMOVD     AX, K2
	MOVQ      tailSrc+56(FP), AX
	KMOVW     AX, K1
	SVECTOR
	MOVQ      tailDst+64(FP), AX
	KMOVW     AX, K3
	VMOVDQU64 Z0, K3, (DI)

done:
	TESTL R9, R9
	SETNE bad+80(FP)
	VZEROUPPER
	RET
