package gofss

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// VDPF's implementations (the fast walks handing DPF's leaves to the hashes) against
// its portable walks, on random keys.

// forEachVdpfImpl runs fn once per implementation that serves VDPF with params p on
// this CPU (the portable one included), with the scheme forced onto it.
func forEachVdpfImpl(t *testing.T, p Params, fn func(t *testing.T, v *Vdpf)) {
	for _, im := range Impls() {
		s, err := New(p, WithImpl(im))
		if err != nil {
			continue // not for these parameters on this CPU
		}
		require.Equal(t, im, s.Impl())
		t.Run(im, func(t *testing.T) { fn(t, s.(*Vdpf)) })
	}
}

// TestVdpfImplsServe: VDPF takes DPF's fused and one-key walks wherever DPF gets
// them, and by default the fastest.
func TestVdpfImplsServe(t *testing.T) {
	var names []string
	forEachVdpfImpl(t, DefaultParams(KindVdpf, 20, Uint64, PrgAesMmo), func(t *testing.T, v *Vdpf) {
		names = append(names, v.Impl())
	})
	require.Contains(t, names, PortableImpl)
	for _, im := range append(fusedEvalImpls[:len(fusedEvalImpls):len(fusedEvalImpls)], AesniImpl) {
		if _, err := New(DefaultParams(KindDpf, 20, Uint64, PrgAesMmo), WithImpl(im)); err == nil {
			require.Contains(t, names, im, "VDPF takes DPF's %s walks", im)
		}
	}
	s, err := New(DefaultParams(KindVdpf, 20, Uint64, PrgAesMmo))
	require.NoError(t, err)
	require.Equal(t, names[0], s.Impl(), "the default is the fastest that serves")
}

// vdpfRandKeys makes keys of v (Gen on the portable walks, against which
// TestVdpfImplsGen checks the others) and points of m per key, every other one the
// key's alpha.
func vdpfRandKeys(t *testing.T, r *rand.Rand, port *Vdpf, keys, m int) ([]Block, []Cw, []Uint128) {
	n := port.params.InBits
	seeds, alphas, betas := randKeys(r, n, keys)
	cws := make([]Cw, keys*port.params.CwRows())
	require.NoError(t, port.Gen(cws, seeds, alphas, betas))
	xs := make([]Uint128, keys*m)
	for i := range xs {
		xs[i] = randInput(r, n)
		if i%2 == 0 {
			xs[i] = alphas[i/m]
		}
	}
	return seeds, cws, xs
}

func vdpfPartySeeds(seeds []Block, party int) []Block {
	ps := make([]Block, len(seeds)/2)
	for k := range ps {
		ps[k] = seeds[2*k+party]
	}
	return ps
}

// TestVdpfImplsMatchPortable: EvalProof (shares and pieces), Eval and Prove on each
// implementation equal the portable walks', for every group, input widths at the
// edges, batches around the walks' groups (8, 16) and tiles, and several points per
// key.
func TestVdpfImplsMatchPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	batches := []struct{ keys, m int }{
		{0, 1}, {1, 1}, {7, 1}, {8, 1}, {9, 1}, {5, 3}, {16, 1}, {17, 1},
		{85, 3}, {256, 1}, {257, 1}, {4, 64}, {evalTilePoints + 1, 1},
	}
	forEachVdpfCase(t, []int{1, 2, 20, 63, 64, 128}, [2]HashKind{HashSha256, HashBlake3}, func(t *testing.T, n int, p Params, port *Vdpf) {
		forEachVdpfImpl(t, p, func(t *testing.T, v *Vdpf) {
			for _, b := range batches {
				seeds, cws, xs := vdpfRandKeys(t, r, port, b.keys, b.m)
				for party := range 2 {
					ps := vdpfPartySeeds(seeds, party)
					got, want := make([]Block, len(xs)), make([]Block, len(xs))
					gotP, wantP := make([]Block, ProofBlocks*len(xs)), make([]Block, ProofBlocks*len(xs))
					require.NoError(t, port.EvalProof(want, wantP, party, ps, cws, xs))
					require.NoError(t, v.EvalProof(got, gotP, party, ps, cws, xs))
					requireSame(t, want, got, "shares, %d keys x %d points, party %d", b.keys, b.m, party)
					require.Equal(t, wantP, gotP, "pieces, %d keys x %d points, party %d", b.keys, b.m, party)
					shares := make([]Block, len(xs))
					require.NoError(t, v.Eval(shares, party, ps, cws, xs))
					require.Equal(t, want, shares, "Eval, %d keys x %d points, party %d", b.keys, b.m, party)
				}
			}
		})
	})
}

