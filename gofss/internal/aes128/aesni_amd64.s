//go:build amd64 && !purego

#include "textflag.h"
#include "go_asm.h"

// ENC is the offset of a Key's round keys.
#define ENC (Key_arch+archKey_enc)

// The AES-NI routines keep 8 blocks in flight, in X0-X7.

#define LOAD8(p) \
	MOVOU 0(p), X0;   \
	MOVOU 16(p), X1;  \
	MOVOU 32(p), X2;  \
	MOVOU 48(p), X3;  \
	MOVOU 64(p), X4;  \
	MOVOU 80(p), X5;  \
	MOVOU 96(p), X6;  \
	MOVOU 112(p), X7

// ALL8 applies one round (PXOR, AESENC or AESENCLAST) with the round key in K.
#define ALL8(op, K) \
	op K, X0; \
	op K, X1; \
	op K, X2; \
	op K, X3; \
	op K, X4; \
	op K, X5; \
	op K, X6; \
	op K, X7

// FEEDFWD8 XORs the source blocks at p back in: the MMO step.
#define FEEDFWD8(p) \
	MOVOU 0(p), X8;   \
	PXOR  X8, X0;     \
	MOVOU 16(p), X9;  \
	PXOR  X9, X1;     \
	MOVOU 32(p), X8;  \
	PXOR  X8, X2;     \
	MOVOU 48(p), X9;  \
	PXOR  X9, X3;     \
	MOVOU 64(p), X8;  \
	PXOR  X8, X4;     \
	MOVOU 80(p), X9;  \
	PXOR  X9, X5;     \
	MOVOU 96(p), X8;  \
	PXOR  X8, X6;     \
	MOVOU 112(p), X9; \
	PXOR  X9, X7

// STORE8 writes X0-X7 to p, p+s, p+2s, ...; it moves p.
#define STORE8(p, s) \
	MOVOU X0, (p);       \
	MOVOU X1, (p)(s*1);  \
	LEAQ  (p)(s*2), p;   \
	MOVOU X2, (p);       \
	MOVOU X3, (p)(s*1);  \
	LEAQ  (p)(s*2), p;   \
	MOVOU X4, (p);       \
	MOVOU X5, (p)(s*1);  \
	LEAQ  (p)(s*2), p;   \
	MOVOU X6, (p);       \
	MOVOU X7, (p)(s*1)

// func mmoAESNIBlocks(keys []*Key, dst, src []byte)
// For every whole group of 8 source blocks and every key, 8 blocks share each round
// key load.
TEXT ·mmoAESNIBlocks(SB), NOSPLIT, $0-72
	MOVQ keys_base+0(FP), R8
	MOVQ keys_len+8(FP), R10
	MOVQ dst_base+24(FP), DI
	MOVQ src_base+48(FP), SI
	MOVQ src_len+56(FP), CX
	SHRQ $7, CX
	JZ   done
	LEAQ (R8)(R10*8), R9   // end of keys
	SHLQ $4, R10           // dst bytes from one source block to the next

group:
	MOVQ R8, BX            // key cursor
	MOVQ DI, DX            // dst of the current key's output for block 0

key:
	MOVQ  (BX), AX
	LEAQ  ENC(AX), AX
	LOAD8(SI)
	MOVOU (AX), X8
	ALL8(PXOR, X8)
	MOVOU 16(AX), X8
	ALL8(AESENC, X8)
	MOVOU 32(AX), X8
	ALL8(AESENC, X8)
	MOVOU 48(AX), X8
	ALL8(AESENC, X8)
	MOVOU 64(AX), X8
	ALL8(AESENC, X8)
	MOVOU 80(AX), X8
	ALL8(AESENC, X8)
	MOVOU 96(AX), X8
	ALL8(AESENC, X8)
	MOVOU 112(AX), X8
	ALL8(AESENC, X8)
	MOVOU 128(AX), X8
	ALL8(AESENC, X8)
	MOVOU 144(AX), X8
	ALL8(AESENC, X8)
	MOVOU 160(AX), X8
	ALL8(AESENCLAST, X8)
	FEEDFWD8(SI)
	MOVQ  DX, R11
	STORE8(R11, R10)
	ADDQ  $16, DX
	ADDQ  $8, BX
	CMPQ  BX, R9
	JB    key

	ADDQ $128, SI
	LEAQ (DI)(R10*8), DI
	DECQ CX
	JNZ  group

