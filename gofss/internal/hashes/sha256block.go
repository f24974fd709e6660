package hashes

import "encoding/binary"

// SHA-256 one compression at a time, for messages of one or two blocks whose
// padding is known in advance: crypto/sha256 spends about as long again on its
// buffering and padding as on the compression of such a short message
// (docs/performance.md). Used where the CPU has the SHA extensions.

// sha256IV is SHA-256's initial state (FIPS 180-4, 5.3.3).
var sha256IV = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// sha256K are the round constants (FIPS 180-4, 4.2.2).
var sha256K = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// padSha256 writes SHA-256's padding of an n-byte message into the end of the
// blocks holding it, buf (whose length is a multiple of 64): 0x80, zeros, and n in
// bits as a big-endian 64-bit integer.
func padSha256(buf []byte, n int) {
	buf[n] = 0x80
	clear(buf[n+1 : len(buf)-8])
	binary.BigEndian.PutUint64(buf[len(buf)-8:], uint64(8*n))
}

// sumBlocks is SHA-256 of the message in blocks, padded already.
func sumBlocks(out *[32]byte, blocks []byte) {
	h := sha256IV
	compress(&h, blocks)
	putState(out, &h)
}

// sumPair is SHA-256 of two messages of one block each, padded already: the
// hashes' states go through the rounds side by side.
func sumPair(out *[64]byte, p0, p1 *[64]byte) {
	var h [2][8]uint32
	compressPair(&h, p0, p1, &sha256IVPair)
	putState((*[32]byte)(out[:32]), &h[0])
	putState((*[32]byte)(out[32:]), &h[1])
}

// sha256IVPair is the starting state of two messages.
var sha256IVPair = [2][8]uint32{sha256IV, sha256IV}

// putState writes a state as SHA-256's output: its words big-endian.
func putState(out *[32]byte, h *[8]uint32) {
	for i, w := range h {
		binary.BigEndian.PutUint32(out[4*i:], w)
	}
}
