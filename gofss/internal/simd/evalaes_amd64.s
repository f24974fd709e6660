//go:build amd64 && !purego

#include "textflag.h"
#include "macros_amd64.h"

// The fused Eval walks take 32 points (8 vectors of 4) down all levels of their trees
// with the nodes in Z0-Z7 (seed with the control bit in the lsb). Each level first
// readies all 8 vectors, then runs the AES rounds interleaved over them, so that 8
// independent chains keep the AES unit busy. Every lane picks its AES key by its
// side, so a vector's round keys depend on its 4 side bits: the prologue builds, on
// the stack, the round keys of all 16 patterns, and the rounds read them as memory
// operands instead of blending two keys per round.
//
// Registers: Z8-Z15 the AES states, Z29 dwords of 31, Z31 the control-bit mask; R12
// points at the level's side patterns, R14 at the group's correction-word offsets,
// R11 at the level's correction word of key 0, and BX, CX, DX, SI, DI, R8, R10, R13
// at the round keys of the 8 vectors' patterns.
//
// A group starts by turning its inputs into side patterns, one byte per vector and
// level (PATTERNBYTES), so that a level reads a vector's pattern with one load
// instead of testing the input bits in vector registers and moving masks to and fro.

#define PATTERN 768   // bytes per pattern: round keys (11 rounds x 4 lanes), side mask
#define SIDEMASK 704  // the pattern's control-bit mask in the lanes whose side is 1
#define SIDES 128     // bytes of side patterns per vector: one per level, up to 128
#define SIDEAREA 128  // where the side patterns start on the stack

DATA evalnottr<>+0(SB)/8, $0xfffffffffffffffe // all but tr in a DPF key's second block
DATA evalnottr<>+8(SB)/8, $0xffffffffffffffff
GLOBL evalnottr<>(SB), RODATA|NOPTR, $16

// SPREAD turns the 4 lane bits at bits 0, 2, 4, 6 of R into a qword mask in K.
#define SPREAD(R, K) \
	LEAL  (R)(R*2), R; \
	KMOVW R, K

// KEYTABLE writes the round keys of pattern K1 at R10: the left key's (Z0-Z10) in
// lanes whose bit is 0, the right key's (Z11-Z21) in the others.
#define KEYROUND(off, L, R) \
	VPBLENDMQ R, L, K1, Z22; \
	VMOVDQA64 Z22, off(R10)

// SIDETABLE writes at SIDEMASK(R10) the control-bit mask in the lanes of K1.
#define SIDETABLE \
	VMOVDQA64.Z Z31, K1, Z22; \
	VMOVDQA64   Z22, SIDEMASK(R10)

#define KEYTABLE \
	KEYROUND(0, Z0, Z11);    \
	KEYROUND(64, Z1, Z12);   \
	KEYROUND(128, Z2, Z13);  \
	KEYROUND(192, Z3, Z14);  \
	KEYROUND(256, Z4, Z15);  \
	KEYROUND(320, Z5, Z16);  \
	KEYROUND(384, Z6, Z17);  \
	KEYROUND(448, Z7, Z18);  \
	KEYROUND(512, Z8, Z19);  \
	KEYROUND(576, Z9, Z20);  \
	KEYROUND(640, Z10, Z21)

// ROWS loads the correction words of 4 points, at offsets o(R14) .. o+24(R14) from
// R11: their first blocks into Z18, their second into Z19.
#define ROWS(o) \
	MOVQ         (o)(R14), AX;              \
	MOVQ         (o+8)(R14), R9;            \
	VMOVDQU64    (R11)(AX*1), Y16;          \
	VINSERTI64X4 $1, (R11)(R9*1), Z16, Z16; \
	MOVQ         (o+16)(R14), AX;           \
	MOVQ         (o+24)(R14), R9;           \
	VMOVDQU64    (R11)(AX*1), Y17;          \
	VINSERTI64X4 $1, (R11)(R9*1), Z17, Z17; \
	VSHUFI64X2   $0x88, Z17, Z16, Z18;      \
	VSHUFI64X2   $0xdd, Z17, Z16, Z19

