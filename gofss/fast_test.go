package gofss

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The routines (fast walks) against the portable walks, on the same random inputs,
// for every scheme, group and PRG, with batch sizes that leave partial vectors,
// groups and tiles, and input widths on both sides of 64 bits.

// rebuild makes the scheme of s's parameters anew on the implementation im.
func rebuild(t testing.TB, s scheme, im Option) Scheme {
	f, err := New(s.Params(), im)
	require.NoError(t, err)
	return f
}

// forEachFastImpl runs fn once per fast implementation that serves the scheme under
// each backend of its PRG, with the scheme made anew on it and on the portable walks:
// every class's walks, not only the fastest here (an AVX-512 CPU also runs those of
// the AVX2 classes, which no other CPU in the tests may have).
func forEachFastImpl(t *testing.T, s scheme, fn func(t *testing.T, fast, portable Scheme)) {
	forEachBackend(t, s.Params().Prg.String(), func(t *testing.T) {
		ran := false
		for _, im := range Impls() {
			if im == PortableImpl {
				continue
			}
			fast, err := New(s.Params(), WithImpl(im))
			if err != nil {
				continue // not served under this backend on this CPU
			}
			ran = true
			t.Run(im, func(t *testing.T) { fn(t, fast, rebuild(t, s, WithImpl(PortableImpl))) })
		}
		if !ran {
			t.Skip("no fast walks under this backend on this CPU")
		}
	})
}

// requireSame is require.Equal for long slices: it names the first element that
// differs and how many do, where testify's diff of a whole output takes minutes.
func requireSame[T comparable](t testing.TB, want, got []T, msg string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want), append([]any{msg}, args...)...)
	for i := range want {
		if want[i] != got[i] {
			n := 0
			for j := i; j < len(want); j++ {
				if want[j] != got[j] {
					n++
				}
			}
			require.Failf(t, "not the same", "%s: element %d of %d differs (%d do): want %v, got %v",
				fmt.Sprintf(msg, args...), i, len(want), n, want[i], got[i])
		}
	}
}

func TestFastMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range testCases(t, []int{1, 3, 9, 20, 64, 65, 128}) {
		t.Run(c.name, func(t *testing.T) {
			forEachFastImpl(t, c.scheme, func(t *testing.T, fast, port Scheme) {
				// 3 and 4: either side of the smallest Gen that takes the tiles when the
				// PRG feeds them (fastGenMinKeys on amd64).
				for _, keys := range []int{1, 3, 4, 5, 133} {
					seeds, alphas, betas := randKeys(r, c.n, keys)
					cws, want := make([]Cw, keys*(c.n+1)), make([]Cw, keys*(c.n+1))
					require.NoError(t, fast.Gen(cws, seeds, alphas, betas))
					require.NoError(t, port.Gen(want, seeds, alphas, betas))
					requireSame(t, want, cws, "Gen, %d keys", keys)

					for _, points := range []int{1, 3} {
						xs := make([]Uint128, keys*points)
						for i := range xs {
							xs[i] = randInput(r, c.n)
							if i%3 == 0 {
								xs[i] = alphas[i/points]
							}
						}
						for p := range 2 {
							ps := make([]Block, keys)
							for k := range keys {
								ps[k] = seeds[2*k+p]
							}
							what := fmt.Sprintf("%d keys x %d points, party %d", keys, points, p)
							requireSameAsPortable(t, fast, port, p, ps, cws, xs, c.n <= 9 && points == 1, what)
						}
					}
				}
			})
		})
	}
}

// requireSameAsPortable checks fast against port on one party's keys (seeds ps,
// correction words cws): Eval at xs and, with all, EvalAll over the keys' domains.
func requireSameAsPortable(t *testing.T, fast, port Scheme, party int, ps []Block, cws []Cw, xs []Uint128, all bool, what string) {
	t.Helper()
	got, want := make([]Block, len(xs)), make([]Block, len(xs))
	require.NoError(t, fast.Eval(got, party, ps, cws, xs))
	require.NoError(t, port.Eval(want, party, ps, cws, xs))
	requireSame(t, want, got, "Eval, %s", what)
	if all {
		n := fast.Params().InBits
		got, want := make([]Block, len(ps)<<n), make([]Block, len(ps)<<n)
		require.NoError(t, fast.EvalAll(got, party, ps, cws))
		require.NoError(t, port.EvalAll(want, party, ps, cws))
		requireSame(t, want, got, "EvalAll, %s", what)
	}
}

