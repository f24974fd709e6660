package gofss

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/kat"
)

// katMpfParams are the parameters of a VDMPF case as kind (dmpf or vdmpf), with its
// file's PRG and, for vdmpf, hash.
func katMpfParams(t *testing.T, kind Kind, f *kat.MpfFile, c *kat.MpfCase) Params {
	g, err := ParseGroup(c.Group)
	require.NoError(t, err)
	p := Params{Kind: kind, InBits: c.InBits, Group: g, MaxPoints: c.MaxPoints, BucketBits: c.BucketBits}
	if kind == KindVdmpf {
		var h vdpfHashJSON
		require.NoError(t, json.Unmarshal(f.Hash, &h))
		p.Hash, err = h.parse()
		require.NoError(t, err)
	}
	if f.Prg.Name == "chacha" {
		p.Prg, p.Nonce = PrgChaCha, f.Prg.NonceU32()
	} else {
		p.Prg = PrgAesMmo
		p.AesKeys, err = f.Prg.AesKeys()
		require.NoError(t, err)
	}
	require.NoError(t, p.Check())
	return p
}

// katMpfKey is the key of a VDMPF case as kind: for dmpf without the buckets' cs,
// for their VDPF trees and output correction words are DPF keys.
func katMpfKey(kind Kind, c *kat.MpfCase) []Cw {
	cws := []Cw{{katBlock(c.Sigma), Block{Lo: uint64(c.MRt)}}}
	for _, b := range c.Buckets {
		for _, row := range b.Cws {
			cws = append(cws, katCw(row))
		}
		cws = append(cws, Cw{katBlock(b.Ocw)})
		if kind == KindVdmpf {
			cws = append(cws, Cw{katBlock(b.Cs[0]), katBlock(b.Cs[1])}, Cw{katBlock(b.Cs[2]), katBlock(b.Cs[3])})
		}
	}
	return cws
}

// partySeeds are party's seeds of the buckets of a case.
func partySeeds(c *kat.MpfCase, party int) []Block {
	s := make([]Block, len(c.S0s))
	for i, pair := range c.S0s {
		s[i] = katBlock(pair[party])
	}
	return s
}

// TestDmpfVectors runs the VDMPF cases through DMPF, on every PRG path and walk
// implementation: Gen from the case's seeds, PRP key, points and values gives the
// buckets' trees and output corrections, and BatchEval the shares ys0 and ys1.
// EvalAll agrees with Eval at the case's inputs.
func TestDmpfVectors(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl, func(t *testing.T) {
			forEachMpfCase(t, func(t *testing.T, f *kat.MpfFile, c *kat.MpfCase) {
				forEachBackend(t, f.Prg.Name, func(t *testing.T) {
					checkMpfCase(t, KindDmpf, f, c, impl)
				})
			})
		})
	}
}

// TestVdmpfVectors checks every VDMPF case bit for bit on every PRG path: the key,
// both parties' shares and proofs, and that the proofs verify.
func TestVdmpfVectors(t *testing.T) {
	forEachMpfCase(t, func(t *testing.T, f *kat.MpfFile, c *kat.MpfCase) {
		forEachBackend(t, f.Prg.Name, func(t *testing.T) {
			checkMpfCase(t, KindVdmpf, f, c, PortableImpl)
		})
	})
}

func checkMpfCase(t *testing.T, kind Kind, f *kat.MpfFile, c *kat.MpfCase, impl string) {
	d, err := NewMpf(katMpfParams(t, kind, f, c), WithImpl(impl))
	if err != nil {
		t.Skipf("%s does not serve this case here: %v", impl, err)
	}
	want := katMpfKey(kind, c)
	require.Len(t, want, d.Params().CwRows())
	s0s := make([]Block, 0, 2*len(c.S0s))
	for i := range c.S0s {
		s0s = append(s0s, katBlock(c.S0s[i][0]), katBlock(c.S0s[i][1]))
	}
	betas := make([]Block, len(c.Betas))
	for i, b := range c.Betas {
		betas[i] = katBlock(b)
	}
	cws := make([]Cw, len(want))
	attempts, err := d.Gen(cws, s0s, katBlock(c.Sigma), katUints(c.Alphas), betas)
	require.NoError(t, err)
	require.Equal(t, 1, attempts)
	require.Equal(t, want, cws)

	xs := katUints(c.Xs)
	g := d.Params().Group
	shares := [2][]Block{}
	for party, ys := range [][]kat.Block{c.Ys0, c.Ys1} {
		got := make([]Block, len(xs))
		if kind == KindVdmpf {
			var pi [ProofBlocks]Block
			require.NoError(t, d.EvalProof(got, &pi, party, partySeeds(c, party), cws, xs))
			for i, b := range c.Pi[party] {
				require.Equal(t, katBlock(b), pi[i], "party %d: proof block %d", party, i)
			}
		} else {
			require.NoError(t, d.Eval(got, party, partySeeds(c, party), cws, xs))
		}
		for i, y := range ys {
			require.Equal(t, katBlock(y), got[i], "party %d at x=%v", party, xs[i])
		}
		shares[party] = got
	}
	for i, sum := range c.Sums {
		require.Equal(t, katBlock(sum), g.Add(shares[0][i], shares[1][i]), "sum at x=%v", xs[i])
	}
	if c.InBits > 16 {
		return
	}
	for party := range 2 {
		all := make([]Block, 1<<c.InBits)
		require.NoError(t, d.EvalAll(all, party, partySeeds(c, party), cws))
		for i, x := range xs {
			require.Equal(t, shares[party][i], all[x.Lo], "EvalAll party %d at x=%v", party, x)
		}
	}
}

