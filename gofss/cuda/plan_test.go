package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda/internal/prgparams"
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

	// Half-Tree DPF keys are 11 rows at in_bits 20.
	ht := gofss.DefaultParams(gofss.KindHalfTreeDpf, 20, gofss.Uint64, gofss.PrgAesMmo)
	assert.Equal(t, 11*5*32, ScratchBytes("eval", ht, 5, 1))
	assert.Equal(t, 11*5*32, ScratchBytes("eval_all", ht, 5, 0))

	// Preprocess at in_bits 20: 2^14 words per key, then levels of 256, 4 and 1 words.
	g := gofss.DefaultParams(gofss.KindGrottoDcf, 20, gofss.Bytes, gofss.PrgChaCha)
	assert.Equal(t, 8*(256+4+1), ScratchBytes("preprocess", g, 1, 0), "one key: no cws copy")
	assert.Equal(t, 21*3*32+3*8*(256+4+1), ScratchBytes("preprocess", g, 3, 0))
	g.InBits = 6
	assert.Equal(t, 0, ScratchBytes("preprocess", g, 1, 0), "one word per key")
	assert.Equal(t, 0, ScratchBytes("eval", g, 5, 1), "no grotto eval kernel")
	assert.Equal(t, 0, ScratchBytes("preprocess", dpfParams(), 5, 0))
}

