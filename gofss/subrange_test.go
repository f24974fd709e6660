package gofss

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// EvalAllRange against the slice of the portable EvalAll (or, where the domain is too
// large for that, against Eval at the range's points), on every implementation of
// the walks that serves the scheme on this CPU, for every scheme, group and PRG.

// rangeImpls makes the scheme of s's parameters on each implementation that serves
// it on this CPU: the fast ones join where the CPU has them.
func rangeImpls(t testing.TB, s scheme) map[string]RangeScheme {
	out := map[string]RangeScheme{}
	for _, name := range Impls() {
		if f, err := New(s.Params(), WithImpl(name)); err == nil {
			out[name] = f.(RangeScheme)
		}
	}
	require.Contains(t, out, PortableImpl)
	return out
}

// rangeKeys makes keys keys of s and returns one party's seeds and the words.
func rangeKeys(t testing.TB, s scheme, r *rand.Rand, n, keys, party int) ([]Block, []Cw) {
	seeds, alphas, betas := randKeys(r, n, keys)
	cws := make([]Cw, keys*s.Params().CwRows())
	require.NoError(t, s.Gen(cws, seeds, alphas, betas))
	ps := make([]Block, keys)
	for k := range ps {
		ps[k] = seeds[2*k+party]
	}
	return ps, cws
}

// requireRangeIsSlice checks that s's EvalAllRange(start, stop) of keys whose full
// EvalAll is full (keys x 2^n blocks) equals its slices.
func requireRangeIsSlice(t *testing.T, s RangeScheme, party int, ps []Block, cws []Cw, full []Block, start, stop uint64) {
	n, width := s.Params().InBits, stop-start
	got := make([]Block, uint64(len(ps))*width)
	require.NoError(t, s.EvalAllRange(got, party, ps, cws, start, stop))
	for k := range ps {
		want := full[k<<n+int(start) : k<<n+int(stop)]
		requireSame(t, want, got[k*int(width):(k+1)*int(width)], "%s: key %d, [%d, %d)", s.Impl(), k, start, stop)
	}
}

// Every range of domains up to 2^6, and for 2^7 and 2^8 every start with a random
// stop and every stop with a random start.
func TestEvalAllRangeSmallDomains(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, c := range testCases(t, []int{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Run(c.name, func(t *testing.T) {
			const keys = 3
			party := r.IntN(2)
			ps, cws := rangeKeys(t, c.scheme, r, c.n, keys, party)
			full := make([]Block, keys<<c.n)
			impls := rangeImpls(t, c.scheme)
			require.NoError(t, impls[PortableImpl].EvalAll(full, party, ps, cws))
			size := uint64(1) << c.n
			for _, s := range impls {
				for start := range size + 1 {
					if c.n <= 6 {
						for stop := start; stop <= size; stop++ {
							requireRangeIsSlice(t, s, party, ps, cws, full, start, stop)
						}
						continue
					}
					requireRangeIsSlice(t, s, party, ps, cws, full, start, start+r.Uint64N(size-start+1))
					requireRangeIsSlice(t, s, party, ps, cws, full, r.Uint64N(start+1), start)
				}
			}
		})
	}
}

// A domain of 2^20, for which the walk has a frontier and tiles: whole, halves, a
// 2^16 subtree, ranges across the middle and at the ends, and random ones.
func TestEvalAllRangeLargeDomain(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	const n, keys = 20, 1
	for _, c := range testCases(t, []int{n}) {
		if c.g != Uint64 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			ps, cws := rangeKeys(t, c.scheme, r, n, keys, 1)
			full := make([]Block, keys<<n)
			impls := rangeImpls(t, c.scheme)
			require.NoError(t, impls[PortableImpl].EvalAll(full, 1, ps, cws))
			ranges := [][2]uint64{{0, 1 << n}, {0, 1 << 19}, {1 << 19, 1 << 20}, {5 << 16, 6 << 16},
				{1<<19 - 7, 1<<19 + 1000}, {1<<20 - 1, 1 << 20}, {0, 1}, {1, 1<<20 - 1}}
			for range 4 {
				a, b := r.Uint64N(1<<n+1), r.Uint64N(1<<n+1)
				ranges = append(ranges, [2]uint64{min(a, b), max(a, b)})
			}
			for _, s := range impls {
				for _, rg := range ranges {
					requireRangeIsSlice(t, s, 1, ps, cws, full, rg[0], rg[1])
				}
			}
		})
	}
}

