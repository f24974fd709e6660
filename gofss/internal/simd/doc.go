// Package simd holds AVX-512 routines for the per-level steps of the DPF and DCF
// tree walks: applying the correction words to a level's PRG output, carrying the
// control bits, accumulating DCF values and converting leaves to outputs, many
// nodes per instruction. The PRG itself runs elsewhere (packages aes128, chacha),
// except with AES-128 MMO on a CPU with VAES (HasAES): the Eval, Gen and EvalAll
// routines then run the AES rounds themselves, so that the PRG output never goes
// through memory and the rounds overlap the correction work.
//
// CPUs without AVX-512 get the fused routines alone (FusedEval: DPF and DCF Eval, the
// EvalAll and Gen levels, with AES-128 MMO), with AVX2 and VAES on 256-bit
// vectors or AES-NI on 128-bit ones, generated from one description by the command
// in _asm (`go generate`), which gives the AVX-512 routines from the same
// descriptions (the Eval level routines, AVX-512 alone, from their own).
//
// The routines exist only in amd64 builds without the purego tag; package gofss
// holds the portable Go rendering of the same steps and uses these only where
// Available (FusedEval.Available for the fused walks), testing one against the other.
package simd
