// Package vectortest checks a backend of the CUDA kernels (the host build of their
// arithmetic, or a GPU) against the DPF, DCF, Half-Tree DPF and Grotto DCF
// known-answer vectors.
//
// Cases with the same in_bits and group run as one batch of keys, so that the
// level-major path (K > 1) is checked; the first key of each batch also runs alone.
package vectortest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/internal/kat"
)

// Backend runs the batched operations over host copies of the kernels' buffers, laid
// out as docs/spec.md section 6 says, in the argument order of the launcher.
type Backend interface {
	// Gen returns cws (k, CwRows(), 8) for seeds (k, 2, 4), alphas (k, alphaWords),
	// betas (k, 4), or nil betas for grotto_dcf.
	Gen(p gofss.Params, seeds, alphas []uint32, alphaWords int, betas []uint32, k int) ([]uint32, error)
	// Eval returns shares (k, m, 4) for s0s (k, 4), cws (k, CwRows(), 8), xs (k, m, xWords).
	Eval(p gofss.Params, party int, s0s []uint32, k int, cws, xs []uint32, xWords, m int) ([]uint32, error)
	// EvalAll returns shares (k, 2^n, 4).
	EvalAll(p gofss.Params, party int, s0s []uint32, k int, cws []uint32) ([]uint32, error)

	// Grotto DCF: Preprocess returns party's prefix parities (k, ceil(2^n / 64)) for
	// s0s (k, 4) and cws (k, n + 1, 8); GrottoEval the shares (k, m) of k preprocessed
	// keys at xs (k, m, xWords), GrottoEvalInterval those of the intervals [los, his].
	Preprocess(p gofss.Params, party int, s0s []uint32, k int, cws []uint32) ([]uint64, error)
	GrottoEval(p gofss.Params, pre []uint64, k int, xs []uint32, xWords, m int) ([]uint8, error)
	GrottoEvalInterval(p gofss.Params, pre []uint64, k int, los []uint32, loWords int, his []uint32, hiWords,
		m int) ([]uint8, error)
}

// params reads the public parameters of vectors with gofss.ParseParams: their scheme
// ("dpf", "dcf_lt", "dcf_gt", "half_tree_dpf" or "grotto_dcf"), in_bits and group,
// with the PRG header (and Half-Tree DPF's hash key) of their file.
func params(t *testing.T, scheme string, inBits int, group string, prg kat.Prg, hashKey kat.Block) gofss.Params {
	j := map[string]any{"scheme": scheme, "in_bits": inBits, "group": group, "prg": prg.Name,
		"aes_keys": prg.AesKeysHex}
	if prg.Nonce != ([2]int32{}) {
		j["nonce"] = prg.Nonce
	}
	if scheme == gofss.KindHalfTreeDpf.String() {
		j["hash_key"] = hashKey
	}
	b, err := json.Marshal(j)
	require.NoError(t, err)
	p, err := gofss.ParseParams(b)
	require.NoError(t, err, "%s", b)
	return p
}

// Words is a block as unsigned words.
func Words(b kat.Block) [4]uint32 {
	return [4]uint32{uint32(b[0]), uint32(b[1]), uint32(b[2]), uint32(b[3])}
}

// Run checks b against every case of the DPF, DCF and Half-Tree DPF vector files:
// Gen == cws, Eval == y0/y1, and EvalAll's hashes, first and last blocks where the
// vectors have them (in_bits <= 16). maxEvalAllBits limits the EvalAll checks (a slow
// backend may skip the large ones); it returns the number of cases checked.
func Run(t *testing.T, b Backend, maxEvalAllBits int) int {
	total := 0
	for _, name := range append(kat.TreeFiles[:len(kat.TreeFiles):len(kat.TreeFiles)], kat.HalfTreeFiles...) {
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			f, err := kat.LoadTree(name)
			require.NoError(t, err)
			require.NotEmpty(t, f.Cases)
			scheme := f.Scheme // a DCF file names its predicate apart: dcf_lt, dcf_gt
			if f.Pred != "" {
				scheme += "_" + f.Pred
			}
			for _, bt := range batchesOf(f.Cases, func(c kat.TreeCase) (string, int) { return c.Group, c.InBits }) {
				cases := bt.cases
				t.Run(bt.name, func(t *testing.T) {
					p := params(t, scheme, cases[0].InBits, cases[0].Group, f.Prg, f.HashKey)
					checkBatch(t, b, p, cases, maxEvalAllBits)
				})
				total += len(cases)
			}
		})
	}
	return total
}

// inputWords is the narrowest packing the kernels accept for n-bit inputs, so that the
// vectors exercise all three.
func inputWords(n int) int {
	switch {
	case n <= 32:
		return 1
	case n <= 64:
		return 2
	}
	return 4
}

// appendInput appends v as `words` little-endian words.
func appendInput(dst []uint32, v kat.Uint, words int) []uint32 {
	all := [4]uint32{uint32(v.Lo), uint32(v.Lo >> 32), uint32(v.Hi), uint32(v.Hi >> 32)}
	return append(dst, all[:words]...)
}

func appendBlock(dst []uint32, b kat.Block) []uint32 {
	w := Words(b)
	return append(dst, w[:]...)
}

