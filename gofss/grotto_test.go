package gofss

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Grotto DCF against plaintext: the parties' bits XOR to 1{x >= alpha} at every
// point and to 1{lo <= alpha <= hi} on every interval; batches equal single calls;
// EvalAll equals Eval.

func newTestGrotto(t testing.TB, n int, prg PrgKind) *GrottoDcf {
	g, err := NewGrottoDcf(DefaultParams(KindGrottoDcf, n, Bytes, prg))
	require.NoError(t, err)
	return g
}

// grottoKeys makes keys keys at alphas and returns each party's seeds, its
// preprocessed keys and the correction words.
func grottoKeys(t testing.TB, g *GrottoDcf, r *rand.Rand, alphas []Uint128) ([2][]Block, [2][]uint64, []Cw) {
	n, keys := g.params.InBits, len(alphas)
	seeds, _, _ := randKeys(r, n, keys)
	cws := make([]Cw, keys*(n+1))
	require.NoError(t, g.Gen(cws, seeds, alphas))
	var ps [2][]Block
	var pre [2][]uint64
	for p := range 2 {
		for k := range keys {
			ps[p] = append(ps[p], seeds[2*k+p])
		}
		pre[p] = make([]uint64, keys*g.ParityWords())
		require.NoError(t, g.Preprocess(pre[p], p, ps[p], cws))
	}
	return ps, pre, cws
}

func geq(x, alpha Uint128) uint8 { return boolBit(!less(x, alpha)) }

func TestGrottoAllPointsAndIntervals(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for n := 1; n <= 8; n++ {
		for _, prg := range []PrgKind{PrgChaCha, PrgAesMmo} {
			g := newTestGrotto(t, n, prg)
			domain := 1 << n
			alphas := []Uint128{{}, {Lo: uint64(domain - 1)}, randInput(r, n), randInput(r, n)}
			ps, pre, cws := grottoKeys(t, g, r, alphas)
			var xs, los, his []Uint128
			for range alphas {
				for x := range domain {
					xs = append(xs, Uint128{Lo: uint64(x)})
					for hi := x; hi < domain; hi++ {
						los, his = append(los, Uint128{Lo: uint64(x)}), append(his, Uint128{Lo: uint64(hi)})
					}
				}
			}
			var y, in, all [2][]uint8
			for p := range 2 {
				y[p], in[p], all[p] = make([]uint8, len(xs)), make([]uint8, len(los)), make([]uint8, len(alphas)<<n)
				require.NoError(t, g.Eval(y[p], pre[p], xs))
				require.NoError(t, g.EvalInterval(in[p], pre[p], los, his))
				require.NoError(t, g.EvalAll(all[p], p, ps[p], cws))
			}
			m := len(los) / len(alphas)
			for k, alpha := range alphas {
				for x := range domain {
					j := k*domain + x
					require.Equal(t, geq(xs[j], alpha), y[0][j]^y[1][j], "n=%d alpha=%v x=%d", n, alpha, x)
					require.Equal(t, y[0][j], all[0][j], "EvalAll party 0, n=%d x=%d", n, x)
					require.Equal(t, y[1][j], all[1][j], "EvalAll party 1, n=%d x=%d", n, x)
				}
				for j := k * m; j < (k+1)*m; j++ {
					want := boolBit(!less(alpha, los[j]) && !less(his[j], alpha))
					require.Equal(t, want, in[0][j]^in[1][j], "n=%d alpha=%v [%v, %v]", n, alpha, los[j], his[j])
				}
			}
		}
	}
}

