// Package hashes holds the two keyed hashes of VDPF (docs/spec.md section 15) over
// SHA-256 and BLAKE3: H'(m), which hashes four blocks to two, and the
// XOR-collision-resistant XH(a, s), which hashes two blocks to four.
//
// SHA-256 is our own compression with the CPU's SHA extensions where there are some
// (sha256block.go: the messages are one or two blocks, and crypto/sha256's
// buffering and padding cost as much again), else the standard library's; BLAKE3 is github.com/zeebo/blake3, whose compression of a single block runs
// in SSE4.1 assembly: VDPF hashes many short messages of one block each, so that is
// the path that matters, and on it zeebo/blake3 measured about 1.6 times as fast as
// lukechampine.com/blake3, whose single-block path is Go code (its assembly serves
// messages of several chunks).
package hashes

import (
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/zeebo/blake3"
)

// Kind names a hash function.
type Kind uint8

// The hash functions.
const (
	Sha256 Kind = iota // SHA-256 with the key as a 16-byte prefix of the message
	Blake3             // BLAKE3's keyed hash with a 32-byte key
)

// KeyBytes is the key length of each kind: 16 (one block) for SHA-256, 32 for BLAKE3.
func (k Kind) KeyBytes() int {
	if k == Sha256 {
		return 16
	}
	return 32
}

// Keyed is one keyed instance of a hash function, safe for concurrent use: each
// call takes a Hasher from its pool.
type Keyed struct {
	kind Kind
	key  [32]byte // SHA-256 uses the first 16 bytes
	pool sync.Pool
}

// New returns the hash of the given kind keyed with key, which must hold
// kind.KeyBytes() bytes.
func New(kind Kind, key []byte) (*Keyed, error) {
	if kind != Sha256 && kind != Blake3 {
		return nil, fmt.Errorf("hashes: unknown kind %d", kind)
	}
	if len(key) != kind.KeyBytes() {
		return nil, fmt.Errorf("hashes: the key must have %d bytes, not %d", kind.KeyBytes(), len(key))
	}
	k := &Keyed{kind: kind}
	copy(k.key[:], key)
	k.pool.New = func() any {
		h := &Hasher{k: k}
		// SHA-256's prefix and padding, written once: H' hashes 80 bytes (two
		// blocks), XH 48 (one block each).
		copy(h.buf[:16], k.key[:16])
		padSha256(h.buf[:], 80)
		for i := range h.pair {
			copy(h.pair[i][:16], k.key[:16])
			padSha256(h.pair[i][:], 48)
		}
		if kind == Blake3 {
			h.b3, _ = blake3.NewKeyed(k.key[:]) // the length was checked above
		}
		return h
	}
	return k, nil
}

// Get returns a Hasher of k for one goroutine; Put gives it back.
func (k *Keyed) Get() *Hasher { return k.pool.Get().(*Hasher) }

// Hasher computes the hashes of a Keyed. It is not safe for concurrent use.
type Hasher struct {
	k  *Keyed
	b3 *blake3.Hasher
	// The key (SHA-256's prefix), then the message of up to 64 bytes, then room
	// for SHA-256's padding: two blocks.
	buf  [128]byte
	pair [2][64]byte // XH's two SHA-256 messages, padded
}

// Put gives h back to its Keyed's pool.
func (h *Hasher) Put() { h.k.pool.Put(h) }

// sum hashes the message of n bytes (32 or 64) at buf[16:] into out, through
// crypto/sha256 or keyed BLAKE3.
func (h *Hasher) sum(out *[32]byte, n int) {
	if h.b3 != nil {
		h.b3.Reset()
		_, _ = h.b3.Write(h.buf[16 : 16+n]) // a hash.Hash's Write never fails
		h.b3.Sum(out[:0])
		return
	}
	*out = sha256.Sum256(h.buf[:16+n])
}

// shaNI tells whether h hashes with SHA-256 through the SHA extensions: then buf
// and pair hold the key and the padding already, and a call writes the message
// alone.
func (h *Hasher) shaNI() bool { return h.b3 == nil && haveSHANI }

// H hashes four blocks to two: H'(m).
func (h *Hasher) H(out *[32]byte, m *[64]byte) {
	*(*[64]byte)(h.buf[16:]) = *m
	if h.shaNI() {
		sumBlocks(out, h.buf[:])
		return
	}
	h.sum(out, 64)
}

// XorHash hashes two blocks to four: XH(a, s) = sum(clamp(a) || s) || sum(with_lsb(a,
// 1) || s), where the clamped bit is bit 0 of byte 12 of a.
func (h *Hasher) XorHash(out *[64]byte, a, s *[16]byte) {
	if h.shaNI() {
		// Two one-block messages that differ in one bit, compressed side by side.
		for i := range h.pair {
			*(*[16]byte)(h.pair[i][16:]) = *a
			*(*[16]byte)(h.pair[i][32:]) = *s
		}
		h.pair[0][16+12] &^= 1
		h.pair[1][16+12] |= 1
		sumPair(out, &h.pair)
		return
	}
	*(*[16]byte)(h.buf[16:]) = *a
	*(*[16]byte)(h.buf[32:]) = *s
	h.buf[16+12] &^= 1
	h.sum((*[32]byte)(out[:32]), 32)
	h.buf[16+12] |= 1
	h.sum((*[32]byte)(out[32:]), 32)
}
