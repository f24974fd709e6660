//go:build amd64 && !purego

#include "textflag.h"
#include "macros_amd64.h"

// The Gen routines run one level for 4 keys per vector, one key per lane: Z31 holds the
// control-bit mask, Z30 the shift counts of the level's bit of alpha, Z24 qwords of
// 1, Z22/Z23 the VPERMT2Q indices that pair 4 keys' two correction-word blocks. The
// parties' seeds are in two halves of s (the PRG's input), so each half of the PRG
// output holds one party's children.

// Blocks 0-1 of row j from cw0 (indices 0-7) and cw1 (8-15), for keys 0, 1 and 2, 3.
DATA genpair<>+0(SB)/8, $0
DATA genpair<>+8(SB)/8, $1
DATA genpair<>+16(SB)/8, $8
DATA genpair<>+24(SB)/8, $9
DATA genpair<>+32(SB)/8, $2
DATA genpair<>+40(SB)/8, $3
DATA genpair<>+48(SB)/8, $10
DATA genpair<>+56(SB)/8, $11
DATA genpair<>+64(SB)/8, $4
DATA genpair<>+72(SB)/8, $5
DATA genpair<>+80(SB)/8, $12
DATA genpair<>+88(SB)/8, $13
DATA genpair<>+96(SB)/8, $6
DATA genpair<>+104(SB)/8, $7
DATA genpair<>+112(SB)/8, $14
DATA genpair<>+120(SB)/8, $15
GLOBL genpair<>(SB), RODATA|NOPTR, $128

#define GENSETUP \
	VBROADCASTI32X4 ·lsbMask(SB), Z31;  \
	MOVQ            cnt+72(FP), AX;     \
	VBROADCASTI32X4 (AX), Z30;          \
	MOVL            $1, AX;             \
	VPBROADCASTQ    AX, Z24;            \
	VMOVDQU64       genpair<>(SB), Z22; \
	VMOVDQU64       genpair<>+64(SB), Z23

// GENARGS loads the arguments the Gen routines share: DI, SI the parties' nodes, R8,
// R10 their seeds, DX, BX their PRG output (2^shift bytes per key), R12 the alphas,
// R11 the rows, R13 their stride, R14 the keys left, CX the vectors.
#define GENARGS(shift) \
	MOVQ u0+0(FP), DI;       \
	MOVQ u1+8(FP), SI;       \
	MOVQ s+16(FP), R8;       \
	MOVQ ch+24(FP), DX;      \
	MOVQ alphas+32(FP), R12; \
	MOVQ rows+40(FP), R11;   \
	MOVQ stride+48(FP), R13; \
	MOVQ keys+56(FP), R14;   \
	MOVQ padded+64(FP), CX;  \
	MOVQ CX, R10;            \
	SHLQ $4, R10;            \
	ADDQ R8, R10;            \
	MOVQ CX, BX;             \
	SHLQ $shift, BX;         \
	ADDQ DX, BX;             \
	SHRQ $2, CX

// SIDES sets K1 to the lanes (both qwords) whose key's alpha has the level's bit
// set, K2 to the others; alphas at R12.
#define SIDES \
	VMOVDQU64 (R12), Z16;            \
	VPSRLVQ   Z30, Z16, Z16;         \
	LANETEST(Z24, Z16, K1, R9);      \
	ANDL      $0x55, AX;             \
	LEAL      (AX)(AX*2), AX;        \
	KMOVW     AX, K1;                \
	KNOTW     K1, K2