done:
	RET

// SELLANE sets L to the offset from the first key of the pair to the key that block i
// of the group uses: 0 or R14.
#define SELLANE(i, L) \
	MOVBLZX i(R13), L; \
	ANDL    $1, L;     \
	NEGQ    L;         \
	ANDQ    R14, L

// SELROUND applies round key number off/16 to X0-X7, each block from its own key.
#define SELROUND(op, off) \
	MOVOU off(R12)(AX*1), X8;  \
	op    X8, X0;              \
	MOVOU off(R12)(BX*1), X9;  \
	op    X9, X1;              \
	MOVOU off(R12)(CX*1), X10; \
	op    X10, X2;             \
	MOVOU off(R12)(DX*1), X11; \
	op    X11, X3;             \
	MOVOU off(R12)(R8*1), X8;  \
	op    X8, X4;              \
	MOVOU off(R12)(R9*1), X9;  \
	op    X9, X5;              \
	MOVOU off(R12)(R10*1), X10; \
	op    X10, X6;             \
	MOVOU off(R12)(R11*1), X11; \
	op    X11, X7

// func mmoSelectAESNIBlocks(keys []*Key, dst, src, sel []byte) (bad bool)
// Like mmoAESNIBlocks, but block i of a group takes its round keys from
// keys[sel[i]*h+j], so each of the 8 blocks loads its own.
TEXT ·mmoSelectAESNIBlocks(SB), NOSPLIT, $32-97
	MOVQ dst_base+24(FP), DI
	MOVQ src_base+48(FP), SI
	MOVQ sel_base+72(FP), R13
	MOVQ keys_len+8(FP), R15
	SHLQ $3, R15                // dst bytes from one source block to the next: h*16
	MOVQ R15, AX
	SHRQ $1, AX
	MOVQ AX, hoff-32(SP)        // byte offset of keys[h] in keys
	MOVQ $0, selor-24(SP)
	MOVQ src_len+56(FP), AX
	SHRQ $7, AX
	MOVQ AX, groups-16(SP)
	JZ   done

group:
	MOVQ (R13), AX
	ORQ  AX, selor-24(SP)
	MOVQ $0, j-8(SP)            // byte offset of keys[j] in keys

key:
	MOVQ keys_base+0(FP), R14
	MOVQ j-8(SP), AX
	MOVQ (R14)(AX*1), R12       // keys[j]
	ADDQ hoff-32(SP), R14
	MOVQ (R14)(AX*1), R14       // keys[h+j]
	SUBQ R12, R14
	SELLANE(0, AX)
	SELLANE(1, BX)
	SELLANE(2, CX)
	SELLANE(3, DX)
	SELLANE(4, R8)
	SELLANE(5, R9)
	SELLANE(6, R10)
	SELLANE(7, R11)
	LEAQ ENC(R12), R12
	LOAD8(SI)
	SELROUND(PXOR, 0)
	SELROUND(AESENC, 16)
	SELROUND(AESENC, 32)
	SELROUND(AESENC, 48)
	SELROUND(AESENC, 64)
	SELROUND(AESENC, 80)
	SELROUND(AESENC, 96)
	SELROUND(AESENC, 112)
	SELROUND(AESENC, 128)
	SELROUND(AESENC, 144)
	SELROUND(AESENCLAST, 160)
	FEEDFWD8(SI)
	MOVQ DI, R14
	STORE8(R14, R15)
	ADDQ $16, DI
	MOVQ j-8(SP), AX
	ADDQ $8, AX
	MOVQ AX, j-8(SP)
	CMPQ AX, hoff-32(SP)
	JB   key

	// DI is now one source block's worth past the group's start.
	LEAQ (DI)(R15*8), DI
	SUBQ R15, DI
	ADDQ $128, SI
	ADDQ $8, R13
	DECQ groups-16(SP)
	JNZ  group

done:
	MOVQ  $0xfefefefefefefefe, AX
	ANDQ  selor-24(SP), AX
	SETNE bad+96(FP)
	RET

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
