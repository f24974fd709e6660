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
	"encoding/binary"
	"fmt"
	"sync"
	"unsafe"

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
		for _, b := range []*[128]byte{&h.buf, &h.buf2} {
			copy(b[:16], k.key[:16])
			padSha256(b[:], 80)
		}
		for i := range h.pair {
			copy(h.pair[i][:16], k.key[:16])
			padSha256(h.pair[i][:], 48)
		}
		if kind == Blake3 {
			h.b3, _ = blake3.NewKeyed(k.key[:]) // the length was checked above
			h.cv = blake3Key(k.key[:])
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
	cv [8]uint32 // BLAKE3's key as its chaining value
	// The key (SHA-256's prefix), then the message of up to 64 bytes, then room
	// for SHA-256's padding: two blocks.
	buf  [128]byte
	buf2 [128]byte   // the same, for HMany's second message of a pair
	pair [2][64]byte // XH's two SHA-256 messages, padded
	// BLAKE3's XH messages of XorHashMany (zero beyond 32 bytes), and Chain's XH
	// outputs.
	blocks [][64]byte
	xhs    [][64]byte
}

// Put gives h back to its Keyed's pool.
func (h *Hasher) Put() { h.k.pool.Put(h) }

// sum hashes the message of n bytes (32 or 64) at buf[16:] into out, through
// crypto/sha256 or keyed BLAKE3 (zeebo/blake3's one-block path: see the package
// doc).
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
	if h.b3 != nil && haveBlake3AVX2 {
		blake3One(out, &h.cv, m, 64)
		return
	}
	*(*[64]byte)(h.buf[16:]) = *m
	if h.shaNI() {
		sumBlocks(out, h.buf[:])
		return
	}
	h.sum(out, 64)
}

// HMany is H of many messages: out[i] = H'(ms[i]), of one length. BLAKE3
// compresses eight messages at once (with AVX2), SHA-256 two side by side (with
// the SHA extensions).
func (h *Hasher) HMany(out [][32]byte, ms [][64]byte) {
	if len(ms) != len(out) {
		panic("hashes: HMany needs as many outputs as messages")
	}
	i := 0
	switch {
	case h.b3 != nil && haveBlake3AVX2:
		blake3Many(out, &h.cv, ms, 64)
		return
	case h.shaNI():
		for ; i+1 < len(ms); i += 2 {
			*(*[64]byte)(h.buf[16:]) = ms[i]
			*(*[64]byte)(h.buf2[16:]) = ms[i+1]
			var st [2][8]uint32
			compressPair(&st, (*[64]byte)(h.buf[:64]), (*[64]byte)(h.buf2[:64]), &sha256IVPair)
			compressPair(&st, (*[64]byte)(h.buf[64:]), (*[64]byte)(h.buf2[64:]), &st)
			putState(&out[i], &st[0])
			putState(&out[i+1], &st[1])
		}
	}
	for ; i < len(ms); i++ {
		h.H(&out[i], &ms[i])
	}
}

// XorHash hashes two blocks to four: XH(a, s) = sum(clamp(a) || s) || sum(with_lsb(a,
// 1) || s), where the clamped bit is bit 0 of byte 12 of a.
func (h *Hasher) XorHash(out *[64]byte, a, s *[16]byte) {
	if h.b3 != nil {
		h.XorHashMany(unsafe.Slice(out, 1), unsafe.Slice(a, 1), unsafe.Slice(s, 1))
		return
	}
	if haveSHANI {
		// Two one-block messages that differ in one bit, compressed side by side.
		h.setPair(a, s)
		sumPair(out, &h.pair[0], &h.pair[1])
		return
	}
	*(*[16]byte)(h.buf[16:]) = *a
	*(*[16]byte)(h.buf[32:]) = *s
	h.buf[16+12] &^= 1
	h.sum((*[32]byte)(out[:32]), 32)
	h.buf[16+12] |= 1
	h.sum((*[32]byte)(out[32:]), 32)
}

// setPair writes XH(a, s)'s two SHA-256 messages into pair.
func (h *Hasher) setPair(a, s *[16]byte) {
	for i := range h.pair {
		*(*[16]byte)(h.pair[i][16:]) = *a
		*(*[16]byte)(h.pair[i][32:]) = *s
	}
	h.pair[0][16+12] &^= 1
	h.pair[1][16+12] |= 1
}

