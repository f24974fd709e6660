//go:build amd64 && !purego

#include "textflag.h"
#include "macros_amd64.h"

// The per-level routines of the tree walks. Every routine keeps in Z31 the control-bit
// mask of a lane (bit 32 of the high qword).

// SIGN negates X under Neg (two's complement: (X ^ Neg) - Neg) and keeps Mask's bits.
#define SIGN(X) \
	VPXORQ Z26, X, X; \
	VPSUBQ Z26, X, X; \
	VPANDQ Z27, X, X

// TAILMASKS: K1 covers one parent (2 qwords), K2 its two children (4 qwords).
#define TAILMASKS \
	MOVL  $0x03, AX; \
	KMOVW AX, K1;    \
	MOVL  $0x0f, AX; \
	KMOVW AX, K2

// DPFCHILD corrects the children X of the two parents in the low half of P (Z30:
// the corrections of a left and a right child, twice).
#define DPFCHILD(X, P) \
	VSHUFI64X2 $0x50, P, P, P; \
	TMASK(P, P);               \
	VPTERNLOGQ $0x78, Z30, P, X

// DPFLEAF turns the corrected child X into the output from(clamp(X)) + t*Z25.
#define DPFLEAF(X) \
	TMASK(X, Z2);                  \
	VPANDQ     Z25, Z2, Z2;        \
	VPANDQ     Z29, X, X;          \
	GADD(Z2, X, Z3);               \
	SIGN(Z3)

// With lane keys (raw nil, so DX = 0) the EvalAll routines run AES-128 MMO
// themselves, on the parents' clamped seeds: each lane of a vector runs its own
// fixed key (DPF: left, right, left, right; DCF: SL, VL, SR, VR), so the round keys
// sit in Z8-Z18 for the whole call and a parent's PRG output never goes through
// memory. The main loops run 4 vectors' rounds interleaved (Z19-Z22): one vector's
// rounds are a chain of dependent AES operations, too long to overlap with the next
// parents' on its own.

// LANEKEYS loads the lane keys at AX into Z8-Z18 and sets K3 to the high two lanes.
#define LANEKEYS \
	VMOVDQU64 (AX), Z8;     \
	VMOVDQU64 64(AX), Z9;   \
	VMOVDQU64 128(AX), Z10; \
	VMOVDQU64 192(AX), Z11; \
	VMOVDQU64 256(AX), Z12; \
	VMOVDQU64 320(AX), Z13; \
	VMOVDQU64 384(AX), Z14; \
	VMOVDQU64 448(AX), Z15; \
	VMOVDQU64 512(AX), Z16; \
	VMOVDQU64 576(AX), Z17; \
	VMOVDQU64 640(AX), Z18; \
	MOVL      $0xff00, AX;  \
	KMOVW     AX, K3

// LANESETUP loads the lane keys when the routine got them (keys: the argument), and
// the tail masks.
#define LANESETUP(keys) \
	MOVQ  keys, AX;       \
	TESTQ AX, AX;         \
	JZ    lanesetup_done; \
	LANEKEYS;             \
lanesetup_done:           \
	TAILMASKS

// MMO sets X to AES(S) ^ S for the lanes' keys, S holding clamped seeds.
#define MMO(S, X) \
	VPXORQ      Z8, S, X;  \
	VAESENC     Z9, X, X;  \
	VAESENC     Z10, X, X; \
	VAESENC     Z11, X, X; \
	VAESENC     Z12, X, X; \
	VAESENC     Z13, X, X; \
	VAESENC     Z14, X, X; \
	VAESENC     Z15, X, X; \
	VAESENC     Z16, X, X; \
	VAESENC     Z17, X, X; \
	VAESENCLAST Z18, X, X; \
	VPXORQ      S, X, X

// PRG1 sets X to the PRG output of the parent at off(BX), its clamped seed in every
// lane (DPF: the parent's L, R twice; DCF: its SL, VL, SR, VR).
#define PRG1(off, X) \
	VBROADCASTI32X4 off(BX), Z19;  \
	VPANDNQ         Z19, Z31, Z19; \
	MMO(Z19, X)

// DPFSEEDS sets X to the seeds (s0, s0, s1, s1) of the two parents at off(BX),
// unclamped; PRG2 sets X to their PRG output (L, R, L, R).
#define DPFSEEDS(off, X) \
	VBROADCASTI32X4 off(BX), X;         \
	VBROADCASTI32X4 (off+16)(BX), K3, X

