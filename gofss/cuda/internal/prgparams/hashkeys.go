package prgparams

import (
	"encoding/binary"

	"github.com/pyfss/pyfss/gofss"
)

// HashKeysSize is sizeof(HashKeys) of cuda/hash.cuh: the XH key, then the H' key, two
// blocks each.
const HashKeysSize = 64

// PackHashKeys returns the HashKeys image of a VDPF's hash parameter, which VDPF
// kernels take after PrgParams. SHA-256 keys have a zero second block.
func PackHashKeys(h gofss.VdpfHash) []byte {
	b := make([]byte, 0, HashKeysSize)
	for _, blk := range []gofss.Block{h.XorKey[0], h.XorKey[1], h.Key[0], h.Key[1]} {
		b = binary.LittleEndian.AppendUint64(b, blk.Lo)
		b = binary.LittleEndian.AppendUint64(b, blk.Hi)
	}
	return b
}
