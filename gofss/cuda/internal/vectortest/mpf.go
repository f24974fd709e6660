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

// MpfBackend runs the multi-point schemes' batched Eval over host copies of its
// buffers: shares (k, m, 4) of k keys, s0s (k, buckets, 4), cws (k, CwRows(), 8), at
// xs (k, m, xWords); for vdmpf also each pair's bucket (k, m, 3) and proof piece
// (k, m, 3, 4, 4).
type MpfBackend interface {
	MpfEval(p gofss.Params, party int, s0s []uint32, k int, cws, xs []uint32, xWords, m int) ([]uint32, []uint32,
		[]uint32, error)
}

// MpfParams reads the parameters of a VDMPF file's case as kind (dmpf or vdmpf) with
// gofss.ParseParams: the file's PRG (and for vdmpf its hash header), the case's
// in_bits, group, max_points and bucket_bits.
func MpfParams(t *testing.T, kind gofss.Kind, f *kat.MpfFile, c kat.MpfCase) gofss.Params {
	j := map[string]any{"scheme": kind.String(), "in_bits": c.InBits, "group": c.Group, "prg": f.Prg.Name,
		"aes_keys": f.Prg.AesKeysHex, "max_points": c.MaxPoints, "bucket_bits": c.BucketBits}
	if f.Prg.Nonce != ([2]int32{}) {
		j["nonce"] = f.Prg.Nonce
	}
	if kind == gofss.KindVdmpf {
		j["hash"] = f.Hash
	}
	b, err := json.Marshal(j)
	require.NoError(t, err)
	p, err := gofss.ParseParams(b)
	require.NoError(t, err, "%s", b)
	return p
}

// MpfKeyWords is a case's key as kind: the header row (sigma, m_rt), then each
// bucket's DPF rows and output correction word, and for vdmpf its cs.
func MpfKeyWords(kind gofss.Kind, c kat.MpfCase) []uint32 {
	w := append(appendBlock(nil, c.Sigma), uint32(c.MRt), 0, 0, 0)
	for _, b := range c.Buckets {
		var cs *[4]kat.Block
		if kind == gofss.KindVdmpf {
			cs = &b.Cs
		}
		w = appendTreeKey(w, b.Cws, b.Ocw, cs)
	}
	return w
}

// RunMpf checks b against every case of the VDMPF vector files, as dmpf (its buckets'
// trees are DPF keys) and as vdmpf, batched by group and in_bits: the shares equal
// ys0/ys1, and for vdmpf the proof that gofss.(*Mpf).FoldProof makes of the pieces
// equals pi. The first key of each batch also runs alone. It returns the number of
// cases checked.
func RunMpf(t *testing.T, b MpfBackend) int {
	total := 0
	for _, name := range kat.MpfFiles {
		f, err := kat.LoadMpf(name)
		require.NoError(t, err)
		require.NotEmpty(t, f.Cases)
		for _, kind := range []gofss.Kind{gofss.KindDmpf, gofss.KindVdmpf} {
			t.Run(strings.TrimSuffix(name, ".json")+"/"+kind.String(), func(t *testing.T) {
				for _, bt := range batchesOf(f.Cases, func(c kat.MpfCase) (string, int) { return c.Group, c.InBits }) {
					cases := bt.cases
					t.Run(bt.name, func(t *testing.T) {
						checkMpfBatch(t, b, kind, MpfParams(t, kind, f, cases[0]), cases)
					})
					total += len(cases)
				}
			})
		}
	}
	return total
}

func checkMpfBatch(t *testing.T, b MpfBackend, kind gofss.Kind, p gofss.Params, cases []kat.MpfCase) {
	k, rows, words := len(cases), p.CwRows(), inputWords(p.InBits)
	d, err := gofss.NewMpf(p)
	require.NoError(t, err)
	m := len(cases[0].Xs)
	var cws, xs []uint32
	for _, c := range cases {
		require.Equal(t, [2]int{p.MaxPoints, p.BucketBits}, [2]int{c.MaxPoints, c.BucketBits}, "%s: one batch, one shape", c.ID)
		key := MpfKeyWords(kind, c)
		require.Len(t, key, rows*8, c.ID)
		cws = append(cws, key...)
		require.Len(t, c.Xs, m, c.ID)
		for _, x := range c.Xs {
			xs = appendInput(xs, x, words)
		}
	}
	for party := range 2 {
		var s0s []uint32
		for _, c := range cases {
			for _, pair := range c.S0s {
				s0s = appendBlock(s0s, pair[party])
			}
		}
		ys, bkts, pieces, err := b.MpfEval(p, party, s0s, k, cws, xs, words, m)
		require.NoError(t, err)
		for i, c := range cases {
			want := [2][]kat.Block{c.Ys0, c.Ys1}[party]
			for j, y := range want {
				at := i*m + j
				assert.Equal(t, appendBlock(nil, y), ys[4*at:4*at+4], "%s: party %d share at x=%v", c.ID, party, c.Xs[j])
			}
			if kind != gofss.KindVdmpf {
				continue
			}
			var pi [gofss.ProofBlocks]gofss.Block
			require.NoError(t, d.FoldProof(&pi, cwsOf(cws[i*rows*8:(i+1)*rows*8]), Int32s(bkts[3*i*m:3*(i+1)*m]),
				Blocks(pieces[48*i*m:48*(i+1)*m])))
			for j, blk := range c.Pi[party] {
				assert.Equal(t, Words(blk), BlockWords(pi[j]), "%s: party %d proof block %d", c.ID, party, j)
			}
		}
		// A single key reads the caller's cws directly.
		ys1, bkts1, pieces1, err := b.MpfEval(p, party, s0s[:4*p.Buckets()], 1, cws[:rows*8], xs[:m*words], words, m)
		require.NoError(t, err)
		assert.Equal(t, ys[:m*4], ys1, "%s: party %d shares, batch of one key", cases[0].ID, party)
		if kind == gofss.KindVdmpf {
			assert.Equal(t, bkts[:3*m], bkts1, "%s: party %d buckets, batch of one key", cases[0].ID, party)
			assert.Equal(t, pieces[:48*m], pieces1, "%s: party %d pieces, batch of one key", cases[0].ID, party)
		}
	}
}

func cwsOf(w []uint32) []gofss.Cw {
	cws := make([]gofss.Cw, len(w)/8)
	for i := range cws {
		cws[i] = gofss.Cw{blockOf(w[8*i:]), blockOf(w[8*i+4:])}
	}
	return cws
}

// Blocks are words as blocks, four to a block.
func Blocks(w []uint32) []gofss.Block {
	bs := make([]gofss.Block, len(w)/4)
	for i := range bs {
		bs[i] = blockOf(w[4*i:])
	}
	return bs
}

func blockOf(w []uint32) gofss.Block {
	return gofss.Block{Lo: uint64(w[0]) | uint64(w[1])<<32, Hi: uint64(w[2]) | uint64(w[3])<<32}
}

// BlockWords is a block as four words.
func BlockWords(b gofss.Block) [4]uint32 {
	return [4]uint32{uint32(b.Lo), uint32(b.Lo >> 32), uint32(b.Hi), uint32(b.Hi >> 32)}
}

// Int32s are words as the int32 they hold.
func Int32s(w []uint32) []int32 {
	out := make([]int32, len(w))
	for i, v := range w {
		out[i] = int32(v)
	}
	return out
}
