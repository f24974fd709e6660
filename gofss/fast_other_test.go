//go:build !amd64 || purego

package gofss

// simdOnCPU: builds without the routines have no fast walks.
const simdOnCPU = false

// fusedEvalImpls: builds without the routines have no fused Eval walks.
var fusedEvalImpls []string

// avx2Walks: nor AVX2 ones.
var avx2Walks map[string]string