// At in_bits 20, sampled points and intervals around alpha, and batches of keys
// that equal single calls.
func TestGrottoBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	const n, keys, points = 20, 3, 500
	g := newTestGrotto(t, n, PrgAesMmo)
	alphas := []Uint128{randInput(r, n), {}, {Lo: 1<<n - 1}}
	ps, pre, cws := grottoKeys(t, g, r, alphas)
	xs := make([]Uint128, 0, keys*points)
	los, his := make([]Uint128, 0, keys*points), make([]Uint128, 0, keys*points)
	for _, alpha := range alphas {
		near := []Uint128{alpha.Add(Uint128{^uint64(0), ^uint64(0)}), alpha, alpha.Add(Uint128{Lo: 1})}
		for j := range points {
			x := randInput(r, n)
			if j < len(near) {
				x = shiftMask(near[j], n)
			}
			lo, hi := x, randInput(r, n)
			if less(hi, lo) {
				lo, hi = hi, lo
			}
			xs, los, his = append(xs, x), append(los, lo), append(his, hi)
		}
	}
	W := g.ParityWords()
	for p := range 2 {
		y, in := make([]uint8, len(xs)), make([]uint8, len(xs))
		require.NoError(t, g.Eval(y, pre[p], xs))
		require.NoError(t, g.EvalInterval(in, pre[p], los, his))
		all := make([]uint8, keys<<n)
		require.NoError(t, g.EvalAll(all, p, ps[p], cws))
		for k := range keys {
			one := make([]uint64, W)
			require.NoError(t, g.Preprocess(one, p, ps[p][k:k+1], cws[k*(n+1):(k+1)*(n+1)]))
			require.Equal(t, one, pre[p][k*W:(k+1)*W], "key %d: batched Preprocess", k)
			for j := k * points; j < (k+1)*points; j++ {
				y1, in1 := make([]uint8, 1), make([]uint8, 1)
				require.NoError(t, g.Eval(y1, one, xs[j:j+1]))
				require.NoError(t, g.EvalInterval(in1, one, los[j:j+1], his[j:j+1]))
				require.Equal(t, y1[0], y[j], "key %d point %d", k, j)
				require.Equal(t, in1[0], in[j], "key %d interval %d", k, j)
				require.Equal(t, y[j], all[k<<n+int(xs[j].Lo)], "key %d: EvalAll at %v", k, xs[j])
			}
		}
	}
	// The shares reconstruct.
	var y, in [2][]uint8
	for p := range 2 {
		y[p], in[p] = make([]uint8, len(xs)), make([]uint8, len(xs))
		require.NoError(t, g.Eval(y[p], pre[p], xs))
		require.NoError(t, g.EvalInterval(in[p], pre[p], los, his))
	}
	for j := range xs {
		alpha := alphas[j/points]
		require.Equal(t, geq(xs[j], alpha), y[0][j]^y[1][j], "alpha=%v x=%v", alpha, xs[j])
		require.Equal(t, boolBit(!less(alpha, los[j]) && !less(his[j], alpha)), in[0][j]^in[1][j])
	}
}

