//go:build !amd64

package hashes

// haveBlake3AVX2 is false: other architectures compress one message at a time.
var haveBlake3AVX2 = false

func blake3x8(out [][32]byte, cv *[8]uint32, blocks [][64]byte, blen uint32) {
	panic("hashes: no eight-lane BLAKE3 here")
}

func blake3One(out *[32]byte, cv *[8]uint32, block *[64]byte, blen uint32) {
	panic("hashes: no one-message BLAKE3 routine here")
}

func blake3Chain(pi *[64]byte, xhs [][64]byte, ts []uint8, cs *[64]byte, cv *[8]uint32) {
	panic("hashes: no BLAKE3 chain routine here")
}
