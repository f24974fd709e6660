package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
)

func TestScratchBytes(t *testing.T) {
	p := dpfParams()
	assert.Equal(t, 0, ScratchBytes("eval", p, 1, 100), "one key reads cws in place")
	assert.Equal(t, 21*5*32, ScratchBytes("eval", p, 5, 1))
	assert.Equal(t, 21*5*32, ScratchBytes("eval_all", p, 5, 0))
	assert.Equal(t, 0, ScratchBytes("gen", p, 5, 0))
	assert.Equal(t, 0, ScratchBytes("nonsense", p, 5, 0))
	p.InBits = 0
	assert.Equal(t, 0, ScratchBytes("eval", p, 5, 1))
}

// Every refusal of caller input is a *gofss.ArgError that names the argument.
func TestValidation(t *testing.T) {
	p := dpfParams()
	with := func(edit func(*gofss.Params)) gofss.Params {
		q := p
		edit(&q)
		return q
	}
	for _, tc := range []struct {
		name string
		plan func() ([]launch, error)
		want string
	}{
		{"gen params", func() ([]launch, error) {
			return planGen(with(func(q *gofss.Params) { q.InBits = 200 }), addrA, addrB, addrC, 1, addrD, 1)
		}, "in_bits must be between 1 and 128, not 200"},
		{"gen kind", func() ([]launch, error) {
			return planGen(with(func(q *gofss.Params) { q.Kind = 200 }), addrA, addrB, addrC, 1, addrD, 1)
		}, "scheme must be one of dpf, dcf_lt, dcf_gt, half_tree_dpf, grotto_dcf, vdpf, not Kind(200)"},
		{"gen half-tree", func() ([]launch, error) {
			return planGen(gofss.DefaultParams(gofss.KindHalfTreeDpf, 8, gofss.Bytes, gofss.PrgChaCha), addrA, addrB, addrC, 1, addrD, 1)
		}, "cuda: half_tree_dpf has no CUDA kernels yet"},
		{"gen k", func() ([]launch, error) { return planGen(p, addrA, addrB, addrC, 1, addrD, -1) },
			"cuda: k must be between 0 and 281474976710656, not -1"},
		{"gen alpha words", func() ([]launch, error) { return planGen(p, addrA, addrB, addrC, 3, addrD, 1) },
			"cuda: alpha_words must be 1, 2 or 4, not 3"},
		{"gen null cws", func() ([]launch, error) { return planGen(p, 0, addrB, addrC, 1, addrD, 1) },
			"cuda: cws: null device address"},
		{"gen misaligned seeds", func() ([]launch, error) { return planGen(p, addrA, addrB+4, addrC, 1, addrD, 1) },
			"cuda: s0s: address 0x7f0000001104 is not 16-byte aligned"},
		{"gen misaligned alphas", func() ([]launch, error) { return planGen(p, addrA, addrB, addrC+2, 1, addrD, 1) },
			"cuda: alphas: address 0x7f0000001202 is not 4-byte aligned"},
		{"eval aes keys", func() ([]launch, error) {
			q := with(func(q *gofss.Params) { q.Prg, q.Nonce, q.AesKeys = gofss.PrgAesMmo, [2]uint32{}, make([][16]byte, 4) })
			return planEval(q, addrA, 0, addrB, 1, addrC, addrD, 1, 1, 0)
		}, "aes_keys: dpf with aes128_mmo needs 2 AES keys, not 4"},
		{"eval party", func() ([]launch, error) { return planEval(p, addrA, 2, addrB, 1, addrC, addrD, 1, 1, 0) },
			"cuda: party must be 0 or 1, not 2"},
		{"eval x words", func() ([]launch, error) { return planEval(p, addrA, 0, addrB, 1, addrC, addrD, 8, 1, 0) },
			"cuda: x_words must be 1, 2 or 4, not 8"},
		{"eval m", func() ([]launch, error) { return planEval(p, addrA, 0, addrB, 1, addrC, addrD, 1, -5, 0) },
			"cuda: m must be between 0 and 281474976710656, not -5"},
		{"eval k*m", func() ([]launch, error) {
			return planEval(p, addrA, 0, addrB, 1<<30, addrC, addrD, 1, 1<<30, addrE)
		}, "cuda: k x m = 1073741824 x 1073741824 points is more than 281474976710656"},
		{"eval null xs", func() ([]launch, error) { return planEval(p, addrA, 0, addrB, 1, addrC, 0, 1, 1, 0) },
			"cuda: xs: null device address"},
		{"eval scratch", func() ([]launch, error) { return planEval(p, addrA, 0, addrB, 3, addrC, addrD, 1, 1, 0) },
			"cuda: scratch: null device address (eval of 3 keys needs 2016 bytes)"},
		{"eval_all in_bits", func() ([]launch, error) {
			return planEvalAll(with(func(q *gofss.Params) { q.InBits = 41 }), addrA, 0, addrB, 1, addrC, 0)
		}, "cuda: eval_all needs in_bits <= 40, not 41"},
		{"eval_all k", func() ([]launch, error) { return planEvalAll(p, addrA, 0, addrB, 1<<40, addrC, addrE) },
			"cuda: k must be between 0 and 268435456, not 1099511627776"},
		{"eval_all scratch", func() ([]launch, error) { return planEvalAll(p, addrA, 1, addrB, 2, addrC, addrE+8) },
			"cuda: scratch: address 0x7f0000001408 is not 16-byte aligned (eval_all of 2 keys needs 1344 bytes)"},
		{"prg bench levels", func() ([]launch, error) { return planPrgBench(p, addrA, addrB, 10, -1) },
			"cuda: levels must be between 0 and 1048576, not -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			launches, err := tc.plan()
			assert.EqualError(t, err, tc.want)
			assert.IsType(t, &gofss.ArgError{}, err)
			assert.Empty(t, launches)
		})
	}
}