func TestGrottoErrors(t *testing.T) {
	const n = 8
	_, err := NewGrottoDcf(DefaultParams(KindDpf, n, Bytes, PrgChaCha))
	requireArgError(t, err, "scheme must be grotto_dcf, not dpf")
	_, err = NewGrottoDcf(DefaultParams(KindGrottoDcf, n, Uint32, PrgChaCha))
	requireArgError(t, err, "group: grotto_dcf outputs bit shares")
	_, err = NewGrottoDcf(DefaultParams(KindGrottoDcf, 41, Bytes, PrgChaCha))
	requireArgError(t, err, "in_bits must be between 1 and 40 for grotto_dcf")
	_, err = New(DefaultParams(KindGrottoDcf, n, Bytes, PrgChaCha))
	requireArgError(t, err, "make it with NewGrottoDcf")

	g := newTestGrotto(t, n, PrgChaCha)
	seeds := []Block{{Lo: 1}, {Lo: 2}}
	alpha := []Uint128{{Lo: 5}}
	cws := make([]Cw, n+1)
	requireArgError(t, g.Gen(cws, seeds[:1], alpha), "s0s must hold 2 seeds per key")
	requireArgError(t, g.Gen(cws[:n], seeds, alpha), "cws must hold 9 correction words")
	requireArgError(t, g.Gen(cws, seeds, []Uint128{{Lo: 256}}), "alpha must be in [0, 2^8)")
	requireArgError(t, g.Gen(cws, []Block{{Lo: 3}, {Lo: 3, Hi: 1 << 32}}, alpha), "s0s: key 0: the two seeds are equal")
	require.NoError(t, g.Gen(cws, seeds, alpha))

	W := g.ParityWords()
	pre := make([]uint64, W)
	requireArgError(t, g.Preprocess(pre, 2, seeds[:1], cws), "party must be 0 or 1")
	requireArgError(t, g.Preprocess(pre[:W-1], 0, seeds[:1], cws), "pre must hold 4 words per key (1 keys), not 3")
	requireArgError(t, g.Preprocess(pre, 0, seeds[:1], cws[:n]), "cws must hold 9 correction words")
	bad := append([]Cw(nil), cws...)
	bad[2][1].Lo = 2
	requireArgError(t, g.Preprocess(pre, 0, seeds[:1], bad), "cws: key 0, row 2")
	bad = append([]Cw(nil), cws...)
	bad[n][0] = bad[n][0].WithLsb(1)
	requireArgError(t, g.Preprocess(pre, 0, seeds[:1], bad), "cws: key 0, last row")
	require.NoError(t, g.Preprocess(pre, 0, seeds[:1], cws))

	out := make([]uint8, 1)
	requireArgError(t, g.Eval(out, pre[:W-1], alpha), "pre must hold 4 words per key, not 3 in all")
	requireArgError(t, g.Eval(out, pre, []Uint128{{Lo: 256}}), "x must be in [0, 2^8): entry 0")
	requireArgError(t, g.Eval(make([]uint8, 2), pre, alpha), "dst must hold one byte per point (1), not 2")
	requireArgError(t, g.Eval(out, append(pre, pre...), alpha), "xs must hold the same number of points for each of the 2 keys")
	requireArgError(t, g.EvalInterval(out, pre, alpha, nil), "his must hold one bound per interval (1), not 0")
	requireArgError(t, g.EvalInterval(out, pre, []Uint128{{Lo: 7}}, alpha), "los: entry 0 is above its his entry")
	requireArgError(t, g.EvalInterval(out, pre, alpha, []Uint128{{Hi: 1}}), "hi must be in [0, 2^8)")
	requireArgError(t, g.EvalInterval(out, pre, []Uint128{{Lo: 300}}, alpha), "lo must be in [0, 2^8)")
	requireArgError(t, g.EvalAll(make([]uint8, 1<<n-1), 0, seeds[:1], cws), "dst must hold 2**8 bytes per key (1 keys), not 255")
	requireArgError(t, g.EvalAll(make([]uint8, 1<<n), -1, seeds[:1], cws), "party must be 0 or 1")

	// Empty batches do nothing.
	require.NoError(t, g.Gen(nil, nil, nil))
	require.NoError(t, g.Preprocess(nil, 0, nil, nil))
	require.NoError(t, g.Eval(nil, nil, nil))
	require.NoError(t, g.Eval(nil, pre, nil))
	require.NoError(t, g.EvalInterval(nil, pre, nil, nil))
	require.NoError(t, g.EvalAll(nil, 1, nil, nil))
}

// A Control's Stop ends every operation with ErrStopped; left at zero it changes no
// output.
func TestGrottoWithControl(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	const n, keys = 12, 50
	g := newTestGrotto(t, n, PrgChaCha)
	var ctl Control
	s := g.WithControl(&ctl)
	seeds, alphas, _ := randKeys(r, n, keys)
	cws, want := make([]Cw, keys*(n+1)), make([]Cw, keys*(n+1))
	require.NoError(t, s.Gen(cws, seeds, alphas))
	require.NoError(t, g.Gen(want, seeds, alphas))
	require.Equal(t, want, cws)
	ps := make([]Block, keys)
	for k := range ps {
		ps[k] = seeds[2*k]
	}
	pre := make([]uint64, keys*g.ParityWords())
	require.NoError(t, s.Preprocess(pre, 0, ps, cws))
	ctl.Done.Store(0)
	require.NoError(t, s.EvalAll(make([]uint8, keys<<n), 0, ps, cws))
	require.Equal(t, int64(keys<<n), ctl.Done.Load(), "EvalAll counts each output once")

	ctl.Stop.Store(1)
	require.ErrorIs(t, s.Gen(cws, seeds, alphas), ErrStopped)
	require.ErrorIs(t, s.Preprocess(pre, 0, ps, cws), ErrStopped)
	require.ErrorIs(t, s.Eval(make([]uint8, keys), pre, alphas), ErrStopped)
	require.ErrorIs(t, s.EvalInterval(make([]uint8, keys), pre, alphas, alphas), ErrStopped)
	require.ErrorIs(t, s.EvalAll(make([]uint8, keys<<n), 0, ps, cws), ErrStopped)
	require.NoError(t, g.Preprocess(pre, 0, ps, cws), "the scheme itself keeps no flag")
}
