package binding

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda"
)

const vdmpfParams = `{"scheme": "vdmpf", "in_bits": 8, "group": "uint32", "prg": "chacha", "max_points": 4, "hash": {"name": "blake3"}}`

func TestMpfEvalCudaRefusals(t *testing.T) {
	h := newScheme(t, vdmpfParams)
	_, err := MpfEvalCuda(h, CPU, 0, 0x1000, 0x1000, 0x1000, 0, 0x1000, 0x1000, 0x1000, 1, 1, 0x1000, 0)
	requireKind(t, err, KindValue, "takes device memory")
	_, err = MpfEvalCuda(h, 0, 0, 0x1000, 0x1000, 0x1000, 0, 0x1000, 0x1000, 0, 0, 1, 0x1000, 0)
	requireKind(t, err, KindValue, "CUDA takes inputs as a tensor")
	dpf := newScheme(t, `{"scheme": "dpf", "in_bits": 8, "group": "uint32", "prg": "chacha"}`)
	_, err = MpfEvalCuda(dpf, 0, 0, 0x1000, 0, 0, 0, 0x1000, 0x1000, 0x1000, 1, 1, 0x1000, 0)
	requireKind(t, err, KindValue, "not dmpf or vdmpf")
	// Planning refuses what no GPU could run before it needs one.
	wide := newScheme(t, `{"scheme": "dmpf", "in_bits": 63, "group": "uint32", "prg": "chacha", "max_points": 4}`)
	_, err = MpfEvalCuda(wide, 0, 0, 0x1000, 0, 0, 0, 0x1000, 0x1000, 0x1000, 2, 1, 0x1000, 0)
	requireKind(t, err, KindValue, "in_bits <= 62")
	if cuda.GetInfo().Reason != "" {
		_, err = MpfEvalCuda(h, 0, 0, 0x1000, 0x1000, 0x1000, 0, 0x1000, 0x1000, 0x1000, 1, 1, 0x1000, 0)
		requireKind(t, err, KindRuntime, "cuda")
	}
	n, err := ScratchBytes(h, 0, "mpf_eval", 1, 5)
	require.NoError(t, err)
	assert.Equal(t, 720, n, "one key: its PRP round keys and bucket size")
}

// The fold over no inputs is the chain of the buckets' cs, as the CPU's proof over
// no inputs; a bucket that no key has is refused.
func TestMpfFoldProof(t *testing.T) {
	h := newScheme(t, vdmpfParams)
	d, err := lookupAs[*gofss.Mpf](h, "")
	require.NoError(t, err)
	p := d.Params()
	cws, seeds := make([]gofss.Cw, p.CwRows()), make([]gofss.Block, 2*p.Buckets())
	for i := range seeds {
		seeds[i] = gofss.Block{Lo: uint64(i + 1), Hi: uint64(3 * i)}
	}
	alphas, betas, sigma := []uint32{3, 200}, []gofss.Block{{Lo: 5}, {Lo: 9}}, []gofss.Block{{Lo: 11, Hi: 12}}
	_, err = MpfGen(h, CPU, 0, addr(cws), addr(seeds), addr(sigma), addr(alphas), 1, 0, 0, addr(betas), 2, 0)
	require.NoError(t, err)
	party0 := make([]gofss.Block, p.Buckets())
	for b := range party0 {
		party0[b] = seeds[2*b]
	}
	var want, got [gofss.ProofBlocks]gofss.Block
	out := make([]gofss.Block, 1)
	_, err = MpfEval(h, CPU, 0, addr(out), addr(want[:]), 0, addr(party0), addr(cws), 0, 0, 0, 0, 0, 0)
	require.NoError(t, err)
	_, err = MpfFoldProof(h, addr(got[:]), addr(cws), 0, 0, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// A fold whose stop flag is set stops, as the CPU calls do.
	var c gofss.Control
	c.Stop.Store(1)
	_, err = MpfFoldProof(h, addr(got[:]), addr(cws), addr([]int32{0, 0, 0}), addr(make([]gofss.Block, 3*gofss.ProofBlocks)), 1, uintptr(unsafe.Pointer(&c)))
	requireKind(t, err, KindInterrupted, "stopped")

	bkts, pieces := []int32{0, 1, int32(cws[0][1].Lo)}, make([]gofss.Block, 3*gofss.ProofBlocks)
	_, err = MpfFoldProof(h, addr(got[:]), addr(cws), addr(bkts), addr(pieces), 1, 0)
	requireKind(t, err, KindValue, "outside the key's")
	_, err = MpfFoldProof(h, addr(got[:]), addr(cws), addr(bkts), 0, 1, 0)
	requireKind(t, err, KindValue, "pieces: null address")
	dmpf := newScheme(t, `{"scheme": "dmpf", "in_bits": 8, "group": "uint32", "prg": "chacha", "max_points": 4}`)
	_, err = MpfFoldProof(dmpf, addr(got[:]), addr(cws), 0, 0, 0, 0)
	requireKind(t, err, KindValue, "no proofs")
}
