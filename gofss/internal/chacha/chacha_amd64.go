//go:build amd64 && !purego

package chacha

import "golang.org/x/sys/cpu"

//go:generate sh -c "cd _asm && go run . -out ../kernels_amd64.s -stubs ../kernels_amd64.go -pkg chacha"

// Routine modes: which outputs the assembly writes per seed. The generator in _asm
// numbers them the same way.
const (
	modeExpand1 = iota
	modeExpand2
	modeExpand4
	modeSelect2
	modeSelect4
)

// simd names a set of assembly routines: by the number of seeds the blocks routine
// runs at once, and for AVX-512 by how the routines of one set of rows (a one-key
// walk, a few seeds) rotate: VPROLD, or with shiftRot two shifts and a VPTERNLOGD.
type simd struct {
	lanes    int
	shiftRot bool
}

var (
	avx2           = simd{lanes: 8}
	avx512         = simd{lanes: 16}
	avx512ShiftRot = simd{lanes: 16, shiftRot: true}
)

func (s simd) wide() bool { return s.lanes == 16 }

// pointChunks is the most chunks a point walk routine takes: AVX-512's walks two at
// a time.
func (s simd) pointChunks() int {
	if s.wide() {
		return 2
	}
	return 1
}

// ShiftRotBackend runs the AVX-512 routines whose one-seed rotations are shifts
// (rotlXor in _asm): the faster form on Zen 4, where VPROLD takes 2 cycles; the
// default there, and selectable everywhere with AVX-512.
const ShiftRotBackend = "avx512-shiftrot"

func archBackends() []*backend {
	// The blocks routine needs only the foundation subset; the rows routine rotates
	// xmm and ymm registers, which takes VL.
	hasAVX512 := cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
	wide := []*backend{
		{Name: "avx512", Available: hasAVX512, Ops: avx512.ops()},
		{Name: ShiftRotBackend, Available: hasAVX512, Ops: avx512ShiftRot.ops()},
	}
	if zen4() {
		wide[0], wide[1] = wide[1], wide[0]
	}
	return append(wide, &backend{Name: "avx2", Available: cpu.X86.HasAVX2, Ops: avx2.ops()})
}

func (s simd) ops() ops { return ops{s.expand, s.expandSelect, s.children, s.dcfChildren, s} }

// zen4 tells whether this is an AMD CPU of family 19h, of which Zen 4 has AVX-512.
func zen4() bool {
	_, b, c, d := cpuid(0)
	if b != 0x68747541 || d != 0x69746e65 || c != 0x444d4163 { // "AuthenticAMD"
		return false
	}
	a, _, _, _ := cpuid(1)
	family := a >> 8 & 0xf
	if family == 0xf {
		family += a >> 20 & 0xff
	}
	return family == 0x19
}

func (s simd) expand(dst, src []byte, nonce [2]uint32, mul int) {
	mode := [...]int{1: modeExpand1, 2: modeExpand2, 4: modeExpand4}[mul]
	s.run(dst, src, nil, nonce, mul, mode, mul)
}

func (s simd) expandSelect(dst, src []byte, nonce [2]uint32, mul int, sel []byte) {
	mode := modeSelect2
	if mul == 4 {
		mode = modeSelect4
	}
	s.run(dst, src, sel, nonce, mul, mode, mul/2)
}

// children runs the children routine on the whole chunks of src, and the rest, a few
// nodes, through expand.
func (s simd) children(dst, src []byte, nonce [2]uint32, cws *[2][16]byte, leaf *Leaf) {
	var in [6]uint32
	setInput(&in, nonce, 2)
	n := len(src) / BlockSize
	done := n &^ (s.lanes - 1)
	if done > 0 {
		var masks *[5][64]byte
		var m [5][64]byte
		if leaf != nil {
			vectorMasks(&m, &leaf.From, &leaf.Xor, &leaf.Add, &leaf.Neg, &leaf.Value)
			masks = &m
		}
		if s.wide() {
			childrenAVX512(&dst[0], &src[0], done/s.lanes, cws, masks, &in)
		} else {
			childrenAVX2(&dst[0], &src[0], done/s.lanes, cws, masks, &in)
		}
	}
	childrenVia(s.expand, dst[2*done*BlockSize:], src[done*BlockSize:], nonce, cws, leaf)
}

// dcfChildren is children for DCF.
func (s simd) dcfChildren(dst, dstV, src, srcV []byte, nonce [2]uint32, l *DcfLevel) {
	var in [6]uint32
	setInput(&in, nonce, 4)
	n := len(src) / BlockSize
	done := n &^ (s.lanes - 1)
	if done > 0 {
		var masks [5][64]byte
		vectorMasks(&masks, &l.From, &l.Xor, &l.Add, &l.Neg, &l.Last)
		leaf, values := 0, first(dstV)
		if l.Leaf {
			leaf = 1
		}
		if s.wide() {
			dcfChildrenAVX512(&dst[0], values, &src[0], &srcV[0], done/s.lanes, &l.Cws, &masks, leaf, &in)
		} else {
			dcfChildrenAVX2(&dst[0], values, &src[0], &srcV[0], done/s.lanes, &l.Cws, &masks, leaf, &in)
		}
	}
	rest := done * BlockSize
	if !l.Leaf {
		dstV = dstV[2*rest:]
	}
	dcfChildrenVia(s.expand, dst[2*rest:], dstV, src[rest:], srcV[rest:], nonce, l)
}