// TLANES sets every bit of each lane of T to the control bit of that lane of U. The
// shifts are the variable ones, by the dwords of 31 in Z29: those leave the AES unit
// free, the immediate ones do not.
#define TLANES(U, T) \
	VPSHUFD $0xff, U, T; \
	VPSLLVD Z29, T, T;   \
	VPSRAVD Z29, T, T

// TBITS sets K2 to the lanes of U whose control bit is set.
#define TBITS(U) \
	LANETEST(Z31, U, K2, R9); \
	KMOVW    AX, K2

// PATTERNBYTES stores at SIDES*v(SI) the side patterns of vector v for the 8 input
// bits at DI (in its 4 inputs, 16 bytes apart): byte b for bit b, with lane j's bit in
// its bit j. BX, CX, DX and R8 hold bit 0, 1, 2 and 3 of every byte.
#define PATTERNBYTES(v) \
	MOVBLZX (64*v)(DI), AX;    \
	PDEPQ   BX, AX, R9;        \
	MOVBLZX (64*v+16)(DI), AX; \
	PDEPQ   CX, AX, AX;        \
	ORQ     AX, R9;            \
	MOVBLZX (64*v+32)(DI), AX; \
	PDEPQ   DX, AX, AX;        \
	ORQ     AX, R9;            \
	MOVBLZX (64*v+48)(DI), AX; \
	PDEPQ   R8, AX, AX;        \
	ORQ     AX, R9;            \
	MOVQ    R9, (SIDES*v)(SI)

// SIDESETUP readies PATTERNBYTES for the group whose inputs 64(SP) points at: DI and
// SI at its first input byte and first side pattern, R10 the count of input bytes the
// levels use.
#define SIDESETUP \
	MOVQ 64(SP), DI;                  \
	LEAQ SIDEAREA(SP), SI;            \
	MOVQ levels+40(FP), R10;          \
	ADDQ $7, R10;                     \
	SHRQ $3, R10;                     \
	MOVQ $0x0101010101010101, BX;     \
	MOVQ $0x0202020202020202, CX;     \
	MOVQ $0x0404040404040404, DX;     \
	MOVQ $0x0808080808080808, R8

// SIDESTART points R12 at the side patterns of level 0, that of input bit levels-1;
// each level moves it one byte down.
#define SIDESTART \
	LEAQ (SIDEAREA-1)(SP), R12; \
	ADDQ levels+40(FP), R12

// SIDEPATTERN points P at the round keys of vector v's side pattern at this level.
#define SIDEPATTERN(v, P) \
	MOVBLZX (SIDES*v)(R12), P; \
	IMUL3Q  $PATTERN, P, P;    \
	ADDQ    24(SP), P

// PREP readies vector v (nodes U, AES state S, offsets at 32v(R14)) for a level. Z21
// collects the bits of the correction words' second blocks that must be zero in a
// DPF key (all but tr). The side bits give the vector's pattern (P: its round keys
// and side mask); where the side is 1 the correction takes tr for its lsb. S becomes
// clamp(U) after round 0, and U becomes clamp(U) XOR t*correction. The level ends
// with U ^= S.
#define PREP(v, U, S, P) \
	SIDEPATTERN(v, P);                      \
	ROWS(32*v);                             \
	VPTERNLOGQ $0xf8, Z22, Z19, Z21;        \
	VPSHUFD    $0, Z19, Z19;                \
	VPTERNLOGQ $0xd8, SIDEMASK(P), Z19, Z18; \
	TLANES(U, Z20);                         \
	VPANDNQ    U, Z31, U;                   \
	VPXORQ     0(P), U, S;                  \
	VPTERNLOGQ $0x78, Z20, Z18, U

#define ROUND(op, off) \
	op off(BX), Z8, Z8;   \
	op off(CX), Z9, Z9;   \
	op off(DX), Z10, Z10; \
	op off(SI), Z11, Z11; \
	op off(DI), Z12, Z12; \
	op off(R8), Z13, Z13; \
	op off(R10), Z14, Z14; \
	op off(R13), Z15, Z15