#define PRG2(X) \
	DPFSEEDS(0, Z19);              \
	VPANDNQ         Z19, Z31, Z19; \
	MMO(Z19, X)

// LANEROUNDS runs rounds 1-10 on Z19-Z22.
#define LANEROUND(op, K) \
	op K, Z19, Z19; \
	op K, Z20, Z20; \
	op K, Z21, Z21; \
	op K, Z22, Z22

#define LANEROUNDS \
	LANEROUND(VAESENC, Z9);  \
	LANEROUND(VAESENC, Z10); \
	LANEROUND(VAESENC, Z11); \
	LANEROUND(VAESENC, Z12); \
	LANEROUND(VAESENC, Z13); \
	LANEROUND(VAESENC, Z14); \
	LANEROUND(VAESENC, Z15); \
	LANEROUND(VAESENC, Z16); \
	LANEROUND(VAESENC, Z17); \
	LANEROUND(VAESENCLAST, Z18)

// START and FEED are MMO's first and last steps for a vector X of unclamped seeds S
// (the seeds are loaded twice rather than kept: the DCF routines have no registers
// to spare): X = clamp(S) ^ round key 0, and X ^= clamp(S).
#define START(X) \
	VPTERNLOGQ $0x9c, Z31, Z8, X

#define FEED(S, X) \
	VPTERNLOGQ $0xb4, Z31, S, X

// DPFPRG8 sets Z19-Z22 to the PRG output of the 8 parents at BX, two per vector.
#define DPFPRG8 \
	DPFSEEDS(0, Z19);     \
	DPFSEEDS(32, Z20);    \
	DPFSEEDS(64, Z21);    \
	DPFSEEDS(96, Z22);    \
	START(Z19);           \
	START(Z20);           \
	START(Z21);           \
	START(Z22);           \
	LANEROUNDS;              \
	DPFSEEDS(0, Z23);     \
	FEED(Z23, Z19);       \
	DPFSEEDS(32, Z23);    \
	FEED(Z23, Z20);       \
	DPFSEEDS(64, Z23);    \
	FEED(Z23, Z21);       \
	DPFSEEDS(96, Z23);    \
	FEED(Z23, Z22)

// DPFRAW sets Z0 to the PRG output of the next two parents: read from raw at DX,
// or run here.
#define DPFRAW(aes, done) \
	TESTQ     DX, DX;   \
	JZ        aes;      \
	VMOVDQU64 (DX), Z0; \
	ADDQ      $64, DX;  \
	JMP       done;     \
aes:                    \
	PRG2(Z0);           \
done:

// DPFLEVELPAIR writes the corrected children of the two parents at BX from their
// PRG output X, and advances past them.
#define DPFLEVELPAIR(X) \
	VMOVDQU64 (BX), Y1;  \
	DPFCHILD(X, Z1);     \
	VMOVDQU64 X, (DI);   \
	VPANDNQ   X, Z31, X; \
	VMOVDQU64 X, (SI);   \
	ADDQ      $32, BX;   \
	ADDQ      $64, DI;   \
	ADDQ      $64, SI

// func dpfLevel(u, s, raw, parents *Block, m int, cw *[2]Block, keys *LaneKeys)
TEXT ·dpfLevel(SB), NOSPLIT, $0-56
	MOVQ            u+0(FP), DI
	MOVQ            s+8(FP), SI
	MOVQ            raw+16(FP), DX
	MOVQ            parents+24(FP), BX
	MOVQ            m+32(FP), CX
	MOVQ            cw+40(FP), AX
	VBROADCASTI64X4 (AX), Z30
	VBROADCASTI32X4 ·lsbMask(SB), Z31
	LANESETUP(keys+48(FP))

dpflevel_loop8:
	TESTQ DX, DX
	JNZ   dpflevel_loop
	CMPQ  CX, $8
	JB    dpflevel_loop
	DPFPRG8
	DPFLEVELPAIR(Z19)
	DPFLEVELPAIR(Z20)
	DPFLEVELPAIR(Z21)
	DPFLEVELPAIR(Z22)
	SUBQ  $8, CX
	JMP   dpflevel_loop8

dpflevel_loop:
	CMPQ CX, $2
	JB   dpflevel_tail
	DPFRAW(dpflevel_aes, dpflevel_child)
	DPFLEVELPAIR(Z0)
	SUBQ $2, CX
	JMP  dpflevel_loop

