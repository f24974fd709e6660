//go:build !purego

#include "textflag.h"

// Four seeds run at once, one per 32-bit lane: V0-V15 hold state words x0-x15,
// V16-V19 the seed words, V20-V23 row 0, V24 and V25 nonce0 and nonce1, V26 the
// byte shuffle that rotates each word left by 8, V27-V30 temporaries, V31 the select
// mask.

// QR4 runs four independent quarter rounds on (a_i, b_i, c_i, d_i), step by step
// across the four so that each step's results are not needed by the next
// instruction. Rotations: by 16 swaps the halfwords of each word (VREV32), by 8
// shuffles bytes (VTBL), by 12 and 7 shift left and insert the bits shifted out
// (VSHL, VSRI).
#define ADD4(x0, y0, x1, y1, x2, y2, x3, y3) \
	VADD y0.S4, x0.S4, x0.S4; \
	VADD y1.S4, x1.S4, x1.S4; \
	VADD y2.S4, x2.S4, x2.S4; \
	VADD y3.S4, x3.S4, x3.S4

#define XOR4(x0, y0, x1, y1, x2, y2, x3, y3) \
	VEOR y0.B16, x0.B16, x0.B16; \
	VEOR y1.B16, x1.B16, x1.B16; \
	VEOR y2.B16, x2.B16, x2.B16; \
	VEOR y3.B16, x3.B16, x3.B16

#define ROT16(x0, x1, x2, x3) \
	VREV32 x0.H8, x0.H8; \
	VREV32 x1.H8, x1.H8; \
	VREV32 x2.H8, x2.H8; \
	VREV32 x3.H8, x3.H8

#define ROT8(x0, x1, x2, x3) \
	VTBL V26.B16, [x0.B16], x0.B16; \
	VTBL V26.B16, [x1.B16], x1.B16; \
	VTBL V26.B16, [x2.B16], x2.B16; \
	VTBL V26.B16, [x3.B16], x3.B16

// XORROT4 sets b_i = (b_i ^ c_i) rotated left by n (m = 32-n).
#define XORROT4(n, m, b0, c0, b1, c1, b2, c2, b3, c3) \
	VEOR   c0.B16, b0.B16, V27.B16; \
	VEOR   c1.B16, b1.B16, V28.B16; \
	VEOR   c2.B16, b2.B16, V29.B16; \
	VEOR   c3.B16, b3.B16, V30.B16; \
	VSHL   $n, V27.S4, b0.S4;       \
	VSHL   $n, V28.S4, b1.S4;       \
	VSHL   $n, V29.S4, b2.S4;       \
	VSHL   $n, V30.S4, b3.S4;       \
	VSRI   $m, V27.S4, b0.S4;       \
	VSRI   $m, V28.S4, b1.S4;       \
	VSRI   $m, V29.S4, b2.S4;       \
	VSRI   $m, V30.S4, b3.S4

#define QR4(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
	ADD4(a0, b0, a1, b1, a2, b2, a3, b3);                     \
	XOR4(d0, a0, d1, a1, d2, a2, d3, a3);                     \
	ROT16(d0, d1, d2, d3);                                    \
	ADD4(c0, d0, c1, d1, c2, d2, c3, d3);                     \
	XORROT4(12, 20, b0, c0, b1, c1, b2, c2, b3, c3);          \
	ADD4(a0, b0, a1, b1, a2, b2, a3, b3);                     \
	XOR4(d0, a0, d1, a1, d2, a2, d3, a3);                     \
	ROT8(d0, d1, d2, d3);                                     \
	ADD4(c0, d0, c1, d1, c2, d2, c3, d3);                     \
	XORROT4(7, 25, b0, c0, b1, c1, b2, c2, b3, c3)

#define COPY(x, y) VORR x.B16, x.B16, y.B16

// TRANSPOSE turns the four words of one row (a, b, c, d; lane k from seed k) into
// seed k's row in register k of (a, b, c, d).
#define TRANSPOSE(a, b, c, d) \
	VTRN1 b.S4, a.S4, V27.S4;   \
	VTRN2 b.S4, a.S4, V28.S4;   \
	VTRN1 d.S4, c.S4, V29.S4;   \
	VTRN2 d.S4, c.S4, V30.S4;   \
	VTRN1 V29.D2, V27.D2, a.D2; \
	VTRN2 V29.D2, V27.D2, c.D2; \
	VTRN1 V30.D2, V28.D2, b.D2; \
	VTRN2 V30.D2, V28.D2, d.D2

// SELLANE sets lane k of V31 to all ones if bit 0 of sel byte k is set, else zero.
#define SELLANE(k) \
	MOVBU k(R2), R10; \
	AND   $1, R10;    \
	NEG   R10, R10;   \
	VMOV  R10, V31.S[k]

