//go:build !purego

#include "textflag.h"
#include "go_asm.h"

// ENC is the offset of a Key's round keys.
#define ENC (Key_arch+archKey_enc)

// Eight blocks are in flight in V0-V7, their source blocks in V8-V15 for the MMO
// feed-forward. AESE XORs the round key and applies SubBytes and ShiftRows; AESMC is
// MixColumns. Each AESE stays next to the AESMC on the same register, the pair that
// many cores fuse into one operation.

#define ENC1(K, S) \
	AESE  K.B16, S.B16; \
	AESMC S.B16, S.B16

#define ROUND8(K) \
	ENC1(K, V0); \
	ENC1(K, V1); \
	ENC1(K, V2); \
	ENC1(K, V3); \
	ENC1(K, V4); \
	ENC1(K, V5); \
	ENC1(K, V6); \
	ENC1(K, V7)

#define LAST8(K) \
	AESE K.B16, V0.B16; \
	AESE K.B16, V1.B16; \
	AESE K.B16, V2.B16; \
	AESE K.B16, V3.B16; \
	AESE K.B16, V4.B16; \
	AESE K.B16, V5.B16; \
	AESE K.B16, V6.B16; \
	AESE K.B16, V7.B16

// FINISH8 XORs the last round key K and the source blocks into V0-V7.
#define FINISH8(K) \
	VEOR V0.B16, K.B16, V0.B16;  \
	VEOR V0.B16, V8.B16, V0.B16;  \
	VEOR V1.B16, K.B16, V1.B16;  \
	VEOR V1.B16, V9.B16, V1.B16;  \
	VEOR V2.B16, K.B16, V2.B16;  \
	VEOR V2.B16, V10.B16, V2.B16; \
	VEOR V3.B16, K.B16, V3.B16;  \
	VEOR V3.B16, V11.B16, V3.B16; \
	VEOR V4.B16, K.B16, V4.B16;  \
	VEOR V4.B16, V12.B16, V4.B16; \
	VEOR V5.B16, K.B16, V5.B16;  \
	VEOR V5.B16, V13.B16, V5.B16; \
	VEOR V6.B16, K.B16, V6.B16;  \
	VEOR V6.B16, V14.B16, V6.B16; \
	VEOR V7.B16, K.B16, V7.B16;  \
	VEOR V7.B16, V15.B16, V7.B16

// STORE8 writes V0-V7 to p, p+s, p+2s, ...; it moves p.
#define STORE8(p, s) \
	VST1.P [V0.B16], (p)(s); \
	VST1.P [V1.B16], (p)(s); \
	VST1.P [V2.B16], (p)(s); \
	VST1.P [V3.B16], (p)(s); \
	VST1.P [V4.B16], (p)(s); \
	VST1.P [V5.B16], (p)(s); \
	VST1.P [V6.B16], (p)(s); \
	VST1.P [V7.B16], (p)(s)

// LOADKEYS loads the round keys of the Key at k into V16-V26; it moves k.
#define LOADKEYS(k) \
	ADD    $ENC, k;                                    \
	VLD1.P 64(k), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	VLD1.P 64(k), [V20.B16, V21.B16, V22.B16, V23.B16]; \
	VLD1   (k), [V24.B16, V25.B16, V26.B16]

// ONEBLOCK encrypts V0 with the round keys in V16-V26 and XORs in the source V8.
#define ONEBLOCK \
	ENC1(V16, V0); \
	ENC1(V17, V0); \
	ENC1(V18, V0); \
	ENC1(V19, V0); \
	ENC1(V20, V0); \
	ENC1(V21, V0); \
	ENC1(V22, V0); \
	ENC1(V23, V0); \
	ENC1(V24, V0); \
	AESE V25.B16, V0.B16;        \
	VEOR V0.B16, V26.B16, V0.B16; \
	VEOR V0.B16, V8.B16, V0.B16

