// Package asmvet holds the checks that the project's avo generators (the _asm
// commands beside the assembly they write) run on their output.
package asmvet

import (
	"log"
	"os"
	"regexp"
	"slices"
	"strings"
)

// evexOnly matches the registers that only AVX-512's EVEX encoding can name: X16-X31,
// Y16-Y31, any Z register and the mask registers.
var evexOnly = regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)

// NoEVEX stops the generator if the functions fns of the assembly file (all of it
// when fns is empty) use a register that only AVX-512 can encode: the register
// allocator may hand one out, and the assembler would then silently pick an EVEX
// encoding that the AVX2-only CPUs these functions are for cannot run.
func NoEVEX(file string, fns ...string) {
	b, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	text := string(b)
	if len(fns) == 0 {
		if r := evexOnly.FindString(text); r != "" {
			log.Fatalf("%s uses %s, which needs AVX-512", file, r)
		}
		return
	}
	for _, fn := range fns {
		start := strings.Index(text, "TEXT ·"+fn+"(")
		if start < 0 {
			log.Fatalf("%s: no function %s", file, fn)
		}
		body := text[start+1:]
		if end := strings.Index(body, "TEXT ·"); end >= 0 {
			body = body[:end]
		}
		if r := evexOnly.FindString(body); r != "" {
			log.Fatalf("%s: %s uses %s, which needs AVX-512", file, fn, r)
		}
	}
}

// NoEVEXExcept is NoEVEX over every function of the file but those named, which are
// for AVX-512 CPUs.
func NoEVEXExcept(file string, avx512 ...string) {
	b, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	var fns []string
	for _, m := range textName.FindAllStringSubmatch(string(b), -1) {
		if !slices.Contains(avx512, m[1]) {
			fns = append(fns, m[1])
		}
	}
	NoEVEX(file, fns...)
}

// textName matches a function's TEXT line and captures its name.
var textName = regexp.MustCompile(`(?m)^TEXT ·(\w+)\(`)

// vexOp and sseOp match an instruction line of a VEX (or EVEX) vector instruction
// and of a legacy SSE one: a mnemonic without the V prefix naming an X register.
var (
	vexOp = regexp.MustCompile(`(?m)^\s+V[A-Z0-9]+\s.*\b[XYZ]\d+\b`)
	sseOp = regexp.MustCompile(`(?m)^\s+[A-UW-Z][A-Z0-9]*\s.*\bX\d+\b`)
)

// NoSSEAmongVEX stops the generator if a function of the assembly file mixes legacy
// SSE instructions with VEX ones: where the upper halves of the vector registers
// are dirty, each switch costs a state transition, which measured about 110 ns on
// Zen 3 (a routine with one such MOVQ a key and level ran ten times slower).
func NoSSEAmongVEX(file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	for _, fn := range strings.Split(string(b), "\nTEXT ·")[1:] {
		if vexOp.MatchString(fn) {
			if l := sseOp.FindString(fn); l != "" {
				log.Fatalf("%s: %s mixes legacy SSE (%s) with VEX instructions", file, fn[:strings.Index(fn, "(")], strings.TrimSpace(l))
			}
		}
	}
}
