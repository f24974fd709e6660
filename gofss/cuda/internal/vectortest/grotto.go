package vectortest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/internal/kat"
)

// RunGrotto checks b against every case of the Grotto DCF vector files: Gen == cws,
// and each party's Preprocess of the vectors' keys against the shares at the cases'
// points, at 2^n - 1 (parity_root), and where in_bits <= maxBits the hashes of the
// shares and of the leaf control bits at every input (eval_all, leaf_t_sha256), with
// the lookups of Eval and EvalInterval; the parties' interval shares must XOR to
// 1{lo <= alpha <= hi}. It returns the number of cases checked.
func RunGrotto(t *testing.T, b Backend, maxBits int) int {
	total := 0
	for _, name := range kat.GrottoFiles {
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			f, err := kat.LoadGrotto(name)
			require.NoError(t, err)
			require.NotEmpty(t, f.Cases)
			var order []int
			batches := map[int][]kat.GrottoCase{}
			for _, fc := range f.Cases {
				if batches[fc.InBits] == nil {
					order = append(order, fc.InBits)
				}
				batches[fc.InBits] = append(batches[fc.InBits], fc)
			}
			for _, n := range order {
				t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
					p := params(t, gofss.KindGrottoDcf.String(), n, gofss.Bytes.String(), f.Prg, kat.Block{})
					checkGrottoBatch(t, b, p, batches[n], maxBits)
				})
				total += len(batches[n])
			}
		})
	}
	return total
}

func checkGrottoBatch(t *testing.T, b Backend, p gofss.Params, cases []kat.GrottoCase, maxBits int) {
	n, k, rows := p.InBits, len(cases), p.CwRows()
	words, pw := inputWords(n), (1<<n+63)/64

	var seeds, alphas, cws []uint32
	for _, fc := range cases {
		seeds = appendBlock(appendBlock(seeds, fc.Seeds[0]), fc.Seeds[1])
		alphas = appendInput(alphas, fc.Alpha, words)
		require.Len(t, fc.Cws, rows, fc.ID)
		for _, row := range fc.Cws {
			cws = append(cws, rowWords(row[:])...)
		}
	}
	got, err := b.Gen(p, seeds, alphas, words, nil, k)
	require.NoError(t, err)
	assert.Equal(t, cws, got, "Gen")

	// The cases' points, and intervals between neighbouring points (the first from 0),
	// their upper bounds packed wider than the lower ones.
	m := len(cases[0].Evals)
	var xs, los, his []uint32
	var bounds [][2]uint64
	for _, fc := range cases {
		require.Len(t, fc.Evals, m, fc.ID)
		for j, e := range fc.Evals {
			xs = appendInput(xs, e.X, words)
			lo, hi := fc.Evals[(j+1)%m].X.Lo, e.X.Lo
			if j == 0 {
				lo = 0
			}
			lo, hi = min(lo, hi), max(lo, hi)
			los = appendInput(los, kat.Uint{Lo: lo}, words)
			his = appendInput(his, kat.Uint{Lo: hi}, 4)
			bounds = append(bounds, [2]uint64{lo, hi})
		}
	}
	var intervals [2][]uint8
	for party := range 2 {
		var s0s []uint32
		for _, fc := range cases {
			s0s = appendBlock(s0s, fc.Seeds[party])
		}
		pre, err := b.Preprocess(p, party, s0s, k, cws)
		require.NoError(t, err)
		require.Len(t, pre, k*pw)
		for i, fc := range cases {
			checkParities(t, fc, party, n, pre[i*pw:(i+1)*pw], maxBits)
		}
		one, err := b.Preprocess(p, party, s0s[:4], 1, cws[:rows*8])
		require.NoError(t, err)
		assert.Equal(t, pre[:pw], one, "%s: party %d, batch of one key", cases[0].ID, party)

		ys, err := b.GrottoEval(p, pre, k, xs, words, m)
		require.NoError(t, err)
		for i, fc := range cases {
			for j, e := range fc.Evals {
				assert.Equal(t, share(e.Y0, e.Y1, party), ys[i*m+j], "%s: party %d eval at x=%d", fc.ID, party, e.X.Lo)
			}
		}
		intervals[party], err = b.GrottoEvalInterval(p, pre, k, los, words, his, 4, m)
		require.NoError(t, err)
		for t0, bd := range bounds {
			key := pre[t0/m*pw : (t0/m+1)*pw]
			want := bitAt(key, bd[1])
			if bd[0] > 0 {
				want ^= bitAt(key, bd[0]-1)
			}
			assert.Equal(t, want, intervals[party][t0], "%s: party %d interval %v", cases[t0/m].ID, party, bd)
		}
	}
	for t0, bd := range bounds {
		alpha := cases[t0/m].Alpha.Lo
		want := uint8(0)
		if bd[0] <= alpha && alpha <= bd[1] {
			want = 1
		}
		assert.Equal(t, want, intervals[0][t0]^intervals[1][t0], "%s: interval %v", cases[t0/m].ID, bd)
	}
}

func share(y0, y1 bool, party int) uint8 {
	y := y0
	if party == 1 {
		y = y1
	}
	if y {
		return 1
	}
	return 0
}

func bitAt(pre []uint64, x uint64) uint8 { return uint8(pre[x>>6]>>(x&63)) & 1 }

// checkParities checks one key's prefix parities against its case.
func checkParities(t *testing.T, fc kat.GrottoCase, party, n int, pre []uint64, maxBits int) {
	for _, e := range fc.Evals {
		assert.Equal(t, share(e.Y0, e.Y1, party), bitAt(pre, e.X.Lo), "%s: party %d share at x=%d", fc.ID, party, e.X.Lo)
	}
	root := fc.ParityRoot[party]
	assert.Equal(t, share(root, root, party), bitAt(pre, 1<<n-1), "%s: party %d parity_root", fc.ID, party)
	if n < 6 {
		assert.Zero(t, pre[0]>>(1<<n), "%s: party %d: bits above 2^n", fc.ID, party)
	}
	if n > maxBits {
		return
	}
	shares, leaves := make([]byte, 1<<n), make([]byte, 1<<n)
	var bits strings.Builder
	for x := range uint64(1) << n {
		shares[x] = bitAt(pre, x)
		leaves[x] = shares[x]
		if x > 0 {
			leaves[x] ^= shares[x-1] // t(x) = P(x) ^ P(x - 1)
		}
		bits.WriteByte('0' + shares[x])
	}
	s, l := sha256.Sum256(shares), sha256.Sum256(leaves)
	assert.Equal(t, fc.EvalAll.Sha256[party], hex.EncodeToString(s[:]), "%s: party %d shares sha256", fc.ID, party)
	assert.Equal(t, fc.LeafTSha256[party], hex.EncodeToString(l[:]), "%s: party %d leaf_t_sha256", fc.ID, party)
	all := bits.String()
	first, last := fc.EvalAll.FirstBits[party], fc.EvalAll.LastBits[party]
	assert.Equal(t, first, all[:len(first)], "%s: party %d first_bits", fc.ID, party)
	assert.Equal(t, last, all[len(all)-len(last):], "%s: party %d last_bits", fc.ID, party)
}
