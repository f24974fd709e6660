//go:build amd64 && !purego

package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

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

func BenchmarkDpfEvalAes(b *testing.B) {
	if !HasAES {
		b.Skip("no VAES")
	}
	const tile, levels = 256, 20
	for _, points := range []int{tile, 1 << 14, 1 << 16} {
		b.Run(fmt.Sprintf("keys=%d", points), func(b *testing.B) {
			u, rows := benchRows(points, levels)
			keys := [2]RoundKeys{aes128.RoundKeys([16]byte{1}), aes128.RoundKeys([16]byte{2})}
			// Prefetch ranges: group g's are the next group's keys.
			pf := make([]int, points/16)
			for g := range points / 32 {
				if next := 32 * (g + 1); next < points {
					pf[2*g], pf[2*g+1] = rows.off[next], rows.off[next+31]+(levels+1)*32
				}
			}
			for b.Loop() {
				for j := 0; j < points; j += tile {
					r := NewEvalRows(rows.xs[j:j+tile], rows.off[j:j+tile], rows.cws, levels)
					DpfEvalAes(u[j:j+tile], &r, &keys, nil, pf[j/16:(j+tile)/16])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*points*levels), "ns/point-level")
		})
	}
}
