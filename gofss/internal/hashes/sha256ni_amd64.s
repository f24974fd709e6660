//go:build amd64 && !purego

#include "textflag.h"

// func blocksSHANI(h *[8]uint32, p []byte, k *[64]uint32, swap *[16]byte)
//
// SHA-256's compression of each 64-byte block of p into h, with the SHA
// extensions. The state lives in two registers as the instructions want it:
// X1 = (A, B, E, F) and X2 = (C, D, G, H), A and C in the top words. X3-X6 hold
// the message words of the last four groups of four rounds (big-endian words,
// byte-swapped on load), X0 the two rounds' message plus constants.
TEXT ·blocksSHANI(SB), NOSPLIT, $0-48
	MOVQ h+0(FP), DI
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), DX
	MOVQ k+32(FP), AX
	MOVQ swap+40(FP), BX
	SHRQ $6, DX
	JZ   done
	MOVOU (BX), X9

	// h = (a, b, c, d), (e, f, g, h) in memory order.
	MOVOU  (DI), X7
	MOVOU  16(DI), X2
	PSHUFD $0xb1, X7, X7 // (b, a, d, c)
	PSHUFD $0x1b, X2, X2 // (h, g, f, e)
	MOVO   X7, X1
	PALIGNR $8, X2, X1   // (f, e, b, a): ABEF
	PBLENDW $0xf0, X7, X2 // (h, g, d, c): CDGH

block:
	MOVO X1, X10 // the state before the block, added back at its end
	MOVO X2, X11

	MOVOU  0(SI), X3
	PSHUFB X9, X3
	MOVOU  16(SI), X4
	PSHUFB X9, X4
	MOVOU  32(SI), X5
	PSHUFB X9, X5
	MOVOU  48(SI), X6
	PSHUFB X9, X6

// ROUNDS4 runs four rounds with message words w and constants at off(AX).
#define ROUNDS4(w, off) \
	MOVO  w, X0; \
	MOVOU off(AX), X8; \
	PADDD X8, X0; \
	SHA256RNDS2 X0, X1, X2; \
	PSHUFD $0x0e, X0, X0; \
	SHA256RNDS2 X0, X2, X1

// SCHEDULE replaces w0 (words i-16 .. i-13) by words i .. i+3, from w1 (i-12 ..
// i-9), w2 (i-8 .. i-5) and w3 (i-4 .. i-1).
#define SCHEDULE(w0, w1, w2, w3) \
	SHA256MSG1 w1, w0; \
	MOVO    w3, X8; \
	PALIGNR $4, w2, X8; \
	PADDD   X8, w0; \
	SHA256MSG2 w3, w0

	ROUNDS4(X3, 0)
	ROUNDS4(X4, 16)
	ROUNDS4(X5, 32)
	ROUNDS4(X6, 48)
	SCHEDULE(X3, X4, X5, X6)
	ROUNDS4(X3, 64)
	SCHEDULE(X4, X5, X6, X3)
	ROUNDS4(X4, 80)
	SCHEDULE(X5, X6, X3, X4)
	ROUNDS4(X5, 96)
	SCHEDULE(X6, X3, X4, X5)
	ROUNDS4(X6, 112)
	SCHEDULE(X3, X4, X5, X6)
	ROUNDS4(X3, 128)
	SCHEDULE(X4, X5, X6, X3)
	ROUNDS4(X4, 144)
	SCHEDULE(X5, X6, X3, X4)
	ROUNDS4(X5, 160)
	SCHEDULE(X6, X3, X4, X5)
	ROUNDS4(X6, 176)
	SCHEDULE(X3, X4, X5, X6)
	ROUNDS4(X3, 192)
	SCHEDULE(X4, X5, X6, X3)
	ROUNDS4(X4, 208)
	SCHEDULE(X5, X6, X3, X4)
	ROUNDS4(X5, 224)
	SCHEDULE(X6, X3, X4, X5)
	ROUNDS4(X6, 240)

	PADDD X10, X1
	PADDD X11, X2
	ADDQ  $64, SI
	DECQ  DX
	JNZ   block

	// Back to (a, b, c, d), (e, f, g, h).
	PSHUFD  $0x1b, X1, X7 // (a, b, e, f)
	PSHUFD  $0xb1, X2, X2 // (g, h, c, d)
	MOVO    X7, X1
	PBLENDW $0xf0, X2, X1 // (a, b, c, d)
	PALIGNR $8, X7, X2    // (e, f, g, h)
	MOVOU   X1, (DI)
	MOVOU   X2, 16(DI)

done:
	RET

// func cpuidSHA() bool: CPUID leaf 7, EBX bit 29, where the CPU has leaf 7.
TEXT ·cpuidSHA(SB), NOSPLIT, $0-1
	MOVB $0, ret+0(FP)
	XORL AX, AX
	CPUID
	CMPL AX, $7
	JB   none
	MOVL $7, AX
	XORL CX, CX
	CPUID
	SHRL $29, BX
	ANDL $1, BX
	MOVB BX, ret+0(FP)

none:
	RET

