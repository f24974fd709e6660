package binding

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
)

func TestReadInputsForms(t *testing.T) {
	u32 := []uint32{0, 1, 0xffffffff}
	xs, buf, err := readInputs("xs", uintptr(unsafe.Pointer(&u32[0])), 1, len(u32), 0, 0)
	require.NoError(t, err)
	assert.Equal(t, []gofss.Uint128{{}, {Lo: 1}, {Lo: 0xffffffff}}, xs, "int32 entries are read as unsigned")
	putInputs(buf)

	u64 := []uint64{5, 1 << 63}
	xs, buf, err = readInputs("xs", uintptr(unsafe.Pointer(&u64[0])), 2, len(u64), 0, 0)
	require.NoError(t, err)
	assert.Equal(t, []gofss.Uint128{{Lo: 5}, {Lo: 1 << 63}}, xs)
	putInputs(buf)

	xs, buf, err = readInputs("xs", 0, 0, 3, 7, 9)
	require.NoError(t, err)
	assert.Equal(t, []gofss.Uint128{{Lo: 7, Hi: 9}, {Lo: 7, Hi: 9}, {Lo: 7, Hi: 9}}, xs, "a Python int for every point")
	putInputs(buf)

	// Four little-endian words per input: words 0-1 are the low half.
	words := []uint32{1, 2, 3, 4, 0xffffffff, 0, 0, 0x80000000}
	xs, buf, err = readInputs("xs", uintptr(unsafe.Pointer(&words[0])), 4, 2, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, []gofss.Uint128{{Lo: 2<<32 | 1, Hi: 4<<32 | 3}, {Lo: 0xffffffff, Hi: 0x80000000 << 32}}, xs)
	assert.Equal(t, unsafe.Pointer(&words[0]), unsafe.Pointer(&xs[0]), "the word form is read in place")
	assert.Nil(t, buf)

	_, _, err = readInputs("xs", 0, 3, 1, 0, 0)
	assert.ErrorContains(t, err, "xs: inputs must have 0, 1, 2 or 4 words")
}

// A pooled buffer must not carry one call's inputs into the next.
func TestReadInputsReusesBuffersCleanly(t *testing.T) {
	for n := range 40 {
		xs, buf, err := readInputs("xs", 0, 0, n, uint64(n), 0)
		require.NoError(t, err)
		require.Len(t, xs, n)
		for _, x := range xs {
			require.Equal(t, gofss.Uint128{Lo: uint64(n)}, x)
		}
		putInputs(buf)
	}
}