// genRandomMpf makes a dmpf key for t random distinct points with random values.
func genRandomMpf(t testing.TB, rng *rand.Rand, p Params, points int) (*Mpf, []Cw, []Block, []Uint128, []Block) {
	d, err := NewMpf(p)
	require.NoError(t, err)
	m := p.Buckets()
	s0s := make([]Block, 2*m)
	for i := range s0s {
		s0s[i] = Block{rng.Uint64(), rng.Uint64()}
	}
	seen := map[Uint128]bool{}
	var alphas []Uint128
	for len(alphas) < points {
		a := Uint128{rng.Uint64(), rng.Uint64()}.lowBits(uint(p.InBits))
		if !seen[a] {
			seen[a] = true
			alphas = append(alphas, a)
		}
	}
	betas := make([]Block, points)
	for i := range betas {
		betas[i] = Block{rng.Uint64(), rng.Uint64()}.Clamp()
	}
	cws := make([]Cw, p.CwRows())
	_, err = d.Gen(cws, s0s, Block{rng.Uint64(), rng.Uint64()}, alphas, betas)
	require.NoError(t, err)
	return d, cws, s0s, alphas, betas
}

// everyOther returns party's seeds of s0s, which holds two per key (party 0's, then
// party 1's).
func everyOther(s0s []Block, party int) []Block {
	mine := make([]Block, len(s0s)/2)
	for i := range mine {
		mine[i] = s0s[2*i+party]
	}
	return mine
}

// reconstruct adds up both parties' shares at xs, or everywhere (EvalAll) for nil xs.
func reconstruct(t testing.TB, d *Mpf, cws []Cw, s0s []Block, xs []Uint128) []Block {
	var shares [2][]Block
	for party := range 2 {
		mine := everyOther(s0s, party)
		if xs == nil {
			shares[party] = make([]Block, 1<<d.Params().InBits)
			require.NoError(t, d.EvalAll(shares[party], party, mine, cws))
		} else {
			shares[party] = make([]Block, len(xs))
			require.NoError(t, d.Eval(shares[party], party, mine, cws, xs))
		}
	}
	for i := range shares[0] {
		shares[0][i] = d.Params().Group.Add(shares[0][i], shares[1][i])
	}
	return shares[0]
}

// TestDmpfReconstruct checks the definition (dmpf and vdmpf in turn): the shares add up to betas[j] at
// alphas[j] and to zero elsewhere, for narrow and wide inputs (the PRP's wide path
// above 62 bits), one point and many, every group; and EvalAll where it fits.
func TestDmpfReconstruct(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ inBits, maxPoints, points int }{
		{1, 2, 1}, {1, 2, 2}, {2, 4, 4}, {5, 10, 3}, {12, 64, 64}, {16, 300, 257},
		{40, 20, 20}, {62, 8, 5}, {63, 8, 8}, {64, 16, 1}, {100, 5, 5}, {127, 1, 1}, {128, 1, 1}, {128, 30, 30},
	} {
		for i, g := range []Group{Bytes, Uint32, Uint127} {
			kind := []Kind{KindDmpf, KindVdmpf}[i%2]
			p := DefaultParams(kind, tc.inBits, g, PrgAesMmo).WithMaxPoints(tc.maxPoints)
			d, cws, s0s, alphas, betas := genRandomMpf(t, rng, p, tc.points)
			xs := append([]Uint128(nil), alphas...)
			for range 20 {
				x := Uint128{rng.Uint64(), rng.Uint64()}.lowBits(uint(tc.inBits))
				if !slices.Contains(alphas, x) {
					xs = append(xs, x)
				}
			}
			got := reconstruct(t, d, cws, s0s, xs)
			for i, x := range xs {
				want := Block{}
				if i < len(betas) {
					want = g.Canon(betas[i])
				}
				require.Equal(t, want, got[i], "in_bits %d, %d points, %v: x=%v", tc.inBits, tc.points, g, x)
			}
			if tc.inBits > 16 {
				continue
			}
			all := reconstruct(t, d, cws, s0s, nil)
			for x, y := range all {
				want := Block{}
				if j := slices.Index(alphas, Uint128{Lo: uint64(x)}); j >= 0 {
					want = g.Canon(betas[j])
				}
				require.Equal(t, want, y, "in_bits %d, %v: EvalAll at %d", tc.inBits, g, x)
			}
		}
	}
}