// SEEDS does the seed half of a level, with L0, R0, L1, R1 the parties' left and
// right children (control bits in the lsb), P0 and P1 their parents (clobbered),
// and K1/K2 the lanes whose alpha bit a is 1/0. With XL = L0^L1 and XR = R0^R1, the
// seed correction is the lose side's XOR S (XL where a is 1); tl_cw = lsb(XL)^a^1
// goes into its lsb as the row's first block (Z10), and tr_cw = lsb(XR)^a is left in
// the lsb of Z11. Each party keeps its keep-side child, XORed with S (lsb: the keep
// side's t correction, lsb(XK)^1) where its parent's control bit is set; the children
// go to DI and SI, and stay in Z12 and Z13 for SEEDSTORE.
#define SEEDS(L0, R0, L1, R1, P0, P1) \
	VPXORQ     L1, L0, Z6;          \
	VPXORQ     R1, R0, Z7;          \
	VPBLENDMQ  Z6, Z7, K1, Z8;      \
	VPBLENDMQ  Z7, Z6, K1, Z9;      \
	VMOVDQA64  Z8, Z10;             \
	VPTERNLOGQ $0xb8, Z6, Z31, Z10; \
	VPXORQ     Z31, Z10, K2, Z10;   \
	VPANDQ     Z31, Z7, Z11;        \
	VPXORQ     Z31, Z11, K1, Z11;   \
	VPTERNLOGQ $0x74, Z9, Z31, Z8;  \
	VPBLENDMQ  R0, L0, K1, Z12;     \
	VPBLENDMQ  R1, L1, K1, Z13;     \
	TMASK(P0, P0);                  \
	TMASK(P1, P1);                  \
	VPTERNLOGQ $0x78, Z8, P0, Z12;  \
	VPTERNLOGQ $0x78, Z8, P1, Z13;  \
	VMOVDQU64  Z12, (DI);           \
	VMOVDQU64  Z13, (SI)

// SEEDSTORE writes the clamped seeds of the children SEEDS left in Z12 and Z13 to R8
// and R10, as the next level's PRG input; the routines that run AES clamp the
// children themselves instead.
#define SEEDSTORE \
	VPANDNQ   Z12, Z31, Z12; \
	VPANDNQ   Z13, Z31, Z13; \
	VMOVDQU64 Z12, (R8);     \
	VMOVDQU64 Z13, (R10)

// ROWSTORE writes the rows of the 4 keys (first blocks Z10, second Z11) at R11,
// R11+R13, ...; only those of the R14 keys left.
#define ROWSTORE(done) \
	VMOVDQA64     Z10, Z16;              \
	VPERMT2Q      Z11, Z22, Z16;         \
	VPERMT2Q      Z11, Z23, Z10;         \
	VMOVDQU64     Y16, (R11);            \
	CMPQ          R14, $2;               \
	JB            done;                  \
	VEXTRACTI64X4 $1, Z16, (R11)(R13*1); \
	CMPQ          R14, $3;               \
	JB            done;                  \
	LEAQ          (R11)(R13*2), AX;      \
	VMOVDQU64     Y10, (AX);             \
	CMPQ          R14, $4;               \
	JB            done;                  \
	VEXTRACTI64X4 $1, Z10, (AX)(R13*1)

// TRANSPOSE turns the PRG output of 4 seeds at P (SL, VL, SR, VR each) into vectors
// of 4: SL into A, VL into B, SR into C, VR into D.
#define TRANSPOSE(P, A, B, C, D) \
	VMOVDQU64  (P), Z16;          \
	VMOVDQU64  64(P), Z17;        \
	VMOVDQU64  128(P), Z18;       \
	VMOVDQU64  192(P), Z19;       \
	VSHUFI64X2 $0x88, Z17, Z16, Z20; \
	VSHUFI64X2 $0xdd, Z17, Z16, Z21; \
	VSHUFI64X2 $0x88, Z19, Z18, Z16; \
	VSHUFI64X2 $0xdd, Z19, Z18, Z17; \
	VSHUFI64X2 $0x88, Z16, Z20, A;   \
	VSHUFI64X2 $0xdd, Z16, Z20, C;   \
	VSHUFI64X2 $0x88, Z17, Z21, B;   \
	VSHUFI64X2 $0xdd, Z17, Z21, D