dpflevel_tail:
	TESTQ       CX, CX
	JZ          dpflevel_done
	VMOVDQU64.Z (BX), K1, Z1
	TESTQ       DX, DX
	JZ          dpflevel_tailaes
	VMOVDQU64.Z (DX), K2, Z0
	JMP         dpflevel_tailchild

dpflevel_tailaes:
	PRG1(0, Z0)

dpflevel_tailchild:
	DPFCHILD(Z0, Z1)
	VMOVDQU64   Z0, K2, (DI)
	VPANDNQ     Z0, Z31, Z0
	VMOVDQU64   Z0, K2, (SI)

dpflevel_done:
	VZEROUPPER
	RET

// DPFLEAFPAIR writes the outputs of the children of the two parents at BX from
// their PRG output X, and advances past them.
#define DPFLEAFPAIR(X) \
	VMOVDQU64 (BX), Y1; \
	DPFCHILD(X, Z1);    \
	DPFLEAF(X);         \
	VMOVDQU64 Z3, (DI); \
	ADDQ      $32, BX;  \
	ADDQ      $64, DI

// func dpfLeaves(dst, raw, parents *Block, m int, cw *[2]Block, v *Block, ar *Arith, keys *LaneKeys)
TEXT ·dpfLeaves(SB), NOSPLIT, $0-64
	MOVQ            dst+0(FP), DI
	MOVQ            raw+8(FP), DX
	MOVQ            parents+16(FP), BX
	MOVQ            m+24(FP), CX
	MOVQ            cw+32(FP), AX
	VBROADCASTI64X4 (AX), Z30
	MOVQ            v+40(FP), AX
	VBROADCASTI32X4 (AX), Z25
	MOVQ            ar+48(FP), AX
	LOADARITH(AX)
	VBROADCASTI32X4 ·lsbMask(SB), Z31
	LANESETUP(keys+56(FP))

dpfleaves_loop8:
	TESTQ DX, DX
	JNZ   dpfleaves_loop
	CMPQ  CX, $8
	JB    dpfleaves_loop
	DPFPRG8
	DPFLEAFPAIR(Z19)
	DPFLEAFPAIR(Z20)
	DPFLEAFPAIR(Z21)
	DPFLEAFPAIR(Z22)
	SUBQ  $8, CX
	JMP   dpfleaves_loop8

dpfleaves_loop:
	CMPQ CX, $2
	JB   dpfleaves_tail
	DPFRAW(dpfleaves_aes, dpfleaves_child)
	DPFLEAFPAIR(Z0)
	SUBQ $2, CX
	JMP  dpfleaves_loop

dpfleaves_tail:
	TESTQ       CX, CX
	JZ          dpfleaves_done
	VMOVDQU64.Z (BX), K1, Z1
	TESTQ       DX, DX
	JZ          dpfleaves_tailaes
	VMOVDQU64.Z (DX), K2, Z0
	JMP         dpfleaves_tailchild

dpfleaves_tailaes:
	PRG1(0, Z0)

dpfleaves_tailchild:
	DPFCHILD(Z0, Z1)
	DPFLEAF(Z0)
	VMOVDQU64   Z3, K2, (DI)

dpfleaves_done:
	VZEROUPPER
	RET


// DCFCHILD splits the PRG output R0, R1 of two parents into their children's seeds Z2,
// corrected under the parents' control bits (low half of P), and their values Z7:
// the parents' values (low half of PV) plus from(V) + t*Z25.
#define DCFCHILD(R0, R1, P, PV) \
	VSHUFI64X2 $0x88, R1, R0, Z2; \
	VSHUFI64X2 $0xdd, R1, R0, Z3; \
	VSHUFI64X2 $0x50, P, P, P;    \
	VSHUFI64X2 $0x50, PV, PV, PV; \
	TMASK(P, P);                  \
	VPTERNLOGQ $0x78, Z30, P, Z2; \
	VPANDQ     Z29, Z3, Z3;       \
	VPANDQ     Z25, P, P;         \
	GADD(P, Z3, Z5);              \
	GADD(PV, Z5, Z7)

// DCFPRG4 sets Z19-Z22 to the PRG output of the 4 parents at BX, one per vector.
#define DCFPRG4 \
	VBROADCASTI32X4 (BX), Z19;   \
	VBROADCASTI32X4 16(BX), Z20; \
	VBROADCASTI32X4 32(BX), Z21; \
	VBROADCASTI32X4 48(BX), Z22; \
	START(Z19);                  \
	START(Z20);                  \
	START(Z21);                  \
	START(Z22);                  \
	LANEROUNDS;                     \
	VBROADCASTI32X4 (BX), Z23;   \
	FEED(Z23, Z19);              \
	VBROADCASTI32X4 16(BX), Z23; \
	FEED(Z23, Z20);              \
	VBROADCASTI32X4 32(BX), Z23; \
	FEED(Z23, Z21);              \
	VBROADCASTI32X4 48(BX), Z23; \
	FEED(Z23, Z22)

