package gofss

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// gpuPairs are what the GPU's Eval writes for xs: each pair's bucket and proof piece,
// from the CPU's locate and the buckets' EvalProof.
func gpuPairs(t *testing.T, d *Mpf, party int, s0s []Block, cws []Cw, xs []Uint128) ([]int32, []Block) {
	sigma, mRt, err := d.checkKey(party, s0s, cws)
	require.NoError(t, err)
	h := newCuckooHash(sigma, d.params.InBits, mRt)
	bkts, idxs := make([]int32, cuckooHashes*len(xs)), make([]Uint128, cuckooHashes*len(xs))
	h.locate(xs, bkts, idxs, nil)
	pieces := make([]Block, ProofBlocks*len(bkts))
	for p, b := range bkts {
		y := make([]Block, 1)
		require.NoError(t, d.proofs.EvalProof(y, pieces[ProofBlocks*p:ProofBlocks*(p+1)], party, s0s[b:b+1],
			d.bucket(cws, int(b)), idxs[p:p+1]))
	}
	return bkts, pieces
}

func TestMpfFoldProof(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := DefaultParams(KindVdmpf, 10, Uint32, PrgAesMmo).WithMaxPoints(8)
	d, cws, s0s, _, _ := genRandomMpf(t, rng, p, 8)
	xs := make([]Uint128, 300)
	for i := range xs {
		xs[i] = Uint128{Lo: rng.Uint64N(1 << 10)}
	}
	for party := range 2 {
		seeds := everyOther(s0s, party)
		var want, got [ProofBlocks]Block
		require.NoError(t, d.EvalProof(make([]Block, len(xs)), &want, party, seeds, cws, xs))
		bkts, pieces := gpuPairs(t, d, party, seeds, cws, xs)
		require.NoError(t, d.FoldProof(&got, cws, bkts, pieces))
		require.Equal(t, want, got, "party %d", party)

		// Pieces out of order make another proof; a bucket past m_rt is refused.
		pieces[0], pieces[ProofBlocks] = pieces[ProofBlocks], pieces[0]
		require.NoError(t, d.FoldProof(&got, cws, bkts, pieces))
		require.NotEqual(t, want, got)
		bkts[7] = int32(cws[0][1].Lo)
		require.ErrorContains(t, d.FoldProof(&got, cws, bkts, pieces), "outside the key's")
		require.ErrorContains(t, d.FoldProof(&got, cws, bkts[:5], pieces), "per input")
	}
	dm, err := NewMpf(DefaultParams(KindDmpf, 10, Uint32, PrgAesMmo).WithMaxPoints(8))
	require.NoError(t, err)
	var pi [ProofBlocks]Block
	require.ErrorContains(t, dm.FoldProof(&pi, cws, nil, nil), "no proofs")
}