// TestDmpfEvalChunks checks a BatchEval of more inputs than several chunks (of
// either size) against EvalAll at the same inputs, for each party; through a
// Control, whose Done counts the inputs (not the buckets' points, three an input)
// and whose Stop ends the call.
func TestDmpfEvalChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	p := DefaultParams(KindDmpf, 16, Uint64, PrgAesMmo).WithMaxPoints(300)
	d, cws, s0s, _, _ := genRandomMpf(t, rng, p, 257)
	xs := make([]Uint128, 2*keyedEvalChunk+777)
	for i := range xs {
		xs[i] = Uint128{Lo: rng.Uint64N(1 << 16)}
	}
	for party := range 2 {
		mine := everyOther(s0s, party)
		all, got := make([]Block, 1<<16), make([]Block, len(xs))
		require.NoError(t, d.EvalAll(all, party, mine, cws))
		var c Control
		require.NoError(t, d.WithControl(&c).Eval(got, party, mine, cws, xs))
		for i, x := range xs {
			require.Equal(t, all[x.Lo], got[i], "party %d, input %d (x=%d)", party, i, x.Lo)
		}
		require.Equal(t, int64(len(xs)), c.Done.Load())
		c.Stop.Store(1)
		// ErrStopped itself, once: not one joined per bucket.
		require.Equal(t, ErrStopped, d.WithControl(&c).Eval(got, party, mine, cws, xs))
	}
}

