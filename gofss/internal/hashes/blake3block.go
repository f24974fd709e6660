package hashes

import (
	"encoding/binary"
	"math/bits"
)

// BLAKE3's keyed hash of messages of one block (at most 64 bytes), one compression
// each, without the streaming state of a hash.Hash: through zeebo/blake3's
// Reset/Write/Sum a one-block keyed hash costs several times its compression
// (docs/performance.md). The message schedule and the flags are those of the
// BLAKE3 specification; a one-block message is a whole chunk and the root, so its
// compression has the counter 0 and the flags below.

// blake3OneBlockFlags are CHUNK_START | CHUNK_END | ROOT | KEYED_HASH.
const blake3OneBlockFlags = 1 | 2 | 8 | 16

// blake3Schedule[r] are the message words that round r takes, in the order its
// eight G functions use them: the message permutation applied r times.
var blake3Schedule = func() (s [7][16]uint8) {
	perm := [16]uint8{2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8}
	for i := range s[0] {
		s[0][i] = uint8(i)
	}
	for r := 1; r < len(s); r++ {
		for i, p := range perm {
			s[r][i] = s[r-1][p]
		}
	}
	return s
}()

// blake3Key reads a 32-byte key as BLAKE3's chaining value.
func blake3Key(key []byte) (cv [8]uint32) {
	for i := range cv {
		cv[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	return cv
}

// blake3Compress is the portable keyed one-block hash: out is the first 32 bytes
// of the output of the compression of block (the message, zero-padded to 64
// bytes) of blen bytes with the key cv. The state is in local variables, not an
// array, so that it stays in registers.
func blake3Compress(out *[32]byte, cv *[8]uint32, block *[64]byte, blen uint32) {
	var m [16]uint32
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(block[4*i:])
	}
	v0, v1, v2, v3, v4, v5, v6, v7 := cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7]
	// BLAKE3's IV is SHA-256's.
	v8, v9, v10, v11 := sha256IV[0], sha256IV[1], sha256IV[2], sha256IV[3]
	v12, v13, v14, v15 := uint32(0), uint32(0), blen, uint32(blake3OneBlockFlags)
	for r := range blake3Schedule {
		s := &blake3Schedule[r]
		v0, v4, v8, v12 = blake3G(v0, v4, v8, v12, m[s[0]&15], m[s[1]&15])
		v1, v5, v9, v13 = blake3G(v1, v5, v9, v13, m[s[2]&15], m[s[3]&15])
		v2, v6, v10, v14 = blake3G(v2, v6, v10, v14, m[s[4]&15], m[s[5]&15])
		v3, v7, v11, v15 = blake3G(v3, v7, v11, v15, m[s[6]&15], m[s[7]&15])
		v0, v5, v10, v15 = blake3G(v0, v5, v10, v15, m[s[8]&15], m[s[9]&15])
		v1, v6, v11, v12 = blake3G(v1, v6, v11, v12, m[s[10]&15], m[s[11]&15])
		v2, v7, v8, v13 = blake3G(v2, v7, v8, v13, m[s[12]&15], m[s[13]&15])
		v3, v4, v9, v14 = blake3G(v3, v4, v9, v14, m[s[14]&15], m[s[15]&15])
	}
	for i, w := range [8]uint32{v0 ^ v8, v1 ^ v9, v2 ^ v10, v3 ^ v11, v4 ^ v12, v5 ^ v13, v6 ^ v14, v7 ^ v15} {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
}

// blake3G is BLAKE3's quarter round on state words a, b, c, d with message words
// x and y.
func blake3G(a, b, c, d, x, y uint32) (uint32, uint32, uint32, uint32) {
	a += b + x
	d = bits.RotateLeft32(d^a, -16)
	c += d
	b = bits.RotateLeft32(b^c, -12)
	a += b + y
	d = bits.RotateLeft32(d^a, -8)
	c += d
	b = bits.RotateLeft32(b^c, -7)
	return a, b, c, d
}

// blake3Many hashes blocks[i] (each blen bytes, zero-padded) into out[i], eight at
// a time where the CPU has AVX2.
func blake3Many(out [][32]byte, cv *[8]uint32, blocks [][64]byte, blen uint32) {
	i := 0
	if haveBlake3Lanes() {
		blake3x8(out, cv, blocks, blen)
		i = len(blocks) &^ 7
		if rest := len(blocks) - i; rest > 2 {
			// A partial group through the eight-lane routine: from three messages
			// on it beats compressing them one by one (a pass of eight took about
			// 1.6 times one message alone).
			var inb [8][64]byte
			var outb [8][32]byte
			copy(inb[:], blocks[i:])
			blake3x8(outb[:], cv, inb[:], blen)
			copy(out[i:], outb[:rest])
			return
		}
	}
	for ; i < len(blocks); i++ {
		if haveBlake3Lanes() {
			blake3One(&out[i], cv, &blocks[i], blen)
		} else {
			blake3Compress(&out[i], cv, &blocks[i], blen)
		}
	}
}