// VALUES does the value half of a DCF level for vectors of VL0, VR0, VL1, VR1 (from()
// applied), after SEEDS (K1: alpha's bit, Z19: party 1's control bits, Z11: tr_cw in
// the lsb). With V the running value at CX and the lose and keep sides' values, the
// value correction is raw = lose1 - lose0 - V + beta (beta where the predicate holds
// on the lose side: K3), negated where party 1's control bit is set; and V becomes
// V - keep1 + keep0 + raw (the sign of the correction and of its use in V cancel).
// The row's second block (into Z11) is the correction with tr_cw in its lsb.
#define VALUES(VL0, VR0, VL1, VR1) \
	VPBLENDMQ   VL0, VR0, K1, Z0;       \
	VPBLENDMQ   VR0, VL0, K1, Z2;       \
	VPBLENDMQ   VL1, VR1, K1, Z4;       \
	VPBLENDMQ   VR1, VL1, K1, Z16;      \
	VMOVDQU64   (CX), Z6;               \
	GSUB(Z0, Z4, Z7);                   \
	GSUB(Z6, Z7, Z9);                   \
	MOVQ        8(SP), AX;              \
	VMOVDQU64.Z (AX), K3, Z12;          \
	GADD(Z12, Z9, Z13);                 \
	VPANDQ      Z26, Z19, Z14;          \
	VPXORQ      Z14, Z13, Z18;          \
	VPSUBQ      Z14, Z18, Z18;          \
	VPTERNLOGQ  $0xea, Z11, Z27, Z18;   \
	VMOVDQA64   Z18, Z11;               \
	GADD(Z13, Z6, Z19);                 \
	GADD(Z2, Z19, Z20);                 \
	GSUB(Z16, Z20, Z21);                \
	VMOVDQU64   Z21, (CX)

// With AES keys the Gen routines run AES-128 MMO themselves: the prologue writes each
// round key, broadcast to the 4 lanes, to a 64-byte aligned table on the stack (key
// k's round r at 704k+64r); BX (party 1's PRG output otherwise) is 0 and DX points at
// the table. The routines are bound by the AES unit and by 512-bit loads (one a
// cycle), so each round loads each key once for all the states that use it, and the
// PRG input is the parents' nodes, clamped in registers, not a separate array.
#define KEYBYTES 704 // 11 round keys x 4 lanes

// AESTABLE writes the table for the n expanded keys at AX to the 64-byte aligned
// address at or above R.
#define AESTABLE(R, n) \
	LEAQ            63(R), DX;   \
	ANDQ            $~63, DX;    \
	MOVQ            DX, R9;      \
	MOVL            $(11*n), BX; \
aestable_loop:                   \
	VBROADCASTI32X4 (AX), Z0;    \
	VMOVDQA64       Z0, (R9);    \
	ADDQ            $16, AX;     \
	ADDQ            $64, R9;     \
	DECL            BX;          \
	JNZ             aestable_loop

// DPFMMO runs the PRG for the 4 keys whose parents' nodes are at off(DI) (party 0)
// and off(SI) (party 1): the nodes into PA and PB, their left and right children
// into L0, R0 and L1, R1 (Z0, Z1, Z17, Z29: scratch).
#define ROUND2(op, off, L0, R0, L1, R1) \
	VMOVDQA64 off(DX), Z0;            \
	VMOVDQA64 (off+KEYBYTES)(DX), Z1; \
	op        Z0, L0, L0;             \
	op        Z1, R0, R0;             \
	op        Z0, L1, L1;             \
	op        Z1, R1, R1

#define DPFMMO(off, PA, PB, L0, R0, L1, R1) \
	VMOVDQU64 off(DI), PA;                       \
	VMOVDQU64 off(SI), PB;                       \
	VPANDNQ   PA, Z31, Z17;                      \
	VPANDNQ   PB, Z31, Z29;                      \
	VMOVDQA64 0(DX), Z0;                         \
	VMOVDQA64 KEYBYTES(DX), Z1;                  \
	VPXORQ    Z0, Z17, L0;                       \
	VPXORQ    Z1, Z17, R0;                       \
	VPXORQ    Z0, Z29, L1;                       \
	VPXORQ    Z1, Z29, R1;                       \
	ROUND2(VAESENC, 64, L0, R0, L1, R1);       \
	ROUND2(VAESENC, 128, L0, R0, L1, R1);      \
	ROUND2(VAESENC, 192, L0, R0, L1, R1);      \
	ROUND2(VAESENC, 256, L0, R0, L1, R1);      \
	ROUND2(VAESENC, 320, L0, R0, L1, R1);      \
	ROUND2(VAESENC, 384, L0, R0, L1, R1);      \
	ROUND2(VAESENC, 448, L0, R0, L1, R1);      \
	ROUND2(VAESENC, 512, L0, R0, L1, R1);      \
	ROUND2(VAESENC, 576, L0, R0, L1, R1);      \
	ROUND2(VAESENCLAST, 640, L0, R0, L1, R1);  \
	VPXORQ    Z17, L0, L0;                       \
	VPXORQ    Z17, R0, R0;                       \
	VPXORQ    Z29, L1, L1;                       \
	VPXORQ    Z29, R1, R1