// Calls on one Mpf from several goroutines at once, each batch of several chunks
// spread over the workers, give what the same calls give one at a time (run under
// -race this also checks that the chunks share nothing they write).
func TestDmpfEvalConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	p := DefaultParams(KindDmpf, 16, Uint64, PrgAesMmo).WithMaxPoints(300)
	d, cws, s0s, _, _ := genRandomMpf(t, rng, p, 200)
	const calls = 4
	xs := make([][]Uint128, calls)
	want := make([][]Block, calls)
	for c := range xs {
		xs[c] = make([]Uint128, keyedEvalChunk+c*keyedEvalChunk/2+3)
		for i := range xs[c] {
			xs[c][i] = Uint128{Lo: rng.Uint64N(1 << 16)}
		}
		want[c] = make([]Block, len(xs[c]))
		require.NoError(t, d.Eval(want[c], c%2, everyOther(s0s, c%2), cws, xs[c]))
	}
	got := make([][]Block, calls)
	var wg sync.WaitGroup
	for c := range calls {
		got[c] = make([]Block, len(xs[c]))
		wg.Go(func() {
			if err := d.Eval(got[c], c%2, everyOther(s0s, c%2), cws, xs[c]); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for c := range calls {
		require.Equal(t, want[c], got[c], "call %d", c)
	}
}

// TestDmpfRetry checks that Gen draws a new PRP key when the first one gives no
// placement, and that the key it makes is right.
func TestDmpfRetry(t *testing.T) {
	p := DefaultParams(KindDmpf, 2, Uint32, PrgChaCha).WithMaxPoints(4)
	alphas := []Uint128{{Lo: 0}, {Lo: 1}, {Lo: 2}, {Lo: 3}}
	bad := Block{Lo: 1}
	d, err := NewMpf(p)
	require.NoError(t, err)
	// Placements never fail at these sizes in practice: the first one is made to.
	failed := false
	d.place = func(bkts []int32, buckets int) ([]cuckooEntry, bool) {
		if !failed {
			failed = true
			return nil, false
		}
		return cuckooPlace(bkts, buckets)
	}
	s0s := make([]Block, 2*p.Buckets())
	for i := range s0s {
		s0s[i] = Block{Lo: uint64(i), Hi: 7}
	}
	betas := []Block{{Lo: 5}, {Lo: 6}, {Lo: 7}, {Lo: 8}}
	cws := make([]Cw, p.CwRows())
	attempts, err := d.Gen(cws, s0s, bad, alphas, betas)
	require.NoError(t, err)
	require.Equal(t, 2, attempts)
	require.NotEqual(t, bad, cws[0][0])
	got := reconstruct(t, d, cws, s0s, alphas)
	require.Equal(t, betas, got)
}

// TestDmpfBadInputs checks the errors of Gen, Eval and EvalAll.
func TestDmpfBadInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := DefaultParams(KindDmpf, 8, Uint32, PrgChaCha).WithMaxPoints(4)
	d, cws, s0s, _, _ := genRandomMpf(t, rng, p, 3)
	m := p.Buckets()
	seeds := make([]Block, m)
	gen := func(alphas []Uint128, betas []Block, s0s []Block, cws []Cw) error {
		_, err := d.Gen(cws, s0s, Block{}, alphas, betas)
		return err
	}
	fresh := make([]Cw, p.CwRows())
	one := []Block{{Lo: 1}}
	for name, err := range map[string]error{
		"duplicate":       gen([]Uint128{{Lo: 3}, {Lo: 4}, {Lo: 3}}, make([]Block, 3), s0s, fresh),
		"too many":        gen([]Uint128{{Lo: 1}, {Lo: 2}, {Lo: 3}, {Lo: 4}, {Lo: 5}}, make([]Block, 5), s0s, fresh),
		"none":            gen(nil, nil, s0s, fresh),
		"betas":           gen([]Uint128{{Lo: 1}}, nil, s0s, fresh),
		"alpha range":     gen([]Uint128{{Lo: 256}}, one, s0s, fresh),
		"seeds":           gen([]Uint128{{Lo: 1}}, one, s0s[1:], fresh),
		"equal seeds":     gen([]Uint128{{Lo: 1}}, one, make([]Block, 2*m), fresh),
		"cws":             gen([]Uint128{{Lo: 1}}, one, s0s, fresh[1:]),
		"party":           d.Eval(make([]Block, 1), 2, seeds, cws, []Uint128{{}}),
		"eval seeds":      d.Eval(make([]Block, 1), 0, seeds[1:], cws, []Uint128{{}}),
		"dst":             d.Eval(make([]Block, 2), 0, seeds, cws, []Uint128{{}}),
		"x range":         d.Eval(make([]Block, 1), 0, seeds, cws, []Uint128{{Lo: 1 << 8}}),
		"eval_all dst":    d.EvalAll(make([]Block, 255), 0, seeds, cws),
		"eval_all header": d.EvalAll(make([]Block, 256), 0, seeds, withRow(cws, 0, Cw{{}, {Lo: uint64(m + 1)}})),
		"header":          d.Eval(make([]Block, 1), 0, seeds, withRow(cws, 0, Cw{{}, {Lo: 1, Hi: 1}}), []Uint128{{}}),
		"bucket":          d.Eval(make([]Block, 1), 0, seeds, withRow(cws, 2, Cw{{}, {Lo: 2}}), []Uint128{{}}),
		"last row":        d.Eval(make([]Block, 1), 0, seeds, withRow(cws, 1+p.BucketBits, Cw{{Hi: lsbBit}}), []Uint128{{}}),
	} {
		var argErr *ArgError
		require.ErrorAs(t, err, &argErr, name)
	}
	// Equal seeds name their bucket, and are refused before anything is written.
	equal := slices.Clone(s0s)
	equal[5] = equal[4]
	untouched := make([]Cw, p.CwRows())
	requireArgError(t, gen([]Uint128{{Lo: 1}}, one, equal, untouched), "s0s: bucket 2: the two seeds are equal")
	require.Equal(t, make([]Cw, p.CwRows()), untouched, "Gen wrote before refusing the seeds")
	// An empty batch is no error.
	require.NoError(t, d.Eval(nil, 0, seeds, cws, nil))
	_, err := New(p)
	require.Error(t, err)
	// A proof call needs somewhere to put the proof.
	vp := DefaultParams(KindVdmpf, 8, Uint32, PrgChaCha).WithMaxPoints(4)
	v, vcws, vs0s, _, _ := genRandomMpf(t, rng, vp, 3)
	mine := everyOther(vs0s, 0)
	requireArgError(t, v.EvalProof(make([]Block, 1), nil, 0, mine, vcws, []Uint128{{}}), "pi must not be nil")
	requireArgError(t, v.EvalAllProof(make([]Block, 256), nil, 0, mine, vcws), "pi must not be nil")
	requireArgError(t, v.FoldProof(nil, vcws, nil, nil), "pi must not be nil")
}

func withRow(cws []Cw, i int, row Cw) []Cw {
	c := slices.Clone(cws)
	c[i] = row
	return c
}

func TestDmpfParams(t *testing.T) {
	p := DefaultParams(KindDmpf, 32, Bytes, PrgChaCha).WithMaxPoints(1024)
	require.NoError(t, p.Check())
	back, err := ParseParams(mustJSON(t, p))
	require.NoError(t, err)
	require.Equal(t, p, back)
	narrow := p
	narrow.BucketBits--
	require.Error(t, narrow.Check())
	wide := p.WithMaxPoints(MaxMpfPoints + 1)
	require.Error(t, wide.Check())
	_, err = ParseParams([]byte(`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "max_points": 3}`))
	require.Error(t, err)
	// At 128-bit inputs one point needs 129-bit buckets, which are not: three
	// buckets of 2^128 values instead.
	one := DefaultParams(KindDmpf, 128, Bytes, PrgChaCha).WithMaxPoints(1)
	require.NoError(t, one.Check())
	require.Equal(t, 128, one.BucketBits)
	require.Equal(t, 3, one.Buckets())
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestDmpfNoPlacement checks the error once every PRP key tried failed.
func TestDmpfNoPlacement(t *testing.T) {
	p := DefaultParams(KindDmpf, 8, Bytes, PrgChaCha).WithMaxPoints(2)
	d, err := NewMpf(p)
	require.NoError(t, err)
	d.place = func([]int32, int) ([]cuckooEntry, bool) { return nil, false }
	s0s := make([]Block, 2*p.Buckets())
	for i := range s0s {
		s0s[i] = Block{Lo: uint64(i)}
	}
	attempts, err := d.Gen(make([]Cw, p.CwRows()), s0s, Block{}, []Uint128{{Lo: 1}}, []Block{{}})
	require.ErrorIs(t, err, ErrCuckooFailed)
	require.Equal(t, maxSigmaAttempts, attempts)
}

// TestVdmpfTampered checks that the proofs of an honest key verify, over points and
// over the whole domain, and that one party's modified key (a bucket's tree row or
// cs, the PRP key, the number of buckets in use) or seed does not.
func TestVdmpfTampered(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := DefaultParams(KindVdmpf, 8, Uint32, PrgAesMmo).WithMaxPoints(12)
	d, cws, s0s, alphas, _ := genRandomMpf(t, rng, p, 10)
	seeds := func(party int) []Block { return everyOther(s0s, party) }
	xs := append(slices.Clone(alphas), Uint128{Lo: 7}, Uint128{Lo: 200})
	proof := func(party int, s0s []Block, cws []Cw) [ProofBlocks]Block {
		var pi [ProofBlocks]Block
		require.NoError(t, d.EvalProof(make([]Block, len(xs)), &pi, party, s0s, cws, xs))
		return pi
	}
	pi0 := proof(0, seeds(0), cws)
	require.Equal(t, pi0, proof(1, seeds(1), cws), "honest key")
	rows := p.BucketBits + vdpfExtraRows
	// A bucket that holds a point, so that the points evaluated walk its tree.
	h := newCuckooHash(cws[0][0], p.InBits, int(cws[0][1].Lo))
	bkts, idxs := make([]int32, 3), make([]Uint128, 3)
	h.locate(alphas[:1], bkts, idxs, nil)
	// Rows of level 0: party 1 always applies them (its root's control bit is 1).
	used := 1 + int(bkts[0])*rows
	for name, bad := range map[string][]Cw{
		"tree row":       withRow(cws, used, Cw{cws[used][0].Xor(Block{Lo: 1 << 20}), cws[used][1]}),
		"control bit":    withRow(cws, used, Cw{cws[used][0].Xor(Block{Hi: lsbBit}), cws[used][1]}),
		"cs":             withRow(cws, used+p.BucketBits+1, Cw{cws[used+p.BucketBits+1][0].Xor(Block{Lo: 1}), cws[used+p.BucketBits+1][1]}),
		"dummy bucket":   withRow(cws, len(cws)-1, Cw{cws[len(cws)-1][0], cws[len(cws)-1][1].Xor(Block{Hi: 1})}),
		"sigma":          withRow(cws, 0, Cw{cws[0][0].Xor(Block{Lo: 1}), cws[0][1]}),
		"buckets in use": withRow(cws, 0, Cw{cws[0][0], Block{Lo: cws[0][1].Lo + 1}}),
	} {
		require.NotEqual(t, pi0, proof(1, seeds(1), bad), name)
	}
	wrongSeed := seeds(1)
	wrongSeed[bkts[0]] = wrongSeed[bkts[0]].Xor(Block{Lo: 1})
	require.NotEqual(t, pi0, proof(1, wrongSeed, cws), "seed")

	// The whole domain: EvalAllProof is BatchEval over 0 .. 2^n - 1. Through a
	// Control, whose Done ends at the domain's outputs, as the proof's EvalProof's
	// ends at its inputs.
	all := make([]Uint128, 1<<p.InBits)
	for x := range all {
		all[x] = Uint128{Lo: uint64(x)}
	}
	var pis [2][ProofBlocks]Block
	for party := range 2 {
		var want [ProofBlocks]Block
		var c [3]Control
		wantYs := make([]Block, len(all))
		require.NoError(t, d.WithControl(&c[0]).EvalProof(wantYs, &want, party, seeds(party), cws, all))
		ys, shares := make([]Block, len(all)), make([]Block, len(all))
		require.NoError(t, d.WithControl(&c[1]).EvalAllProof(ys, &pis[party], party, seeds(party), cws))
		require.NoError(t, d.WithControl(&c[2]).EvalAll(shares, party, seeds(party), cws))
		for i := range c {
			require.EqualValues(t, len(all), c[i].Done.Load(), "call %d", i)
		}
		require.Equal(t, want, pis[party])
		require.Equal(t, wantYs, ys)
		require.Equal(t, wantYs, shares)
	}
	require.Equal(t, pis[0], pis[1])
	var bad [ProofBlocks]Block
	require.NoError(t, d.EvalAllProof(make([]Block, len(all)), &bad, 1, seeds(1), withRow(cws, used, Cw{cws[used][0].Xor(Block{Lo: 4}), cws[used][1]})))
	require.NotEqual(t, pis[0], bad)

	// dmpf has no proofs.
	dm, err := NewMpf(DefaultParams(KindDmpf, 8, Uint32, PrgAesMmo).WithMaxPoints(12))
	require.NoError(t, err)
	var argErr *ArgError
	require.ErrorAs(t, dm.EvalProof(nil, &bad, 0, nil, nil, nil), &argErr)
}

// TestVdmpfEvalAllProof checks EvalAllProof's shares and proof against EvalProof
// over every input in order, for each party and hash: the buckets walked whole in
// groups of one, three and eight (maxProofScratchBytes), with a last bucket in use
// that stands for fewer inputs than the others and without, bucket domains larger
// than the buckets, shares added straight into the output or through queues, and
// BatchEval over the domain where a bucket's pieces are over the bound. A Control
// counts the outputs, and its Stop ends the call.
func TestVdmpfEvalAllProof(t *testing.T) {
	defer func(was, queued int) { maxProofScratchBytes, maxQueuedAdds = was, queued }(maxProofScratchBytes, maxQueuedAdds)
	// in_bits 16: the shares through per-region queues, flushed along the way.
	maxQueuedAdds = 5000
	rng := rand.New(rand.NewPCG(15, 16))
	for _, tc := range []struct{ inBits, points, bucketBits int }{{8, 12, 0}, {12, 40, 0}, {10, 3, 0}, {9, 20, 9}, {16, 100, 0}} {
		for _, h := range []HashKind{HashSha256, HashBlake3} {
			p := DefaultParams(KindVdmpf, tc.inBits, Uint64, PrgAesMmo).WithMaxPoints(tc.points)
			p.Hash = DefaultVdpfHash(h)
			if tc.bucketBits != 0 {
				p.BucketBits = tc.bucketBits
			}
			d, cws, s0s, _, _ := genRandomMpf(t, rng, p, tc.points)
			plan := planEvalAll(cws[0][0], p.InBits, int(cws[0][1].Lo))
			partial := plan.domain%plan.size != 0
			all := make([]Uint128, 1<<p.InBits)
			for x := range all {
				all[x] = Uint128{Lo: uint64(x)}
			}
			bucket := proofBucketBytes(p.BucketBits) * Workers()
			for party := range 2 {
				mine := everyOther(s0s, party)
				var want [ProofBlocks]Block
				wantYs := make([]Block, len(all))
				require.NoError(t, d.EvalProof(wantYs, &want, party, mine, cws, all))
				for _, group := range []int{1, 3, 8, 0} {
					what := fmt.Sprintf("in_bits %d, %d points, bucket_bits %d (%d used, last partial %v), %s, party %d, groups of %d",
						tc.inBits, tc.points, p.BucketBits, plan.used, partial, h, party, group)
					maxProofScratchBytes = max(group*bucket, bucket-1) // 0: over the bound
					require.Equal(t, group, proofGroup(p.BucketBits))
					var c Control
					var pi [ProofBlocks]Block
					ys := make([]Block, len(all))
					require.NoError(t, d.WithControl(&c).EvalAllProof(ys, &pi, party, mine, cws), what)
					require.Equal(t, want, pi, what)
					require.Equal(t, wantYs, ys, what)
					require.EqualValues(t, len(all), c.Done.Load(), what)
					c.Stop.Store(1)
					require.ErrorIs(t, d.WithControl(&c).EvalAllProof(ys, &pi, party, mine, cws), ErrStopped, what)
				}
			}
		}
	}
}

// TestInputOrder checks inputOrder against a sort of the same keys (x, k): values
// of z spread over the hashed domain as a PRP spreads them, and crowded into one
// part of it (the insertion sort's fallback), for several in_bits and counts.
func TestInputOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	var buf []uint64
	var counts []int
	for _, n := range []int{1, 5, 12, 20, 40} {
		for _, count := range []int{1, 2, 3, 100, 1724} {
			for _, crowded := range []bool{false, true} {
				full := uint64(3) << n
				span := full
				if crowded {
					span = max(uint64(count), full>>8)
				}
				if uint64(count) > span || span > full {
					continue
				}
				seen := map[uint64]bool{}
				zs := make([]uint64, 0, count)
				for len(zs) < count {
					z := rng.Uint64N(span)
					if !seen[z] {
						seen[z] = true
						zs = append(zs, z)
					}
				}
				want := make([]uint32, count)
				for i := range want {
					want[i] = uint32(i)
				}
				key := func(i uint32) uint64 { return zs[i]&(1<<n-1)<<2 | zs[i]>>n }
				slices.SortFunc(want, func(a, b uint32) int { return cmp.Compare(key(a), key(b)) })
				got := inputOrder(make([]uint32, count), zs, n, &buf, &counts)
				requireSame(t, want, got, "in_bits %d, %d values, crowded %v", n, count, crowded)
			}
		}
	}
}

// TestDmpfEvalAllRegions checks each party's EvalAll against its Eval at every
// input where the adds go through the per-region queues (in_bits > 14: 2^(n-14)
// regions), with the queues flushed at the end or along the way: shares at inputs
// whose value is 0 cancel in a reconstruction, so only a party's own shares show an
// add that went to the wrong input. A Control counts the outputs, and a stopped
// call returns ErrStopped.
func TestDmpfEvalAllRegions(t *testing.T) {
	defer func(was, regions int) { maxQueuedAdds, maxRegionsLog = was, regions }(maxQueuedAdds, maxRegionsLog)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		inBits int
		g      Group
	}{{15, Uint64}, {17, Uint127}, {18, Uint32}} {
		p := DefaultParams(KindDmpf, tc.inBits, tc.g, PrgAesMmo).WithMaxPoints(40)
		d, cws, s0s, _, _ := genRandomMpf(t, rng, p, 33)
		xs := make([]Uint128, 1<<tc.inBits)
		for x := range xs {
			xs[x] = Uint128{Lo: uint64(x)}
		}
		for party := range 2 {
			mine := everyOther(s0s, party)
			want, got := make([]Block, len(xs)), make([]Block, len(xs))
			require.NoError(t, d.Eval(want, party, mine, cws, xs))
			// 1000: the queues flushed along the way, after every bucket or few; 2
			// regions: offsets in regions of more than 2^16 blocks (in_bits 18), as from
			// in_bits 25.
			for _, q := range []struct{ limit, regionsLog int }{{1 << 22, 8}, {1000, 8}, {1 << 22, 1}} {
				maxQueuedAdds, maxRegionsLog = q.limit, q.regionsLog
				var c Control
				require.NoError(t, d.WithControl(&c).EvalAll(got, party, mine, cws))
				requireSame(t, want, got, "in_bits %d, party %d, queues of %d, 2^%d regions", tc.inBits, party, q.limit, q.regionsLog)
				require.EqualValues(t, len(xs), c.Done.Load(), "outputs counted")
			}

			var c Control
			c.Stop.Store(1)
			require.ErrorIs(t, d.WithControl(&c).EvalAll(got, party, mine, cws), ErrStopped)
		}
	}
}