// TestVdpfImplsGen: Gen on each implementation (DPF's one-key walks or fused tiles,
// VDPF's rows after the levels from the leaves' seeds) equals the portable Gen, for
// every group, input widths at the edges, and batches around the one-key walks'
// share, the routines' groups of 4 and the tiles of 128 keys.
func TestVdpfImplsGen(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	forEachVdpfCase(t, []int{1, 2, 20, 63, 64, 128}, [2]HashKind{HashBlake3, HashSha256}, func(t *testing.T, n int, p Params, port *Vdpf) {
		forEachVdpfImpl(t, p, func(t *testing.T, v *Vdpf) {
			for _, keys := range []int{0, 1, 2, 5, 16, 17, 128, 133} {
				seeds, alphas, betas := randKeys(r, n, keys)
				got, want := make([]Cw, keys*p.CwRows()), make([]Cw, keys*p.CwRows())
				require.NoError(t, port.Gen(want, seeds, alphas, betas))
				require.NoError(t, v.Gen(got, seeds, alphas, betas))
				requireSame(t, want, got, "%d keys", keys)
			}
		})
	})
}

// forEachVdpfCase runs check on VDPF parameters of each input width in widths and
// every group, the hash alternating between hashes' two kinds group by group, with
// the portable VDPF of those parameters.
func forEachVdpfCase(t *testing.T, widths []int, hashes [2]HashKind, check func(t *testing.T, n int, p Params, port *Vdpf)) {
	for _, n := range widths {
		for gi, g := range allGroups {
			hash := hashes[gi%2]
			p := DefaultParams(KindVdpf, n, g, PrgAesMmo)
			p.Hash = DefaultVdpfHash(hash)
			t.Run(fmt.Sprintf("%s/%s/n=%d", g, hash, n), func(t *testing.T) { check(t, n, p, portableVdpf(t, p)) })
		}
	}
}

// TestVdpfImplsEvalAll: EvalAllProof and EvalAll on each implementation equal the
// portable walks', across the EvalAll tiles (n = 14 has several) and for uint127,
// whose fast EvalAll is the portable tree.
func TestVdpfImplsEvalAll(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	forEachVdpfCase(t, []int{1, 2, 5, 14}, [2]HashKind{HashBlake3, HashSha256}, func(t *testing.T, n int, p Params, port *Vdpf) {
		keys := 3
		if n == 14 {
			keys = 1
		}
		seeds, cws, _ := vdpfRandKeys(t, r, port, keys, 1)
		forEachVdpfImpl(t, p, func(t *testing.T, v *Vdpf) {
			for party := range 2 {
				ps := vdpfPartySeeds(seeds, party)
				got, want := make([]Block, keys<<n), make([]Block, keys<<n)
				gotPi, wantPi := make([]Block, ProofBlocks*keys), make([]Block, ProofBlocks*keys)
				require.NoError(t, port.EvalAllProof(want, wantPi, party, ps, cws))
				require.NoError(t, v.EvalAllProof(got, gotPi, party, ps, cws))
				requireSame(t, want, got, "EvalAllProof outputs, party %d", party)
				require.Equal(t, wantPi, gotPi, "EvalAllProof proofs, party %d", party)
				plain := make([]Block, keys<<n)
				require.NoError(t, v.EvalAll(plain, party, ps, cws))
				requireSame(t, want, plain, "EvalAll, party %d", party)
			}
		})
	})
}

