package prgparams

import (
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FIPS-197 Appendix A.1: the cipher key and words of its schedule (written there
// big-endian), the whole last round key among them.
func TestExpandKeyFIPS197(t *testing.T) {
	var key [16]byte
	_, err := hex.Decode(key[:], []byte("2b7e151628aed2a6abf7158809cf4f3c"))
	require.NoError(t, err)
	w := ExpandKey(key)
	for i, want := range map[int]string{
		4: "a0fafe17", 5: "88542cb1", 20: "d4d1c6f8",
		40: "d014f9a8", 41: "c9ee2589", 42: "e13f0cc8", 43: "b6630ca6",
	} {
		b, err := hex.DecodeString(want)
		require.NoError(t, err)
		assert.Equal(t, binary.LittleEndian.Uint32(b), w[i], "w[%d]", i)
	}
}

// The S-box against values printed in FIPS-197 Figure 7.
func TestSbox(t *testing.T) {
	s := Sbox()
	for x, want := range map[int]byte{0x00: 0x63, 0x01: 0x7c, 0x53: 0xed, 0xff: 0x16, 0x10: 0xca} {
		assert.Equal(t, want, s[x], "S[%#x]", x)
	}
}

func TestPackLayout(t *testing.T) {
	keys := [][16]byte{{1, 2, 3}, {4, 5, 6}}
	b, err := Pack([2]uint32{0x12345678, 0x9abcdef0}, keys)
	require.NoError(t, err)
	require.Len(t, b, Size)
	assert.Equal(t, uint32(0x12345678), binary.LittleEndian.Uint32(b[0:]))
	assert.Equal(t, uint32(0x9abcdef0), binary.LittleEndian.Uint32(b[4:]))
	// Round key 0 of each key is the key itself; unused keys stay zero.
	assert.Equal(t, keys[0][:], b[8:24])
	assert.Equal(t, keys[1][:], b[8+176:8+176+16])
	assert.Equal(t, make([]byte, 2*176), b[8+2*176:8+4*176])
	s := Sbox()
	assert.Equal(t, s[:], b[Size-256:])

	_, err = Pack([2]uint32{}, make([][16]byte, 5))
	assert.Error(t, err)
}