// func mmoARMv8Blocks(keys []*Key, dst, src []byte)
// len(keys) > 0. For every group of 8 source blocks and every key, the 8 blocks share
// the round keys; the last len(src)/16 % 8 blocks go one at a time.
TEXT ·mmoARMv8Blocks(SB), NOSPLIT, $0-72
	MOVD keys_base+0(FP), R0
	MOVD keys_len+8(FP), R1
	MOVD dst_base+24(FP), R2
	MOVD src_base+48(FP), R3
	MOVD src_len+56(FP), R4
	ADD  R1<<3, R0, R6         // end of keys
	LSL  $4, R1, R5            // dst bytes from one source block to the next
	LSR  $7, R4, R7            // whole groups
	UBFX $4, R4, $3, R8        // blocks after them
	CBZ  R7, tail

group:
	VLD1.P 64(R3), [V8.B16, V9.B16, V10.B16, V11.B16]
	VLD1.P 64(R3), [V12.B16, V13.B16, V14.B16, V15.B16]
	MOVD   R0, R9              // key cursor
	MOVD   R2, R10             // dst of the current key's output for block 0

key:
	MOVD.P 8(R9), R11
	LOADKEYS(R11)
	VORR   V8.B16, V8.B16, V0.B16
	VORR   V9.B16, V9.B16, V1.B16
	VORR   V10.B16, V10.B16, V2.B16
	VORR   V11.B16, V11.B16, V3.B16
	VORR   V12.B16, V12.B16, V4.B16
	VORR   V13.B16, V13.B16, V5.B16
	VORR   V14.B16, V14.B16, V6.B16
	VORR   V15.B16, V15.B16, V7.B16
	ROUND8(V16)
	ROUND8(V17)
	ROUND8(V18)
	ROUND8(V19)
	ROUND8(V20)
	ROUND8(V21)
	ROUND8(V22)
	ROUND8(V23)
	ROUND8(V24)
	LAST8(V25)
	FINISH8(V26)
	MOVD   R10, R12
	STORE8(R12, R5)
	ADD    $16, R10
	CMP    R6, R9
	BNE    key

	ADD  R5<<3, R2
	SUBS $1, R7
	BNE  group

tail:
	CBZ R8, done

tailblock:
	VLD1.P 16(R3), [V8.B16]
	MOVD   R0, R9
	MOVD   R2, R10

tailkey:
	MOVD.P 8(R9), R11
	LOADKEYS(R11)
	VORR   V8.B16, V8.B16, V0.B16
	ONEBLOCK
	VST1.P [V0.B16], 16(R10)
	CMP    R6, R9
	BNE    tailkey

	ADD  R5, R2
	SUBS $1, R8
	BNE  tailblock

done:
	RET

// SELKEY sets PTR to the Key that the block with sel byte at off(R4) uses for
// output j: keys[j] (at R9) or, if bit 0 of the byte is set, keys[h+j] (at R9+R13).
#define SELKEY(off, PTR) \
	MOVBU off(R4), PTR;  \
	AND   $1, PTR;       \
	NEG   PTR, PTR;      \
	AND   R13, PTR;      \
	MOVD  (R9)(PTR), PTR

// SELROUNDKEYS is SELKEY that points PTR to the Key's round keys.
#define SELROUNDKEYS(off, PTR) \
	SELKEY(off, PTR); \
	ADD $ENC, PTR

// SELROUND8 runs one round on V0-V7, each block with the next round key from its own
// pointer (R19-R26), which it moves.
#define SELROUND1(PTR, K, S) \
	VLD1.P 16(PTR), [K.B16]; \
	ENC1(K, S)

#define SELROUND8 \
	SELROUND1(R19, V16, V0); \
	SELROUND1(R20, V17, V1); \
	SELROUND1(R21, V18, V2); \
	SELROUND1(R22, V19, V3); \
	SELROUND1(R23, V20, V4); \
	SELROUND1(R24, V21, V5); \
	SELROUND1(R25, V22, V6); \
	SELROUND1(R26, V23, V7)

#define SELLAST1(PTR, K, S) \
	VLD1.P 16(PTR), [K.B16];        \
	AESE   K.B16, S.B16;          \
	VLD1   (PTR), [K.B16];          \
	VEOR   S.B16, K.B16, S.B16

