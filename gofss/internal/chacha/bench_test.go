package chacha

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pyfss/pyfss/gofss/internal/pathtest"
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

// BenchmarkExpandChildren measures a level of EvalAll's tree on 1024 nodes (the
// size of its tiles) in ns a node: an inner level, and a leaf level in a group with
// both arithmetics, without negation (party 0) and with it.
func BenchmarkExpandChildren(b *testing.B) {
	const nodes = 1024
	nonce := [2]uint32{0x12345678, 0x9abcdef0}
	rng := rand.New(rand.NewPCG(1, 2))
	src, dst := make([]byte, nodes*BlockSize), make([]byte, 2*nodes*BlockSize)
	fillRandom(rng, src)
	var cws [2][16]byte
	fillRandom(rng, cws[0][:])
	fillRandom(rng, cws[1][:])
	leaf := &Leaf{Arith: *randomArith(rng)}
	fillRandom(rng, leaf.Value[:])
	negated := *leaf
	fillRandom(rng, negated.Neg[:])
	for _, name := range Backends() {
		for _, c := range []struct {
			kind string
			leaf *Leaf
		}{{"inner", nil}, {"leaf", leaf}, {"leaf-negated", &negated}} {
			b.Run(name+"/"+c.kind, func(b *testing.B) {
				prev, err := SetBackend(name)
				if err != nil {
					b.Fatal(err)
				}
				defer SetBackend(prev)
				for range b.N {
					ExpandChildren(dst, src, nonce, &cws, c.leaf)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
			})
		}
	}
}

// BenchmarkWalkOne measures a single-point Eval's walk at in_bits 20 (ns/op is per
// walk); BenchmarkWalkExpandSelect takes the same walk with one ExpandSelect call
// per level, the path that WalkOne replaces.
func BenchmarkWalkOne(b *testing.B) {
	benchmarkWalk(b, func(w *Walk, nonce [2]uint32, seed [16]byte, _ []byte) bool {
		_, _, ok := WalkOne(w, nonce, seed, 1)
		return ok
	})
}

func BenchmarkWalkExpandSelect(b *testing.B) {
	benchmarkWalk(b, func(w *Walk, nonce [2]uint32, seed [16]byte, buf []byte) bool {
		walkLevels(w, seed, 1, func(out, seed []byte, w *Walk, i int) {
			ExpandSelect(out[:w.Mul/2*BlockSize], seed, nonce, w.Mul, w.Sides[i:i+1])
		}, buf)
		return true
	})
}

// benchmarkWalk skips the backends for which walk returns false.
func benchmarkWalk(b *testing.B, walk func(w *Walk, nonce [2]uint32, seed [16]byte, buf []byte) bool) {
	pathtest.EachB(b, Backends(), SetBackend, func(b *testing.B) {
		for _, mul := range []int{2, 4} {
			b.Run(fmt.Sprintf("mul%d", mul), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(7, 8))
				w := newWalk(b, rng, 20, mul, 16+12*(mul/4))
				nonce := [2]uint32{0x12345678, 0x9abcdef0}
				seed := [16]byte{1, 2, 3}
				buf := make([]byte, 3*BlockSize)
				if !walk(w, nonce, seed, buf) {
					b.Skip("no walk routine")
				}
				for b.Loop() {
					walk(w, nonce, seed, buf)
				}
			})
		}
	})
}

// BenchmarkWalkPoints measures a call of the point walk at in_bits 20 (its most
// chunks), per point (ns/point), beside BenchmarkExpandSelect's ns/seed: a point
// walks 20 seeds.
func BenchmarkWalkPoints(b *testing.B) {
	pathtest.EachB(b, Backends(), SetBackend, func(b *testing.B) {
		lanes := PointLanes() * PointChunks()
		if lanes == 0 {
			b.Skip("no point walk")
		}
		for _, mul := range []int{2, 4} {
			b.Run(fmt.Sprintf("mul%d", mul), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(7, 8))
				w := newPoints(b, rng, lanes, 20, mul, 16+12*(mul/4))
				nonce := [2]uint32{0x12345678, 0x9abcdef0}
				for b.Loop() {
					WalkPoints(w, nonce)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lanes), "ns/point")
			})
		}
	})
}
