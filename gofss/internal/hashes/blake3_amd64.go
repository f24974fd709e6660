//go:build amd64 && !purego

package hashes

import (
	"golang.org/x/sys/cpu"

	"github.com/pyfss/pyfss/gofss/internal/cpupath"
)

//go:generate sh -c "cd _asm && go run . -out ../blake3x8_amd64.s -stubs ../blake3x8_stub_amd64.go -pkg hashes"

// blake3Set is one of the two sets of routines generated from one description:
// AVX-512's (AVX512VL, on 256-bit vectors: VPRORD rotates a word in one
// instruction, and the state needs no word on the stack) and AVX2's.
type blake3Set uint8

const (
	noBlake3Routines blake3Set = iota
	blake3AVX2
	blake3AVX512
)

func blake3Routines() []*cpupath.Impl[blake3Ops] {
	return []*cpupath.Impl[blake3Ops]{
		{Name: "avx512", Available: cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL, Ops: blake3Ops{blake3AVX512}},
		{Name: "avx2", Available: cpu.X86.HasAVX2, Ops: blake3Ops{blake3AVX2}},
	}
}

func (s blake3Set) x8(out *[32]byte, cv *[8]uint32, blocks *[64]byte, groups int, blen uint32) {
	if s == blake3AVX512 {
		blake3x8AVX512(out, cv, blocks, groups, blen)
		return
	}
	blake3x8AVX2(out, cv, blocks, groups, blen)
}

func (s blake3Set) xh(out *[32]byte, cv *[8]uint32, as, ss *[16]byte, groups, stride int, bit uint32) {
	if s == blake3AVX512 {
		blake3XHAVX512(out, cv, as, ss, groups, stride, bit)
		return
	}
	blake3XHAVX2(out, cv, as, ss, groups, stride, bit)
}

func (s blake3Set) one(out *[32]byte, cv *[8]uint32, block *[64]byte, blen uint32) {
	if s == blake3AVX512 {
		blake3OneAVX512(out, cv, block, blen)
		return
	}
	blake3OneAVX2(out, cv, block, blen)
}

func (s blake3Set) chainXH(pi *[64]byte, xh0, xh1 *[32]byte, as, ss *[16]byte, ts *uint8, cs *[64]byte, n int, hcv, xcv *[8]uint32) {
	if s == blake3AVX512 {
		blake3ChainXHAVX512(pi, xh0, xh1, as, ss, ts, cs, n, hcv, xcv)
		return
	}
	blake3ChainXHAVX2(pi, xh0, xh1, as, ss, ts, cs, n, hcv, xcv)
}

func (s blake3Set) chainLanes(pis, cs *[16][8]uint32, as, ss *[16]byte, soff *[8]int, ts *uint8, toff *[8]int, n int, hcv, xcv *[8]uint32) {
	if s == blake3AVX512 {
		blake3ChainLanesAVX512(pis, cs, as, ss, soff, ts, toff, n, hcv, xcv)
		return
	}
	blake3ChainLanesAVX2(pis, cs, as, ss, soff, ts, toff, n, hcv, xcv)
}

func (s blake3Set) stepLanes(pis *[16][8]uint32, pieces *[64]byte, poff *[8]int, n int, hcv *[8]uint32) {
	if s == blake3AVX512 {
		blake3StepLanesAVX512(pis, pieces, poff, n, hcv)
		return
	}
	blake3StepLanesAVX2(pis, pieces, poff, n, hcv)
}
