package vectortest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/internal/kat"
)

// VdpfBackend runs the VDPF kernels over host copies of their buffers: Gen as
// Backend.Gen (keys of in_bits + 3 rows), and Eval returning the shares (k, m, 4) and
// the proof pieces (k, m, 4, 4).
type VdpfBackend interface {
	VdpfGen(p gofss.Params, seeds, alphas []uint32, alphaWords int, betas []uint32, k int) ([]uint32, error)
	VdpfEval(p gofss.Params, party int, s0s []uint32, k int, cws, xs []uint32, xWords, m int) ([]uint32, []uint32,
		error)
}

// VdpfParams reads the parameters of a VDPF file's cases with gofss.ParseParams: the
// PRG and hash headers of the file, the case's in_bits and group.
func VdpfParams(t *testing.T, f *kat.VdpfFile, inBits int, group string) gofss.Params {
	hash := map[string]any{"name": f.Hash.Name}
	if f.Hash.Name == "sha256" {
		hash["xor_hash_key"], hash["hash_key"] = f.Hash.XorHashKey, f.Hash.HashKey
	} else {
		hash["xor_hash_iv"], hash["hash_iv"] = f.Hash.XorHashIV, f.Hash.HashIV
	}
	j := map[string]any{"scheme": "vdpf", "in_bits": inBits, "group": group, "prg": f.Prg.Name,
		"aes_keys": f.Prg.AesKeysHex, "hash": hash}
	if f.Prg.Nonce != ([2]int32{}) {
		j["nonce"] = f.Prg.Nonce
	}
	b, err := json.Marshal(j)
	require.NoError(t, err)
	p, err := gofss.ParseParams(b)
	require.NoError(t, err, "%s", b)
	return p
}

// VdpfKeyWords is a case's key in our layout (docs/spec.md section 15): the vectors'
// n level rows, then (ocw, 0), (cs_0, cs_1) and (cs_2, cs_3).
func VdpfKeyWords(t *testing.T, c kat.VdpfCase) []uint32 {
	require.Len(t, c.Cws, c.InBits, c.ID)
	return appendTreeKey(nil, c.Cws, c.Ocw, &c.Cs)
}

// appendTreeKey appends a DPF key in our layout, its level rows and then (ocw, 0),
// and with cs (VDPF) the rows (cs_0, cs_1) and (cs_2, cs_3).
func appendTreeKey(w []uint32, cws [][8]int32, ocw kat.Block, cs *[4]kat.Block) []uint32 {
	for _, row := range cws {
		w = append(w, rowWords(row[:])...)
	}
	w = append(appendBlock(w, ocw), 0, 0, 0, 0)
	if cs != nil {
		for _, b := range cs {
			w = appendBlock(w, b)
		}
	}
	return w
}

// RunVdpf checks b against every case of the VDPF vector files, batched by group and
// in_bits as Run does: Gen == the key, Eval == y0/y1 and pi_tilde0/pi_tilde1. It
// returns the number of cases checked.
func RunVdpf(t *testing.T, b VdpfBackend) int {
	total := 0
	for _, name := range kat.VdpfFiles {
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			f, err := kat.LoadVdpf(name)
			require.NoError(t, err)
			require.NotEmpty(t, f.Cases)
			for _, bt := range batchesOf(f.Cases, func(c kat.VdpfCase) (string, int) { return c.Group, c.InBits }) {
				cases := bt.cases
				t.Run(bt.name, func(t *testing.T) {
					checkVdpfBatch(t, b, VdpfParams(t, f, cases[0].InBits, cases[0].Group), cases)
				})
				total += len(cases)
			}
		})
	}
	return total
}

func checkVdpfBatch(t *testing.T, b VdpfBackend, p gofss.Params, cases []kat.VdpfCase) {
	k, rows, words := len(cases), p.CwRows(), inputWords(p.InBits)
	var seeds, alphas, betas, want []uint32
	for _, c := range cases {
		require.Zero(t, c.GenRet, c.ID)
		seeds = appendBlock(appendBlock(seeds, c.Seeds[0]), c.Seeds[1])
		alphas = appendInput(alphas, c.Alpha, words)
		betas = appendBlock(betas, c.Beta)
		want = append(want, VdpfKeyWords(t, c)...)
	}
	cws, err := b.VdpfGen(p, seeds, alphas, words, betas, k)
	require.NoError(t, err)
	for i, c := range cases {
		for r := range rows {
			at := (i*rows + r) * 8
			assert.Equal(t, want[at:at+8], cws[at:at+8], "%s: key row %d", c.ID, r)
		}
	}
	cws = want // evaluate the vectors' keys, so that a Gen bug cannot hide an Eval bug

	m := len(cases[0].Evals)
	var xs []uint32
	for _, c := range cases {
		require.Len(t, c.Evals, m, c.ID)
		for _, e := range c.Evals {
			xs = appendInput(xs, e.X, words)
		}
	}
	for party := range 2 {
		var s0s []uint32
		for _, c := range cases {
			s0s = appendBlock(s0s, c.Seeds[party])
		}
		ys, pieces, err := b.VdpfEval(p, party, s0s, k, cws, xs, words, m)
		require.NoError(t, err)
		for i, c := range cases {
			for j, e := range c.Evals {
				y, pt := [2]kat.Block{e.Y0, e.Y1}[party], [2][4]kat.Block{e.PiTilde0, e.PiTilde1}[party]
				at := i*m + j
				assert.Equal(t, appendBlock(nil, y), ys[4*at:4*at+4], "%s: party %d share at x=%v", c.ID, party, e.X)
				var wantPiece []uint32
				for _, blk := range pt {
					wantPiece = appendBlock(wantPiece, blk)
				}
				assert.Equal(t, wantPiece, pieces[16*at:16*at+16], "%s: party %d proof piece at x=%v", c.ID, party, e.X)
			}
		}
		// A single key reads the caller's cws directly.
		ys1, pieces1, err := b.VdpfEval(p, party, s0s[:4], 1, cws[:rows*8], xs[:m*words], words, m)
		require.NoError(t, err)
		assert.Equal(t, ys[:m*4], ys1, "%s: party %d shares, batch of one key", cases[0].ID, party)
		assert.Equal(t, pieces[:m*16], pieces1, "%s: party %d pieces, batch of one key", cases[0].ID, party)
	}
}
