// Package gofss implements function secret sharing: distributed point functions
// (DPF) and distributed comparison functions (DCF), bit-compatible with the
// reference library myl7/fss.
//
// A function f is split into two keys; each party evaluates its key at an input and
// gets a share, and the two shares add up (in the output group) to f(input). The byte
// formats and algorithms are those of the project's SPEC.md: blocks are 16 bytes whose
// bit 0 of byte 12 is the control bit, correction words are 32 bytes, and inputs are
// read most significant bit first.
//
// Every operation is batched: Gen makes K keys, Eval evaluates K keys at M points
// each, EvalAll evaluates K keys on the whole domain. Outputs go into slices the
// caller provides, and large batches are spread over goroutines.
package gofss
