//go:build amd64 && !purego

package gofss

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/chacha"
	"github.com/pyfss/pyfss/gofss/internal/kat"
)

// The "chacha" implementation's Eval: its point walks (8 points a call with AVX2, 32
// with AVX-512, and a point at a time for the shortest batches) on the vectors' keys, with every
// vector point of a case in one batch, and against the portable walks on random keys,
// with its EvalAll (the vectors' EvalAll runs on it in TestVectors).

// onChachaImpl makes s anew on the chacha implementation, or skips where it does not
// serve s under the ChaCha backend selected now (the portable one).
func onChachaImpl(t *testing.T, s scheme) Scheme {
	if chacha.PointLanes() == 0 {
		t.Skip("no point walks under the " + chacha.Backend() + " backend")
	}
	return rebuild(t, s, WithImpl(ChachaImpl))
}

func TestChachaImplVectors(t *testing.T) {
	for _, name := range kat.TreeFiles {
		f, err := kat.LoadTree(name)
		require.NoError(t, err)
		if f.Prg.Name != "chacha" || f.Scheme == "half_tree_dpf" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			forEachBackend(t, f.Prg.Name, func(t *testing.T) {
				for i := range f.Cases {
					c := &f.Cases[i]
					s := onChachaImpl(t, katScheme(t, f, c))
					cws := make([]Cw, len(c.Cws))
					for i, row := range c.Cws {
						cws[i] = katCw(row)
					}
					// The case's points repeated, so that the batch fills chunks
					// and leaves a partial one.
					var xs []Uint128
					var want [2][]Block
					for len(xs) < 37 {
						for _, e := range c.Evals {
							xs = append(xs, katUint(e.X))
							want[0], want[1] = append(want[0], katBlock(e.Y0)), append(want[1], katBlock(e.Y1))
						}
					}
					seeds := []Block{katBlock(c.Seeds[0]), katBlock(c.Seeds[1])}
					for party := range 2 {
						for _, points := range []int{1, len(xs)} {
							got := make([]Block, points)
							require.NoError(t, s.Eval(got, party, seeds[party:party+1], cws, xs[:points]))
							require.Equal(t, want[party][:points], got, "%s: party %d, %d points", c.ID, party, points)
						}
					}
				}
			})
		})
	}
}

func TestChachaImplMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range testCases(t, []int{1, 2, 12, 20, 63, 64, 128}) {
		if c.scheme.Params().Prg != PrgChaCha || c.scheme.Params().Kind == KindHalfTreeDpf {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			forEachBackend(t, "chacha", func(t *testing.T) {
				fast := onChachaImpl(t, c.scheme)
				port := rebuild(t, c.scheme, WithImpl(PortableImpl))
				// large: enough chunks to be split over goroutines, with the keys'
				// correction words under a huge page: Gen advises larger ones for huge
				// pages, and memory reused from them would fail the huge page tests.
				large := (2<<20)/(c.scheme.Params().CwRows()*cwSize) - 1
				for _, points := range []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65, 300, large} {
					for _, m := range []int{1, 3} {
						keys := max(1, points/m)
						if points == 0 {
							keys = 0
						}
						seeds, alphas, betas := randKeys(r, c.n, keys)
						cws := make([]Cw, keys*c.scheme.Params().CwRows())
						require.NoError(t, port.Gen(cws, seeds, alphas, betas))
						xs := make([]Uint128, keys*m)
						for i := range xs {
							xs[i] = randInput(r, c.n)
							if i%3 == 0 {
								xs[i] = alphas[i/m]
							}
						}
						for p := range 2 {
							ps := make([]Block, keys)
							for k := range keys {
								ps[k] = seeds[2*k+p]
							}
							what := fmt.Sprintf("%d keys x %d points, party %d", keys, m, p)
							requireSameAsPortable(t, fast, port, p, ps, cws, xs, c.n <= 12 && m == 1 && points <= 9, what)
						}
					}
				}
			})
		})
	}
}