// DCFMMO is DPFMMO for DCF, for the vector at DI and SI: the parents' nodes into Z18
// and Z19, party 0's SL, VL, SR, VR into Z0-Z3 and party 1's into Z4, Z5, Z16, Z17,
// the value outputs with from() applied (Z29: From; Z6-Z9, Z20, Z21: scratch).
#define ROUND4(op, off) \
	VMOVDQA64 off(DX), Z6;              \
	VMOVDQA64 (off+KEYBYTES)(DX), Z7;   \
	VMOVDQA64 (off+2*KEYBYTES)(DX), Z8; \
	VMOVDQA64 (off+3*KEYBYTES)(DX), Z9; \
	op        Z6, Z0, Z0;               \
	op        Z7, Z1, Z1;               \
	op        Z8, Z2, Z2;               \
	op        Z9, Z3, Z3;               \
	op        Z6, Z4, Z4;               \
	op        Z7, Z5, Z5;               \
	op        Z8, Z16, Z16;             \
	op        Z9, Z17, Z17

#define DCFMMO \
	VMOVDQU64  (DI), Z18;               \
	VMOVDQU64  (SI), Z19;               \
	VPANDNQ    Z18, Z31, Z20;           \
	VPANDNQ    Z19, Z31, Z21;           \
	VMOVDQA64  0(DX), Z6;               \
	VMOVDQA64  KEYBYTES(DX), Z7;        \
	VMOVDQA64  (2*KEYBYTES)(DX), Z8;    \
	VMOVDQA64  (3*KEYBYTES)(DX), Z9;    \
	VPXORQ     Z6, Z20, Z0;             \
	VPXORQ     Z7, Z20, Z1;             \
	VPXORQ     Z8, Z20, Z2;             \
	VPXORQ     Z9, Z20, Z3;             \
	VPXORQ     Z6, Z21, Z4;             \
	VPXORQ     Z7, Z21, Z5;             \
	VPXORQ     Z8, Z21, Z16;            \
	VPXORQ     Z9, Z21, Z17;            \
	ROUND4(VAESENC, 64);            \
	ROUND4(VAESENC, 128);           \
	ROUND4(VAESENC, 192);           \
	ROUND4(VAESENC, 256);           \
	ROUND4(VAESENC, 320);           \
	ROUND4(VAESENC, 384);           \
	ROUND4(VAESENC, 448);           \
	ROUND4(VAESENC, 512);           \
	ROUND4(VAESENC, 576);           \
	ROUND4(VAESENCLAST, 640);       \
	VPXORQ     Z20, Z0, Z0;             \
	VPTERNLOGQ $0x28, Z29, Z20, Z1;     \
	VPXORQ     Z20, Z2, Z2;             \
	VPTERNLOGQ $0x28, Z29, Z20, Z3;     \
	VPXORQ     Z21, Z4, Z4;             \
	VPTERNLOGQ $0x28, Z29, Z21, Z5;     \
	VPXORQ     Z21, Z16, Z16;           \
	VPTERNLOGQ $0x28, Z29, Z21, Z17

// func dpfGenLevel(u0, u1, s, ch, alphas, rows *Block, stride, keys, padded int, cnt *[2]uint64, rk *[2]RoundKeys)
//
// Stack: the AES table, with rk.
TEXT ·dpfGenLevel(SB), $1472-88
	GENARGS(5)
	MOVQ rk+80(FP), AX
	TESTQ AX, AX
	JZ   dpfgen_setup
	AESTABLE(SP, 2)

dpfgen_setup:
	GENSETUP
	TESTQ BX, BX
	JNZ   dpfgen_loop
	// Software-pipelined: each step runs the next vector's AES (into Z25-Z28) before
	// the current one's level logic, so the two overlap.
	DPFMMO(0, Z20, Z21, Z25, Z26, Z27, Z28)

