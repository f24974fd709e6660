//go:build !linux && !darwin

// Package guardmem gives tests buffers that end where unreadable memory begins, so
// that an assembly routine reading one byte too many crashes the test.
package guardmem

import "testing"

// EndOfMapping returns n bytes; without mmap an over-read goes unnoticed here.
func EndOfMapping(_ testing.TB, n int) []byte { return make([]byte, n) }
