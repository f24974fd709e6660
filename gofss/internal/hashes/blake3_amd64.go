package hashes

import "golang.org/x/sys/cpu"

//go:generate sh -c "cd _asm && go run . -out ../blake3x8_amd64.s -stubs ../blake3x8_stub_amd64.go -pkg hashes"

// haveBlake3AVX2 tells whether the CPU runs the routines: blake3x8AVX2, blake3OneAVX
// and blake3ChainXHAVX2.
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

// blake3ChainXH folds n = len(xh0) leaves into pi (blake3ChainXHAVX2): leaf i's
// piece is XH(as[i], ss[i]) ^ (cs where bit 0 of ts[i] is 1), whose first half is
// xh0[i] and, for leaf 0, second half xh1; hcv keys H', xcv XH.
func blake3ChainXH(pi *[64]byte, xh0 [][32]byte, xh1 *[32]byte, as, ss [][16]byte, ts []uint8, cs *[64]byte, hcv, xcv *[8]uint32) {
	n := len(xh0)
	if n == 0 {
		return
	}
	_, _, _ = as[n-1], ss[n-1], ts[n-1]
	blake3ChainXHAVX2(pi, &xh0[0], xh1, &as[0], &ss[0], &ts[0], cs, n, hcv, xcv)
}

// blake3ChainLanes steps eight proof chains over the leaves of as
// (blake3ChainLanesAVX2): pis and cs transposed, lane i's seeds at ss[off[i]:] and
// control bits at ts[off[i]:], len(as) of each.
func blake3ChainLanes(pis, cs *[16][8]uint32, as, ss [][16]byte, ts []uint8, off *[8]int, hcv, xcv *[8]uint32) {
	n := len(as)
	if n == 0 {
		return
	}
	var bytes [8]int
	for i, o := range off {
		if o < 0 || o+n > len(ss) || o+n > len(ts) {
			panic("hashes: a lane's seeds or control bits past the buffers")
		}
		bytes[i] = 16 * o
	}
	blake3ChainLanesAVX2(pis, cs, &as[0], &ss[0], &bytes, &ts[0], off, n, hcv, xcv)
}

// blake3StepLanes steps eight proof chains (blake3StepLanesAVX2): pis transposed,
// lane i's n pieces at pieces[poff[i]:].
func blake3StepLanes(pis *[16][8]uint32, pieces [][64]byte, poff *[8]int, n int, hcv *[8]uint32) {
	if n == 0 {
		return
	}
	var bytes [8]int
	for i, o := range poff {
		if o < 0 || o+n > len(pieces) {
			panic("hashes: a lane's pieces past the buffer")
		}
		bytes[i] = 64 * o
	}
	blake3StepLanesAVX2(pis, &pieces[0], &bytes, n, hcv)
}