// TestVdpfEvalAllProofGroups: EvalAllProof of a batch, whose keys' proof chains
// step side by side in groups (where the hash has lanes), equals EvalAllProof of
// each key alone, for batches that fill groups, leave a short last group or are
// too small for one, spread over one to three workers, on every implementation,
// for a single tile (n <= 11) and several (n = 12, 14).
func TestVdpfEvalAllProofGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	defer SetMaxWorkers(SetMaxWorkers(0))
	for _, n := range []int{1, 3, 11, 12, 14} {
		for _, hash := range []HashKind{HashBlake3, HashSha256} {
			p := DefaultParams(KindVdpf, n, Uint64, PrgAesMmo)
			p.Hash = DefaultVdpfHash(hash)
			port := portableVdpf(t, p)
			const most = 19
			seeds, cws, _ := vdpfRandKeys(t, r, port, most, 1)
			rows := p.CwRows()
			forEachVdpfImpl(t, p, func(t *testing.T, v *Vdpf) {
				ps := vdpfPartySeeds(seeds, 1)
				want, wantPi := make([]Block, most<<n), make([]Block, ProofBlocks*most)
				for k := range most {
					require.NoError(t, v.EvalAllProof(want[k<<n:(k+1)<<n], wantPi[ProofBlocks*k:ProofBlocks*(k+1)], 1, ps[k:k+1], cws[k*rows:(k+1)*rows]))
				}
				for _, keys := range []int{2, 3, 5, 8, 9, most} {
					for _, workers := range []int{1, 2, 3} {
						if n == 14 && (keys > 9 || workers == 3) {
							continue // the cases above cover the shapes; keep the test short
						}
						SetMaxWorkers(workers)
						if hash == HashBlake3 && haveBlake3Lanes(v) && (keys+workers-1)/workers >= minChainGroup {
							require.Greater(t, v.chainGroup(keys), 1, "%d keys, %d workers: the chains in groups", keys, workers)
						}
						got, gotPi := make([]Block, keys<<n), make([]Block, ProofBlocks*keys)
						require.NoError(t, v.EvalAllProof(got, gotPi, 1, ps[:keys], cws[:keys*rows]))
						requireSame(t, want[:keys<<n], got, "%s, n=%d, %d keys, %d workers: outputs", hash, n, keys, workers)
						require.Equal(t, wantPi[:ProofBlocks*keys], gotPi, "%s, n=%d, %d keys, %d workers: proofs", hash, n, keys, workers)
					}
				}
				// A Control counts the groups' outputs, and its Stop ends the call.
				SetMaxWorkers(2)
				var ctl Control
				c := v.WithControl(&ctl).(*Vdpf)
				got, gotPi := make([]Block, most<<n), make([]Block, ProofBlocks*most)
				require.NoError(t, c.EvalAllProof(got, gotPi, 1, ps, cws))
				require.EqualValues(t, most<<n, ctl.Done.Load(), "outputs counted")
				ctl.Stop.Store(1)
				require.ErrorIs(t, c.EvalAllProof(got, gotPi, 1, ps, cws), ErrStopped)
				SetMaxWorkers(0)
			})
		}
	}
}

// TestVdpfEvalAllProofConcurrent runs EvalAllProof calls of one batch side by side,
// each walking its keys in groups over the workers, their hashers and scratch from
// the same pools: every call's outputs and proofs are the ones a call alone makes.
func TestVdpfEvalAllProofConcurrent(t *testing.T) {
	const n, keys = 12, 9
	r := rand.New(rand.NewPCG(43, 44))
	p := DefaultParams(KindVdpf, n, Uint64, PrgAesMmo)
	p.Hash = DefaultVdpfHash(HashBlake3)
	seeds, cws, _ := vdpfRandKeys(t, r, portableVdpf(t, p), keys, 1)
	s, err := New(p)
	require.NoError(t, err)
	v, ps := s.(*Vdpf), vdpfPartySeeds(seeds, 0)
	want, wantPi := make([]Block, keys<<n), make([]Block, ProofBlocks*keys)
	require.NoError(t, v.EvalAllProof(want, wantPi, 0, ps, cws))
	var wg sync.WaitGroup
	got, gotPi, errs := make([][]Block, 4), make([][]Block, 4), make([]error, 4)
	for i := range got {
		got[i], gotPi[i] = make([]Block, keys<<n), make([]Block, ProofBlocks*keys)
		wg.Go(func() { errs[i] = v.EvalAllProof(got[i], gotPi[i], 0, ps, cws) })
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		requireSame(t, want, got[i], "call %d: outputs", i)
		require.Equal(t, wantPi, gotPi[i], "call %d: proofs", i)
	}
}

// haveBlake3Lanes tells whether v's H' steps chains side by side on this CPU.
func haveBlake3Lanes(v *Vdpf) bool {
	h := v.hp.Get()
	defer h.Put()
	return h.LanesPay()
}

