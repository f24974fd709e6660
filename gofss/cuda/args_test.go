package cuda

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
)

// argAt reads parameter i of a list.
func argAt[T uint32 | uint64](a *args, i int) T {
	b := a.buf[a.offsets[i]:]
	if a.sizes[i] == 8 {
		return T(binary.LittleEndian.Uint64(b))
	}
	return T(binary.LittleEndian.Uint32(b))
}

func TestArgsLayout(t *testing.T) {
	a := newArgs([]byte{1, 2, 3, 4, 5})
	a.ptr(0x1122334455667788).u32(7).i32(-1).u64(9)
	assert.Equal(t, []int{0, 8, 16, 20, 24}, a.offsets)
	assert.Equal(t, []int{5, 8, 4, 4, 8}, a.sizes)
	assert.Len(t, a.buf, 32)
	assert.Equal(t, uint32(0xffffffff), argAt[uint32](a, 3))
}