// With AES, whole groups of a tile turn their nodes into outputs in dst itself;
// where dst is the inputs' own memory they run in scratch, as partial groups do.
func TestFastEvalOutputsInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, c := range testCases(t, []int{20}) {
		if c.scheme.Params().Prg != PrgAesMmo {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			forEachFastImpl(t, c.scheme, func(t *testing.T, fast, port Scheme) {
				const keys = evalTilePoints + 96 // a whole tile, then one of three DPF groups
				seeds, alphas, betas := randKeys(r, c.n, keys)
				cws := make([]Cw, keys*(c.n+1))
				require.NoError(t, fast.Gen(cws, seeds, alphas, betas))
				ps, xs := make([]Block, keys), make([]Uint128, keys)
				for k := range keys {
					ps[k], xs[k] = seeds[2*k], randInput(r, c.n)
				}
				want := make([]Block, keys)
				require.NoError(t, port.Eval(want, 0, ps, cws, xs))

				got := make([]Block, keys)
				require.NoError(t, fast.Eval(got, 0, ps, cws, xs))
				requireSame(t, want, got, "outputs apart from the inputs")

				shared := make([]Block, keys)
				for k, x := range xs {
					shared[k] = Block(x)
				}
				require.NoError(t, fast.Eval(shared, 0, ps, cws, unsafe.Slice((*Uint128)(unsafe.Pointer(&shared[0])), keys)))
				requireSame(t, want, shared, "outputs over the inputs")
			})
		})
	}
}

// TestFastEvalAllLarge covers the frontier and tiles of a full-size EvalAll.
func TestFastEvalAllLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range testCases(t, []int{14}) {
		if c.g != Bytes && c.g != Uint64 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			forEachFastImpl(t, c.scheme, func(t *testing.T, fast, port Scheme) {
				seeds, cws := genOne(t, fast, c.n, r, randInput(r, c.n), randBlock(r))
				got, exp := make([]Block, 1<<c.n), make([]Block, 1<<c.n)
				require.NoError(t, fast.EvalAll(got, 1, seeds[1:], cws))
				require.NoError(t, port.EvalAll(exp, 1, seeds[1:], cws))
				requireSame(t, exp, got, "EvalAll")
			})
		})
	}
}

// forEachFusedEval runs fn once per implementation with fused AES Eval walks that
// serves p on this CPU, with the scheme made on it.
func forEachFusedEval(t *testing.T, p Params, fn func(t *testing.T, s Scheme)) {
	ran := false
	for _, im := range fusedEvalImpls {
		s, err := New(p, WithImpl(im))
		if err != nil {
			continue // not on this CPU
		}
		ran = true
		t.Run(im, func(t *testing.T) { fn(t, s) })
	}
	if !ran {
		t.Skip("no fused Eval walks in this build or on this CPU")
	}
}

// The AES DPF walk checks correction words as it reads them: a bad one anywhere in a
// batch, inner or last row, is refused with the portable check's error.
func TestFastEvalRefusesBadCws(t *testing.T) {
	const n, keys = 12, 300
	prg, err := NewAesMmo(DefaultAesKeys[:2])
	require.NoError(t, err)
	d, err := NewDpf(n, Uint64, prg)
	require.NoError(t, err)
	forEachFusedEval(t, d.Params(), func(t *testing.T, d Scheme) { testDpfRefusesBadCws(t, d) })
}

// badDpfRow is a change to one row of a batch of DPF-layout keys (in_bits n, 300
// keys) that Gen cannot have made: a set bit where a level row or the last row
// must be clear.
type badDpfRow struct {
	key, row int
	edit     func(*Cw)
	msg      string
}

func badDpfRows(n, keys int) []badDpfRow {
	return []badDpfRow{
		{0, 0, func(c *Cw) { c[1].Lo = 2 }, "key 0, row 0"},
		{151, 7, func(c *Cw) { c[1].Hi = 1 << 40 }, "key 151, row 7"},
		{keys - 1, n - 1, func(c *Cw) { c[1].Lo |= 1 << 63 }, "key 299, row 11"},
		{37, n, func(c *Cw) { c[0] = c[0].WithLsb(1) }, "key 37, last row"},
		{keys - 1, n, func(c *Cw) { c[1].Hi = 1 }, "key 299, last row"},
	}
}

func testDpfRefusesBadCws(t *testing.T, d Scheme) {
	const n, keys = 12, 300
	r := rand.New(rand.NewPCG(15, 16))
	seeds, alphas, betas := randKeys(r, n, keys)
	cws := make([]Cw, keys*(n+1))
	require.NoError(t, d.Gen(cws, seeds, alphas, betas))
	out := make([]Block, keys)
	for _, bad := range badDpfRows(n, keys) {
		t.Run(bad.msg, func(t *testing.T) {
			c := append([]Cw(nil), cws...)
			bad.edit(&c[bad.key*(n+1)+bad.row])
			requireArgError(t, d.Eval(out, 0, seeds[:keys], c, alphas), bad.msg)
		})
	}
}