// Correction words that Gen cannot have made are refused on both paths: one point
// alone (checked before its walk) and a batch (each chunk's keys checked after its
// walk).
func TestChachaImplRefusesBadCws(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range testCases(t, []int{20}) {
		if c.scheme.Params().Prg != PrgChaCha || c.scheme.Params().Kind == KindHalfTreeDpf {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			fast := onChachaImpl(t, c.scheme)
			for _, points := range []int{1, 40} {
				seeds, alphas, betas := randKeys(r, c.n, points)
				cws := make([]Cw, points*c.scheme.Params().CwRows())
				require.NoError(t, fast.Gen(cws, seeds, alphas, betas))
				if c.pred < 0 {
					cws[len(cws)-2][1].Lo ^= 2 // DPF: a level row's tr word other than 0 or 1
				} else {
					cws[len(cws)-1][0].Lo ^= 2 // DCF: a nonzero seed block in the last row
				}
				ps := make([]Block, points)
				for k := range points {
					ps[k] = seeds[2*k]
				}
				err := fast.Eval(make([]Block, points), 0, ps, cws, alphas)
				var argErr *ArgError
				require.ErrorAs(t, err, &argErr)
			}
		})
	}
}

// A batch's bad row in any key, first, middle or last, inner or last row, is refused
// with the error of the check of all keys, which names the first bad key: the
// routine checks the level rows of DPF keys as it reads them (Points.RowsOr), Go
// the last rows after each chunk.
func TestChachaImplNamesBadKey(t *testing.T) {
	testChachaRefusesBadCws(t, ChachaImpl)
	testChachaBatchNamesBadKey(t, ChachaImpl)
}

// testChachaRefusesBadCws runs the DPF and DCF bad-row tests with ChaCha on
// implementation im, skipping where this CPU does not serve it.
func testChachaRefusesBadCws(t *testing.T, im string) {
	for _, kind := range []Kind{KindDpf, KindDcfLt} {
		s, err := New(DefaultParams(kind, 12, Bytes, PrgChaCha), WithImpl(im))
		if err != nil {
			t.Skipf("%s walks not served here: %v", im, err)
		}
		if kind == KindDpf {
			testDpfRefusesBadCws(t, s)
		} else {
			testDcfRefusesBadCws(t, s)
		}
	}
}

// The avx512 walks with ChaCha check each tile's keys after its walk: a bad row in
// any key of a batch of several tiles, at one or three points a key, is refused
// with the error that names the first bad key.
func TestAvx512ChachaNamesBadKey(t *testing.T) {
	testChachaRefusesBadCws(t, "avx512")
	testChachaBatchNamesBadKey(t, "avx512")
}

// testChachaBatchNamesBadKey runs the DPF bad-row cases on im with three points a
// key, so that a key's points share chunks and tiles.
func testChachaBatchNamesBadKey(t *testing.T, im string) {
	s, err := New(DefaultParams(KindDpf, 12, Bytes, PrgChaCha), WithImpl(im))
	if err != nil {
		t.Skipf("%s walks not served here: %v", im, err)
	}
	const n, keys, m = 12, 300, 3
	r := rand.New(rand.NewPCG(31, 32))
	seeds, alphas, betas := randKeys(r, n, keys)
	cws := make([]Cw, keys*(n+1))
	require.NoError(t, s.Gen(cws, seeds, alphas, betas))
	xs := make([]Uint128, keys*m)
	for i := range xs {
		xs[i] = alphas[i/m]
	}
	for _, bad := range badDpfRows(n, keys) {
		c := append([]Cw(nil), cws...)
		bad.edit(&c[bad.key*(n+1)+bad.row])
		requireArgError(t, s.Eval(make([]Block, len(xs)), 0, everyOther(seeds, 0), c, xs), bad.msg)
	}
}