// DPFLEAF stores at 64v(AX) the outputs of the 4 leaves in U (R11: the output
// correction words): from(clamp(U)) + t*from(v_cw), negated under Neg, with the Arith
// masks in Z24 (From), Z28 (Xor), Z27 (Mask), Z26 (Neg). Into Z21 go the bits that
// must be zero in an output correction word: its control bit, its second block.
#define DPFLEAF(v, U) \
	ROWS(32*v);                     \
	VPTERNLOGQ $0xf8, Z31, Z18, Z19; \
	VPORQ      Z19, Z21, Z21;       \
	TBITS(U);                       \
	VPANDQ.Z   Z24, Z18, K2, Z18;   \
	VPANDQ     Z24, U, U;           \
	VPXORQ     Z18, U, Z20;         \
	VPADDQ     Z18, U, U;           \
	VPTERNLOGQ $0xe2, U, Z28, Z20;  \
	VPXORQ     Z26, Z20, Z20;       \
	VPSUBQ     Z26, Z20, Z20;       \
	VPANDQ     Z27, Z20, Z20;       \
	MOVQ       0(SP), AX;           \
	VMOVDQU64  Z20, (64*v)(AX)

// WALKARGS puts the arguments the fused walks share where the walks keep them: the
// nodes at 0(SP), the group count at 8(SP), the correction-word
// offsets in R14, the prefetch ranges at 56(SP), the inputs at 64(SP).
#define WALKARGS \
	MOVQ u+0(FP), AX;       \
	MOVQ AX, 0(SP);         \
	MOVQ groups+32(FP), AX; \
	MOVQ AX, 8(SP);         \
	MOVQ xs+8(FP), AX;      \
	MOVQ AX, 64(SP);        \
	MOVQ off+16(FP), R14;   \
	MOVQ pf+64(FP), AX;     \
	MOVQ AX, 56(SP)

// PREFETCHRANGE starts a group's prefetch state from its range at 56(SP): the next
// address at 32(SP), the end at 40(SP), and at 48(SP) the lines per PREFETCH, so that
// the range is spread over the group's levels, PREFETCHES times a level.
#define PREFETCHRANGE \
	MOVQ  56(SP), R9;        \
	MOVQ  rows+24(FP), AX;   \
	MOVQ  8(R9), R11;        \
	ADDQ  AX, R11;           \
	MOVQ  R11, 40(SP);       \
	ADDQ  0(R9), AX;         \
	MOVQ  AX, 32(SP);        \
	SUBQ  AX, R11;           \
	SHRQ  $6, R11;           \
	MOVQ  levels+40(FP), AX; \
	IMUL3Q $PREFETCHES, AX, AX; \
	ADDQ  AX, R11;           \
	XORL  DX, DX;            \
	XCHGQ AX, R11;           \
	DIVQ  R11;               \
	MOVQ  AX, 48(SP);        \
	ADDQ  $16, 56(SP)

// PREFETCH issues a share of the prefetches for the next group (loop and done: its
// labels): its keys' correction words are far apart and each level is short, so
// neither the hardware prefetcher nor prefetching a few levels ahead hides the
// misses; into L2, where more misses can be in flight than into L1 (3x faster from
// DRAM). The walks prefetch after each AES round, a few lines at a time: issued once
// a level, the misses fill the core's miss buffers in a burst and stall its loads
// (DPF eval of 2^16 keys, best of 6: 42.6 against 38.0 ns/key). 32(SP) is the next
// address, 40(SP) the end, 48(SP) the lines per PREFETCH.
#define PREFETCHES 10 // per level: one after each round
#define PREFETCH(loop, done) \
	MOVQ       32(SP), AX; \
	MOVQ       48(SP), R9; \
loop:                      \
	CMPQ       AX, 40(SP); \
	JAE        done;       \
	PREFETCHT1 (AX);       \
	ADDQ       $64, AX;    \
	DECQ       R9;         \
	JNZ        loop;       \
done:                      \
	MOVQ       AX, 32(SP)

// The DCF walk keeps per vector the nodes U (Z0-Z3), their clamped seeds P (Z4-Z7),
// the AES states of the seed and value outputs S (Z8-Z11) and SV (Z12-Z15), and the
// values V (Z21-Z24) accumulated along the paths; Z25 and Z26 hold the Arith's Xor
// and From masks. Its second pattern table, of the value outputs' keys, follows the
// first at VTABLE.

#define VTABLE 12288 // 16 x PATTERN

