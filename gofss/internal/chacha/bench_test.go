package chacha

import (
	"fmt"
	"testing"
)

// BenchmarkExpand and BenchmarkExpandSelect report output bytes per second and
// ns/seed, per backend, for the PRG sizes that DPF (mul 2) and DCF (mul 4) use:
// batches for full-domain evaluation and 1 or 3 seeds for the per-level calls of a
// single-point Eval, where latency matters.
func BenchmarkExpand(b *testing.B) {
	benchmark(b, func(dst, src []byte, nonce [2]uint32, mul int, _ []byte) {
		Expand(dst, src, nonce, mul)
	}, 1)
}

func BenchmarkExpandSelect(b *testing.B) {
	benchmark(b, ExpandSelect, 2)
}

func benchmark(b *testing.B, f func(dst, src []byte, nonce [2]uint32, mul int, sel []byte), div int) {
	nonce := [2]uint32{0x12345678, 0x9abcdef0}
	for _, name := range Backends() {
		for _, mul := range []int{2, 4} {
			for _, seeds := range []int{1, 3, 1024, 65536} {
				b.Run(fmt.Sprintf("%s/mul%d/%d", name, mul, seeds), func(b *testing.B) {
					prev, err := SetBackend(name)
					if err != nil {
						b.Fatal(err)
					}
					defer SetBackend(prev)
					src := make([]byte, seeds*BlockSize)
					for i := range src {
						src[i] = byte(i * 7)
					}
					sel := make([]byte, seeds)
					for i := range sel {
						sel[i] = byte(i>>3) & 1
					}
					dst := make([]byte, len(src)*mul/div)
					b.SetBytes(int64(len(dst)))
					b.ResetTimer()
					for range b.N {
						f(dst, src, nonce, mul, sel)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*seeds), "ns/seed")
				})
			}
		}
	}
}