// TestDmpfEvalAllConcurrent runs EvalAll calls of one key side by side, each
// spreading its work over the workers and taking queues from the same pool: every
// call's shares are the ones a call alone makes.
func TestDmpfEvalAllConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, g := range []Group{Uint64, Uint127} {
		d, cws, s0s, _, _ := genRandomMpf(t, rng, DefaultParams(KindDmpf, 17, g, PrgAesMmo).WithMaxPoints(50), 50)
		mine := everyOther(s0s, 1)
		want := make([]Block, 1<<17)
		require.NoError(t, d.EvalAll(want, 1, mine, cws))
		var wg sync.WaitGroup
		got := make([][]Block, 4)
		errs := make([]error, len(got))
		for i := range got {
			got[i] = make([]Block, 1<<17)
			wg.Go(func() { errs[i] = d.EvalAll(got[i], 1, mine, cws) })
		}
		wg.Wait()
		for i := range got {
			require.NoError(t, errs[i])
			require.Equal(t, want, got[i], "%v, call %d", g, i)
		}
	}
}

// TestDmpfEvalAllEveryWidth checks EvalAll at every in_bits from 1 to 20 against
// the definition (the two parties' shares add up to betas[j] at alphas[j], zero
// elsewhere, at every input) and each party's shares against its Eval (at every
// input up to in_bits 14, at 4096 random ones above), for t = 1, 2 and 1000 points
// in turn (as many as the domain holds), each into a dst full of junk.
func TestDmpfEvalAllEveryWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for n := 1; n <= 20; n++ {
		points := min([]int{1, 2, 1000}[n%3], 1<<n)
		g := []Group{Uint64, Bytes, Uint32, Uint127}[n%4]
		kind := []Kind{KindDmpf, KindVdmpf}[n%2]
		p := DefaultParams(kind, n, g, PrgAesMmo).WithMaxPoints(points)
		d, cws, s0s, alphas, betas := genRandomMpf(t, rng, p, points)
		var shares [2][]Block
		for party := range 2 {
			mine := everyOther(s0s, party)
			// Whatever dst held is overwritten, not added to.
			shares[party] = make([]Block, 1<<n)
			for x := range shares[party] {
				shares[party][x] = Block{Lo: rng.Uint64(), Hi: rng.Uint64()}
			}
			require.NoError(t, d.EvalAll(shares[party], party, mine, cws))
			var xs []Uint128
			for x := range min(1<<n, 1<<14) {
				xs = append(xs, Uint128{Lo: uint64(x)})
			}
			if n > 14 {
				for i := range xs {
					xs[i] = Uint128{Lo: rng.Uint64() & (1<<n - 1)}
				}
				xs = xs[:4096]
			}
			want := make([]Block, len(xs))
			require.NoError(t, d.Eval(want, party, mine, cws, xs))
			for i, x := range xs {
				require.Equal(t, want[i], shares[party][x.Lo], "in_bits %d, %d points, party %d: EvalAll at %d", n, points, party, x.Lo)
			}
		}
		want := make([]Block, 1<<n)
		for j, a := range alphas {
			want[a.Lo] = g.Canon(betas[j])
		}
		for x := range want {
			require.Equal(t, want[x], g.Add(shares[0][x], shares[1][x]), "in_bits %d, %d points, %v: EvalAll at %d", n, points, g, x)
		}
	}
}