// GADDTO adds Y to X in the group (T: scratch).
#define GADDTO(Y, X, T) \
	VPXORQ     Y, X, T; \
	VPADDQ     Y, X, X; \
	VPTERNLOGQ $0xb8, T, Z25, X

// DPREP readies DCF vector v for a level, as PREP does, and adds t*from(v_cw) to V.
#define DPREP(v, U, P, S, SV, V, PR) \
	SIDEPATTERN(v, PR);                      \
	ROWS(32*v);                              \
	VPTERNLOGQ $0xd8, SIDEMASK(PR), Z19, Z18; \
	TLANES(U, Z20);                          \
	VPTERNLOGQ $0x80, Z20, Z26, Z19;         \
	GADDTO(Z19, V, Z16);                     \
	VPANDNQ    U, Z31, P;                    \
	VPXORQ     0(PR), P, S;                  \
	VPXORQ     VTABLE(PR), P, SV;            \
	VPANDQ     Z20, Z18, Z18;                \
	VPXORQ     Z18, P, U

#define DROUND(op, off) \
	op off(BX), Z8, Z8;              \
	op (off+VTABLE)(BX), Z12, Z12;   \
	op off(CX), Z9, Z9;              \
	op (off+VTABLE)(CX), Z13, Z13;   \
	op off(DX), Z10, Z10;            \
	op (off+VTABLE)(DX), Z14, Z14;   \
	op off(SI), Z11, Z11;            \
	op (off+VTABLE)(SI), Z15, Z15

// DEND finishes a level for a vector: the child U (MMO output XOR the correction)
// and V += from(the value output).
#define DEND(U, P, S, SV, V) \
	VPXORQ     S, U, U;            \
	VPTERNLOGQ $0x28, Z26, P, SV;  \
	GADDTO(SV, V, Z16)

// DLEAF stores at 64v(AX) the output of the 4 leaves of vector v: V + from(clamp(U))
// + t*from(v_cw_n), negated under Neg (Z28) and kept to Mask (Z27). Into Z4 go the
// bits that must be zero in a last correction word: its first block, the second's
// control bit.
#define DLEAF(v, U, V) \
	ROWS(32*v);                  \
	VPTERNLOGQ $0xf8, Z31, Z19, Z18; \
	VPORQ     Z18, Z4, Z4;       \
	TBITS(U);                    \
	VPANDQ.Z  Z26, Z19, K2, Z20; \
	VPANDQ    Z26, U, U;         \
	GADDTO(Z20, U, Z16);         \
	GADDTO(U, V, Z16);           \
	VPXORQ    Z28, V, V;         \
	VPSUBQ    Z28, V, V;         \
	VPANDQ    Z27, V, V;         \
	MOVQ      0(SP), AX;         \
	VMOVDQU64 V, (64*v)(AX)

// func dpfEvalAes(u, xs *Block, off *int, rows *Block, groups, levels int, keys *[2]RoundKeys, ar *Arith, pf *int) (bad bool)
//
// Stack: 0(SP) the group's nodes, 8(SP) groups left, 16(SP) levels left, 24(SP) the
// pattern table (16 x PATTERN bytes, 64-byte aligned, after the side patterns),
// 32(SP)-48(SP) the prefetch state, 56(SP) the next group's prefetch range (pf: two
// byte offsets from rows per group), 64(SP) the group's inputs, and from SIDEAREA(SP)
// the side patterns of the group's 8 vectors.
TEXT ·dpfEvalAes(SB), $13504-73
	LEAQ (SIDEAREA+8*SIDES+63)(SP), R13
	ANDQ $~63, R13
	MOVQ R13, 24(SP)

	VBROADCASTI32X4 ·lsbMask(SB), Z31
	MOVQ            keys+48(FP), AX
	VBROADCASTI32X4 0(AX), Z0
	VBROADCASTI32X4 16(AX), Z1
	VBROADCASTI32X4 32(AX), Z2
	VBROADCASTI32X4 48(AX), Z3
	VBROADCASTI32X4 64(AX), Z4
	VBROADCASTI32X4 80(AX), Z5
	VBROADCASTI32X4 96(AX), Z6
	VBROADCASTI32X4 112(AX), Z7
	VBROADCASTI32X4 128(AX), Z8
	VBROADCASTI32X4 144(AX), Z9
	VBROADCASTI32X4 160(AX), Z10
	VBROADCASTI32X4 176(AX), Z11
	VBROADCASTI32X4 192(AX), Z12
	VBROADCASTI32X4 208(AX), Z13
	VBROADCASTI32X4 224(AX), Z14
	VBROADCASTI32X4 240(AX), Z15
	VBROADCASTI32X4 256(AX), Z16
	VBROADCASTI32X4 272(AX), Z17
	VBROADCASTI32X4 288(AX), Z18
	VBROADCASTI32X4 304(AX), Z19
	VBROADCASTI32X4 320(AX), Z20
	VBROADCASTI32X4 336(AX), Z21
	MOVQ            R13, R10
	XORL            CX, CX

