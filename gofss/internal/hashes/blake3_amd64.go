//go:build amd64 && !purego

package hashes

import (
	"golang.org/x/sys/cpu"

	"github.com/pyfss/pyfss/gofss/internal/cpupath"
)

//go:generate sh -c "cd _asm && go run . -out ../blake3x8_amd64.s -stubs ../blake3x8_stub_amd64.go -pkg hashes"

// blake3Routines are the two sets of routines generated from one description:
// AVX-512's (AVX512VL, on 256-bit vectors: VPRORD rotates a word in one
// instruction, and the state needs no word on the stack) and AVX2's.
func blake3Routines() []*cpupath.Impl[blake3Ops] {
	return []*cpupath.Impl[blake3Ops]{
		{
			Name:      "avx512",
			Available: cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL,
			Ops:       blake3Ops{blake3x8AVX512, blake3OneAVX512, blake3ChainXHAVX512, blake3ChainLanesAVX512, blake3StepLanesAVX512},
		},
		{
			Name:      "avx2",
			Available: cpu.X86.HasAVX2,
			Ops:       blake3Ops{blake3x8AVX2, blake3OneAVX2, blake3ChainXHAVX2, blake3ChainLanesAVX2, blake3StepLanesAVX2},
		},
	}
}