// DCFRAW sets Z0, Z1 to the PRG output of the next two parents: read from raw at DX,
// or run here.
#define DCFRAW(aes, done) \
	TESTQ     DX, DX;     \
	JZ        aes;        \
	VMOVDQU64 (DX), Z0;   \
	VMOVDQU64 64(DX), Z1; \
	ADDQ      $128, DX;   \
	JMP       done;       \
aes:                      \
	PRG1(0, Z0);          \
	PRG1(16, Z1);         \
done:

// DCFPAIR loads the control bits (Z4) and values (Z6) of the two parents at BX and
// R9, whose PRG output is R0, R1, and splits them into children (DCFCHILD).
#define DCFPAIR(R0, R1) \
	VMOVDQU64 (BX), Y4; \
	VMOVDQU64 (R9), Y6; \
	DCFCHILD(R0, R1, Z4, Z6)

// DCFTAIL does DCFPAIR's work for the one parent left (Z1 is left as is: it feeds
// only lanes that are not stored).
#define DCFTAIL(aes, done) \
	VMOVDQU64.Z (BX), K1, Z4; \
	VMOVDQU64.Z (R9), K1, Z6; \
	TESTQ       DX, DX;       \
	JZ          aes;          \
	VMOVDQU64   (DX), Z0;     \
	JMP         done;         \
aes:                          \
	PRG1(0, Z0);              \
done:                         \
	DCFCHILD(Z0, Z1, Z4, Z6)

// DCFLEVELPAIR writes the children of the two parents at BX and R9 from their PRG
// output R0, R1, and advances past them.
#define DCFLEVELPAIR(R0, R1) \
	DCFPAIR(R0, R1);      \
	VMOVDQU64 Z2, (DI);   \
	VPANDNQ   Z2, Z31, Z2; \
	VMOVDQU64 Z2, (SI);   \
	VMOVDQU64 Z7, (R8);   \
	ADDQ      $32, BX;    \
	ADDQ      $32, R9;    \
	ADDQ      $64, DI;    \
	ADDQ      $64, SI;    \
	ADDQ      $64, R8

// func dcfLevel(u, s, v, raw, parents, pv *Block, m int, cw *[2]Block, vcw *[2]Block, ar *Arith, keys *LaneKeys)
TEXT ·dcfLevel(SB), NOSPLIT, $0-88
	MOVQ            u+0(FP), DI
	MOVQ            s+8(FP), SI
	MOVQ            v+16(FP), R8
	MOVQ            raw+24(FP), DX
	MOVQ            parents+32(FP), BX
	MOVQ            pv+40(FP), R9
	MOVQ            m+48(FP), CX
	MOVQ            cw+56(FP), AX
	VBROADCASTI64X4 (AX), Z30
	MOVQ            vcw+64(FP), AX
	VBROADCASTI32X4 (AX), Z25
	MOVQ            ar+72(FP), AX
	LOADARITH(AX)
	VBROADCASTI32X4 ·lsbMask(SB), Z31
	LANESETUP(keys+80(FP))

dcflevel_loop4:
	TESTQ DX, DX
	JNZ   dcflevel_loop
	CMPQ  CX, $4
	JB    dcflevel_loop
	DCFPRG4
	DCFLEVELPAIR(Z19, Z20)
	DCFLEVELPAIR(Z21, Z22)
	SUBQ  $4, CX
	JMP   dcflevel_loop4

dcflevel_loop:
	CMPQ CX, $2
	JB   dcflevel_tail
	DCFRAW(dcflevel_aes, dcflevel_child)
	DCFLEVELPAIR(Z0, Z1)
	SUBQ $2, CX
	JMP  dcflevel_loop

dcflevel_tail:
	TESTQ     CX, CX
	JZ        dcflevel_done
	DCFTAIL(dcflevel_tailaes, dcflevel_tailchild)
	VMOVDQU64 Z2, K2, (DI)
	VPANDNQ   Z2, Z31, Z2
	VMOVDQU64 Z2, K2, (SI)
	VMOVDQU64 Z7, K2, (R8)

