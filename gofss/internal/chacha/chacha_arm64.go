//go:build !purego

package chacha

import "golang.org/x/sys/cpu"

// NEON names the arm64 backend. It has no walk routine: WalkOne reports that, and
// walks run portably.
const NEON = "neon"

func archBackends() []*backend {
	return []*backend{{
		Name:      NEON,
		Available: cpu.ARM64.HasASIMD,
		Ops: ops{expand: expandNEON, expandSelect: expandSelectNEON, children: func(dst, src []byte, nonce [2]uint32, cws *[2][16]byte, leaf *Leaf) {
			childrenVia(expandNEON, dst, src, nonce, cws, leaf)
		}, dcfChildren: func(dst, dstV, src, srcV []byte, nonce [2]uint32, l *DcfLevel) {
			dcfChildrenVia(expandNEON, dst, dstV, src, srcV, nonce, l)
		}},
	}}
}

// blocksNEON runs the PRG on groups*4 seeds of src, one seed per 32-bit lane, and
// writes per seed the outputs of Expand with mul or, if sel is not nil, those of
// ExpandSelect (one sel byte per seed, of which it reads bit 0). c is state row 0;
// nonce holds nonce0 in its low and nonce1 in its high 32 bits.
//
//go:noescape
func blocksNEON(dst, src, sel *byte, groups, mul int, c *[4]uint32, nonce uint64)

// seedsNEON is the number of seeds the routine runs at once.
const seedsNEON = 4

func expandNEON(dst, src []byte, nonce [2]uint32, mul int) {
	runNEON(dst, src, nil, nonce, mul, mul)
}

func expandSelectNEON(dst, src []byte, nonce [2]uint32, mul int, sel []byte) {
	runNEON(dst, src, sel, nonce, mul, mul/2)
}

// runNEON computes out output blocks per seed: whole groups of 4 seeds in place,
// the last 1-3 through zero-padded copies, so that the routine neither reads nor
// writes past the caller's slices.
func runNEON(dst, src, sel []byte, nonce [2]uint32, mul, out int) {
	c := &sigma16
	if mul == 4 {
		c = &sigma32
	}
	nv := uint64(nonce[0]) | uint64(nonce[1])<<32
	n := len(src) / BlockSize
	whole := n &^ (seedsNEON - 1)
	if whole > 0 {
		var selp *byte
		if sel != nil {
			selp = &sel[0]
		}
		blocksNEON(&dst[0], &src[0], selp, whole/seedsNEON, mul, c, nv)
	}
	rest := n - whole
	if rest == 0 {
		return
	}
	var tsrc [seedsNEON * BlockSize]byte
	var tdst [seedsNEON * 4 * BlockSize]byte
	var tsel [seedsNEON]byte
	copy(tsrc[:], src[whole*BlockSize:])
	var selp *byte
	if sel != nil {
		copy(tsel[:], sel[whole:])
		selp = &tsel[0]
	}
	blocksNEON(&tdst[0], &tsrc[0], selp, 1, mul, c, nv)
	copy(dst[whole*out*BlockSize:], tdst[:rest*out*BlockSize])
}
