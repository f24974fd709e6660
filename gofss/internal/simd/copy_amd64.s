//go:build amd64 && !purego

#include "textflag.h"

// func copyNT(dst, src *Block, n int)
//
// Blocks up to dst's first 64-byte boundary and after its last go by ordinary stores,
// the whole lines between by non-temporal ones.
TEXT ·copyNT(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

head:
	TESTQ CX, CX
	JZ    done
	TESTQ $63, DI
	JZ    body
	MOVOU (SI), X0
	MOVOU X0, (DI)
	ADDQ  $16, SI
	ADDQ  $16, DI
	DECQ  CX
	JMP   head

body:
	CMPQ      CX, $4
	JB        tail
	VMOVDQU64 (SI), Z0
	VMOVNTDQ  Z0, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $4, CX
	JMP       body

tail:
	TESTQ CX, CX
	JZ    fence
	MOVOU (SI), X0
	MOVOU X0, (DI)
	ADDQ  $16, SI
	ADDQ  $16, DI
	DECQ  CX
	JMP   tail

fence:
	SFENCE
	VZEROUPPER

done:
	RET