// func pairSHANI(out *[2][8]uint32, p0, p1 *[64]byte, iv *[2][8]uint32, k *[64]uint32, swap *[16]byte)
//
// SHA-256's compression of two independent blocks, p0 from the state iv[0] and p1
// from iv[1], their instructions interleaved: one compression waits on the latency
// of SHA256RNDS2, so the second one runs in its shadow. Block 0's state is in X1
// and X2 and its message words in X3-X6, block 1's in X10, X11 and X12-X15 (the
// layouts of blocksSHANI).
TEXT ·pairSHANI(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ p0+8(FP), SI
	MOVQ p1+16(FP), CX
	MOVQ iv+24(FP), DX
	MOVQ k+32(FP), AX
	MOVQ swap+40(FP), BX
	MOVOU (BX), X9

// LOADSTATE loads the state at off(DX) as ABEF into a and CDGH into c (X7 the
// temporary).
#define LOADSTATE(off, a, c) \
	MOVOU   off(DX), X7; \
	MOVOU   off+16(DX), c; \
	PSHUFD  $0xb1, X7, X7; \
	PSHUFD  $0x1b, c, c; \
	MOVO    X7, a; \
	PALIGNR $8, c, a; \
	PBLENDW $0xf0, X7, c

	LOADSTATE(0, X1, X2)
	LOADSTATE(32, X10, X11)

	MOVOU  0(SI), X3
	PSHUFB X9, X3
	MOVOU  16(SI), X4
	PSHUFB X9, X4
	MOVOU  32(SI), X5
	PSHUFB X9, X5
	MOVOU  48(SI), X6
	PSHUFB X9, X6
	MOVOU  0(CX), X12
	PSHUFB X9, X12
	MOVOU  16(CX), X13
	PSHUFB X9, X13
	MOVOU  32(CX), X14
	PSHUFB X9, X14
	MOVOU  48(CX), X15
	PSHUFB X9, X15

// PAIR4 runs four rounds of both blocks: wa and wb their message words, the
// constants at off(AX).
#define PAIR4(wa, wb, off) \
	MOVOU off(AX), X8; \
	MOVO  wa, X0; \
	PADDD X8, X0; \
	SHA256RNDS2 X0, X1, X2; \
	PSHUFD $0x0e, X0, X7; \
	MOVO  wb, X0; \
	PADDD X8, X0; \
	SHA256RNDS2 X0, X10, X11; \
	PSHUFD $0x0e, X0, X8; \
	MOVO  X7, X0; \
	SHA256RNDS2 X0, X2, X1; \
	MOVO  X8, X0; \
	SHA256RNDS2 X0, X11, X10

// PAIRSCHEDULE is SCHEDULE for both blocks (X7 and X8 the temporaries).
#define PAIRSCHEDULE(a0, a1, a2, a3, b0, b1, b2, b3) \
	SHA256MSG1 a1, a0; \
	SHA256MSG1 b1, b0; \
	MOVO    a3, X7; \
	PALIGNR $4, a2, X7; \
	MOVO    b3, X8; \
	PALIGNR $4, b2, X8; \
	PADDD   X7, a0; \
	PADDD   X8, b0; \
	SHA256MSG2 a3, a0; \
	SHA256MSG2 b3, b0

	PAIR4(X3, X12, 0)
	PAIR4(X4, X13, 16)
	PAIR4(X5, X14, 32)
	PAIR4(X6, X15, 48)
	PAIRSCHEDULE(X3, X4, X5, X6, X12, X13, X14, X15)
	PAIR4(X3, X12, 64)
	PAIRSCHEDULE(X4, X5, X6, X3, X13, X14, X15, X12)
	PAIR4(X4, X13, 80)
	PAIRSCHEDULE(X5, X6, X3, X4, X14, X15, X12, X13)
	PAIR4(X5, X14, 96)
	PAIRSCHEDULE(X6, X3, X4, X5, X15, X12, X13, X14)
	PAIR4(X6, X15, 112)
	PAIRSCHEDULE(X3, X4, X5, X6, X12, X13, X14, X15)
	PAIR4(X3, X12, 128)
	PAIRSCHEDULE(X4, X5, X6, X3, X13, X14, X15, X12)
	PAIR4(X4, X13, 144)
	PAIRSCHEDULE(X5, X6, X3, X4, X14, X15, X12, X13)
	PAIR4(X5, X14, 160)
	PAIRSCHEDULE(X6, X3, X4, X5, X15, X12, X13, X14)
	PAIR4(X6, X15, 176)
	PAIRSCHEDULE(X3, X4, X5, X6, X12, X13, X14, X15)
	PAIR4(X3, X12, 192)
	PAIRSCHEDULE(X4, X5, X6, X3, X13, X14, X15, X12)
	PAIR4(X4, X13, 208)
	PAIRSCHEDULE(X5, X6, X3, X4, X14, X15, X12, X13)
	PAIR4(X5, X14, 224)
	PAIRSCHEDULE(X6, X3, X4, X5, X15, X12, X13, X14)
	PAIR4(X6, X15, 240)

	// Add the starting states back (from iv: the registers are all in use) and
	// store both states as (a, b, c, d), (e, f, g, h).
	LOADSTATE(0, X3, X8)
	PADDD   X3, X1
	PADDD   X8, X2
	LOADSTATE(32, X3, X8)
	PADDD   X3, X10
	PADDD   X8, X11

	PSHUFD  $0x1b, X1, X7
	PSHUFD  $0xb1, X2, X2
	MOVO    X7, X1
	PBLENDW $0xf0, X2, X1
	PALIGNR $8, X7, X2
	MOVOU   X1, (DI)
	MOVOU   X2, 16(DI)

	PSHUFD  $0x1b, X10, X7
	PSHUFD  $0xb1, X11, X11
	MOVO    X7, X10
	PBLENDW $0xf0, X11, X10
	PALIGNR $8, X7, X11
	MOVOU   X10, 32(DI)
	MOVOU   X11, 48(DI)
	RET