// BenchmarkChachaImpl times Eval with ChaCha (uint64, in_bits 20) per key, one point
// each, on the chacha implementation and, as the baseline in the same run, on the
// implementation that served ChaCha before it (portable walks on AVX2, the AVX-512
// walks where they run); batch sizes around the switch from a point at a time to
// chunks, and a large batch.
func BenchmarkChachaImpl(b *testing.B) {
	for _, kind := range []Kind{KindDpf, KindDcfLt} {
		p := DefaultParams(kind, benchBits, Uint64, PrgChaCha)
		for _, im := range []string{ChachaImpl, "avx512", PortableImpl} {
			s, err := New(p, WithImpl(im))
			if err != nil {
				continue // not served on this CPU
			}
			for _, k := range []int{1, 2, 3, 4, 8, 16, 24, 40, benchKeysN} {
				seeds, p0, alphas, betas, cws := benchKeys(b, s.(scheme), k)
				out := make([]Block, k)
				b.Run(fmt.Sprintf("%s/keys=%d/%s", kind, k, im), func(b *testing.B) {
					perItem(b, k, "key", func() {
						if err := s.Eval(out, 0, p0, cws, alphas); err != nil {
							b.Fatal(err)
						}
					})
				})
				b.Run(fmt.Sprintf("%s/keys=%d/%s/gen", kind, k, im), func(b *testing.B) {
					perItem(b, k, "key", func() {
						if err := s.Gen(cws, seeds, alphas, betas); err != nil {
							b.Fatal(err)
						}
					})
				})
			}
		}
	}
}

// A chunk reads its points' inputs and roots before it writes their outputs, so dst
// may be the memory of xs or of s0s (one point per key).
func TestChachaImplOutputsInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, c := range testCases(t, []int{20}) {
		if c.scheme.Params().Prg != PrgChaCha || c.scheme.Params().Kind == KindHalfTreeDpf {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			fast := onChachaImpl(t, c.scheme)
			const keys = 37
			seeds, alphas, betas := randKeys(r, c.n, keys)
			cws := make([]Cw, keys*(c.n+1))
			require.NoError(t, fast.Gen(cws, seeds, alphas, betas))
			ps, xs := make([]Block, keys), make([]Uint128, keys)
			for k := range keys {
				ps[k], xs[k] = seeds[2*k], randInput(r, c.n)
			}
			want := make([]Block, keys)
			require.NoError(t, rebuild(t, c.scheme, WithImpl(PortableImpl)).Eval(want, 0, ps, cws, xs))

			overXs := make([]Block, keys)
			for k, x := range xs {
				overXs[k] = Block(x)
			}
			require.NoError(t, fast.Eval(overXs, 0, ps, cws, unsafe.Slice((*Uint128)(unsafe.Pointer(&overXs[0])), keys)))
			require.Equal(t, want, overXs, "outputs over the inputs")

			overSeeds := append([]Block(nil), ps...)
			require.NoError(t, fast.Eval(overSeeds, 0, overSeeds, cws, xs))
			require.Equal(t, want, overSeeds, "outputs over the roots")
		})
	}
}

// BenchmarkChachaImplEvalAll times DPF and DCF EvalAll with ChaCha (uint64, in_bits
// 20) per output on the chacha implementation and on the one before it, in the
// same run.
func BenchmarkChachaImplEvalAll(b *testing.B) {
	for _, kind := range []Kind{KindDpf, KindDcfLt} {
		p := DefaultParams(kind, benchBits, Uint64, PrgChaCha)
		for _, im := range []string{ChachaImpl, "avx512", PortableImpl} {
			s, err := New(p, WithImpl(im))
			if err != nil {
				continue // not served on this CPU
			}
			_, p0, _, _, cws := benchKeys(b, s.(scheme), 1)
			out := make([]Block, 1<<benchBits)
			b.Run(fmt.Sprintf("%s/%s", kind, im), func(b *testing.B) {
				perItem(b, len(out), "output", func() {
					if err := s.EvalAll(out, 0, p0, cws); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
