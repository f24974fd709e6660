// Package routines holds AVX-512 routines for the per-level steps of the DPF and DCF
// tree walks: applying the correction words to a level's PRG output, carrying the
// control bits, accumulating DCF values and converting leaves to outputs, many
// nodes per instruction. The PRG itself runs elsewhere (packages aes128, chacha),
// except with AES-128 MMO on a CPU with VAES (HasAES): the Eval, Gen and EvalAll
// routines then run the AES rounds themselves, so that the PRG output never goes
// through memory and the rounds overlap the correction work.
//
// The routines exist only in amd64 builds without the purego tag; package gofss
// holds the portable Go rendering of the same steps and uses these only where
// Available, testing one against the other.
package simd