dcflevel_done:
	VZEROUPPER
	RET

// DCFLEAF turns corrected children Z2 with values Z7 into outputs Z5:
// Z7 + from(clamp(Z2)) + t*Z24.
#define DCFLEAF \
	TMASK(Z2, Z3);      \
	VPANDQ Z24, Z3, Z3; \
	VPANDQ Z29, Z2, Z2; \
	GADD(Z3, Z2, Z4);   \
	GADD(Z7, Z4, Z5);   \
	SIGN(Z5)

// DCFLEAFPAIR writes the outputs of the children of the two parents at BX and R9
// from their PRG output R0, R1, and advances past them.
#define DCFLEAFPAIR(R0, R1) \
	DCFPAIR(R0, R1);    \
	DCFLEAF;            \
	VMOVDQU64 Z5, (DI); \
	ADDQ      $32, BX;  \
	ADDQ      $32, R9;  \
	ADDQ      $64, DI

// func dcfLeaves(dst, raw, parents, pv *Block, m int, cw *[2]Block, vcw *[2]Block, ar *Arith, keys *LaneKeys)
TEXT ·dcfLeaves(SB), NOSPLIT, $0-72
	MOVQ            dst+0(FP), DI
	MOVQ            raw+8(FP), DX
	MOVQ            parents+16(FP), BX
	MOVQ            pv+24(FP), R9
	MOVQ            m+32(FP), CX
	MOVQ            cw+40(FP), AX
	VBROADCASTI64X4 (AX), Z30
	MOVQ            vcw+48(FP), AX
	VBROADCASTI32X4 (AX), Z25
	VBROADCASTI32X4 16(AX), Z24
	MOVQ            ar+56(FP), AX
	LOADARITH(AX)
	VBROADCASTI32X4 ·lsbMask(SB), Z31
	LANESETUP(keys+64(FP))

dcfleaves_loop4:
	TESTQ DX, DX
	JNZ   dcfleaves_loop
	CMPQ  CX, $4
	JB    dcfleaves_loop
	DCFPRG4
	DCFLEAFPAIR(Z19, Z20)
	DCFLEAFPAIR(Z21, Z22)
	SUBQ  $4, CX
	JMP   dcfleaves_loop4

dcfleaves_loop:
	CMPQ CX, $2
	JB   dcfleaves_tail
	DCFRAW(dcfleaves_aes, dcfleaves_child)
	DCFLEAFPAIR(Z0, Z1)
	SUBQ $2, CX
	JMP  dcfleaves_loop

dcfleaves_tail:
	TESTQ     CX, CX
	JZ        dcfleaves_done
	DCFTAIL(dcfleaves_tailaes, dcfleaves_tailchild)
	DCFLEAF
	VMOVDQU64 Z5, K2, (DI)

dcfleaves_done:
	VZEROUPPER
	RET

// The Eval routines take 4 points per iteration. Registers: DI u, SI s, R9 sides,
// DX ch, R10 next, BX xs, R8 offsets, R11 the level's correction words, CX points
// left; Z30 the shift counts of the next side bit, Z24 qwords of 1.

// SIDEMASK loads the sides of 4 points into K1, both qwords of a lane per side bit.
#define SIDEMASK \
	MOVL  (R9), AX;                  \
	PEXTL ·byteBits(SB), AX, AX;    \
	PDEPL ·laneBits(SB), AX, AX;    \
	LEAL  (AX)(AX*2), AX;            \
	KMOVW AX, K1

// ROWS loads the level's correction words of 4 points: their first blocks into C0
// and their second into C1.
#define ROWS(C0, C1) \
	MOVQ         0(R8), AX;                \
	MOVQ         8(R8), R12;               \
	VMOVDQU64    (R11)(AX*1), Y2;          \
	VINSERTI64X4 $1, (R11)(R12*1), Z2, Z2; \
	MOVQ         16(R8), AX;               \
	MOVQ         24(R8), R12;              \
	VMOVDQU64    (R11)(AX*1), Y3;          \
	VINSERTI64X4 $1, (R11)(R12*1), Z3, Z3; \
	VSHUFI64X2   $0x88, Z3, Z2, C0;        \
	VSHUFI64X2   $0xdd, Z3, Z2, C1

// NEXTSIDES writes the next level's side bytes of 4 points.
#define NEXTSIDES \
	VMOVDQU64 (BX), Z8;               \
	VPSRLVQ   Z30, Z8, Z8;            \
	LANETEST(Z24, Z8, K2, R12);      \
	PEXTL     ·laneBits(SB), AX, AX; \
	PDEPL     ·byteBits(SB), AX, AX; \
	MOVL      AX, (R10)