// func mmoSelectARMv8Blocks(keys []*Key, dst, src, sel []byte)
// With h = len(keys)/2, output j of source block i comes from keys[j] or keys[h+j]
// by bit 0 of sel[i]. Groups of 8 source blocks, then the rest one at a time.
TEXT ·mmoSelectARMv8Blocks(SB), NOSPLIT, $0-96
	MOVD keys_base+0(FP), R0
	MOVD keys_len+8(FP), R1
	MOVD dst_base+24(FP), R2
	MOVD src_base+48(FP), R3
	MOVD sel_base+72(FP), R4
	MOVD sel_len+80(FP), R7
	LSR  $1, R1                // h
	LSL  $3, R1, R13           // bytes from keys[j] to keys[h+j]
	ADD  R13, R0, R6           // end of keys[:h]
	LSL  $4, R1, R5            // dst bytes from one source block to the next
	AND  $7, R7, R8            // blocks after the whole groups
	LSR  $3, R7                // whole groups
	CBZ  R7, seltail

selgroup:
	VLD1.P 64(R3), [V8.B16, V9.B16, V10.B16, V11.B16]
	VLD1.P 64(R3), [V12.B16, V13.B16, V14.B16, V15.B16]
	MOVD   R0, R9              // keys[j]
	MOVD   R2, R10

selkey:
	SELROUNDKEYS(0, R19)
	SELROUNDKEYS(1, R20)
	SELROUNDKEYS(2, R21)
	SELROUNDKEYS(3, R22)
	SELROUNDKEYS(4, R23)
	SELROUNDKEYS(5, R24)
	SELROUNDKEYS(6, R25)
	SELROUNDKEYS(7, R26)
	VORR V8.B16, V8.B16, V0.B16
	VORR V9.B16, V9.B16, V1.B16
	VORR V10.B16, V10.B16, V2.B16
	VORR V11.B16, V11.B16, V3.B16
	VORR V12.B16, V12.B16, V4.B16
	VORR V13.B16, V13.B16, V5.B16
	VORR V14.B16, V14.B16, V6.B16
	VORR V15.B16, V15.B16, V7.B16
	SELROUND8
	SELROUND8
	SELROUND8
	SELROUND8
	SELROUND8
	SELROUND8
	SELROUND8
	SELROUND8
	SELROUND8
	SELLAST1(R19, V16, V0)
	SELLAST1(R20, V17, V1)
	SELLAST1(R21, V18, V2)
	SELLAST1(R22, V19, V3)
	SELLAST1(R23, V20, V4)
	SELLAST1(R24, V21, V5)
	SELLAST1(R25, V22, V6)
	SELLAST1(R26, V23, V7)
	VEOR V0.B16, V8.B16, V0.B16
	VEOR V1.B16, V9.B16, V1.B16
	VEOR V2.B16, V10.B16, V2.B16
	VEOR V3.B16, V11.B16, V3.B16
	VEOR V4.B16, V12.B16, V4.B16
	VEOR V5.B16, V13.B16, V5.B16
	VEOR V6.B16, V14.B16, V6.B16
	VEOR V7.B16, V15.B16, V7.B16
	MOVD R10, R12
	STORE8(R12, R5)
	ADD  $16, R10
	ADD  $8, R9
	CMP  R6, R9
	BNE  selkey

	ADD  $8, R4
	ADD  R5<<3, R2
	SUBS $1, R7
	BNE  selgroup

seltail:
	CBZ R8, seldone

seltailblock:
	VLD1.P 16(R3), [V8.B16]
	MOVD   R0, R9
	MOVD   R2, R10

seltailkey:
	SELKEY(0, R11)
	LOADKEYS(R11)
	VORR   V8.B16, V8.B16, V0.B16
	ONEBLOCK
	VST1.P [V0.B16], 16(R10)
	ADD    $8, R9
	CMP    R6, R9
	BNE    seltailkey

	ADD  $1, R4
	ADD  R5, R2
	SUBS $1, R8
	BNE  seltailblock

seldone:
	RET
