//go:build amd64 && !purego

package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
)

// benchRows makes a tile of points, one per key, with random correction words of
// DPF shape (words 4-7 a bit).
func benchRows(points, levels int) ([]Block, EvalRows) {
	r := rand.New(rand.NewPCG(1, 2))
	cws := make([]Block, 2*points*(levels+1))
	for i := range cws {
		cws[i] = Block{r.Uint64(), r.Uint64()}
		if i%2 == 1 {
			cws[i] = Block{Lo: r.Uint64() & 1}
		}
	}
	u, xs, off := make([]Block, points), make([]Block, points), make([]int, points)
	for j := range points {
		u[j], xs[j], off[j] = Block{r.Uint64(), r.Uint64()}, Block{Lo: r.Uint64() & (1<<levels - 1)}, j*(levels+1)*32
	}
	return u, NewEvalRows(xs, off, cws, levels)
}

// fusedEvals are the fused Eval walks, each CPU class's.
var fusedEvals = []*FusedEval{FusedAVX512, FusedVAES256, FusedAESNI}

// BenchmarkDpfEvalAes runs each fused DPF Eval walk this CPU runs on tiles of
// points whose keys' correction words are in cache or not.
func BenchmarkDpfEvalAes(b *testing.B) {
	const tile, levels = 256, 20
	for _, f := range fusedEvals {
		for _, points := range []int{tile, 1 << 14, 1 << 16} {
			b.Run(fmt.Sprintf("walk=%s/keys=%d", f.Name, points), func(b *testing.B) {
				if !f.Available {
					b.Skip("the CPU lacks its instructions")
				}
				u, rows := benchRows(points, levels)
				keys := [2]RoundKeys{aes128.RoundKeys([16]byte{1}), aes128.RoundKeys([16]byte{2})}
				pf := nextGroupRanges(rows, f.DpfGroup, points, levels)
				per := 2 * tile / f.DpfGroup
				for b.Loop() {
					for j := 0; j < points; j += tile {
						r := NewEvalRows(rows.xs[j:j+tile], rows.off[j:j+tile], rows.cws, levels)
						f.Dpf(u[j:j+tile], &r, &keys, nil, pf[j/tile*per:][:per])
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*points*levels), "ns/point-level")
			})
		}
	}
}

// nextGroupRanges gives each group of size points of rows (one key each) the
// prefetch range of the next group's keys.
func nextGroupRanges(rows EvalRows, size, points, levels int) []int {
	pf := make([]int, 2*points/size)
	for g := range points / size {
		if next := size * (g + 1); next < points {
			pf[2*g], pf[2*g+1] = rows.off[next], rows.off[next+size-1]+(levels+1)*32
		}
	}
	return pf
}

// BenchmarkGenLevel runs the Gen levels of one 128-key tile (its buffers in cache),
// with the PRG's output given (as aes128.MMO makes it) and with AES in the routine.
func BenchmarkGenLevel(b *testing.B) {
	if !HasAES {
		b.Skip("no VAES")
	}
	const keys, levels = 128, 20
	r := rand.New(rand.NewPCG(3, 4))
	raw := [4][16]byte{{1}, {2}, {3}, {4}}
	var rk [4]RoundKeys
	var aesKeys [4]*aes128.Key
	for i := range raw {
		rk[i], aesKeys[i] = aes128.RoundKeys(raw[i]), aes128.NewKey(raw[i])
	}
	u0, u1, s, alphas, vs, betas := make([]Block, keys), make([]Block, keys), make([]Block, 2*keys), make([]Block, keys), make([]Block, keys), make([]Block, keys)
	for j := range keys {
		u0[j], u1[j], alphas[j] = Block{r.Uint64(), r.Uint64()}, Block{r.Uint64(), r.Uint64() | 1<<32}, Block{Lo: r.Uint64()}
	}
	rows := GenRows{Alphas: alphas, Cws: make([]Block, 2*keys*(levels+1)), Keys: keys, Levels: levels, Rows: levels + 1}
	ar := Arith{From: Block{^uint64(0), ^uint64(0)}, Mask: Block{^uint64(0), ^uint64(0)}}
	for _, mul := range []int{2, 4} {
		ch := make([]Block, 2*mul*keys)
		for _, fused := range []bool{false, true} {
			b.Run(fmt.Sprintf("mul=%d/fused=%v", mul, fused), func(b *testing.B) {
				for b.Loop() {
					for i := range levels {
						switch {
						case mul == 2 && fused:
							DpfGenLevel(u0, u1, s, nil, &rows, i, (*[2]RoundKeys)(rk[:2]))
						case mul == 2:
							aes128.MMO(aesKeys[:2], blockBytes(ch), blockBytes(s))
							DpfGenLevel(u0, u1, s, ch, &rows, i, nil)
						case fused:
							DcfGenLevel(u0, u1, s, nil, vs, betas, &rows, i, false, &ar, &rk)
						default:
							aes128.MMO(aesKeys[:], blockBytes(ch), blockBytes(s))
							DcfGenLevel(u0, u1, s, ch, vs, betas, &rows, i, false, &ar, nil)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*keys), "ns/key")
			})
		}
	}
}

func blockBytes(b []Block) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), 16*len(b))
}