// Empty batches launch nothing, so they succeed without a GPU, whatever their
// addresses: PyTorch gives empty tensors any data pointer, null included.
func TestEmptyBatches(t *testing.T) {
	p := dpfParams()
	for _, addr := range []uintptr{0, addrA + 4} {
		assert.NoError(t, Gen(0, 0, p, addr, addr, addr, 1, addr, 0))
		assert.NoError(t, Eval(0, 0, p, addr, 0, addr, 4, addr, addr, 1, 0, addr), "m = 0")
		assert.NoError(t, Eval(0, 0, p, addr, 0, addr, 0, addr, addr, 1, 7, addr), "k = 0")
		assert.NoError(t, EvalAll(0, 0, p, addr, 1, addr, 0, addr, addr))
		assert.NoError(t, PrgBench(0, 0, p, addr, addr, 0, 20))
	}
	// What does not depend on the addresses is still checked.
	noBits := p
	noBits.InBits = 0
	wide := p
	wide.InBits = 41
	for _, tc := range []struct {
		err  error
		want string
	}{
		{Gen(0, 0, noBits, 0, 0, 0, 1, 0, 0), "in_bits"},
		{Gen(0, 0, p, 0, 0, 0, 3, 0, 0), "alpha_words"},
		{Eval(0, 0, p, 0, 2, 0, 0, 0, 0, 1, 0, 0), "party"},
		{Eval(0, 0, p, 0, 0, 0, 0, 0, 0, 3, 0, 0), "x_words"},
		{EvalAll(0, 0, p, 0, -1, 0, 0, 0, 0), "party"},
		{EvalAll(0, 0, wide, 0, 0, 0, 0, 0, 0), "in_bits"},
		{PrgBench(0, 0, noBits, 0, 0, 0, 20), "in_bits"},
	} {
		assert.IsType(t, &gofss.ArgError{}, tc.err)
		assert.ErrorContains(t, tc.err, tc.want)
	}
}

func TestPlans(t *testing.T) {
	p := dcfAESParams()
	p.InBits = 3

	launches, err := planEval(p, addrA, 1, addrB, 5, addrC, addrD, 2, 7, addrE)
	require.NoError(t, err)
	require.Len(t, launches, 2)
	assert.Equal(t, "cw_relayout", launches[0].kernel)
	assert.Equal(t, uint64(5*4), launches[0].threads)
	assert.Equal(t, "dcf_eval_aes128_mmo_uint127", launches[1].kernel)
	assert.Equal(t, uint64(35), launches[1].threads)
	// The evaluation reads the level-major copy.
	assert.Equal(t, uint64(addrE), argAt[uint64](launches[1].args, 3))
	assert.Equal(t, uint64(addrE), argAt[uint64](launches[0].args, 0))

	launches, err = planEval(p, addrA, 0, addrB, 1, addrC, addrD, 2, 7, 0)
	require.NoError(t, err)
	require.Len(t, launches, 1, "one key: no relayout")
	assert.Equal(t, uint64(addrC), argAt[uint64](launches[0].args, 3))

	// Three levels fit one launch: a block covers 256 >> 2 = 64 keys.
	launches, err = planEvalAll(p, addrA, 1, addrB, 100, addrC, addrE)
	require.NoError(t, err)
	require.Len(t, launches, 2)
	assert.Equal(t, "dcf_eval_all_aes128_mmo_uint127", launches[1].kernel)
	assert.Equal(t, uint64(2*256), launches[1].threads)
	assert.Equal(t, []uint32{0, 3}, []uint32{argAt[uint32](launches[1].args, 6), argAt[uint32](launches[1].args, 7)})

	// 20 levels: 9 in the first launch (a block per key), then one launch per level.
	p.InBits = 20
	launches, err = planEvalAll(p, addrA, 1, addrB, 3, addrC, addrE)
	require.NoError(t, err)
	require.Len(t, launches, 1+1+11)
	assert.Equal(t, uint64(3*256), launches[1].threads)
	assert.Equal(t, []uint32{0, 9}, []uint32{argAt[uint32](launches[1].args, 6), argAt[uint32](launches[1].args, 7)})
	for i, l := range launches[2:] {
		level := 9 + i
		assert.Equal(t, (uint64(3)<<level+255)/256*256, l.threads)
		assert.Equal(t, []uint32{uint32(level), 1}, []uint32{argAt[uint32](l.args, 6), argAt[uint32](l.args, 7)})
	}
	p.InBits = 3

	launches, err = planGen(p, addrA, addrB, addrC, 4, addrD, 9)
	require.NoError(t, err)
	require.Len(t, launches, 1)
	assert.Equal(t, uint32(1), argAt[uint32](launches[0].args, 7), "pred gt")
	assert.Equal(t, uint64(9), argAt[uint64](launches[0].args, 8))

	launches, err = planPrgBench(dpfParams(), addrA, addrB, 100, 20)
	require.NoError(t, err)
	assert.Equal(t, "prg_bench_chacha_mul2", launches[0].kernel)
}