// XorHashMany is XorHash of many pairs: out[i] = XH(as[i], ss[i]); the three have
// one length. BLAKE3 compresses the 2n messages eight at a time (with AVX2).
func (h *Hasher) XorHashMany(out [][64]byte, as, ss [][16]byte) {
	if len(as) != len(out) || len(ss) != len(out) {
		panic("hashes: XorHashMany needs as many outputs as inputs")
	}
	if h.b3 == nil {
		for i := range out {
			h.XorHash(&out[i], &as[i], &ss[i])
		}
		return
	}
	if len(out) == 0 {
		return
	}
	if cap(h.blocks) < 2*len(out) {
		h.blocks = make([][64]byte, 2*len(out)) // zero beyond the 32 bytes written
	}
	blocks := h.blocks[:2*len(out)]
	for i := range out {
		m0, m1 := &blocks[2*i], &blocks[2*i+1]
		*(*[16]byte)(m0[:]) = as[i]
		*(*[16]byte)(m0[16:]) = ss[i]
		m0[12] &^= 1
		*(*[32]byte)(m1[:]) = *(*[32]byte)(m0[:])
		m1[12] |= 1
	}
	// Output i is the two 32-byte hashes of its messages, one after the other.
	blake3Many(unsafe.Slice((*[32]byte)(unsafe.Pointer(&out[0])), 2*len(out)), &h.cv, blocks, 32)
}

// Chain runs VDPF's proof chain (docs/spec.md section 15) over n leaves, in order:
// the piece of leaf i is p = XH(as[i], ss[i]) ^ (cs if ts[i] == 1, else 0), hashed
// by x, and the proof takes pi[0:32] ^= H'(pi ^ p), hashed by h. With the SHA
// extensions each of the two compressions of H' runs side by side with one of the
// next leaf's XH (the chain waits on the latency of its compressions; XH of the
// next leaf does not wait on the chain); else XH of all leaves comes first, in
// one XorHashMany.
func (h *Hasher) Chain(pi *[64]byte, x *Hasher, as, ss [][16]byte, ts []uint8, cs *[64]byte) {
	n := len(as)
	if len(ss) != n || len(ts) != n {
		panic("hashes: Chain needs as many seeds and control bits as inputs")
	}
	if n == 0 {
		return
	}
	var o [32]byte
	step := func(xh *[64]byte, t uint8) {
		var m [64]byte
		xor64(&m, pi, xh)
		xorMasked(&m, cs, t)
		h.H(&o, &m)
		xor32(pi, &o)
	}
	if !h.shaNI() {
		if cap(h.xhs) < n {
			h.xhs = make([][64]byte, n)
		}
		xhs := h.xhs[:n]
		x.XorHashMany(xhs, as, ss)
		for i := range xhs {
			step(&xhs[i], ts[i])
		}
		return
	}
	var xh [64]byte
	x.XorHash(&xh, &as[0], &ss[0])
	for i := range n - 1 {
		m := (*[64]byte)(h.buf[16:80])
		xor64(m, pi, &xh)
		xorMasked(m, cs, ts[i])
		x.setPair(&as[i+1], &ss[i+1])
		var st [2][8]uint32
		compressPair(&st, (*[64]byte)(h.buf[:64]), &x.pair[0], &sha256IVPair)
		putState((*[32]byte)(xh[:32]), &st[1])
		iv := [2][8]uint32{st[0], sha256IV}
		compressPair(&st, (*[64]byte)(h.buf[64:]), &x.pair[1], &iv)
		putState((*[32]byte)(xh[32:]), &st[1])
		putState(&o, &st[0])
		xor32(pi, &o)
	}
	step(&xh, ts[n-1])
}

// xor64 is dst = a ^ b, and xor32 dst[:32] ^= b, eight bytes at a time.
func xor64(dst, a, b *[64]byte) {
	for i := 0; i < 64; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(a[i:])^binary.LittleEndian.Uint64(b[i:]))
	}
}

func xor32(dst *[64]byte, b *[32]byte) {
	for i := 0; i < 32; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])^binary.LittleEndian.Uint64(b[i:]))
	}
}

// xorMasked is dst ^= cs where t == 1 (t is 0 or 1), without a branch.
func xorMasked(dst, cs *[64]byte, t uint8) {
	mask := -uint64(t & 1)
	for i := 0; i < 64; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])^binary.LittleEndian.Uint64(cs[i:])&mask)
	}
}

// ForcePortable makes every hasher skip the CPU-specific routines (SHA extensions,
// AVX2) until restore is called: for tests of the callers' results on both paths.
// Not safe while hashes run.
func ForcePortable() (restore func()) {
	sha, b3 := haveSHANI, haveBlake3AVX2
	haveSHANI, haveBlake3AVX2 = false, false
	return func() { haveSHANI, haveBlake3AVX2 = sha, b3 }
}
