// Package feistel runs the inverse of the multi-point schemes' Feistel PRP
// (docs/spec.md section 16.1) over many values at once from its tabulated round
// functions: one pass of the four rounds backwards per value, the cycle walk being
// the caller's. On amd64 with AVX2 eight values go through the rounds together,
// each round's table lookups one VPGATHERDD, where the values fit in 32 bits.
package feistel

// InvertPasses replaces every v of vs by one pass of the rounds backwards over
// v mod 2^2h: with l4 = its high half and r4 its low one (h bits each), l3 = r4 ^
// f[3][l4], l2 = l4 ^ f[2][l3], l1 = l3 ^ f[1][l2], l0 = l2 ^ f[0][l1], and the
// result (l0 << h) | l1. Every table must hold 2^h values below 2^h; h is at most
// 31.
func InvertPasses(vs []uint64, h uint, f *[4][]uint32) {
	size := 1 << h
	if h > 31 || len(f[0]) < size || len(f[1]) < size || len(f[2]) < size || len(f[3]) < size {
		panic("feistel: InvertPasses needs tables of 2^h words, h <= 31")
	}
	done := invertPassesSIMD(vs, h, f)
	invertPassesGo(vs[done:], h, f)
}

// invertPassesGo is InvertPasses one value at a time, for any width: the portable
// form of the SIMD routine, which the tests check against it.
func invertPassesGo(vs []uint64, h uint, f *[4][]uint32) {
	mask := uint64(1)<<h - 1
	for i, v := range vs {
		l4, r4 := v>>h&mask, v&mask
		l3 := r4 ^ uint64(f[3][l4]&uint32(mask))
		l2 := l4 ^ uint64(f[2][l3]&uint32(mask))
		l1 := l3 ^ uint64(f[1][l2]&uint32(mask))
		vs[i] = (l2^uint64(f[0][l1]&uint32(mask)))<<h | l1
	}
}
