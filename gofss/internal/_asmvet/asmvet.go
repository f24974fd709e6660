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
