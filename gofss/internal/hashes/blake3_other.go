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

func blake3ChainXH(pi *[64]byte, xh0 [][32]byte, xh1 *[32]byte, as, ss [][16]byte, ts []uint8, cs *[64]byte, hcv, xcv *[8]uint32) {
	panic("hashes: no BLAKE3 chain routine here")
}

func blake3ChainLanes(pis, cs *[16][8]uint32, as, ss [][16]byte, ts []uint8, off *[8]int, hcv, xcv *[8]uint32) {
	panic("hashes: no BLAKE3 lanes routine here")
}

func blake3StepLanes(pis *[16][8]uint32, pieces [][64]byte, poff *[8]int, n int, hcv *[8]uint32) {
	panic("hashes: no BLAKE3 lanes routine here")
}