table:
	MOVL  CX, AX
	PDEPL ·laneBits(SB), AX, AX
	SPREAD(AX, K1)
	KEYTABLE
	SIDETABLE
	ADDQ  $PATTERN, R10
	INCL  CX
	CMPL  CX, $16
	JB    table

	MOVL            $31, AX
	VPBROADCASTD    AX, Z29
	VPXORQ          Z21, Z21, Z21
	VBROADCASTI32X4 evalnottr<>(SB), Z22
	WALKARGS

group:
	PREFETCHRANGE
	SIDESETUP

sides:
	PATTERNBYTES(0)
	PATTERNBYTES(1)
	PATTERNBYTES(2)
	PATTERNBYTES(3)
	PATTERNBYTES(4)
	PATTERNBYTES(5)
	PATTERNBYTES(6)
	PATTERNBYTES(7)
	INCQ DI
	ADDQ $8, SI
	DECQ R10
	JNZ  sides
	SIDESTART

	MOVQ            0(SP), AX
	VMOVDQU64       0(AX), Z0
	VMOVDQU64       64(AX), Z1
	VMOVDQU64       128(AX), Z2
	VMOVDQU64       192(AX), Z3
	VMOVDQU64       256(AX), Z4
	VMOVDQU64       320(AX), Z5
	VMOVDQU64       384(AX), Z6
	VMOVDQU64       448(AX), Z7
	MOVQ            rows+24(FP), R11
	MOVQ            levels+40(FP), AX
	MOVQ            AX, 16(SP)

level:
	PREP(0, Z0, Z8, BX)
	PREP(1, Z1, Z9, CX)
	PREP(2, Z2, Z10, DX)
	PREP(3, Z3, Z11, SI)
	PREP(4, Z4, Z12, DI)
	PREP(5, Z5, Z13, R8)
	PREP(6, Z6, Z14, R10)
	PREP(7, Z7, Z15, R13)
	ROUND(VAESENC, 64)
	PREFETCH(pf1, pf1_done)
	ROUND(VAESENC, 128)
	PREFETCH(pf2, pf2_done)
	ROUND(VAESENC, 192)
	PREFETCH(pf3, pf3_done)
	ROUND(VAESENC, 256)
	PREFETCH(pf4, pf4_done)
	ROUND(VAESENC, 320)
	PREFETCH(pf5, pf5_done)
	ROUND(VAESENC, 384)
	PREFETCH(pf6, pf6_done)
	ROUND(VAESENC, 448)
	PREFETCH(pf7, pf7_done)
	ROUND(VAESENC, 512)
	PREFETCH(pf8, pf8_done)
	ROUND(VAESENC, 576)
	PREFETCH(pf9, pf9_done)
	ROUND(VAESENCLAST, 640)
	PREFETCH(pf10, pf10_done)
	VPXORQ Z8, Z0, Z0
	VPXORQ Z9, Z1, Z1
	VPXORQ Z10, Z2, Z2
	VPXORQ Z11, Z3, Z3
	VPXORQ Z12, Z4, Z4
	VPXORQ Z13, Z5, Z5
	VPXORQ Z14, Z6, Z6
	VPXORQ Z15, Z7, Z7
	DECQ   R12
	ADDQ   $32, R11
	DECQ   16(SP)
	JNZ    level

	MOVQ  ar+56(FP), AX
	TESTQ AX, AX
	JZ    nodes
	VBROADCASTI32X4 0(AX), Z24
	VBROADCASTI32X4 16(AX), Z28
	VBROADCASTI32X4 32(AX), Z27
	VBROADCASTI32X4 48(AX), Z26
	DPFLEAF(0, Z0)
	DPFLEAF(1, Z1)
	DPFLEAF(2, Z2)
	DPFLEAF(3, Z3)
	DPFLEAF(4, Z4)
	DPFLEAF(5, Z5)
	DPFLEAF(6, Z6)
	DPFLEAF(7, Z7)
	JMP   next