// STORESEEDS stores the children X (u) and their clamped seeds (s).
#define STORESEEDS(X) \
	VMOVDQU64 X, (DI);     \
	VPANDNQ   X, Z31, X;   \
	VMOVDQU64 X, (SI)

#define EVALNEXT(chStep) \
	ADDQ $4, R9;       \
	ADDQ $4, R10;      \
	ADDQ $32, R8;      \
	ADDQ $64, DI;      \
	ADDQ $64, SI;      \
	ADDQ $chStep, DX;  \
	ADDQ $64, BX;      \
	SUBQ $4, CX

// func dpfEvalLevel(u, s *Block, sides *uint8, ch *Block, next *uint8, xs *Block, off *int, rows *Block, m int, cnt *[2]uint64)
TEXT ·dpfEvalLevel(SB), NOSPLIT, $0-80
	MOVQ u+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ sides+16(FP), R9
	MOVQ ch+24(FP), DX
	MOVQ next+32(FP), R10
	MOVQ xs+40(FP), BX
	MOVQ off+48(FP), R8
	MOVQ rows+56(FP), R11
	MOVQ m+64(FP), CX
	MOVQ cnt+72(FP), AX
	VBROADCASTI32X4 (AX), Z30
	VBROADCASTI32X4 ·lsbMask(SB), Z31
	MOVL            $1, AX
	VPBROADCASTQ    AX, Z24

dpfeval_loop:
	TESTQ CX, CX
	JZ    dpfeval_done
	SIDEMASK
	ROWS(Z4, Z5)
	VPSHUFD    $0, Z5, Z5              // tr, in every dword
	VPTERNLOGQ $0xb8, Z5, Z31, K1, Z4  // right children: tr in the lsb
	VMOVDQU64  (DI), Z6
	TMASK(Z6, Z6)
	VMOVDQU64  (DX), Z7
	VPTERNLOGQ $0x78, Z4, Z6, Z7
	STORESEEDS(Z7)
	NEXTSIDES
	EVALNEXT(64)
	JMP        dpfeval_loop

dpfeval_done:
	VZEROUPPER
	RET

// func dcfEvalLevel(u, s, v *Block, sides *uint8, ch *Block, next *uint8, xs *Block, off *int, rows *Block, m int, cnt *[2]uint64, ar *Arith)
TEXT ·dcfEvalLevel(SB), NOSPLIT, $0-96
	MOVQ u+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ v+16(FP), R13
	MOVQ sides+24(FP), R9
	MOVQ ch+32(FP), DX
	MOVQ next+40(FP), R10
	MOVQ xs+48(FP), BX
	MOVQ off+56(FP), R8
	MOVQ rows+64(FP), R11
	MOVQ m+72(FP), CX
	MOVQ cnt+80(FP), AX
	VBROADCASTI32X4 (AX), Z30
	MOVQ            ar+88(FP), AX
	LOADARITH(AX)
	VBROADCASTI32X4 ·lsbMask(SB), Z31
	MOVL            $1, AX
	VPBROADCASTQ    AX, Z24

dcfeval_loop:
	TESTQ CX, CX
	JZ    dcfeval_done
	SIDEMASK
	ROWS(Z4, Z5)
	VPTERNLOGQ $0xb8, Z5, Z31, K1, Z4  // right children: tr (lsb of the value block)
	VMOVDQU64  (DI), Z6
	TMASK(Z6, Z6)
	VMOVDQU64  (DX), Z0
	VMOVDQU64  64(DX), Z1
	VSHUFI64X2 $0x88, Z1, Z0, Z7       // seeds
	VSHUFI64X2 $0xdd, Z1, Z0, Z9       // values
	VPTERNLOGQ $0x78, Z4, Z6, Z7
	STORESEEDS(Z7)
	VPANDQ     Z29, Z9, Z9
	VPTERNLOGQ $0x80, Z29, Z5, Z6      // t*from(value correction)
	GADD(Z6, Z9, Z10)
	VMOVDQU64  (R13), Z11
	GADD(Z10, Z11, Z12)
	VMOVDQU64  Z12, (R13)
	ADDQ       $64, R13
	NEXTSIDES
	EVALNEXT(128)
	JMP        dcfeval_loop

dcfeval_done:
	VZEROUPPER
	RET
