// Command _asm generates the amd64 routine of package feistel (run `go generate`
// in the package): one pass of the Feistel PRP's rounds backwards over eight
// values at once with AVX2, one value per 32-bit lane, each round's lookups in its
// table one VPGATHERDD.
package main

import (
	"flag"
	"log"
	"os"
	"regexp"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	// VPERMD's order that takes the low 32-bit words of four 64-bit values.
	lows := GLOBL("feistel_lows", RODATA|NOPTR)
	for i, w := range []uint32{0, 2, 4, 6, 0, 2, 4, 6} {
		DATA(4*i, U32(w))
	}

	TEXT("invertPassesAVX2", NOSPLIT, "func(vs *uint64, groups int, h uint64, f *[4]*uint32)")
	Pragma("noescape")
	Doc("invertPassesAVX2 is InvertPasses over groups*8 values at vs (2h <= 32): each",
		"value's low 32 bits, one pass of the four rounds backwards through the tables",
		"f[0..3], the result zero-extended back to 64 bits.")
	vs := Load(Param("vs"), GP64())
	groups := Load(Param("groups"), GP64())
	h := Load(Param("h"), GP64())
	f := Load(Param("f"), GP64())
	var tab [4]GPVirtual
	for r := range tab {
		tab[r] = GP64()
		MOVQ(Mem{Base: f, Disp: 8 * r}, tab[r])
	}

	// Physical registers throughout: a gather's destination, index and mask must
	// differ, which the register allocator does not know.
	count, mask, order := X13, Y14, Y15
	VMOVQ(h, count)
	// mask = ^(all ones << h) = 2^h - 1 in every lane.
	VPCMPEQD(Y0, Y0, Y0)
	VPSLLD(count, Y0, mask)
	VPXOR(Y0, mask, mask)
	VMOVDQU(lows, order)

	Label("group")
	CMPQ(groups, Imm(0))
	JE(LabelRef("done"))

	Comment("y: the low words of the eight values.")
	y := Y2
	VPERMD(Mem{Base: vs}, order, Y0)
	VPERMD(Mem{Base: vs, Disp: 32}, order, Y1)
	VINSERTI128(Imm(1), X1, Y0, y)

	Comment("(l4, r4) = the halves of y.")
	l4, r4 := Y3, Y4
	VPSRLD(count, y, l4)
	VPAND(mask, l4, l4)
	VPAND(mask, y, r4)

	Comment("Rounds 3 .. 0 backwards: next = prev ^ F_r(cur), F_r from table r.")
	// (prev, cur) -> next for r = 3, 2, 1, 0: l3 = r4 ^ F3(l4), l2 = l4 ^ F2(l3),
	// l1 = l3 ^ F1(l2), l0 = l2 ^ F0(l1).
	halves := []VecPhysical{r4, l4, Y5, Y6, Y7, Y8}
	for k, r := 0, 3; r >= 0; k, r = k+1, r-1 {
		prev, cur, next := halves[k], halves[k+1], halves[k+2]
		VPCMPEQD(Y9, Y9, Y9)
		VPXOR(Y10, Y10, Y10)
		VPGATHERDD(Y9, Mem{Base: tab[r], Index: cur, Scale: 4}, Y10)
		VPAND(mask, Y10, Y10)
		VPXOR(prev, Y10, next)
	}
	l1, l0 := Y7, Y8

	Comment("x = (l0 << h) | l1, widened to 64 bits.")
	VPSLLD(count, l0, l0)
	VPOR(l1, l0, l0)
	VPMOVZXDQ(X8, Y0)
	VEXTRACTI128(Imm(1), l0, X1)
	VPMOVZXDQ(X1, Y1)
	VMOVDQU(Y0, Mem{Base: vs})
	VMOVDQU(Y1, Mem{Base: vs, Disp: 32})

	ADDQ(U32(64), vs)
	DECQ(groups)
	JMP(LabelRef("group"))

	Label("done")
	VZEROUPPER()
	RET()

	Generate()
	checkVEX(flag.Lookup("out").Value.String(), "invertPassesAVX2")
}

// checkVEX fails if function fn uses a register that only AVX-512 can encode: the
// assembler would then pick an EVEX encoding that AVX2-only CPUs cannot run.
func checkVEX(file, fn string) {
	b, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "TEXT ·"+fn+"(")
	if start < 0 {
		log.Fatalf("%s: no function %s", file, fn)
	}
	body := text[start+1:]
	if end := strings.Index(body, "TEXT ·"); end >= 0 {
		body = body[:end]
	}
	if r := regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`).FindString(body); r != "" {
		log.Fatalf("%s: %s uses %s, which needs AVX-512", file, fn, r)
	}
}