// vectorMasks lays masks out in out as the routines read them: each block repeated
// over a vector. out is the caller's, on its stack: a returned array would be an
// allocation per call.
func vectorMasks(out *[5][64]byte, masks ...*[16]byte) {
	for i, m := range masks {
		for j := 0; j < 64; j += BlockSize {
			copy(out[i][j:], m[:])
		}
	}
}

// setInput sets in to the part of the initial state that is the same for every
// seed: row 0 and the nonce words of row 3 (its other two words are zero). It writes
// in place with one store per part, the way the rows routine loads them: a load that
// spans several stores waits for them to reach the cache, which would add to the
// latency of every one-seed call (returning the array would copy it).
func setInput(in *[6]uint32, nonce [2]uint32, mul int) {
	c := &sigma16
	if mul == 4 {
		c = &sigma32
	}
	*(*[4]uint32)(in[:4]) = *c
	*(*[2]uint32)(in[4:]) = nonce
}

// run computes out output blocks per seed. The blocks routine only takes whole chunks
// of s seeds; the remaining seeds go through the rows routine or, if there are many,
// the blocks routine on a zero-padded copy, so that neither reads nor writes past the
// caller's slices.
func (s simd) run(dst, src, sel []byte, nonce [2]uint32, mul, mode, out int) {
	var in [6]uint32
	setInput(&in, nonce, mul)
	n := len(src) / BlockSize
	// A mask rather than a division by s (a power of two), whose latency the few
	// seeds of the rows routine would wait for.
	done := n &^ (s.lanes - 1)
	if done > 0 {
		s.call(false, &dst[0], &src[0], sel, done/s.lanes, mode, &in)
	}
	rest := n - done
	if rest == 0 {
		return
	}
	if sel != nil {
		sel = sel[done:]
	}
	// The rows routine runs up to 4 seeds in about the time of one; a chunk costs
	// about as much as two (AVX2) or two and a half (AVX-512) of its passes
	// (measured on AMD Zen 4).
	if rest <= s.lanes/2 {
		s.call(true, &dst[done*out*BlockSize], &src[done*BlockSize], sel, rest, mode, &in)
		return
	}
	var tsrc [16 * BlockSize]byte
	var tdst [16 * 4 * BlockSize]byte
	var tsel [16]byte
	copy(tsrc[:], src[done*BlockSize:])
	copy(tsel[:], sel)
	s.call(false, &tdst[0], &tsrc[0], tsel[:], 1, mode, &in)
	copy(dst[done*out*BlockSize:], tdst[:rest*out*BlockSize])
}

// walk runs the walk routine; WalkOne has checked w.
func (s simd) walk(w *Walk, nonce [2]uint32, seed *[16]byte, t uint8) uint8 {
	var in [6]uint32
	setInput(&in, nonce, w.Mul)
	rows, sides, values, bits := first(w.Rows), first(w.Sides), first(w.Values), first(w.Bits)
	switch s {
	case avx512:
		return walkAVX512(rows, sides, values, bits, len(w.Sides), w.TrByte, w.Mul, &in, seed, t)
	case avx512ShiftRot:
		return walkAVX512ShiftRot(rows, sides, values, bits, len(w.Sides), w.TrByte, w.Mul, &in, seed, t)
	}
	return walkAVX2(rows, sides, values, bits, len(w.Sides), w.TrByte, w.Mul, &in, seed, t)
}

// first points to b's first byte, or is nil if b is empty.
func first(b []byte) *byte {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

// call runs count chunks through the blocks routine or, with rows, count seeds
// through the rows routine.
func (s simd) call(rows bool, dst, src *byte, sel []byte, count, mode int, in *[6]uint32) {
	selp := first(sel)
	switch {
	case s == avx512ShiftRot && rows:
		rowsAVX512ShiftRot(dst, src, selp, count, mode, in)
	case s.wide() && rows:
		rowsAVX512(dst, src, selp, count, mode, in)
	case s.wide():
		blocksAVX512(dst, src, selp, count, mode, in)
	case rows:
		rowsAVX2(dst, src, selp, count, mode, in)
	default:
		blocksAVX2(dst, src, selp, count, mode, in)
	}
}

// points runs the point walk routine for n levels; WalkPoints has checked w.
func (s simd) points(w *Points, nonce [2]uint32, n int) {
	var in [6]uint32
	setInput(&in, nonce, w.Mul)
	// The masks as the routine reads them: each block repeated over a vector.
	var arith [3][64]byte
	if w.Arith != nil {
		for i, m := range [3]*[16]byte{&w.Arith.From, &w.Arith.Xor, &w.Arith.Add} {
			for j := 0; j < 64; j += BlockSize {
				copy(arith[i][j:], m[:])
			}
		}
	}
	nodes, paths, rows, sums, ahead := first(w.Nodes), first(w.Paths), first(w.Rows), first(w.Sums), first(w.Ahead)
	var next *int32
	if w.Next != nil {
		next = &w.Next[0]
	}
	switch {
	case s.wide() && len(w.Offs) > s.lanes:
		pointsAVX512(nodes, paths, rows, &w.Offs[0], next, n, w.TrByte, w.Mul, sums, &arith, &in, &w.RowsOr, ahead, len(w.Ahead))
		return
	case s.wide():
		pointsAVX512One(nodes, paths, rows, &w.Offs[0], next, n, w.TrByte, w.Mul, sums, &arith, &in, &w.RowsOr, ahead, len(w.Ahead))
		return
	}
	pointsAVX2(nodes, paths, rows, &w.Offs[0], next, n, w.TrByte, w.Mul, sums, &arith, &in, &w.RowsOr, ahead, len(w.Ahead))
}
