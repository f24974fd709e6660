package hashes

import "golang.org/x/sys/cpu"

//go:generate sh -c "cd _asm && go run . -out ../blake3x8_amd64.s -stubs ../blake3x8_stub_amd64.go -pkg hashes"

// haveBlake3AVX2 tells whether the CPU runs blake3x8AVX2 and blake3OneAVX.
var haveBlake3AVX2 = cpu.X86.HasAVX2

// blake3x8 hashes the blocks of len(blocks)/8 whole groups of eight into out.
func blake3x8(out [][32]byte, cv *[8]uint32, blocks [][64]byte, blen uint32) {
	g := len(blocks) / 8
	if g > 0 {
		_ = out[8*g-1]
		blake3x8AVX2(&out[0], cv, &blocks[0], g, blen)
	}
}

func blake3One(out *[32]byte, cv *[8]uint32, block *[64]byte, blen uint32) {
	blake3OneAVX(out, cv, block, blen)
}

// blake3Chain folds the pieces xhs[i] ^ (cs where bit 0 of ts[i] is 1) into pi, in
// order: pi[0:32] ^= H'(pi ^ piece). ts has as many bytes as xhs has pieces.
func blake3Chain(pi *[64]byte, xhs [][64]byte, ts []uint8, cs *[64]byte, cv *[8]uint32) {
	if len(xhs) > 0 {
		_ = ts[len(xhs)-1]
		blake3ChainAVX(pi, &xhs[0], &ts[0], cs, len(xhs), cv)
	}
}