// TestVdmpfProofChains checks EvalProof's proof, whose buckets' chains step eight
// at a time, against the definition (section 16.4) computed one pair at a time:
// each bucket's proof from its cs through the pieces of its pairs in input order
// (one VDPF EvalProof per pair), then the chain of all buckets' proofs. Many
// buckets (groups of eight with unequal numbers of pairs, some with none) and more
// inputs than one chunk.
func TestVdmpfProofChains(t *testing.T) {
	for _, hash := range []HashKind{HashSha256, HashBlake3} {
		p := DefaultParams(KindVdmpf, 20, Uint64, PrgAesMmo).WithMaxPoints(100)
		p.Hash = DefaultVdpfHash(hash)
		t.Run(hash.String(), func(t *testing.T) { checkProofChains(t, p) })
	}
}

func checkProofChains(t *testing.T, p Params) {
	rng := rand.New(rand.NewPCG(11, 12))
	d, cws, s0s, _, _ := genRandomMpf(t, rng, p, 100)
	xs := make([]Uint128, evalChunk+3001)
	for i := range xs {
		xs[i] = Uint128{Lo: rng.Uint64N(1 << 20)}
	}
	m, mRt := p.Buckets(), int(cws[0][1].Lo)
	bkts, idxs := make([]int32, 3*len(xs)), make([]Uint128, 3*len(xs))
	newCuckooHash(cws[0][0], p.InBits, mRt).locate(xs, bkts, idxs, nil)
	for party := range 2 {
		mine := everyOther(s0s, party)
		pibs := make([][ProofBlocks]Block, m)
		for b := range pibs {
			pibs[b] = keyCs(d.bucket(cws, b), p.BucketBits)
		}
		for i, b := range bkts {
			var piece [ProofBlocks]Block
			require.NoError(t, d.proofs.EvalProof(make([]Block, 1), piece[:], party, mine[b:b+1], d.bucket(cws, int(b)), idxs[i:i+1]))
			d.proofs.ProofStep(&pibs[b], &piece)
		}
		var want [ProofBlocks]Block
		for b := range pibs {
			d.proofs.ProofStep(&want, &pibs[b])
		}
		var got [ProofBlocks]Block
		require.NoError(t, d.EvalProof(make([]Block, len(xs)), &got, party, mine, cws, xs))
		require.Equal(t, want, got, "party %d", party)
	}
}

