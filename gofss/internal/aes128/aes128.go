// Package aes128 computes AES-128 Matyas-Meyer-Oseas (MMO) with fixed, public keys
// over many independent blocks per call: out = AES-128-Encrypt(key, in) XOR in.
//
// Callers pass whole batches so that the fast backends can keep several blocks in
// flight; the portable backend is the reference the fast ones are tested against.
package aes128

import (
	"crypto/aes"
	"crypto/cipher"
)

// BlockSize is the size of one AES block in bytes.
const BlockSize = 16

// Key is one expanded AES-128 key.
type Key struct {
	arch   archKey // what the assembly paths read, filled once here; first, so that a *Key points at its round keys
	raw    [16]byte
	cipher cipher.Block // the portable path
}

// NewKey expands a 16-byte AES-128 key.
func NewKey(raw [16]byte) *Key {
	c, err := aes.NewCipher(raw[:])
	if err != nil {
		panic(err) // unreachable: a 16-byte key is always valid
	}
	k := &Key{raw: raw, cipher: c}
	k.arch.init(&raw)
	return k
}

// Raw returns the 16-byte key.
func (k *Key) Raw() [16]byte { return k.raw }

// MMO writes, for every 16-byte block src_i of src and every key j,
// dst block (i*len(keys)+j) = AES(keys[j], src_i) XOR src_i.
// len(dst) must be len(src)*len(keys); dst and src must not overlap.
func MMO(keys []*Key, dst, src []byte) {
	checkLengths(len(dst), len(src), len(keys))
	opsFor(len(src)).mmo(keys, dst, src)
}

// MMOSelect is MMO for half of the keys per block: with h = len(keys)/2, it writes
// dst block (i*h+j) = AES(keys[sel[i]*h+j], src_i) XOR src_i for j < h.
// sel[i] must be 0 or 1; len(sel) = len(src)/16; len(dst) = len(src)*h.
func MMOSelect(keys []*Key, dst, src []byte, sel []byte) {
	h := len(keys) / 2
	if h == 0 || len(keys)%2 != 0 {
		panic("aes128: MMOSelect needs an even, non-zero number of keys")
	}
	checkLengths(len(dst), len(src), h)
	if len(sel) != len(src)/BlockSize {
		panic("aes128: len(sel) != number of blocks")
	}
	opsFor(len(src)).mmoSelect(keys, dst, src, sel)
}

// FeistelPass replaces every v of vs by one pass of a four-round balanced Feistel
// network over two h-bit halves (v < 2^2h, h <= 32): round r maps (L, R) = (v >> h,
// v mod 2^h) to (R, L XOR F_r(R)), F_r(R) the low h bits of AES(keys[r], R) with R
// zero-extended to a block (little-endian), and the result is L << h | R. The
// multi-point schemes' PRP (its cycle walk around this) passes whole tiles here.
func FeistelPass(keys *[4]*Key, vs []uint64, h uint) {
	if h > 32 {
		panic("aes128: FeistelPass takes halves of at most 32 bits")
	}
	impls.Ops().feistel(keys, vs, h)
}

// smallBatch is the size in bytes up to which smallBatchOps, one block at a time,
// is faster than the wide routines, which set up their round keys per call.
const smallBatch = 2 * BlockSize

// opsFor returns the implementation for a batch of n bytes.
func opsFor(n int) ops {
	if n <= smallBatch && impls.Name() != portable.Name {
		return smallBatchOps
	}
	return impls.Ops()
}

func checkLengths(dst, src, mul int) {
	if src%BlockSize != 0 || dst != src*mul {
		panic("aes128: bad buffer lengths")
	}
}

// checkSel panics where a routine saw a sel value other than 0 or 1. The assembly
// routines pick one of the two keys whatever the byte, so no value makes them read
// outside keys; they report bad ones so that MMOSelect refuses them on every
// backend, as the portable one does.
func checkSel(bad bool) {
	if bad {
		panic("aes128: sel values must be 0 or 1")
	}
}
