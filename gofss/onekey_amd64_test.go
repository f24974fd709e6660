//go:build amd64 && !purego

package gofss

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/stretchr/testify/require"
)

// The one-key AES-NI walks against the portable walks on the same random keys and
// points: every group, both comparisons, input widths from 1 to 128 bits, batches
// on both sides of the one-key limits (the longer ones take the portable walks).

// oneKey makes the scheme of s's parameters on the one-key walks, or skips where
// the CPU has no AES-NI.
func oneKey(t *testing.T, s scheme) Scheme {
	if !aes128.HasWalk() {
		t.Skip("no AES-NI walk routines on this CPU")
	}
	return rebuild(t, s, WithImpl(AesniImpl))
}

func TestOneKeyMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range testCases(t, []int{1, 2, 20, 63, 64, 65, 128}) {
		if c.scheme.Params().Prg != PrgAesMmo || c.scheme.Params().Kind == KindHalfTreeDpf {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			one := oneKey(t, c.scheme)
			// Under the portable AES backend, selected after the walks were made, they
			// take the portable walks.
			forEachBackend(t, "aes128_mmo", func(t *testing.T) {
				port := rebuild(t, c.scheme, WithImpl(PortableImpl))
				for _, keys := range []int{1, 2, oneKeyMaxKeys, oneKeyMaxKeys + 1} {
					seeds, alphas, betas := randKeys(r, c.n, keys)
					cws, want := make([]Cw, keys*(c.n+1)), make([]Cw, keys*(c.n+1))
					require.NoError(t, one.Gen(cws, seeds, alphas, betas))
					require.NoError(t, port.Gen(want, seeds, alphas, betas))
					require.Equal(t, want, cws, "Gen, %d keys", keys)
					for _, points := range []int{1, 3, oneKeyMaxDpfPoints + 1, 17} {
						xs := make([]Uint128, keys*points)
						for i := range xs {
							xs[i] = randInput(r, c.n)
							if i%2 == 0 { // the special point, where the path keeps alpha's side to the end
								xs[i] = alphas[i/points]
							}
						}
						for p := range 2 {
							ps := make([]Block, keys)
							for k := range keys {
								ps[k] = seeds[2*k+p]
							}
							got, exp := make([]Block, len(xs)), make([]Block, len(xs))
							require.NoError(t, one.Eval(got, p, ps, cws, xs))
							require.NoError(t, port.Eval(exp, p, ps, cws, xs))
							require.Equal(t, exp, got, "Eval, %d keys x %d points, party %d", keys, points, p)
						}
					}
				}
			})
		})
	}
}

// Batches long enough to spread over goroutines (Gen, DCF Eval) match the portable
// walks, count their items in a Control and stop on it.
func TestOneKeyLongBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, c := range testCases(t, []int{20}) {
		if c.scheme.Params().Prg != PrgAesMmo || c.scheme.Params().Kind == KindHalfTreeDpf {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			var ctl Control
			one := oneKey(t, c.scheme).WithControl(&ctl)
			port := rebuild(t, c.scheme, WithImpl(PortableImpl))
			const keys = 1500
			seeds, alphas, betas := randKeys(r, c.n, keys)
			cws, want := make([]Cw, keys*(c.n+1)), make([]Cw, keys*(c.n+1))
			require.NoError(t, one.Gen(cws, seeds, alphas, betas))
			require.EqualValues(t, keys, ctl.Done.Swap(0), "keys generated")
			require.NoError(t, port.Gen(want, seeds, alphas, betas))
			require.Equal(t, want, cws, "Gen")
			xs := make([]Uint128, 2*keys)
			for i := range xs {
				xs[i] = randInput(r, c.n)
			}
			ps := make([]Block, keys)
			for k := range ps {
				ps[k] = seeds[2*k+1]
			}
			got, exp := make([]Block, len(xs)), make([]Block, len(xs))
			require.NoError(t, one.Eval(got, 1, ps, cws, xs))
			require.EqualValues(t, len(xs), ctl.Done.Swap(0), "points evaluated")
			require.NoError(t, port.Eval(exp, 1, ps, cws, xs))
			require.Equal(t, exp, got, "Eval")
			ctl.Stop.Store(1)
			require.ErrorIs(t, one.Gen(cws, seeds, alphas, betas), ErrStopped)
			require.ErrorIs(t, one.Eval(got, 1, ps, cws, xs), ErrStopped)
		})
	}
}

