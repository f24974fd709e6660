//go:build unix

package main

import (
	"syscall"
	"unsafe"

	"github.com/pyfss/pyfss/gofss"
)

// freshCws returns n correction words in memory fresh from the OS, and a function
// that returns it. Each cell's keys then sit where a new process (or torch, for
// Python) would put them, whatever cells ran before: memory the heap recycles has
// been touched, and Gen's huge-page advice no longer takes effect on it.
func freshCws(n int) ([]gofss.Cw, func()) {
	size := n * int(unsafe.Sizeof(gofss.Cw{}))
	if size == 0 {
		return nil, func() {}
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	check(err)
	return unsafe.Slice((*gofss.Cw)(unsafe.Pointer(&mem[0])), n), func() { check(syscall.Munmap(mem)) }
}