// Every refusal of caller input is a *gofss.ArgError that names the argument.
func TestValidation(t *testing.T) {
	p := dpfParams()
	with := func(edit func(*gofss.Params)) gofss.Params {
		q := p
		edit(&q)
		return q
	}
	// The launcher refuses a kind that no scheme has with the parameters' own message,
	// which lists the kinds.
	badKind := with(func(q *gofss.Params) { q.Kind = 200 })
	for _, tc := range []struct {
		name string
		plan func() ([]launch, error)
		want string
	}{
		{"gen params", func() ([]launch, error) {
			return planGen(with(func(q *gofss.Params) { q.InBits = 200 }), addrA, addrB, addrC, 1, addrD, 1)
		}, "in_bits must be between 1 and 128, not 200"},
		{"gen kind", func() ([]launch, error) {
			return planGen(badKind, addrA, addrB, addrC, 1, addrD, 1)
		}, badKind.Check().Error()},
		{"eval grotto", func() ([]launch, error) {
			return planEval(grottoParams(8), addrA, 0, addrB, 1, addrC, addrD, 1, 1, 0)
		}, "cuda: grotto_dcf has no CUDA eval kernel"},
		{"eval_all grotto", func() ([]launch, error) { return planEvalAll(grottoParams(8), addrA, 0, addrB, 1, addrC, 0) },
			"cuda: grotto_dcf has no CUDA eval_all kernel"},
		{"preprocess dpf", func() ([]launch, error) { return planPreprocess(p, addrA, 0, addrB, 1, addrC, addrE) },
			"cuda: dpf has no CUDA preprocess kernel"},
		{"grotto_eval half-tree", func() ([]launch, error) {
			return planGrottoEval(gofss.DefaultParams(gofss.KindHalfTreeDpf, 8, gofss.Bytes, gofss.PrgChaCha), addrA,
				addrB, 1, 1, points{"x", addrC, 1})
		}, "cuda: half_tree_dpf has no CUDA grotto_eval kernel"},
		{"prg bench half-tree", func() ([]launch, error) {
			return planPrgBench(gofss.DefaultParams(gofss.KindHalfTreeDpf, 8, gofss.Bytes, gofss.PrgChaCha), addrA, addrB, 10, 8)
		}, "cuda: half_tree_dpf has no CUDA prg_bench kernel"},
		{"preprocess party", func() ([]launch, error) {
			return planPreprocess(grottoParams(8), addrA, 2, addrB, 1, addrC, addrE)
		}, "cuda: party must be 0 or 1, not 2"},
		{"preprocess k", func() ([]launch, error) {
			return planPreprocess(grottoParams(40), addrA, 0, addrB, 1<<9, addrC, addrE)
		}, "cuda: k must be between 0 and 256, not 512"},
		{"preprocess misaligned pre", func() ([]launch, error) {
			return planPreprocess(grottoParams(8), addrA+8, 0, addrB, 1, addrC, addrE)
		}, "cuda: pre: address 0x7f0000001008 is not 16-byte aligned"},
		{"preprocess scratch", func() ([]launch, error) {
			return planPreprocess(grottoParams(20), addrA, 0, addrB, 1, addrC, 0)
		}, "cuda: scratch: null device address (preprocess of 1 keys needs 2088 bytes)"},
		{"preprocess scratch for cws", func() ([]launch, error) {
			return planPreprocess(grottoParams(6), addrA, 0, addrB, 2, addrC, 0)
		}, "cuda: scratch: null device address (preprocess of 2 keys needs 448 bytes)"},
		{"grotto_eval x words", func() ([]launch, error) {
			return planGrottoEval(grottoParams(8), addrA, addrB, 1, 1, points{"x", addrC, 3})
		}, "cuda: x_words must be 1, 2 or 4, not 3"},
		{"grotto_eval_interval hi words", func() ([]launch, error) {
			return planGrottoEval(grottoParams(8), addrA, addrB, 1, 1, points{"lo", addrC, 1}, points{"hi", addrD, 0})
		}, "cuda: hi_words must be 1, 2 or 4, not 0"},
		{"grotto_eval misaligned pre", func() ([]launch, error) {
			return planGrottoEval(grottoParams(8), addrA, addrB+4, 1, 1, points{"x", addrC, 1})
		}, "cuda: pre: address 0x7f0000001104 is not 8-byte aligned"},
		{"grotto_eval_interval null his", func() ([]launch, error) {
			return planGrottoEval(grottoParams(8), addrA+1, addrB, 2, 3, points{"lo", addrC, 1}, points{"hi", 0, 1})
		}, "cuda: his: null device address"},
		{"grotto_eval k*m", func() ([]launch, error) {
			return planGrottoEval(grottoParams(8), addrA, addrB, 1<<30, 1<<30, points{"x", addrC, 1})
		}, "cuda: k x m = 1073741824 x 1073741824 points is more than 281474976710656"},
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
		assert.NoError(t, Preprocess(0, 0, grottoParams(20), addr, 1, addr, 0, addr, addr))
		assert.NoError(t, GrottoEval(0, 0, grottoParams(20), addr, addr, 3, addr, 1, 0))
		assert.NoError(t, GrottoEvalInterval(0, 0, grottoParams(20), addr, addr, 0, addr, 1, addr, 2, 5))
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
		{Preprocess(0, 0, grottoParams(20), 0, 3, 0, 0, 0, 0), "party"},
		{GrottoEval(0, 0, grottoParams(20), 0, 0, 0, 0, 8, 0), "x_words"},
		{GrottoEvalInterval(0, 0, grottoParams(20), 0, 0, 0, 0, 1, 0, 3, 0), "hi_words"},
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

func grottoParams(inBits int) gofss.Params {
	return gofss.DefaultParams(gofss.KindGrottoDcf, inBits, gofss.Bytes, gofss.PrgAesMmo)
}

func TestPlansHalfTree(t *testing.T) {
	p := gofss.DefaultParams(gofss.KindHalfTreeDpf, 20, gofss.Uint64, gofss.PrgChaCha)
	launches, err := planGen(p, addrA, addrB, addrC, 1, addrD, 9)
	require.NoError(t, err)
	assert.Equal(t, "half_tree_dpf_gen_chacha_uint64", launches[0].kernel)

	// The level-major copy has the key's 11 rows.
	launches, err = planEval(p, addrA, 1, addrB, 5, addrC, addrD, 1, 7, addrE)
	require.NoError(t, err)
	require.Len(t, launches, 2)
	assert.Equal(t, uint32(11), argAt[uint32](launches[0].args, 2))
	assert.Equal(t, uint64(5*11), launches[0].threads)
	assert.Equal(t, "half_tree_dpf_eval_chacha_uint64", launches[1].kernel)

	launches, err = planEvalAll(p, addrA, 1, addrB, 3, addrC, addrE)
	require.NoError(t, err)
	require.Len(t, launches, 1+1+11, "as DPF's: 9 levels, then one launch per level")
	assert.Equal(t, "half_tree_dpf_eval_all_chacha_uint64", launches[1].kernel)
}

// Preprocess: the tree above the chunks (as EvalAll's), the chunks' leaf bits, then
// the prefix XOR: gathers up the levels, applies down them.
func TestPlansPreprocess(t *testing.T) {
	p := grottoParams(20)
	launches, err := planPreprocess(p, addrA, 1, addrB, 3, addrC, addrE)
	require.NoError(t, err)
	var kernels []string
	for _, l := range launches {
		kernels = append(kernels, l.kernel)
	}
	assert.Equal(t, []string{"cw_relayout", "grotto_tree_aes128_mmo", "grotto_tree_aes128_mmo",
		"grotto_tree_aes128_mmo", "grotto_tree_aes128_mmo", "grotto_tree_aes128_mmo", "grotto_leaf_bits_aes128_mmo",
		"parity_gather", "parity_gather", "parity_gather", "parity_apply", "parity_apply", "parity_apply",
		"parity_apply"}, kernels)
	// 13 tree levels (20 - 7): 9 in the first launch, then 4 launches of one.
	assert.Equal(t, []uint32{13, 0, 9}, []uint32{argAt[uint32](launches[1].args, 5), argAt[uint32](launches[1].args, 6),
		argAt[uint32](launches[1].args, 7)})
	assert.Equal(t, uint64(3<<13), launches[6].threads, "a thread per chunk of 128 leaves")
	assert.Equal(t, uint64(1<<14), argAt[uint64](launches[6].args, 7), "words per key")

	// The levels: pre (2^14 words per key), then 256, 4 and 1 words per key after the
	// 3 keys' 21-row cws copy in scratch.
	lvl1 := uint64(addrE) + 21*3*32
	lvl2, lvl3 := lvl1+3*8*256, lvl1+3*8*(256+4)
	gather := func(l launch) []uint64 {
		return []uint64{argAt[uint64](l.args, 0), argAt[uint64](l.args, 1), argAt[uint64](l.args, 2), l.threads}
	}
	assert.Equal(t, []uint64{lvl1, uint64(addrA), 1 << 14, 3 * 256}, gather(launches[7]))
	assert.Equal(t, []uint64{lvl2, lvl1, 256, 3 * 4}, gather(launches[8]))
	assert.Equal(t, []uint64{lvl3, lvl2, 4, 3}, gather(launches[9]))
	apply := func(l launch) []uint64 {
		return []uint64{argAt[uint64](l.args, 0), argAt[uint64](l.args, 1), argAt[uint64](l.args, 2), argAt[uint64](l.args, 4)}
	}
	assert.Equal(t, []uint64{lvl3, 0, 1, ^uint64(0)}, apply(launches[10]), "the top level has no carries")
	assert.Equal(t, []uint64{lvl2, lvl3, 4, ^uint64(0)}, apply(launches[11]))
	assert.Equal(t, []uint64{uint64(addrA), lvl1, 1 << 14, ^uint64(0)}, apply(launches[13]))

	// in_bits 5, one key: one thread does the whole key, one word, masked to 32 bits.
	launches, err = planPreprocess(grottoParams(5), addrA, 0, addrB, 1, addrC, 0)
	require.NoError(t, err)
	require.Len(t, launches, 2)
	assert.Equal(t, "grotto_leaf_bits_aes128_mmo", launches[0].kernel)
	assert.Equal(t, uint64(1), launches[0].threads)
	assert.Equal(t, []uint64{uint64(addrA), 0, 1, 0xffffffff}, apply(launches[1]))

	launches, err = planGrottoEval(p, addrA+3, addrB, 2, 5, points{"lo", addrC, 1}, points{"hi", addrD, 4})
	require.NoError(t, err)
	require.Len(t, launches, 1)
	assert.Equal(t, "grotto_eval_interval", launches[0].kernel)
	assert.Equal(t, uint64(10), launches[0].threads)
	assert.Equal(t, []uint32{1, 4, 20}, []uint32{argAt[uint32](launches[0].args, 4), argAt[uint32](launches[0].args, 5),
		argAt[uint32](launches[0].args, 6)})
	assert.Equal(t, uint64(1<<14), argAt[uint64](launches[0].args, 7))
}

func vdpfParams(inBits int, group gofss.Group, hash gofss.HashKind) gofss.Params {
	p := gofss.DefaultParams(gofss.KindVdpf, inBits, group, gofss.PrgChaCha)
	p.Hash = gofss.DefaultVdpfHash(hash)
	return p
}

// VDPF: Gen and Eval with pieces have kernels of their own, which take the hash keys
// after PrgParams; the shares alone are DPF's kernels over the n + 3 rows.
func TestPlansVdpf(t *testing.T) {
	p := vdpfParams(20, gofss.Uint32, gofss.HashBlake3)
	hashKeys := func(a *args) []byte { return a.buf[a.offsets[1] : a.offsets[1]+a.sizes[1]] }

	launches, err := planGen(p, addrA, addrB, addrC, 1, addrD, 9)
	require.NoError(t, err)
	require.Len(t, launches, 1)
	assert.Equal(t, "vdpf_gen_chacha_uint32_blake3", launches[0].kernel)
	assert.Equal(t, prgparams.PackHashKeys(p.Hash), hashKeys(launches[0].args))
	assert.Equal(t, []uint64{uint64(addrA), uint64(addrB), uint64(addrC), uint64(addrD)},
		[]uint64{argAt[uint64](launches[0].args, 2), argAt[uint64](launches[0].args, 3),
			argAt[uint64](launches[0].args, 4), argAt[uint64](launches[0].args, 5)})
	assert.Equal(t, []uint32{1, 20}, []uint32{argAt[uint32](launches[0].args, 6), argAt[uint32](launches[0].args, 7)})
	assert.Equal(t, uint64(9), argAt[uint64](launches[0].args, 8))

	launches, err = planEvalProof(p, addrA, addrF, 1, addrB, 5, addrC, addrD, 1, 7, addrE)
	require.NoError(t, err)
	require.Len(t, launches, 2)
	assert.Equal(t, uint32(23), argAt[uint32](launches[0].args, 2), "relayout of n + 3 rows")
	assert.Equal(t, "vdpf_eval_proof_chacha_uint32_blake3", launches[1].kernel)
	assert.Equal(t, uint64(35), launches[1].threads)
	assert.Equal(t, prgparams.PackHashKeys(p.Hash), hashKeys(launches[1].args))
	assert.Equal(t, []uint64{uint64(addrA), uint64(addrF), uint64(addrB), uint64(addrE), uint64(addrD)},
		[]uint64{argAt[uint64](launches[1].args, 2), argAt[uint64](launches[1].args, 3),
			argAt[uint64](launches[1].args, 4), argAt[uint64](launches[1].args, 5), argAt[uint64](launches[1].args, 6)})

	launches, err = planEval(p, addrA, 1, addrB, 5, addrC, addrD, 1, 7, addrE)
	require.NoError(t, err)
	require.Len(t, launches, 2)
	assert.Equal(t, uint32(23), argAt[uint32](launches[0].args, 2))
	assert.Equal(t, "dpf_eval_chacha_uint32", launches[1].kernel)

	launches, err = planEvalAll(vdpfParams(8, gofss.Bytes, gofss.HashSha256), addrA, 0, addrB, 1, addrC, 0)
	require.NoError(t, err)
	assert.Equal(t, "dpf_eval_all_chacha_bytes", launches[0].kernel)

	assert.Equal(t, 23*5*32, ScratchBytes("eval_proof", p, 5, 1))
	assert.Equal(t, 0, ScratchBytes("eval_proof", dpfParams(), 5, 1), "no dpf eval_proof kernel")

	for _, tc := range []struct {
		name string
		plan func() ([]launch, error)
		want string
	}{
		{"eval_proof dpf", func() ([]launch, error) {
			return planEvalProof(dpfParams(), addrA, addrF, 0, addrB, 1, addrC, addrD, 1, 1, 0)
		}, "cuda: dpf has no CUDA eval_proof kernel"},
		{"eval_proof null pieces", func() ([]launch, error) {
			return planEvalProof(p, addrA, 0, 0, addrB, 1, addrC, addrD, 1, 1, 0)
		}, "cuda: pieces: null device address"},
		{"eval_proof misaligned pieces", func() ([]launch, error) {
			return planEvalProof(p, addrA, addrF+4, 0, addrB, 1, addrC, addrD, 1, 1, 0)
		}, "cuda: pieces: address 0x7f0000001504 is not 16-byte aligned"},
		{"eval_proof scratch", func() ([]launch, error) {
			return planEvalProof(p, addrA, addrF, 0, addrB, 2, addrC, addrD, 1, 1, 0)
		}, "cuda: scratch: null device address (eval_proof of 2 keys needs 1472 bytes)"},
		{"prg bench vdpf", func() ([]launch, error) { return planPrgBench(p, addrA, addrB, 10, 8) },
			"cuda: vdpf has no CUDA prg_bench kernel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			launches, err := tc.plan()
			assert.EqualError(t, err, tc.want)
			assert.IsType(t, &gofss.ArgError{}, err)
			assert.Empty(t, launches)
		})
	}
	// An empty batch launches nothing; its counts are still checked.
	assert.NoError(t, EvalProof(0, 0, p, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0))
	assert.ErrorContains(t, EvalProof(0, 0, p, 0, 0, 2, 0, 0, 0, 0, 1, 3, 0), "party")
}