// Correction words that no Gen made but that Eval accepts (random rows, a last row
// of the accepted form) give the one-key walks' outputs the portable ones give: the
// routines read each row's bytes as the portable walks do, whatever they hold.
func TestOneKeyCraftedKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for _, c := range testCases(t, []int{1, 20, 64, 65, 128}) {
		if c.scheme.Params().Prg != PrgAesMmo || c.scheme.Params().Kind == KindHalfTreeDpf {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			one := oneKey(t, c.scheme)
			port := rebuild(t, c.scheme, WithImpl(PortableImpl))
			const keys = 3 // 6 points: DPF's one-key walks take up to 7
			cws := make([]Cw, keys*(c.n+1))
			for i := range cws {
				cws[i] = Cw{randBlock(r), randBlock(r)}
				switch {
				case i%(c.n+1) == c.n && c.scheme.Params().Kind == KindDpf:
					cws[i] = Cw{cws[i][0].Clamp(), {}}
				case i%(c.n+1) == c.n:
					cws[i] = Cw{{}, cws[i][1].Clamp()}
				case c.scheme.Params().Kind == KindDpf:
					cws[i][1] = Block{Lo: uint64(r.IntN(2))}
				}
			}
			xs, ps := make([]Uint128, 2*keys), make([]Block, keys)
			for i := range xs {
				xs[i] = randInput(r, c.n)
			}
			for k := range ps {
				ps[k] = randBlock(r)
			}
			for p := range 2 {
				got, exp := make([]Block, len(xs)), make([]Block, len(xs))
				require.NoError(t, port.Eval(exp, p, ps, cws, xs))
				require.NoError(t, one.Eval(got, p, ps, cws, xs))
				require.Equal(t, exp, got, "party %d", p)
			}
		})
	}
}

// A one-key Eval refuses the correction words that the portable one refuses.
func TestOneKeyRefusesBadCws(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range testCases(t, []int{20}) {
		if c.scheme.Params().Prg != PrgAesMmo || c.scheme.Params().Kind == KindHalfTreeDpf {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			one := oneKey(t, c.scheme)
			seeds, alphas, betas := randKeys(r, c.n, 1)
			cws := make([]Cw, c.n+1)
			require.NoError(t, one.Gen(cws, seeds, alphas, betas))
			bad := append([]Cw(nil), cws...)
			bad[c.n][0].Hi |= lsbBit // a set control bit in the last row: refused by both schemes
			err := one.Eval(make([]Block, 1), 0, seeds[:1], bad, alphas)
			require.ErrorAs(t, err, new(*ArgError))
			if c.scheme.Params().Kind == KindDpf {
				bad = append(bad[:0], cws...)
				bad[3][1].Lo = 2 // a tr word other than 0 or 1
				require.ErrorAs(t, one.Eval(make([]Block, 1), 1, seeds[1:2], bad, alphas), new(*ArgError))
			}
		})
	}
}

// The one-key DPF walk checks the level rows as it reads them (it ORs their words
// 4-7): a stray bit anywhere in them but tr's, in any row, is refused and named,
// for one point and for the last key of a batch.
func TestOneKeyDpfRefusesBadRows(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for _, c := range testCases(t, []int{1, 20, 64, 65, 128}) {
		if c.scheme.Params().Prg != PrgAesMmo || c.scheme.Params().Kind != KindDpf {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			one := oneKey(t, c.scheme)
			const keys = 3 // one point each: the one-key walks take up to 7
			seeds, alphas, betas := randKeys(r, c.n, keys)
			cws := make([]Cw, keys*(c.n+1))
			require.NoError(t, one.Gen(cws, seeds, alphas, betas))
			ps := []Block{seeds[0], seeds[2], seeds[4]}
			require.NoError(t, one.Eval(make([]Block, keys), 0, ps, cws, alphas))
			for range 40 {
				k, row, bit := r.IntN(keys), r.IntN(c.n), 1+r.IntN(127) // not tr (bit 0)
				bad := append([]Cw(nil), cws...)
				if bit < 64 {
					bad[k*(c.n+1)+row][1].Lo ^= 1 << bit
				} else {
					bad[k*(c.n+1)+row][1].Hi ^= 1 << (bit - 64)
				}
				err := one.Eval(make([]Block, keys), 0, ps, bad, alphas)
				requireArgError(t, err, fmt.Sprintf("cws: key %d, row %d: words 4-7", k, row))
				err = one.Eval(make([]Block, 1), 0, ps[k:k+1], bad[k*(c.n+1):][:c.n+1], alphas[k:k+1])
				requireArgError(t, err, fmt.Sprintf("cws: key 0, row %d: words 4-7", row))
			}
		})
	}
}

// One key's Gen and Eval on the one-key walks allocate nothing on the Go heap: each
// crossing from Python is one such call, and garbage there grows the process's memory
// between collections (a 32-byte array that VDPF's Gen hands to its hashes once went
// to the heap on DPF's Gen too).
func TestOneKeyCallsDoNotAllocate(t *testing.T) {
	for _, im := range append([]string{AesniImpl}, fusedEvalImpls...) {
		for _, kind := range []Kind{KindDpf, KindDcfLt} {
			s, err := New(DefaultParams(kind, 20, Uint64, PrgAesMmo), WithImpl(im))
			if err != nil {
				continue // not on this CPU
			}
			seeds, alphas, betas := []Block{{Lo: 1}, {Lo: 2}}, []Uint128{{Lo: 77}}, []Block{{Lo: 9}}
			cws, out := make([]Cw, s.Params().CwRows()), make([]Block, 1)
			gen := testing.AllocsPerRun(100, func() { require.NoError(t, s.Gen(cws, seeds, alphas, betas)) })
			eval := testing.AllocsPerRun(100, func() { require.NoError(t, s.Eval(out, 0, seeds[:1], cws, alphas)) })
			require.Zero(t, gen, "%s %s Gen", im, kind)
			require.Zero(t, eval, "%s %s Eval", im, kind)
		}
	}
}