// At in_bits 40, the widest full-domain evaluation, ranges at the ends and across
// the middle of the domain against Eval at their points.
func TestEvalAllRangeWidestDomain(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	const n, keys = MaxEvalAllBits, 2
	for _, c := range testCases(t, []int{n}) {
		if c.g != Uint32 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			ps, cws := rangeKeys(t, c.scheme, r, n, keys, 0)
			ranges := [][2]uint64{{0, 3}, {1<<n - 5, 1 << n}, {1<<39 - 3, 1<<39 + 3}, {3 << 30, 3<<30 + 1<<12}, {1<<n - 1, 1 << n}}
			for _, s := range rangeImpls(t, c.scheme) {
				for _, rg := range ranges {
					width := int(rg[1] - rg[0])
					xs := make([]Uint128, keys*width)
					for i := range xs {
						xs[i] = Uint128{Lo: rg[0] + uint64(i%width)}
					}
					want, got := make([]Block, len(xs)), make([]Block, len(xs))
					require.NoError(t, s.Eval(want, 0, ps, cws, xs))
					require.NoError(t, s.EvalAllRange(got, 0, ps, cws, rg[0], rg[1]))
					requireSame(t, want, got, "%s: [%d, %d)", s.Impl(), rg[0], rg[1])
				}
			}
		})
	}
}

// The runs cover the range in order, each aligned to its length and as long as
// allowed; an aligned range is one run.
func TestAlignedRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	for range 2000 {
		n := 1 + r.IntN(MaxEvalAllBits)
		a, b := r.Uint64N(1<<n+1), r.Uint64N(1<<n+1)
		start, stop := min(a, b), max(a, b)
		runs := alignedRuns(start, stop, n)
		require.LessOrEqual(t, len(runs), 2*n)
		x := start
		for i, run := range runs {
			require.Equal(t, x, run.start)
			require.Zero(t, run.start%(1<<run.depth), "run %d of [%d, %d) is not aligned", i, start, stop)
			require.LessOrEqual(t, run.depth, n)
			x += 1 << run.depth
		}
		require.Equal(t, stop, x, "[%d, %d)", start, stop)
	}
	require.Equal(t, []alignedRun{{0, 12}}, alignedRuns(0, 1<<12, 12))
	require.Equal(t, []alignedRun{{5 << 20, 20}}, alignedRuns(5<<20, 6<<20, 24))
	require.Equal(t, []alignedRun{{3, 0}, {4, 2}, {8, 1}, {10, 0}}, alignedRuns(3, 11, 8))
	require.Empty(t, alignedRuns(7, 7, 8))
}

func TestEvalAllRangeErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(49, 50))
	for _, c := range testCases(t, []int{8}) {
		if c.g != Bytes {
			continue
		}
		s := c.scheme.(RangeScheme)
		ps, cws := rangeKeys(t, c.scheme, r, 8, 2, 0)
		requireArgError(t, s.EvalAllRange(make([]Block, 2), 0, ps, cws, 5, 4), "start must be at most stop, not 5 > 4")
		requireArgError(t, s.EvalAllRange(make([]Block, 2), 0, ps, cws, 256, 257), "stop must be at most 2**8 (the domain's size), not 257")
		requireArgError(t, s.EvalAllRange(make([]Block, 6), 0, ps, cws, 1<<63, 1<<63+3), "stop must be at most 2**8")
		requireArgError(t, s.EvalAllRange(make([]Block, 5), 0, ps, cws, 10, 13), "dst must hold stop-start = 3 blocks per key (2 keys), not 5")
		requireArgError(t, s.EvalAllRange(make([]Block, 1), 0, ps, cws, 10, 10), "dst must hold stop-start = 0 blocks per key (2 keys), not 1")
		requireArgError(t, s.EvalAllRange(make([]Block, 6), 2, ps, cws, 10, 13), "party must be 0 or 1")
		requireArgError(t, s.EvalAllRange(make([]Block, 6), 0, ps, cws[1:], 10, 13), "cws must hold")
		require.NoError(t, s.EvalAllRange(nil, 0, ps, cws, 10, 10), "an empty range evaluates nothing")
		require.NoError(t, s.EvalAllRange(nil, 0, nil, nil, 0, 256), "no keys")
	}
	cc, err := NewChaCha(2, DefaultNonce)
	require.NoError(t, err)
	wide, err := NewDpf(MaxEvalAllBits+1, Uint32, cc)
	require.NoError(t, err)
	requireArgError(t, wide.EvalAllRange(make([]Block, 1), 0, []Block{{}}, make([]Cw, MaxEvalAllBits+2), 0, 1), "too large for full-domain evaluation")
	// The words are checked as for EvalAll.
	d, err := NewDpf(8, Bytes, cc)
	require.NoError(t, err)
	ps, cws := rangeKeys(t, d, r, 8, 1, 0)
	cws[8][0].Hi |= lsbBit
	requireArgError(t, d.EvalAllRange(make([]Block, 3), 0, ps, cws, 1, 4), "last row")
}

