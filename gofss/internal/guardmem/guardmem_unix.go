//go:build linux || darwin

// Package guardmem gives tests buffers that end where unreadable memory begins, so
// that an assembly routine reading one byte too many crashes the test.
package guardmem

import (
	"syscall"
	"testing"
)

// EndOfMapping returns n bytes that end exactly where an inaccessible page begins.
func EndOfMapping(t testing.TB, n int) []byte {
	page := syscall.Getpagesize()
	size := (n+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[size-page:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return mem[size-page-n : size-page : size-page]
}
