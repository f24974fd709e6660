//go:build linux || darwin

package aes128

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// endOfMapping returns n bytes that end exactly where an inaccessible page begins.
func endOfMapping(t *testing.T, n int) []byte {
	page := syscall.Getpagesize()
	size := (n+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Munmap(mem) })
	require.NoError(t, syscall.Mprotect(mem[size-page:], syscall.PROT_NONE))
	return mem[size-page-n : size-page : size-page]
}
