//go:build amd64 && !purego

#include "textflag.h"

// KEYROUND derives the next AES-128 round key in X0 from the previous one (FIPS-197
// key expansion, four words at a time) and stores it at off(BX).
#define KEYROUND(rcon, off) \
	AESKEYGENASSIST $rcon, X0, X1; \
	PSHUFD          $0xff, X1, X1; \
	MOVOU           X0, X2;        \
	PSLLDQ          $4, X2;        \
	PXOR            X2, X0;        \
	PSLLDQ          $4, X2;        \
	PXOR            X2, X0;        \
	PSLLDQ          $4, X2;        \
	PXOR            X2, X0;        \
	PXOR            X1, X0;        \
	MOVOU           X0, off(BX)

// func expandKey(raw *[16]byte, enc *[11][16]byte)
TEXT ·expandKey(SB), NOSPLIT, $0-16
	MOVQ  raw+0(FP), AX
	MOVQ  enc+8(FP), BX
	MOVOU (AX), X0
	MOVOU X0, (BX)
	KEYROUND(0x01, 16)
	KEYROUND(0x02, 32)
	KEYROUND(0x04, 48)
	KEYROUND(0x08, 64)
	KEYROUND(0x10, 80)
	KEYROUND(0x20, 96)
	KEYROUND(0x40, 112)
	KEYROUND(0x80, 128)
	KEYROUND(0x1b, 144)
	KEYROUND(0x36, 160)
	RET
