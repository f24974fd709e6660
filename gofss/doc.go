// Package gofss implements function secret sharing: distributed point functions
// (DPF, and Half-Tree DPF) and distributed comparison functions (DCF, and Grotto DCF,
// whose bit shares are read from preprocessed keys), bit-compatible with the
// reference library myl7/fss.
//
// A function f is split into two keys; each party evaluates its key at an input and
// gets a share, and the two shares add up (in the output group) to f(input). The byte
// formats and algorithms are those of the repository's docs/spec.md: blocks are 16
// bytes whose bit 0 of byte 12 is the control bit, correction words are 32 bytes, and
// inputs are read most significant bit first.
//
// A scheme is made from its public parameters (Params) with New (NewGrottoDcf for
// Grotto), or with NewDpf, NewDcf and NewHalfTreeDpf from a PRG. Each scheme file
// (dpf.go, dcf.go, halftree.go, grotto.go) holds the portable algorithm; the faster
// walks that a CPU may run (the amd64 files, package internal/simd) are chosen once,
// when the scheme is made, from a registry (Impls, WithImpl).
//
// Every operation is batched: Gen makes K keys, Eval evaluates K keys at M points
// each, EvalAll evaluates K keys on the whole domain. Outputs go into slices the
// caller provides, and large batches are spread over goroutines.
package gofss