// TestDpfEvalKeyed checks the walks that evaluate points of several keys in one
// batch (DMPF's buckets in one call) against one Eval per key, on every
// implementation that has them: keys with no points, one and many, every group, and
// batches on both sides of the walks' shortest.
func TestDpfEvalKeyed(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	keyed := 0 // batches that the walks took whole
	for _, impl := range Impls() {
		for _, g := range []Group{Bytes, Uint32, Uint64, Uint127} {
			s, err := New(DefaultParams(KindDpf, 23, g, PrgAesMmo), WithImpl(impl))
			if err != nil {
				continue // not served on this CPU
			}
			d := s.(*Dpf)
			for _, counts := range [][]int{{3, 2}, {0, 40, 1, 0, 17}, {200}, {1, 1, 1, 1, 1, 1, 1, 1, 1}} {
				k, rows := len(counts), d.Params().CwRows()
				seeds, alphas, betas := make([]Block, 2*k), make([]Uint128, k), make([]Block, k)
				for i := range k {
					seeds[2*i], seeds[2*i+1] = Block{rng.Uint64(), rng.Uint64()}, Block{rng.Uint64(), rng.Uint64()}
					alphas[i], betas[i] = Uint128{Lo: rng.Uint64() >> 41}, Block{rng.Uint64(), rng.Uint64()}.Clamp()
				}
				cws := make([]Cw, k*rows)
				require.NoError(t, d.Gen(cws, seeds, alphas, betas))
				var xs []Uint128
				var keyOf []int32
				for key, c := range counts {
					for range c {
						x := Uint128{Lo: rng.Uint64() >> 41}
						if rng.IntN(4) == 0 {
							x = alphas[key]
						}
						xs, keyOf = append(xs, x), append(keyOf, int32(key))
					}
				}
				for party := range 2 {
					mine := everyOther(seeds, party)
					got := make([]Block, len(xs))
					served, err := d.evalKeyed(got, party, mine, cws, xs, keyOf)
					require.NoError(t, err)
					if !served { // a batch too short for the routines
						continue
					}
					keyed++
					at := 0
					for key, c := range counts {
						want := make([]Block, c)
						require.NoError(t, d.Eval(want, party, mine[key:key+1], cws[key*rows:(key+1)*rows], xs[at:at+c]))
						requireSame(t, want, got[at:at+c], "%s %v counts %v: key %d", impl, g, counts, key)
						at += c
					}
				}
			}
		}
	}
	// The AVX2 and AVX-512 walks all have them: where one is the default, the
	// longer batches must have taken them.
	def, err := New(DefaultParams(KindDpf, 23, Uint64, PrgAesMmo))
	require.NoError(t, err)
	if strings.HasPrefix(def.Impl(), "avx") {
		require.NotZero(t, keyed, "no implementation walks points of several keys here (default %s)", def.Impl())
	}
}

