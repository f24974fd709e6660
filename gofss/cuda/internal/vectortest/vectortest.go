// Package vectortest checks a backend of the CUDA kernels (the host build of their
// arithmetic, or a GPU) against the DPF and DCF known-answer vectors.
//
// Cases with the same in_bits and group run as one batch of keys, so that the
// level-major path (K > 1) is checked; the first key of each batch also runs alone.
package vectortest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/kat"
)

// Config is one vector file's parameters with one batch's in_bits and group, numbered
// as the launcher numbers them.
type Config struct {
	Scheme  int // 0 dpf, 1 dcf
	Pred    int // DCF: 0 lt, 1 gt
	Group   int // 0 bytes, 1 uint32, 2 uint64, 3 uint127
	Prg     int // 0 chacha, 1 aes128_mmo
	InBits  int
	Nonce   [2]uint32
	AESKeys [][16]byte
}

// Backend runs the batched operations over host copies of the kernels' buffers, laid
// out as SPEC section 6 says.
type Backend interface {
	// Gen returns cws (k, n + 1, 8) for seeds (k, 2, 4), alphas (k, alphaWords), betas (k, 4).
	Gen(c Config, seeds, alphas []uint32, alphaWords int, betas []uint32, k int) ([]uint32, error)
	// Eval returns shares (k, m, 4) for s0s (k, 4), cws (k, n + 1, 8), xs (k, m, xWords).
	Eval(c Config, party int, s0s, cws []uint32, k int, xs []uint32, xWords, m int) ([]uint32, error)
	// EvalAll returns shares (k, 2^n, 4).
	EvalAll(c Config, party int, s0s, cws []uint32, k int) ([]uint32, error)
}

// PrgConfig returns the PRG part of a Config for a vector file's PRG header.
func PrgConfig(t *testing.T, p kat.Prg) Config {
	c := Config{Nonce: p.NonceU32()}
	switch p.Name {
	case "chacha":
	case "aes128_mmo":
		c.Prg = 1
	default:
		t.Fatalf("unknown prg %q", p.Name)
	}
	keys, err := p.AesKeys()
	require.NoError(t, err)
	c.AESKeys = keys
	return c
}

// Words is a block as unsigned words.
func Words(b kat.Block) [4]uint32 {
	return [4]uint32{uint32(b[0]), uint32(b[1]), uint32(b[2]), uint32(b[3])}
}

var groups = map[string]int{"bytes": 0, "uint32": 1, "uint64": 2, "uint127": 3}

// Run checks b against every case of the DPF and DCF vector files: Gen == cws,
// Eval == y0/y1, and EvalAll's hashes, first and last blocks where the vectors have
// them (in_bits <= 16). maxEvalAllBits limits the EvalAll checks (a slow backend may
// skip the large ones); it returns the number of cases checked.
func Run(t *testing.T, b Backend, maxEvalAllBits int) int {
	total := 0
	for _, name := range kat.TreeFiles {
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			f, err := kat.LoadTree(name)
			require.NoError(t, err)
			require.NotEmpty(t, f.Cases)
			c := PrgConfig(t, f.Prg)
			if f.Scheme == "dcf" {
				c.Scheme = 1
				if f.Pred == "gt" {
					c.Pred = 1
				}
			}
			var order []string
			batches := map[string][]kat.TreeCase{}
			for _, fc := range f.Cases {
				key := fmt.Sprintf("%s-n%d", fc.Group, fc.InBits)
				if batches[key] == nil {
					order = append(order, key)
				}
				batches[key] = append(batches[key], fc)
			}
			for _, key := range order {
				t.Run(key, func(t *testing.T) { checkBatch(t, b, c, batches[key], maxEvalAllBits) })
				total += len(batches[key])
			}
		})
	}
	return total
}

// InputWords is the narrowest packing the kernels accept for n-bit inputs, so that the
// vectors exercise all three.
func InputWords(n int) int {
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

func checkBatch(t *testing.T, b Backend, c Config, cases []kat.TreeCase, maxEvalAllBits int) {
	n, k := cases[0].InBits, len(cases)
	group, ok := groups[cases[0].Group]
	require.True(t, ok, "group %q", cases[0].Group)
	c.Group, c.InBits = group, n
	words := InputWords(n)

	var seeds, alphas, betas, want []uint32
	for _, fc := range cases {
		seeds = appendBlock(appendBlock(seeds, fc.Seeds[0]), fc.Seeds[1])
		alphas = appendInput(alphas, fc.Alpha, words)
		betas = appendBlock(betas, fc.Beta)
		require.Len(t, fc.Cws, n+1, fc.ID)
		for _, row := range fc.Cws {
			for _, w := range row {
				want = append(want, uint32(w))
			}
		}
	}
	cws, err := b.Gen(c, seeds, alphas, words, betas, k)
	require.NoError(t, err)
	for i, fc := range cases {
		for r := 0; r <= n; r++ {
			at := (i*(n+1) + r) * 8
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
		ys, err := b.Eval(c, party, s0s, cws, k, xs, words, m)
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
		one, err := b.Eval(c, party, s0s[:4], cws[:(n+1)*8], 1, xs[:m*words], words, m)
		require.NoError(t, err)
		assert.Equal(t, ys[:m*4], one, "%s: party %d, batch of one key", cases[0].ID, party)

		if cases[0].EvalAll != nil && n <= maxEvalAllBits {
			checkEvalAll(t, b, c, party, s0s, cws, cases)
		}
	}
}

func checkEvalAll(t *testing.T, b Backend, c Config, party int, s0s, cws []uint32, cases []kat.TreeCase) {
	n, k := c.InBits, len(cases)
	size := 4 << n
	all, err := b.EvalAll(c, party, s0s, cws, k)
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
		one, err := b.EvalAll(c, party, s0s[:4], cws[:(n+1)*8], 1)
		require.NoError(t, err)
		assert.Equal(t, all[:size], one, "%s: party %d EvalAll, batch of one key", cases[0].ID, party)
	}
}
