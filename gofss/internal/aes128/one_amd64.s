//go:build amd64 && !purego

#include "textflag.h"
#include "go_asm.h"

// ENC is the offset of a Key's round keys.
#define ENC (Key_arch+archKey_enc)

// func mmoOneAESNI(keys []*Key, dst, src *byte)
// One source block under every key: dst block j = AES(keys[j], src) XOR src. The
// keys' encryptions are independent, so out-of-order execution overlaps them.
TEXT ·mmoOneAESNI(SB), NOSPLIT, $0-40
	MOVQ  keys_base+0(FP), BX
	MOVQ  keys_len+8(FP), CX
	MOVQ  dst+24(FP), DI
	MOVQ  src+32(FP), SI
	TESTQ CX, CX
	JZ    one_done
	MOVOU (SI), X1

one_key:
	MOVQ       (BX), AX
	LEAQ       ENC(AX), AX
	MOVOU      (AX), X0
	PXOR       X1, X0
	MOVOU      16(AX), X2
	AESENC     X2, X0
	MOVOU      32(AX), X3
	AESENC     X3, X0
	MOVOU      48(AX), X4
	AESENC     X4, X0
	MOVOU      64(AX), X5
	AESENC     X5, X0
	MOVOU      80(AX), X6
	AESENC     X6, X0
	MOVOU      96(AX), X7
	AESENC     X7, X0
	MOVOU      112(AX), X8
	AESENC     X8, X0
	MOVOU      128(AX), X9
	AESENC     X9, X0
	MOVOU      144(AX), X10
	AESENC     X10, X0
	MOVOU      160(AX), X11
	AESENCLAST X11, X0
	PXOR       X1, X0
	MOVOU      X0, (DI)
	ADDQ       $16, DI
	ADDQ       $8, BX
	DECQ       CX
	JNZ        one_key

one_done:
	RET