// keyWords is a case's key as the kernels take it: its n + 1 rows of correction
// words, or for Half-Tree DPF its n + 1 blocks two to a row, converted from the
// reference layout of the vectors (docs/spec.md section 11): blocks 0 .. n-1 are
// words 0-3 of the n rows, block n the output correction word with LCW1, word 4 of
// row n - 1, in its lsb, and a zero block pads an even n.
func keyWords(t *testing.T, p gofss.Params, fc kat.TreeCase) []uint32 {
	n := p.InBits
	var w []uint32
	if p.Kind != gofss.KindHalfTreeDpf {
		require.Len(t, fc.Cws, n+1, fc.ID)
		for _, row := range fc.Cws {
			w = append(w, rowWords(row[:])...)
		}
		return w
	}
	require.Len(t, fc.Cws, n, fc.ID)
	require.NotNil(t, fc.Ocw, fc.ID)
	for _, row := range fc.Cws {
		w = append(w, rowWords(row[:4])...)
	}
	w = appendBlock(w, *fc.Ocw)
	w[4*n+3] |= uint32(fc.Cws[n-1][4]) & 1
	return append(w, make([]uint32, 8*p.CwRows()-len(w))...)
}

func rowWords(row []int32) []uint32 {
	w := make([]uint32, len(row))
	for i, v := range row {
		w[i] = uint32(v)
	}
	return w
}

func checkBatch(t *testing.T, b Backend, p gofss.Params, cases []kat.TreeCase, maxEvalAllBits int) {
	n, k, rows := p.InBits, len(cases), p.CwRows()
	words := inputWords(n)

	var seeds, alphas, betas, want []uint32
	for _, fc := range cases {
		seeds = appendBlock(appendBlock(seeds, fc.Seeds[0]), fc.Seeds[1])
		alphas = appendInput(alphas, fc.Alpha, words)
		betas = appendBlock(betas, fc.Beta)
		want = append(want, keyWords(t, p, fc)...)
	}
	cws, err := b.Gen(p, seeds, alphas, words, betas, k)
	require.NoError(t, err)
	for i, fc := range cases {
		for r := range rows {
			at := (i*rows + r) * 8
			assert.Equal(t, want[at:at+8], cws[at:at+8], "%s: cws row %d", fc.ID, r)
		}
	}
	// Evaluate the vectors' cws, not ours, so that a Gen bug cannot hide an Eval bug.
	cws = want

	m := len(cases[0].Evals)
	var xs []uint32
	for _, fc := range cases {
		require.Len(t, fc.Evals, m, fc.ID)
		for _, e := range fc.Evals {
			xs = appendInput(xs, e.X, words)
		}
	}
	for party := range 2 {
		var s0s []uint32
		for _, fc := range cases {
			s0s = appendBlock(s0s, fc.Seeds[party])
		}
		ys, err := b.Eval(p, party, s0s, k, cws, xs, words, m)
		require.NoError(t, err)
		for i, fc := range cases {
			for j, e := range fc.Evals {
				y := e.Y0
				if party == 1 {
					y = e.Y1
				}
				at := (i*m + j) * 4
				assert.Equal(t, appendBlock(nil, y), ys[at:at+4], "%s: party %d eval at x=%v", fc.ID, party, e.X)
			}
		}
		// A single key reads the caller's cws directly.
		one, err := b.Eval(p, party, s0s[:4], 1, cws[:rows*8], xs[:m*words], words, m)
		require.NoError(t, err)
		assert.Equal(t, ys[:m*4], one, "%s: party %d, batch of one key", cases[0].ID, party)

		if cases[0].EvalAll != nil && n <= maxEvalAllBits {
			checkEvalAll(t, b, p, party, s0s, cws, cases)
		}
	}
}

func checkEvalAll(t *testing.T, b Backend, p gofss.Params, party int, s0s, cws []uint32, cases []kat.TreeCase) {
	n, k := p.InBits, len(cases)
	size := 4 << n
	all, err := b.EvalAll(p, party, s0s, k, cws)
	require.NoError(t, err)
	for i, fc := range cases {
		require.NotNil(t, fc.EvalAll, fc.ID)
		out := all[i*size : (i+1)*size]
		raw := make([]byte, 4*len(out))
		for j, w := range out {
			binary.LittleEndian.PutUint32(raw[4*j:], w)
		}
		sum := sha256.Sum256(raw)
		assert.Equal(t, fc.EvalAll.Sha256[party], hex.EncodeToString(sum[:]), "%s: party %d EvalAll sha256", fc.ID, party)
		var first, last []uint32
		for _, blk := range fc.EvalAll.First[party] {
			first = appendBlock(first, blk)
		}
		for _, blk := range fc.EvalAll.Last[party] {
			last = appendBlock(last, blk)
		}
		assert.Equal(t, first, out[:len(first)], "%s: party %d EvalAll first", fc.ID, party)
		assert.Equal(t, last, out[size-len(last):], "%s: party %d EvalAll last", fc.ID, party)
	}
	if n <= 8 {
		one, err := b.EvalAll(p, party, s0s[:4], 1, cws[:p.CwRows()*8])
		require.NoError(t, err)
		assert.Equal(t, all[:size], one, "%s: party %d EvalAll, batch of one key", cases[0].ID, party)
	}
}

// batch is the cases of one group and in_bits, checked in one batched call per
// operation.
type batch[C any] struct {
	name  string // "<group>-n<in_bits>"
	cases []C
}

// batchesOf groups cases by group and in_bits, in the order each first appears.
func batchesOf[C any](cases []C, groupAndBits func(C) (string, int)) []batch[C] {
	var out []batch[C]
	index := map[string]int{}
	for _, c := range cases {
		g, n := groupAndBits(c)
		name := fmt.Sprintf("%s-n%d", g, n)
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, batch[C]{name: name})
		}
		out[i].cases = append(out[i].cases, c)
	}
	return out
}
