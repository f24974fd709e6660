//go:build amd64 && !purego

package aes128

// vaesShape says how the VAES routines fill a zmm register for m keys per source block
// (m = len(keys) for MMO, len(keys)/2 for MMOSelect; 1, 2 or 4): lane l (of 4) of
// vector v holds dst block 4v+l, made from source block (4v+l)/m with key (4v+l)%m.
// As m divides 4, every vector has the same key pattern, so the round keys are built
// once per call.
type vaesShape struct {
	perm    [8]uint64 // VPERMQ indices spreading a vector's 4/m source blocks over its lanes
	srcStep int       // source bytes per vector: 64/m
	srcMask uint64    // the qwords of those bytes, as a load mask

	// MMOSelect: with one bit per loaded sel byte, PDEP(bits, selDep)*selFill sets
	// the 2m qwords of each selected source block's lanes, 8 bits per vector.
	selDep  uint64
	selFill uint64
	selIter uint64 // load mask of the sel bytes of one loop iteration (6 vectors)
	selVec  uint64 // and of one vector
}

var vaesShapes = [...]*vaesShape{
	1: {
		perm: [8]uint64{0, 1, 2, 3, 4, 5, 6, 7}, srcStep: 64, srcMask: 0xff,
		selDep: 0x5555555555555555, selFill: 3, selIter: 1<<24 - 1, selVec: 0xf,
	},
	2: {
		perm: [8]uint64{0, 1, 0, 1, 2, 3, 2, 3}, srcStep: 32, srcMask: 0x0f,
		selDep: 0x1111111111111111, selFill: 15, selIter: 1<<12 - 1, selVec: 0x3,
	},
	4: {perm: [8]uint64{0, 1, 0, 1, 0, 1, 0, 1}, srcStep: 16, srcMask: 0x03},
}

// mmoVAESAsm writes nd dst blocks; the last nd%4 go through the masks tailSrc (qwords
// of the source to load) and tailDst (qwords to store).
//
//go:noescape
func mmoVAESAsm(dst, src *byte, nd int, lanes *[4]*Key, shape *vaesShape, tailSrc, tailDst uint64)

func mmoVAES(keys []*Key, dst, src []byte) {
	m := len(keys)
	if m >= len(vaesShapes) || vaesShapes[m] == nil {
		aesniOps.mmo(keys, dst, src) // key counts the PRGs never use
		return
	}
	if len(src) == 0 {
		return
	}
	var lanes [4]*Key
	for l := range lanes {
		lanes[l] = keys[l%m]
	}
	nd := len(dst) / BlockSize
	rem := nd % 4
	mmoVAESAsm(&dst[0], &src[0], nd, &lanes, vaesShapes[m], qwordMask(rem/m), qwordMask(rem))
}

// mmoSelectVAESAsm is mmoVAESAsm with two keys per lane, a from keys[:h] and b from
// keys[h:], blended by sel; tailSel masks the sel bytes of the last nd%4 dst blocks.
//
//go:noescape
func mmoSelectVAESAsm(dst, src, sel *byte, nd int, a, b *[4]*Key, shape *vaesShape, tailSrc, tailDst, tailSel uint64) (bad bool)

func mmoSelectVAES(keys []*Key, dst, src, sel []byte) {
	h := len(keys) / 2
	if h > 2 {
		aesniOps.mmoSelect(keys, dst, src, sel) // key counts the PRGs never use
		return
	}
	if len(src) == 0 {
		return
	}
	var a, b [4]*Key
	for l := range a {
		a[l], b[l] = keys[l%h], keys[h+l%h]
	}
	nd := len(dst) / BlockSize
	rem := nd % 4
	checkSel(mmoSelectVAESAsm(&dst[0], &src[0], &sel[0], nd, &a, &b, vaesShapes[h],
		qwordMask(rem/h), qwordMask(rem), 1<<(rem/h)-1))
}

// qwordMask covers n blocks.
func qwordMask(n int) uint64 { return 1<<(2*n) - 1 }