// repeatedPoint finds the least repeated point among points of 64 bits and among
// wider ones (the two sorts), and nothing where all differ, even in the low words.
func TestRepeatedPoint(t *testing.T) {
	for _, c := range []struct {
		xs   []Uint128
		want Uint128
		ok   bool
	}{
		{nil, Uint128{}, false},
		{[]Uint128{{Lo: 7}}, Uint128{}, false},
		{[]Uint128{{Lo: 9}, {Lo: 3}, {Lo: 9}, {Lo: 3}, {Lo: 1}}, Uint128{Lo: 3}, true},
		{[]Uint128{{Lo: 0}, {Lo: 1 << 63}, {Lo: 0}}, Uint128{}, true},
		{[]Uint128{{Lo: 5, Hi: 1}, {Lo: 5}, {Lo: 5, Hi: 2}}, Uint128{}, false},
		{[]Uint128{{Lo: 5, Hi: 1}, {Lo: 5}, {Lo: 6}, {Lo: 5, Hi: 1}, {Lo: 6}}, Uint128{Lo: 6}, true},
		{[]Uint128{{Lo: 2, Hi: 9}, {Lo: 1, Hi: 9}, {Lo: 2, Hi: 9}}, Uint128{Lo: 2, Hi: 9}, true},
	} {
		got, ok := repeatedPoint(c.xs)
		require.Equal(t, c.ok, ok, c.xs)
		require.Equal(t, c.want, got, c.xs)
	}
}