// TestVdpfImplsRefuseBadCws: every implementation refuses a correction word that
// VDPF's Gen cannot make, in an inner row (which the fused walk checks as it reads)
// or a last row (which its tiles check), anywhere in a batch, short or long.
func TestVdpfImplsRefuseBadCws(t *testing.T) {
	const n, keys = 12, 300
	r := rand.New(rand.NewPCG(35, 36))
	p := DefaultParams(KindVdpf, n, Uint64, PrgAesMmo)
	p.Hash = DefaultVdpfHash(HashBlake3)
	seeds, cws, xs := vdpfRandKeys(t, r, portableVdpf(t, p), keys, 1)
	rows := p.CwRows()
	forEachVdpfImpl(t, p, func(t *testing.T, v *Vdpf) {
		for _, bad := range badDpfRows(n, keys) {
			c := append([]Cw(nil), cws...)
			bad.edit(&c[bad.key*rows+bad.row])
			for _, w := range []int{keys, 3} { // the fused walk, and a short batch
				k0 := min(bad.key, keys-w)
				out, pieces := make([]Block, w), make([]Block, ProofBlocks*w)
				requireArgError(t, v.EvalProof(out, pieces, 0, vdpfPartySeeds(seeds, 0)[k0:k0+w], c[k0*rows:(k0+w)*rows], xs[k0:k0+w]), "cws: key")
				requireArgError(t, v.Eval(out, 0, vdpfPartySeeds(seeds, 0)[k0:k0+w], c[k0*rows:(k0+w)*rows], xs[k0:k0+w]), "cws: key")
			}
		}
	})
}

// TestVdpfImplsControl: on every implementation a running Control counts
// EvalProof's points and a stopped one ends it with ErrStopped.
func TestVdpfImplsControl(t *testing.T) {
	const keys = 300
	r := rand.New(rand.NewPCG(37, 38))
	p := DefaultParams(KindVdpf, 16, Uint32, PrgAesMmo)
	seeds, cws, xs := vdpfRandKeys(t, r, portableVdpf(t, p), keys, 1)
	forEachVdpfImpl(t, p, func(t *testing.T, v *Vdpf) {
		var c Control
		vc := v.WithControl(&c).(*Vdpf)
		out, pieces := make([]Block, keys), make([]Block, ProofBlocks*keys)
		require.NoError(t, vc.EvalProof(out, pieces, 1, vdpfPartySeeds(seeds, 1), cws, xs))
		require.Equal(t, int64(keys), c.Done.Load())
		gs, alphas, betas := randKeys(r, 16, keys)
		gen := make([]Cw, len(cws))
		require.NoError(t, vc.Gen(gen, gs, alphas, betas))
		require.Equal(t, int64(2*keys), c.Done.Load())
		c.Stop.Store(1)
		require.ErrorIs(t, vc.EvalProof(out, pieces, 1, vdpfPartySeeds(seeds, 1), cws, xs), ErrStopped)
		// A stopped Gen writes nothing.
		clear(gen)
		require.ErrorIs(t, vc.Gen(gen, gs, alphas, betas), ErrStopped)
		require.Equal(t, make([]Cw, len(gen)), gen)
	})
}

// TestVdpfImplsLargeBatch: a batch long enough to spread over goroutines (and tiles)
// gives the portable walks' shares and pieces on every implementation.
func TestVdpfImplsLargeBatch(t *testing.T) {
	const keys, m = 2048, 3
	r := rand.New(rand.NewPCG(39, 40))
	p := DefaultParams(KindVdpf, 20, Uint64, PrgAesMmo)
	p.Hash = DefaultVdpfHash(HashBlake3)
	port := portableVdpf(t, p)
	seeds, cws, xs := vdpfRandKeys(t, r, port, keys, m)
	ps := vdpfPartySeeds(seeds, 0)
	want, wantP := make([]Block, len(xs)), make([]Block, ProofBlocks*len(xs))
	require.NoError(t, port.EvalProof(want, wantP, 0, ps, cws, xs))
	forEachVdpfImpl(t, p, func(t *testing.T, v *Vdpf) {
		got, gotP := make([]Block, len(xs)), make([]Block, ProofBlocks*len(xs))
		require.NoError(t, v.EvalProof(got, gotP, 0, ps, cws, xs))
		requireSame(t, want, got, "shares")
		requireSame(t, wantP, gotP, "pieces")
	})
}

// portableVdpf is the VDPF of p on the portable walks, the reference of the tests.
func portableVdpf(t *testing.T, p Params) *Vdpf {
	s, err := New(p, WithImpl(PortableImpl))
	require.NoError(t, err)
	return s.(*Vdpf)
}
