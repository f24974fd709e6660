package cuda

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda/internal/prgparams"
)

func mpfParams(kind gofss.Kind, inBits int) gofss.Params {
	p := gofss.DefaultParams(kind, inBits, gofss.Uint32, gofss.PrgChaCha).WithMaxPoints(8)
	if kind == gofss.KindVdmpf {
		p.Hash = gofss.DefaultVdpfHash(gofss.HashBlake3)
	}
	return p
}

// The multi-point Eval: the PRP keys' schedule into scratch (after the level-major
// copy of cws for k > 1), then one thread per input; vdmpf's kernel takes the hash
// keys and writes buckets and pieces too.
func TestPlansMpf(t *testing.T) {
	p := mpfParams(gofss.KindVdmpf, 20)
	rows, buckets := p.CwRows(), p.Buckets()
	launches, err := planMpfEval(p, addrA, addrB, addrC, 1, addrD, 3, addrE, addrF, 1, 7, addrF+0x1000)
	require.NoError(t, err)
	require.Len(t, launches, 3)
	assert.Equal(t, "cw_relayout", launches[0].kernel)
	assert.Equal(t, uint32(rows), argAt[uint32](launches[0].args, 2))

	keys := uint64(addrF+0x1000) + uint64(rows*3*32)
	assert.Equal(t, "mpf_prp_keys", launches[1].kernel)
	assert.Equal(t, uint64(12), launches[1].threads, "4 rounds x 3 keys")
	assert.Equal(t, []uint64{keys, uint64(addrE)}, []uint64{argAt[uint64](launches[1].args, 1),
		argAt[uint64](launches[1].args, 2)}, "the schedule reads the caller's cws")

	l := launches[2]
	assert.Equal(t, "vdmpf_eval_chacha_uint32_blake3", l.kernel)
	assert.Equal(t, uint64(21), l.threads)
	assert.Equal(t, prgparams.PackHashKeys(p.Hash), l.args.buf[l.args.offsets[1]:l.args.offsets[1]+l.args.sizes[1]])
	var ptrs []uint64
	for i := 2; i <= 8; i++ {
		ptrs = append(ptrs, argAt[uint64](l.args, i))
	}
	// dst, bkts, pieces, s0s, level-major cws, PRP keys, xs
	assert.Equal(t, []uint64{uint64(addrA), uint64(addrB), uint64(addrC), uint64(addrD), uint64(addrF + 0x1000), keys,
		uint64(addrF)}, ptrs)
	var ints []uint32
	for i := 9; i <= 14; i++ {
		ints = append(ints, argAt[uint32](l.args, i))
	}
	// party, x_words, in_bits, bucket_bits, buckets, least m_rt
	assert.Equal(t, []uint32{1, 1, 20, uint32(p.BucketBits), uint32(buckets), uint32(p.MinBuckets())}, ints)
	assert.Equal(t, []uint64{3, 7}, []uint64{argAt[uint64](l.args, 15), argAt[uint64](l.args, 16)})
	assert.Equal(t, 1/7.0, math.Float64frombits(argAt[uint64](l.args, 17)), "1 / m")
	assert.Equal(t, []uint32{uint32(rows), 20}, []uint32{argAt[uint32](launches[1].args, 3),
		argAt[uint32](launches[1].args, 4)}, "the schedule's rows and in_bits")
	assert.Equal(t, rows*3*32+3*720, ScratchBytes("mpf_eval", p, 3, 7))

	// One key reads cws in place; its scratch holds the PRP keys alone.
	d := mpfParams(gofss.KindDmpf, 9)
	launches, err = planMpfEval(d, addrA, 0, 0, 0, addrD, 1, addrE, addrF, 2, 5, addrB)
	require.NoError(t, err)
	require.Len(t, launches, 2)
	assert.Equal(t, "dmpf_eval_chacha_uint32", launches[1].kernel)
	assert.Equal(t, []uint64{uint64(addrA), uint64(addrD), uint64(addrE), uint64(addrB), uint64(addrF)},
		[]uint64{argAt[uint64](launches[1].args, 1), argAt[uint64](launches[1].args, 2),
			argAt[uint64](launches[1].args, 3), argAt[uint64](launches[1].args, 4), argAt[uint64](launches[1].args, 5)})
	assert.Equal(t, 720, ScratchBytes("mpf_eval", d, 1, 5))
	assert.Equal(t, 0, ScratchBytes("eval", d, 1, 5), "no dpf-style eval of a dmpf key")

	for _, tc := range []struct {
		name string
		plan func() ([]launch, error)
		want string
	}{
		{"dpf", func() ([]launch, error) {
			return planMpfEval(dpfParams(), addrA, addrB, addrC, 0, addrD, 1, addrE, addrF, 1, 1, addrB)
		}, "cuda: dpf has no CUDA mpf_eval kernel"},
		{"dmpf eval", func() ([]launch, error) {
			return planEval(d, addrA, 0, addrB, 1, addrC, addrD, 1, 1, 0)
		}, "cuda: dmpf has no CUDA eval kernel"},
		{"wide", func() ([]launch, error) {
			return planMpfEval(mpfParams(gofss.KindDmpf, 63), addrA, 0, 0, 0, addrD, 1, addrE, addrF, 2, 1, addrB)
		}, "cuda: the multi-point kernels take in_bits <= 62 (the PRP's domain 3·2^in_bits in 64 bits), not 63"},
		{"null bkts", func() ([]launch, error) {
			return planMpfEval(p, addrA, 0, addrC, 0, addrD, 1, addrE, addrF, 1, 1, addrB)
		}, "cuda: bkts: null device address"},
		{"misaligned pieces", func() ([]launch, error) {
			return planMpfEval(p, addrA, addrB, addrC+4, 0, addrD, 1, addrE, addrF, 1, 1, addrB)
		}, "cuda: pieces: address 0x7f0000001204 is not 16-byte aligned"},
		{"scratch", func() ([]launch, error) {
			return planMpfEval(d, addrA, 0, 0, 0, addrD, 1, addrE, addrF, 1, 1, 0)
		}, "cuda: scratch: null device address (mpf_eval of 1 keys needs 720 bytes)"},
		{"party", func() ([]launch, error) {
			return planMpfEval(d, addrA, 0, 0, 2, addrD, 1, addrE, addrF, 1, 1, addrB)
		}, "cuda: party must be 0 or 1, not 2"},
		{"keys", func() ([]launch, error) {
			return planMpfEval(d, addrA, 0, 0, 0, addrD, 1<<47, addrE, addrF, 1, 1, addrB)
		}, fmt.Sprintf("cuda: k must be between 0 and %d, not %d", maxItems/d.CwRows(), 1<<47)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			launches, err := tc.plan()
			assert.EqualError(t, err, tc.want)
			assert.IsType(t, &gofss.ArgError{}, err)
			assert.Empty(t, launches)
		})
	}
	// An empty batch launches nothing, whatever its addresses; its parameters are still checked.
	assert.NoError(t, MpfEval(0, 0, p, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0))
	assert.NoError(t, MpfEval(0, 0, p, 0, 0, 0, 0, 0, 4, 0, 0, 1, 0, 0))
	assert.ErrorContains(t, MpfEval(0, 0, p, 0, 0, 0, 2, 0, 0, 0, 0, 1, 3, 0), "party")
	assert.ErrorContains(t, MpfEval(0, 0, mpfParams(gofss.KindVdmpf, 63), 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0), "in_bits <= 62")
}
