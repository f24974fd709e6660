//go:build unix

package binding

import (
	"encoding/binary"
	"math"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// foreignPage maps one page outside the Go heap, like the tensor memory that
// view wraps in production; -race (which turns on checkptr) then checks view the
// way it will be used.
func foreignPage(t *testing.T) ([]byte, uintptr) {
	t.Helper()
	page, err := syscall.Mmap(-1, 0, syscall.Getpagesize(),
		syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, syscall.Munmap(page)) })
	return page, uintptr(unsafe.Pointer(&page[0]))
}

func TestViewAliasesCallerMemory(t *testing.T) {
	page, addr := foreignPage(t)
	words, err := view[uint32]("buf", addr+8, 4)
	require.NoError(t, err)
	require.Len(t, words, 4)
	assert.Equal(t, 4, cap(words), "appending must not run into memory past the view")

	words[1] = 0x01020304
	assert.Equal(t, uint32(0x01020304), binary.NativeEndian.Uint32(page[12:16]))
	binary.NativeEndian.PutUint32(page[20:24], 0xdeadbeef)
	assert.Equal(t, uint32(0xdeadbeef), words[3])
}

func TestViewEmpty(t *testing.T) {
	for _, addr := range []uintptr{0, 1, 0x1000} {
		s, err := view[uint64]("buf", addr, 0)
		require.NoError(t, err, "addr %#x", addr)
		assert.Empty(t, s)
	}
}

func TestViewRejects(t *testing.T) {
	_, addr := foreignPage(t)
	tests := []struct {
		name string
		fn   func() error
	}{
		{"negative length", func() error { _, err := view[byte]("buf", addr, -1); return err }},
		{"null address", func() error { _, err := view[byte]("buf", 0, 1); return err }},
		{"misaligned int32", func() error { _, err := view[int32]("buf", addr+2, 1); return err }},
		{"misaligned uint64", func() error { _, err := view[uint64]("buf", addr+4, 1); return err }},
		{"wraps around", func() error { _, err := view[uint32]("buf", math.MaxUint&^3, 2); return err }},
		{"length times size overflows", func() error { _, err := view[uint64]("buf", addr, math.MaxInt); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Error(t, tt.fn()) })
	}
}

func TestViewAcceptsBytesAtAnyOffset(t *testing.T) {
	_, addr := foreignPage(t)
	b, err := view[byte]("buf", addr+3, 5)
	require.NoError(t, err)
	assert.Len(t, b, 5)
}