nodes:
	MOVQ      0(SP), AX
	VMOVDQU64 Z0, 0(AX)
	VMOVDQU64 Z1, 64(AX)
	VMOVDQU64 Z2, 128(AX)
	VMOVDQU64 Z3, 192(AX)
	VMOVDQU64 Z4, 256(AX)
	VMOVDQU64 Z5, 320(AX)
	VMOVDQU64 Z6, 384(AX)
	VMOVDQU64 Z7, 448(AX)

next:
	ADDQ $512, 0(SP)
	ADDQ $512, 64(SP)
	ADDQ $256, R14
	DECQ 8(SP)
	JNZ  group

	VPTESTMQ Z21, Z21, K1
	KMOVW    K1, AX
	TESTL    AX, AX
	SETNE    bad+72(FP)
	VZEROUPPER
	RET

// LOADKEYS broadcasts the round keys of the expanded keys at off(AX) and off+352(AX)
// (a left and a right output's) into Z0-Z10 and Z11-Z21.
#define LOADKEYS(off) \
	VBROADCASTI32X4 (off+0)(AX), Z0;    \
	VBROADCASTI32X4 (off+16)(AX), Z1;   \
	VBROADCASTI32X4 (off+32)(AX), Z2;   \
	VBROADCASTI32X4 (off+48)(AX), Z3;   \
	VBROADCASTI32X4 (off+64)(AX), Z4;   \
	VBROADCASTI32X4 (off+80)(AX), Z5;   \
	VBROADCASTI32X4 (off+96)(AX), Z6;   \
	VBROADCASTI32X4 (off+112)(AX), Z7;  \
	VBROADCASTI32X4 (off+128)(AX), Z8;  \
	VBROADCASTI32X4 (off+144)(AX), Z9;  \
	VBROADCASTI32X4 (off+160)(AX), Z10; \
	VBROADCASTI32X4 (off+352)(AX), Z11; \
	VBROADCASTI32X4 (off+368)(AX), Z12; \
	VBROADCASTI32X4 (off+384)(AX), Z13; \
	VBROADCASTI32X4 (off+400)(AX), Z14; \
	VBROADCASTI32X4 (off+416)(AX), Z15; \
	VBROADCASTI32X4 (off+432)(AX), Z16; \
	VBROADCASTI32X4 (off+448)(AX), Z17; \
	VBROADCASTI32X4 (off+464)(AX), Z18; \
	VBROADCASTI32X4 (off+480)(AX), Z19; \
	VBROADCASTI32X4 (off+496)(AX), Z20; \
	VBROADCASTI32X4 (off+512)(AX), Z21

// func dcfEvalAes(u, xs *Block, off *int, rows *Block, groups, levels int, keys *[4]RoundKeys, ar *Arith, pf *int) (bad bool)
//
// As dpfEvalAes, with groups of 16 points (4 vectors), 72(SP) the lanes with bad last
// correction words so far, and two pattern tables, the second without side masks.
TEXT ·dcfEvalAes(SB), $25280-73
	MOVQ $0, 72(SP)
	LEAQ (SIDEAREA+4*SIDES+63)(SP), R13
	ANDQ $~63, R13
	MOVQ R13, 24(SP)
	MOVQ R13, R10

	// Seed outputs: keys 0 (left) and 2 (right); value outputs: keys 1 and 3.
	VBROADCASTI32X4 ·lsbMask(SB), Z31
	MOVQ keys+48(FP), AX
	LOADKEYS(0)
	XORL CX, CX