func TestFastDcfEvalRefusesBadCws(t *testing.T) {
	const n, keys = 12, 100
	prg, err := NewAesMmo(DefaultAesKeys[:4])
	require.NoError(t, err)
	d, err := NewDcf(n, Bytes, prg, Lt)
	require.NoError(t, err)
	forEachFusedEval(t, d.Params(), func(t *testing.T, d Scheme) { testDcfRefusesBadCws(t, d) })
}

func testDcfRefusesBadCws(t *testing.T, d Scheme) {
	const n, keys = 12, 100
	r := rand.New(rand.NewPCG(19, 20))
	seeds, alphas, betas := randKeys(r, n, keys)
	cws := make([]Cw, keys*(n+1))
	require.NoError(t, d.Gen(cws, seeds, alphas, betas))
	out := make([]Block, keys)
	for _, k := range []int{0, 57, keys - 1} {
		for _, edit := range []func(*Cw){func(c *Cw) { c[0].Hi = 1 }, func(c *Cw) { c[1] = c[1].WithLsb(1) }} {
			c := append([]Cw(nil), cws...)
			edit(&c[k*(n+1)+n])
			requireArgError(t, d.Eval(out, 1, seeds[:keys], c, alphas), "last row")
		}
	}
}

// Gen on the implementations with fused AES walks, forced by name, against the
// portable Gen: every group, both predicates, input widths at the edges, and key
// counts around the one-key walks' batches, the routines' groups and the tiles.
func TestFusedGenMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	forEachFusedAgainstPortable(t, func(t *testing.T, n int, port, fast Scheme) {
		for _, keys := range []int{0, 1, 16, 17, 33, 255, 256, 257} {
			seeds, alphas, betas := randKeys(r, n, keys)
			got, want := make([]Cw, keys*(n+1)), make([]Cw, keys*(n+1))
			require.NoError(t, fast.Gen(got, seeds, alphas, betas))
			require.NoError(t, port.Gen(want, seeds, alphas, betas))
			requireSame(t, want, got, "%d keys", keys)
		}
	})
}

// forEachFusedAgainstPortable runs check on every kind, group and input width at
// the edges (1, 2, 64 and 128 bits, either side of 64) with each implementation that
// has fused AES walks, forced by name, and the portable one.
func forEachFusedAgainstPortable(t *testing.T, check func(t *testing.T, n int, port, fast Scheme)) {
	for _, n := range []int{1, 2, 20, 63, 64, 128} {
		for _, g := range allGroups {
			for _, kind := range []Kind{KindDpf, KindDcfLt, KindDcfGt} {
				p := DefaultParams(kind, n, g, PrgAesMmo)
				t.Run(fmt.Sprintf("%s/%s/n=%d", kind, g, n), func(t *testing.T) {
					port, err := New(p, WithImpl(PortableImpl))
					require.NoError(t, err)
					forEachFusedEval(t, p, func(t *testing.T, fast Scheme) { check(t, n, port, fast) })
				})
			}
		}
	}
}

// The fused Eval walks of each CPU class, forced by name, against the portable
// walks: every group, input widths at the edges (1, 2, 64 and 128 bits, either side
// of 64), batches around the walks' groups and tiles, and several points per key.
func TestFusedEvalMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	batches := []struct{ keys, m int }{
		{0, 1}, {1, 1}, {3, 1}, {1, 8}, {9, 1}, {3, 3},
		{evalTilePoints - 1, 1}, {evalTilePoints, 1}, {evalTilePoints + 1, 1}, {86, 3},
	}
	forEachFusedAgainstPortable(t, func(t *testing.T, n int, port, fast Scheme) {
		for _, b := range batches {
			seeds, alphas, betas := randKeys(r, n, b.keys)
			cws := make([]Cw, b.keys*(n+1))
			require.NoError(t, port.Gen(cws, seeds, alphas, betas))
			xs := make([]Uint128, b.keys*b.m)
			for i := range xs {
				xs[i] = randInput(r, n)
				if i%2 == 0 {
					xs[i] = alphas[i/b.m]
				}
			}
			for party := range 2 {
				ps := make([]Block, b.keys)
				for k := range ps {
					ps[k] = seeds[2*k+party]
				}
				got, want := make([]Block, len(xs)), make([]Block, len(xs))
				errFast, errPort := fast.Eval(got, party, ps, cws, xs), port.Eval(want, party, ps, cws, xs)
				require.Equal(t, errPort, errFast, "%d keys x %d points", b.keys, b.m)
				requireSame(t, want, got, "%d keys x %d points, party %d", b.keys, b.m, party)
			}
		}
	})
}
