//go:build amd64 && !purego

package gofss

import (
	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/simd"
)

// simdOnCPU: this CPU runs the routines of the fast walks.
var simdOnCPU = simd.Available

// fusedEvalImpls name the implementations whose Eval runs a fused AES walk.
var fusedEvalImpls = []string{"avx512-vaes", "avx2-vaes", "avx2-aesni"}

// avx2Walks: the implementation aes128_mmo gets under each AES backend on a CPU
// with AVX2 but without AVX-512.
var avx2Walks = map[string]string{}

func init() {
	if simd.FusedAESNI.Available {
		avx2Walks = map[string]string{aes128.VAES256: "avx2-vaes", "aesni": "avx2-aesni"}
	}
}
