package prgparams

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/internal/aes128"
)

func TestPackLayout(t *testing.T) {
	keys := [][16]byte{{1, 2, 3}, {4, 5, 6}}
	b := Pack([2]uint32{0x12345678, 0x9abcdef0}, keys, gofss.DefaultHashKey)
	require.Len(t, b, Size)
	assert.Equal(t, uint32(0x12345678), binary.LittleEndian.Uint32(b[0:]))
	assert.Equal(t, uint32(0x9abcdef0), binary.LittleEndian.Uint32(b[4:]))
	// Round key 0 of each key is the key itself; unused keys stay zero.
	assert.Equal(t, keys[0][:], b[8:24])
	assert.Equal(t, keys[1][:], b[8+176:8+176+16])
	assert.Equal(t, make([]byte, 2*176), b[8+2*176:8+4*176])
	// Round key 10 lands at the end of each key's 44 words.
	last := aes128.RoundKeys(keys[1])[10]
	assert.Equal(t, last[:], b[8+176+160:8+2*176])
	s := aes128.SBox()
	assert.Equal(t, s[:], b[Size-16-256:Size-16])
	// The hash key's words little-endian, as the vectors write it.
	assert.Equal(t, []uint32{0x12345678, 0x9abcdef0, 0x13572468, 0x2468ace0}, []uint32{
		binary.LittleEndian.Uint32(b[Size-16:]), binary.LittleEndian.Uint32(b[Size-12:]),
		binary.LittleEndian.Uint32(b[Size-8:]), binary.LittleEndian.Uint32(b[Size-4:])})

	assert.PanicsWithValue(t, "prgparams: 5 AES keys, at most 4 fit", func() {
		Pack([2]uint32{}, make([][16]byte, 5), gofss.Block{})
	})
}

func TestPackHashKeys(t *testing.T) {
	b := PackHashKeys(gofss.DefaultVdpfHash(gofss.HashBlake3))
	require.Len(t, b, HashKeysSize)
	words := make([]uint32, 16)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	// The XH key, then the H' key, as docs/spec.md section 15 writes them.
	assert.Equal(t, []uint32{0x11111111, 0x22222222, 0x33333333, 0x44444444, 0x55555555, 0x66666666, 0x77777777,
		0x88888888, 0xa1b2c3d4, 0xe5f60718, 0x192a3b4c, 0x5d6e7f80, 0x91a2b3c4, 0xd5e6f708, 0x090a0b0c, 0x0d0e0f10},
		words)
	sha := PackHashKeys(gofss.DefaultVdpfHash(gofss.HashSha256))
	assert.Equal(t, make([]byte, 16), sha[16:32], "sha256: one block per key")
	assert.Equal(t, uint32(0x0fedcba9), binary.LittleEndian.Uint32(sha[32:]))
}
