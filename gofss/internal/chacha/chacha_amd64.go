//go:build amd64 && !purego

package chacha

import "golang.org/x/sys/cpu"

//go:generate sh -c "cd _asm && go run . -out ../kernels_amd64.s -stubs ../kernels_amd64.go -pkg chacha"

// Kernel modes: which outputs the assembly writes per seed. The generator in _asm
// numbers them the same way.
const (
	modeExpand1 = iota
	modeExpand2
	modeExpand4
	modeSelect2
	modeSelect4
)

// simd names an assembly kernel by the number of seeds it runs at once.
type simd int

const (
	avx2   simd = 8
	avx512 simd = 16
)

func archBackends() []*backend {
	return []*backend{
		{
			Name: "avx512",
			// Every instruction of the AVX-512 kernel works on zmm registers or
			// memory, so it needs only the foundation subset, not VL/BW/DQ.
			Available: cpu.X86.HasAVX512F,
			Ops:       ops{avx512.expand, avx512.expandSelect},
		},
		{
			Name:      "avx2",
			Available: cpu.X86.HasAVX2,
			Ops:       ops{avx2.expand, avx2.expandSelect},
		},
	}
}

func (s simd) expand(dst, src []byte, nonce [2]uint32, mul int) {
	mode := [...]int{1: modeExpand1, 2: modeExpand2, 4: modeExpand4}[mul]
	s.run(dst, src, nil, kernelInput(nonce, mul), mode, mul)
}

func (s simd) expandSelect(dst, src []byte, nonce [2]uint32, mul int, sel []byte) {
	mode := modeSelect2
	if mul == 4 {
		mode = modeSelect4
	}
	s.run(dst, src, sel, kernelInput(nonce, mul), mode, mul/2)
}

// kernelInput is the part of the initial state that is the same for every seed:
// row 0 and the nonce words of row 3 (its other two words are zero).
func kernelInput(nonce [2]uint32, mul int) [6]uint32 {
	c := sigma16
	if mul == 4 {
		c = sigma32
	}
	return [6]uint32{c[0], c[1], c[2], c[3], nonce[0], nonce[1]}
}

// run computes out output blocks per seed. The kernels only take whole chunks of s
// seeds; the remaining seeds go through the same kernel on a zero-padded copy, so
// that it never reads or writes past the caller's slices.
func (s simd) run(dst, src, sel []byte, in [6]uint32, mode, out int) {
	n := len(src) / BlockSize
	chunks := n / int(s)
	if chunks > 0 {
		s.call(&dst[0], &src[0], sel, chunks, mode, &in)
	}
	done := chunks * int(s)
	rest := n - done
	if rest == 0 {
		return
	}
	var tsrc [16 * BlockSize]byte
	var tdst [16 * 4 * BlockSize]byte
	var tsel [16]byte
	copy(tsrc[:], src[done*BlockSize:])
	if sel != nil {
		copy(tsel[:], sel[done:])
	}
	s.call(&tdst[0], &tsrc[0], tsel[:], 1, mode, &in)
	copy(dst[done*out*BlockSize:], tdst[:rest*out*BlockSize])
}

func (s simd) call(dst, src *byte, sel []byte, chunks, mode int, in *[6]uint32) {
	var selp *byte
	if len(sel) > 0 {
		selp = &sel[0]
	}
	if s == avx512 {
		blocksAVX512(dst, src, selp, chunks, mode, in)
	} else {
		blocksAVX2(dst, src, selp, chunks, mode, in)
	}
}
