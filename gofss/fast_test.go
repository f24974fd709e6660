package gofss

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The kernels (fast walks) against the portable walks, on the same random inputs,
// for every scheme, group and PRG, with batch sizes that leave partial vectors,
// groups and tiles, and input widths on both sides of 64 bits.

// portable runs fn with the kernels switched off.
func portable(fn func()) {
	useKernelsFlag = false
	defer func() { useKernelsFlag = kernelsAvailable }()
	fn()
}

func requireKernels(t *testing.T) {
	if !kernelsAvailable {
		t.Skip("no kernels in this build or on this CPU")
	}
}

// forEachFastBackend runs fn once per fast backend of the scheme's PRG: the walks
// take the kernels under each, running AES in them only under VAES.
func forEachFastBackend(t *testing.T, s scheme, fn func(t *testing.T)) {
	prg := s.(interface{ Prg() Prg }).Prg().Name()
	forEachBackend(t, prg, func(t *testing.T) {
		if PrgBackendInfo()[prg]["walks"] == "portable" {
			t.Skip("the portable backend keeps the walks portable")
		}
		fn(t)
	})
}

func TestFastMatchesPortable(t *testing.T) {
	requireKernels(t)
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range testCases(t, []int{1, 3, 9, 20, 64, 65, 128}) {
		t.Run(c.name, func(t *testing.T) {
			forEachFastBackend(t, c.scheme, func(t *testing.T) {
				for _, keys := range []int{1, 5, 133} {
					seeds, alphas, betas := randKeys(r, c.n, keys)
					cws, want := make([]Cw, keys*(c.n+1)), make([]Cw, keys*(c.n+1))
					require.NoError(t, c.scheme.Gen(cws, seeds, alphas, betas))
					portable(func() { require.NoError(t, c.scheme.Gen(want, seeds, alphas, betas)) })
					require.Equal(t, want, cws, "Gen, %d keys", keys)

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
							got, exp := make([]Block, len(xs)), make([]Block, len(xs))
							require.NoError(t, c.scheme.Eval(got, p, ps, cws, xs))
							portable(func() { require.NoError(t, c.scheme.Eval(exp, p, ps, cws, xs)) })
							require.Equal(t, exp, got, "Eval, %d keys x %d points, party %d", keys, points, p)
							if c.n <= 9 && points == 1 {
								got, exp := make([]Block, keys<<c.n), make([]Block, keys<<c.n)
								require.NoError(t, c.scheme.EvalAll(got, p, ps, cws))
								portable(func() { require.NoError(t, c.scheme.EvalAll(exp, p, ps, cws)) })
								require.Equal(t, exp, got, "EvalAll, %d keys, party %d", keys, p)
							}
						}
					}
				}
			})
		})
	}
}

// With AES, whole groups of a tile turn their nodes into outputs in dst itself;
// where dst is the inputs' own memory they run in scratch, as partial groups do.
func TestFastEvalOutputsInPlace(t *testing.T) {
	requireKernels(t)
	r := rand.New(rand.NewPCG(17, 18))
	for _, c := range testCases(t, []int{20}) {
		if c.scheme.(interface{ Prg() Prg }).Prg().Name() != "aes128_mmo" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			forEachFastBackend(t, c.scheme, func(t *testing.T) {
				const keys = evalTile + 96 // a whole tile, then one of three DPF groups
				seeds, alphas, betas := randKeys(r, c.n, keys)
				cws := make([]Cw, keys*(c.n+1))
				require.NoError(t, c.scheme.Gen(cws, seeds, alphas, betas))
				ps, xs := make([]Block, keys), make([]Uint128, keys)
				for k := range keys {
					ps[k], xs[k] = seeds[2*k], randInput(r, c.n)
				}
				want := make([]Block, keys)
				portable(func() { require.NoError(t, c.scheme.Eval(want, 0, ps, cws, xs)) })

				got := make([]Block, keys)
				require.NoError(t, c.scheme.Eval(got, 0, ps, cws, xs))
				require.Equal(t, want, got, "outputs apart from the inputs")

				shared := make([]Block, keys)
				for k, x := range xs {
					shared[k] = Block(x)
				}
				require.NoError(t, c.scheme.Eval(shared, 0, ps, cws, unsafe.Slice((*Uint128)(unsafe.Pointer(&shared[0])), keys)))
				require.Equal(t, want, shared, "outputs over the inputs")
			})
		})
	}
}

// TestFastEvalAllLarge covers the frontier and tiles of a full-size EvalAll.
func TestFastEvalAllLarge(t *testing.T) {
	requireKernels(t)
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range testCases(t, []int{14}) {
		if c.g != Bytes && c.g != Uint64 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			seeds, cws := genOne(t, c.scheme, c.n, r, randInput(r, c.n), randBlock(r))
			got, exp := make([]Block, 1<<c.n), make([]Block, 1<<c.n)
			require.NoError(t, c.scheme.EvalAll(got, 1, seeds[1:], cws))
			portable(func() { require.NoError(t, c.scheme.EvalAll(exp, 1, seeds[1:], cws)) })
			require.Equal(t, exp, got)
		})
	}
}

// The AES DPF walk checks correction words as it reads them: a bad one anywhere in a
// batch, inner or last row, is refused with the portable check's error.
func TestFastEvalRefusesBadCws(t *testing.T) {
	requireKernels(t)
	const n, keys = 12, 300
	prg, err := NewAesMmo(DefaultAesKeys[:2])
	require.NoError(t, err)
	d, err := NewDpf(n, Uint64, prg)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(15, 16))
	seeds, alphas, betas := randKeys(r, n, keys)
	cws := make([]Cw, keys*(n+1))
	require.NoError(t, d.Gen(cws, seeds, alphas, betas))
	out := make([]Block, keys)
	for _, bad := range []struct {
		key, row int
		edit     func(*Cw)
		msg      string
	}{
		{0, 0, func(c *Cw) { c[1].Lo = 2 }, "key 0, row 0"},
		{151, 7, func(c *Cw) { c[1].Hi = 1 << 40 }, "key 151, row 7"},
		{keys - 1, n - 1, func(c *Cw) { c[1].Lo |= 1 << 63 }, "key 299, row 11"},
		{37, n, func(c *Cw) { c[0] = c[0].WithLsb(1) }, "key 37, last row"},
		{keys - 1, n, func(c *Cw) { c[1].Hi = 1 }, "key 299, last row"},
	} {
		t.Run(bad.msg, func(t *testing.T) {
			c := append([]Cw(nil), cws...)
			bad.edit(&c[bad.key*(n+1)+bad.row])
			requireArgError(t, d.Eval(out, 0, seeds[:keys], c, alphas), bad.msg)
		})
	}
}

func TestFastDcfEvalRefusesBadCws(t *testing.T) {
	requireKernels(t)
	const n, keys = 12, 100
	prg, err := NewAesMmo(DefaultAesKeys[:4])
	require.NoError(t, err)
	d, err := NewDcf(n, Bytes, prg, Lt)
	require.NoError(t, err)
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