dtable_s:
	MOVL  CX, R9
	PDEPL ·laneBits(SB), R9, R9
	SPREAD(R9, K1)
	KEYTABLE
	SIDETABLE
	ADDQ  $PATTERN, R10
	INCL  CX
	CMPL  CX, $16
	JB    dtable_s

	LOADKEYS(176)
	XORL CX, CX

dtable_v:
	MOVL  CX, R9
	PDEPL ·laneBits(SB), R9, R9
	SPREAD(R9, K1)
	KEYTABLE
	ADDQ  $PATTERN, R10
	INCL  CX
	CMPL  CX, $16
	JB    dtable_v

	MOVL            $31, AX
	VPBROADCASTD    AX, Z29
	MOVQ            ar+56(FP), AX
	VBROADCASTI32X4 0(AX), Z26
	VBROADCASTI32X4 16(AX), Z25
	WALKARGS

dgroup:
	PREFETCHRANGE
	SIDESETUP

dsides:
	PATTERNBYTES(0)
	PATTERNBYTES(1)
	PATTERNBYTES(2)
	PATTERNBYTES(3)
	INCQ DI
	ADDQ $8, SI
	DECQ R10
	JNZ  dsides
	SIDESTART

	MOVQ            0(SP), AX
	VMOVDQU64       0(AX), Z0
	VMOVDQU64       64(AX), Z1
	VMOVDQU64       128(AX), Z2
	VMOVDQU64       192(AX), Z3
	VPXORQ          Z21, Z21, Z21
	VPXORQ          Z22, Z22, Z22
	VPXORQ          Z23, Z23, Z23
	VPXORQ          Z24, Z24, Z24
	MOVQ            rows+24(FP), R11
	MOVQ            levels+40(FP), AX
	MOVQ            AX, 16(SP)

dlevel:
	DPREP(0, Z0, Z4, Z8, Z12, Z21, BX)
	DPREP(1, Z1, Z5, Z9, Z13, Z22, CX)
	DPREP(2, Z2, Z6, Z10, Z14, Z23, DX)
	DPREP(3, Z3, Z7, Z11, Z15, Z24, SI)
	DROUND(VAESENC, 64)
	PREFETCH(dcf_pf1, dcf_pf1_done)
	DROUND(VAESENC, 128)
	PREFETCH(dcf_pf2, dcf_pf2_done)
	DROUND(VAESENC, 192)
	PREFETCH(dcf_pf3, dcf_pf3_done)
	DROUND(VAESENC, 256)
	PREFETCH(dcf_pf4, dcf_pf4_done)
	DROUND(VAESENC, 320)
	PREFETCH(dcf_pf5, dcf_pf5_done)
	DROUND(VAESENC, 384)
	PREFETCH(dcf_pf6, dcf_pf6_done)
	DROUND(VAESENC, 448)
	PREFETCH(dcf_pf7, dcf_pf7_done)
	DROUND(VAESENC, 512)
	PREFETCH(dcf_pf8, dcf_pf8_done)
	DROUND(VAESENC, 576)
	PREFETCH(dcf_pf9, dcf_pf9_done)
	DROUND(VAESENCLAST, 640)
	PREFETCH(dcf_pf10, dcf_pf10_done)
	DEND(Z0, Z4, Z8, Z12, Z21)
	DEND(Z1, Z5, Z9, Z13, Z22)
	DEND(Z2, Z6, Z10, Z14, Z23)
	DEND(Z3, Z7, Z11, Z15, Z24)
	DECQ   R12
	ADDQ   $32, R11
	DECQ   16(SP)
	JNZ    dlevel

	MOVQ            ar+56(FP), AX
	VBROADCASTI32X4 32(AX), Z27
	VBROADCASTI32X4 48(AX), Z28
	VPXORQ          Z4, Z4, Z4
	DLEAF(0, Z0, Z21)
	DLEAF(1, Z1, Z22)
	DLEAF(2, Z2, Z23)
	DLEAF(3, Z3, Z24)
	VPTESTMQ Z4, Z4, K1
	KMOVW    K1, AX
	ORQ      AX, 72(SP)
	ADDQ $256, 0(SP)
	ADDQ $256, 64(SP)
	ADDQ $128, R14
	DECQ 8(SP)
	JNZ  dgroup

	CMPQ  72(SP), $0
	SETNE bad+72(FP)
	VZEROUPPER
	RET