// The Control counts a range's outputs, points of one input included, and ends it.
func TestEvalAllRangeWithControl(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, c := range testCases(t, []int{12}) {
		if c.g != Uint32 {
			continue
		}
		const keys = 7
		ps, cws := rangeKeys(t, c.scheme, r, c.n, keys, 1)
		var ctl Control
		s := c.scheme.(Scheme).WithControl(&ctl).(RangeScheme)
		for _, rg := range [][2]uint64{{1, 4001}, {1 << 11, 1 << 12}, {9, 10}} {
			width := int(rg[1] - rg[0])
			got, want := make([]Block, keys*width), make([]Block, keys*width)
			require.NoError(t, s.EvalAllRange(got, 1, ps, cws, rg[0], rg[1]))
			require.EqualValues(t, keys*width, ctl.Done.Swap(0), "%s: outputs of [%d, %d)", c.name, rg[0], rg[1])
			require.NoError(t, c.scheme.(RangeScheme).EvalAllRange(want, 1, ps, cws, rg[0], rg[1]))
			requireSame(t, want, got, "%s", c.name)
		}
		ctl.Stop.Store(1)
		require.ErrorIs(t, s.EvalAllRange(make([]Block, keys*3), 1, ps, cws, 1, 4), ErrStopped, c.name)
		require.ErrorIs(t, s.EvalAllRange(make([]Block, keys<<11), 1, ps, cws, 1<<11, 1<<12), ErrStopped, c.name)
	}
}

// EvalAllRange over the 2^20 inputs of one depth-20 subtree of a 2^24 domain
// (range24) against EvalAll of a 2^20 domain (full20), one key, per output: the
// descent and the level offsets are the whole difference. The two alternate within
// each iteration, so that both see the same load; the metrics are their times per
// output and range24/full20. Group uint64, the fastest walks on this CPU.
func BenchmarkEvalAllRange(b *testing.B) {
	for _, kind := range []Kind{KindDpf, KindDcfLt, KindHalfTreeDpf} {
		for _, prg := range []PrgKind{PrgAesMmo, PrgChaCha} {
			b.Run(fmt.Sprintf("%s/%s", kind, prg), func(b *testing.B) {
				type variant struct {
					bits        int
					start, stop uint64
					elapsed     time.Duration
				}
				vs := []*variant{{bits: 20, stop: 1 << 20}, {bits: 24, start: 5 << 20, stop: 6 << 20}}
				out := make([]Block, 1<<20)
				calls := make([]func() error, len(vs))
				for i, v := range vs {
					s, err := New(DefaultParams(kind, v.bits, Uint64, prg))
					if err != nil {
						b.Fatal(err)
					}
					_, p0, _, _, cws := benchKeys(b, s, 1)
					calls[i] = func() error { return s.(RangeScheme).EvalAllRange(out, 0, p0, cws, v.start, v.stop) }
				}
				for b.Loop() {
					for i, v := range vs {
						t := time.Now()
						if err := calls[i](); err != nil {
							b.Fatal(err)
						}
						v.elapsed += time.Since(t)
					}
				}
				perOutput := func(v *variant) float64 { return float64(v.elapsed.Nanoseconds()) / float64(b.N<<20) }
				b.ReportMetric(perOutput(vs[0]), "full20-ns/output")
				b.ReportMetric(perOutput(vs[1]), "range24-ns/output")
				b.ReportMetric(perOutput(vs[1])/perOutput(vs[0]), "range24/full20")
			})
		}
	}
}

// Full-domain calls on no keys allocate nothing for trees that do not exist (at
// in_bits 28 the frontier rows of one key were 224 MiB; at 40, 128 GiB).
func TestEmptyBatchFullDomain(t *testing.T) {
	const n = 28
	allocated := func(f func() error) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		require.NoError(t, f())
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, kind := range []Kind{KindDpf, KindDcfLt, KindHalfTreeDpf} {
		s, err := New(DefaultParams(kind, n, Bytes, PrgChaCha))
		require.NoError(t, err)
		require.Less(t, allocated(func() error { return s.EvalAll(nil, 0, nil, nil) }), uint64(1<<20), "%s", kind)
		rs := s.(RangeScheme)
		require.Less(t, allocated(func() error { return rs.EvalAllRange(nil, 0, nil, nil, 0, 1<<n) }), uint64(1<<20), "%s", kind)
	}
	g, err := NewGrottoDcf(DefaultParams(KindGrottoDcf, n, Bytes, PrgChaCha))
	require.NoError(t, err)
	require.Less(t, allocated(func() error { return g.Preprocess(nil, 0, nil, nil) }), uint64(1<<20))
}