dpfgen_loop:
	TESTQ      CX, CX
	JZ         dpfgen_done
	SIDES
	TESTQ      BX, BX
	JZ         dpfgen_aes
	VMOVDQU64  (DX), Z0
	VMOVDQU64  64(DX), Z1
	VSHUFI64X2 $0x88, Z1, Z0, Z2
	VSHUFI64X2 $0xdd, Z1, Z0, Z3
	VMOVDQU64  (BX), Z0
	VMOVDQU64  64(BX), Z1
	VSHUFI64X2 $0x88, Z1, Z0, Z4
	VSHUFI64X2 $0xdd, Z1, Z0, Z5
	ADDQ       $128, DX
	ADDQ       $128, BX
	VMOVDQU64  (DI), Z18
	VMOVDQU64  (SI), Z19
	SEEDS(Z2, Z3, Z4, Z5, Z18, Z19)
	SEEDSTORE
	JMP        dpfgen_rowstore

dpfgen_aes:
	VMOVDQA64  Z20, Z18
	VMOVDQA64  Z21, Z19
	VMOVDQA64  Z25, Z2
	VMOVDQA64  Z26, Z3
	VMOVDQA64  Z27, Z4
	VMOVDQA64  Z28, Z5
	CMPQ       CX, $1
	JE         dpfgen_seeds
	DPFMMO(64, Z20, Z21, Z25, Z26, Z27, Z28)

dpfgen_seeds:
	SEEDS(Z2, Z3, Z4, Z5, Z18, Z19)

dpfgen_rowstore:
	// DPF's second block is (tr_cw, 0, 0, 0).
	VPSRLDQ    $12, Z11, Z11
	ROWSTORE(dpfgen_rows)

dpfgen_rows:
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $64, R10
	ADDQ $64, R12
	LEAQ (R11)(R13*4), R11
	SUBQ $4, R14
	DECQ CX
	JMP  dpfgen_loop

dpfgen_done:
	VZEROUPPER
	RET

// func dcfGenLevel(u0, u1, s, ch, alphas, rows *Block, stride, keys, padded int, cnt *[2]uint64, vs, betas *Block, gt bool, ar *Arith, rk *[4]RoundKeys)
//
// Stack: 0(SP) vectors left, 8(SP) the betas (values) of the vector's keys, then the
// AES table, with rk.
TEXT ·dcfGenLevel(SB), $2896-120
	GENARGS(6)
	MOVQ CX, 0(SP)
	MOVQ betas+88(FP), AX
	MOVQ AX, 8(SP)
	MOVQ rk+112(FP), AX
	TESTQ AX, AX
	JZ   dcfgen_setup
	LEAQ 16(SP), R9
	AESTABLE(R9, 4)

dcfgen_setup:
	MOVQ vs+80(FP), CX
	GENSETUP
	MOVQ            ar+104(FP), AX
	LOADARITH(AX)
	MOVBLZX         gt+96(FP), AX
	NEGL            AX
	KMOVW           AX, K4              // beta goes with the lose side: left (a = 1) for lt, right for gt

dcfgen_loop:
	CMPQ     0(SP), $0
	JE       dcfgen_done
	SIDES
	KXORW    K4, K1, K3
	TESTQ    BX, BX
	JZ       dcfgen_aes
	TRANSPOSE(DX, Z0, Z1, Z2, Z3)
	TRANSPOSE(BX, Z4, Z5, Z16, Z17)
	VPANDQ   Z29, Z1, Z1
	VPANDQ   Z29, Z3, Z3
	VPANDQ   Z29, Z5, Z5
	VPANDQ   Z29, Z17, Z17
	ADDQ     $256, DX
	ADDQ     $256, BX
	VMOVDQU64 (DI), Z18
	VMOVDQU64 (SI), Z19
	SEEDS(Z0, Z2, Z4, Z16, Z18, Z19)
	SEEDSTORE
	JMP      dcfgen_values

dcfgen_aes:
	DCFMMO
	SEEDS(Z0, Z2, Z4, Z16, Z18, Z19)

dcfgen_values:
	VALUES(Z1, Z3, Z5, Z17)
	ROWSTORE(dcfgen_rows)

dcfgen_rows:
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $64, R10
	ADDQ $64, R12
	ADDQ $64, CX
	ADDQ $64, 8(SP)
	LEAQ (R11)(R13*4), R11
	SUBQ $4, R14
	DECQ 0(SP)
	JMP  dcfgen_loop

dcfgen_done:
	VZEROUPPER
	RET