// PICK sets x_i to y_i in the lanes where V31 is set.
#define PICK(x0, y0, x1, y1, x2, y2, x3, y3) \
	VBIT V31.B16, y0.B16, x0.B16; \
	VBIT V31.B16, y1.B16, x1.B16; \
	VBIT V31.B16, y2.B16, x2.B16; \
	VBIT V31.B16, y3.B16, x3.B16

#define ST(x) VST1.P [x.B16], 16(R0)

// func blocksNEON(dst, src, sel *byte, groups, mul int, c *[4]uint32, nonce uint64)
TEXT ·blocksNEON(SB), NOSPLIT, $0-56
	MOVD  dst+0(FP), R0
	MOVD  src+8(FP), R1
	MOVD  sel+16(FP), R2
	MOVD  groups+24(FP), R3
	MOVD  mul+32(FP), R4
	MOVD  c+40(FP), R5
	MOVD  nonce+48(FP), R6
	VLD4R (R5), [V20.S4, V21.S4, V22.S4, V23.S4]
	VDUP  R6, V24.S4
	LSR   $32, R6
	VDUP  R6, V25.S4
	MOVD  $0x0605040702010003, R7
	VMOV  R7, V26.D[0]
	MOVD  $0x0e0d0c0f0a09080b, R7
	VMOV  R7, V26.D[1]

group:
	VLD4.P 64(R1), [V16.S4, V17.S4, V18.S4, V19.S4]
	COPY(V20, V0)
	COPY(V21, V1)
	COPY(V22, V2)
	COPY(V23, V3)
	COPY(V16, V4)
	COPY(V17, V5)
	COPY(V18, V6)
	COPY(V19, V7)
	COPY(V16, V8)
	COPY(V17, V9)
	COPY(V18, V10)
	COPY(V19, V11)
	VEOR  V12.B16, V12.B16, V12.B16
	VEOR  V13.B16, V13.B16, V13.B16
	COPY(V24, V14)
	COPY(V25, V15)
	MOVD  $10, R9

doubleround:
	QR4(V0, V4, V8, V12, V1, V5, V9, V13, V2, V6, V10, V14, V3, V7, V11, V15)
	QR4(V0, V5, V10, V15, V1, V6, V11, V12, V2, V7, V8, V13, V3, V4, V9, V14)
	SUBS $1, R9
	BNE  doubleround

	// The output rows: each state word XORed with its initial value.
	XOR4(V0, V20, V1, V21, V2, V22, V3, V23)
	XOR4(V4, V16, V5, V17, V6, V18, V7, V19)
	XOR4(V8, V16, V9, V17, V10, V18, V11, V19)
	VEOR V14.B16, V24.B16, V14.B16
	VEOR V15.B16, V25.B16, V15.B16

	CBZ R2, expand

	// Select: row j of each seed becomes output j of the chosen half.
	SELLANE(0)
	SELLANE(1)
	SELLANE(2)
	SELLANE(3)
	ADD  $4, R2
	CMP  $4, R4
	BEQ  select4
	PICK(V0, V4, V1, V5, V2, V6, V3, V7)
	TRANSPOSE(V0, V1, V2, V3)
	ST(V0)
	ST(V1)
	ST(V2)
	ST(V3)
	B    next

select4:
	PICK(V0, V8, V1, V9, V2, V10, V3, V11)
	PICK(V4, V12, V5, V13, V6, V14, V7, V15)
	B    out2

expand:
	CMP  $2, R4
	BEQ  out2
	BHI  out4
	TRANSPOSE(V4, V5, V6, V7)
	ST(V4)
	ST(V5)
	ST(V6)
	ST(V7)
	B    next

out2:
	TRANSPOSE(V0, V1, V2, V3)
	TRANSPOSE(V4, V5, V6, V7)
	ST(V0)
	ST(V4)
	ST(V1)
	ST(V5)
	ST(V2)
	ST(V6)
	ST(V3)
	ST(V7)
	B    next

out4:
	TRANSPOSE(V0, V1, V2, V3)
	TRANSPOSE(V4, V5, V6, V7)
	TRANSPOSE(V8, V9, V10, V11)
	TRANSPOSE(V12, V13, V14, V15)
	ST(V0)
	ST(V4)
	ST(V8)
	ST(V12)
	ST(V1)
	ST(V5)
	ST(V9)
	ST(V13)
	ST(V2)
	ST(V6)
	ST(V10)
	ST(V14)
	ST(V3)
	ST(V7)
	ST(V11)
	ST(V15)

next:
	SUBS $1, R3
	BNE  group
	RET
