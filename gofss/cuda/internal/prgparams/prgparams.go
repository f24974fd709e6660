// Package prgparams packs the public PRG parameters into the PrgParams struct that
// every kernel takes (cuda/prg.cuh): the ChaCha nonce, the AES-128 round keys, the
// AES S-box and Half-Tree DPF's hash key, as little-endian bytes.
//
// The round keys are expanded here, once per launch, so no GPU thread repeats the key
// schedule; the S-box travels with them so that the kernels carry no table of their
// own and the host check builds its tables from the same bytes.
package prgparams

import (
	"encoding/binary"
	"fmt"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/internal/aes128"
)

// Size is sizeof(PrgParams): nonce[2] and aes_rk[4][44] as uint32, aes_sbox[256],
// hash_key[4] as uint32.
const Size = 4*(2+4*44) + 256 + 16

// MaxAESKeys is how many keys PrgParams has room for (DCF's mul).
const MaxAESKeys = 4

// Pack returns the PrgParams image. Keys beyond len(aesKeys) are left zero. More than
// MaxAESKeys keys panic: parameters that passed gofss.Params.Check have at most that.
// hashKey is zero but for half_tree_dpf.
func Pack(nonce [2]uint32, aesKeys [][16]byte, hashKey gofss.Block) []byte {
	if len(aesKeys) > MaxAESKeys {
		panic(fmt.Sprintf("prgparams: %d AES keys, at most %d fit", len(aesKeys), MaxAESKeys))
	}
	b := make([]byte, Size)
	binary.LittleEndian.PutUint32(b[0:], nonce[0])
	binary.LittleEndian.PutUint32(b[4:], nonce[1])
	// Each round key's words little-endian from its bytes: the byte order the
	// kernels' T-tables use.
	for i, key := range aesKeys {
		for r, k := range aes128.RoundKeys(key) {
			copy(b[8+4*(44*i+4*r):], k[:])
		}
	}
	sbox := aes128.SBox()
	copy(b[8+4*4*44:], sbox[:])
	binary.LittleEndian.PutUint64(b[Size-16:], hashKey.Lo)
	binary.LittleEndian.PutUint64(b[Size-8:], hashKey.Hi)
	return b
}
