package cuda

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Device addresses for tests that never reach the driver: aligned, distinct, non-zero.
const (
	addrA uintptr = 0x7f0000001000 + 0x100*iota
	addrB
	addrC
	addrD
	addrE
)

func dpfParams() Params {
	return Params{Scheme: SchemeDpf, InBits: 20, Group: GroupUint32, Prg: PrgChacha, Nonce: [2]uint32{1, 2}}
}

func dcfAESParams() Params {
	return Params{Scheme: SchemeDcfGt, InBits: 64, Group: GroupUint127, Prg: PrgAES128MMO,
		AesKeys: [][16]byte{{1}, {2}, {3}, {4}}}
}

func TestParamsCheck(t *testing.T) {
	require.NoError(t, dpfParams().check())
	require.NoError(t, dcfAESParams().check())
	for _, tc := range []struct {
		name string
		edit func(*Params)
		want string
	}{
		{"scheme", func(p *Params) { p.Scheme = 3 }, "unknown scheme 3"},
		{"in_bits 0", func(p *Params) { p.InBits = 0 }, "in_bits must be in 1..128, got 0"},
		{"in_bits 129", func(p *Params) { p.InBits = 129 }, "in_bits must be in 1..128, got 129"},
		{"group", func(p *Params) { p.Group = 4 }, "unknown group 4 (0 bytes, 1 uint32, 2 uint64, 3 uint127)"},
		{"prg", func(p *Params) { p.Prg = -1 }, "unknown prg -1 (0 chacha, 1 aes128_mmo)"},
		{"aes keys", func(p *Params) { p.Prg = PrgAES128MMO; p.AesKeys = make([][16]byte, 4) },
			"aes128_mmo for dpf needs 2 AES keys, got 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := dpfParams()
			tc.edit(&p)
			assert.EqualError(t, p.check(), "cuda: "+tc.want)
		})
	}
}

func TestKernelNames(t *testing.T) {
	assert.Equal(t, "dpf_eval_chacha_uint32", dpfParams().kernel("eval"))
	assert.Equal(t, "dcf_gen_aes128_mmo_uint127", dcfAESParams().kernel("gen"))
	assert.Equal(t, 0, dpfParams().pred())
	assert.Equal(t, 1, dcfAESParams().pred())
}

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

func TestValidation(t *testing.T) {
	p := dpfParams()
	for _, tc := range []struct {
		name string
		plan func() ([]launch, error)
		want string
	}{
		{"gen params", func() ([]launch, error) {
			q := p
			q.InBits = 200
			return planGen(q, addrA, addrB, addrC, 1, addrD, 1)
		}, "in_bits must be in 1..128, got 200"},
		{"gen k", func() ([]launch, error) { return planGen(p, addrA, addrB, addrC, 1, addrD, -1) },
			"k must be in 0..281474976710656, got -1"},
		{"gen alpha words", func() ([]launch, error) { return planGen(p, addrA, addrB, addrC, 3, addrD, 1) },
			"alpha_words must be 1, 2 or 4, got 3"},
		{"gen null cws", func() ([]launch, error) { return planGen(p, 0, addrB, addrC, 1, addrD, 1) },
			"cws: null device address"},
		{"gen misaligned seeds", func() ([]launch, error) { return planGen(p, addrA, addrB+4, addrC, 1, addrD, 1) },
			"s0s: address 0x7f0000001104 is not 16-byte aligned"},
		{"gen misaligned alphas", func() ([]launch, error) { return planGen(p, addrA, addrB, addrC+2, 1, addrD, 1) },
			"alphas: address 0x7f0000001202 is not 4-byte aligned"},
		{"eval party", func() ([]launch, error) { return planEval(p, addrA, 2, addrB, addrC, 1, addrD, 1, 1, 0) },
			"party must be 0 or 1, got 2"},
		{"eval x words", func() ([]launch, error) { return planEval(p, addrA, 0, addrB, addrC, 1, addrD, 8, 1, 0) },
			"x_words must be 1, 2 or 4, got 8"},
		{"eval m", func() ([]launch, error) { return planEval(p, addrA, 0, addrB, addrC, 1, addrD, 1, -5, 0) },
			"m must be in 0..281474976710656, got -5"},
		{"eval k*m", func() ([]launch, error) {
			return planEval(p, addrA, 0, addrB, addrC, 1<<30, addrD, 1, 1<<30, addrE)
		}, "k * m = 1073741824 * 1073741824 points is too many"},
		{"eval null xs", func() ([]launch, error) { return planEval(p, addrA, 0, addrB, addrC, 1, 0, 1, 1, 0) },
			"xs: null device address"},
		{"eval scratch", func() ([]launch, error) { return planEval(p, addrA, 0, addrB, addrC, 3, addrD, 1, 1, 0) },
			"scratch: null device address (eval of 3 keys needs 2016 bytes)"},
		{"eval_all in_bits", func() ([]launch, error) {
			q := p
			q.InBits = 49
			return planEvalAll(q, addrA, 0, addrB, addrC, 1, 0)
		}, "EvalAll needs in_bits <= 48, got 49"},
		{"eval_all k", func() ([]launch, error) { return planEvalAll(p, addrA, 0, addrB, addrC, 1<<40, addrE) },
			"k must be in 0..268435456, got 1099511627776"},
		{"eval_all scratch", func() ([]launch, error) { return planEvalAll(p, addrA, 1, addrB, addrC, 2, addrE+8) },
			"scratch: address 0x7f0000001408 is not 16-byte aligned (eval_all of 2 keys needs 1344 bytes)"},
		{"prg bench levels", func() ([]launch, error) { return planPrgBench(p, addrA, addrB, 10, -1) },
			"levels must be in 0..1048576, got -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			launches, err := tc.plan()
			assert.EqualError(t, err, "cuda: "+tc.want)
			assert.Empty(t, launches)
		})
	}
}

// Empty batches are valid and launch nothing, so they succeed without a GPU.
func TestEmptyBatches(t *testing.T) {
	p := dpfParams()
	assert.NoError(t, Gen(0, 0, p, addrA, addrB, addrC, 1, addrD, 0))
	assert.NoError(t, Eval(0, 0, p, addrA, 0, addrB, addrC, 4, addrD, 1, 0, 0))
	assert.NoError(t, Eval(0, 0, p, addrA, 0, addrB, addrC, 0, addrD, 1, 7, 0))
	assert.NoError(t, EvalAll(0, 0, p, addrA, 1, addrB, addrC, 0, 0))
	assert.NoError(t, PrgBench(0, 0, p, addrA, addrB, 0, 20))
}

func TestPlans(t *testing.T) {
	p := dcfAESParams()
	p.InBits = 3

	launches, err := planEval(p, addrA, 1, addrB, addrC, 5, addrD, 2, 7, addrE)
	require.NoError(t, err)
	require.Len(t, launches, 2)
	assert.Equal(t, "cw_relayout", launches[0].kernel)
	assert.Equal(t, uint64(5*4), launches[0].threads)
	assert.Equal(t, "dcf_eval_aes128_mmo_uint127", launches[1].kernel)
	assert.Equal(t, uint64(35), launches[1].threads)
	// The evaluation reads the level-major copy.
	assert.Equal(t, uint64(addrE), argAt[uint64](launches[1].args, 3))
	assert.Equal(t, uint64(addrE), argAt[uint64](launches[0].args, 0))

	launches, err = planEval(p, addrA, 0, addrB, addrC, 1, addrD, 2, 7, 0)
	require.NoError(t, err)
	require.Len(t, launches, 1, "one key: no relayout")
	assert.Equal(t, uint64(addrC), argAt[uint64](launches[0].args, 3))

	// Three levels fit one launch: a block covers 256 >> 2 = 64 keys.
	launches, err = planEvalAll(p, addrA, 1, addrB, addrC, 100, addrE)
	require.NoError(t, err)
	require.Len(t, launches, 2)
	assert.Equal(t, "dcf_eval_all_aes128_mmo_uint127", launches[1].kernel)
	assert.Equal(t, uint64(2*256), launches[1].threads)
	assert.Equal(t, []uint32{0, 3}, []uint32{argAt[uint32](launches[1].args, 6), argAt[uint32](launches[1].args, 7)})

	// 20 levels: 9 in the first launch (a block per key), then one launch per level.
	p.InBits = 20
	launches, err = planEvalAll(p, addrA, 1, addrB, addrC, 3, addrE)
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

func argAt[T uint32 | uint64](a *args, i int) T {
	b := a.buf[a.offsets[i]:]
	if a.sizes[i] == 8 {
		return T(binary.LittleEndian.Uint64(b))
	}
	return T(binary.LittleEndian.Uint32(b))
}

func TestArgsLayout(t *testing.T) {
	a := newArgs([]byte{1, 2, 3, 4, 5})
	a.ptr(0x1122334455667788).u32(7).i32(-1).u64(9)
	assert.Equal(t, []int{0, 8, 16, 20, 24}, a.offsets)
	assert.Equal(t, []int{5, 8, 4, 4, 8}, a.sizes)
	assert.Len(t, a.buf, 32)
	assert.Equal(t, uint32(0xffffffff), argAt[uint32](a, 3))
}

// Without a usable driver (this is the case on machines without a GPU) every call
// that would launch says why, and GetInfo says the same.
func TestWithoutDevice(t *testing.T) {
	info := GetInfo()
	if info.DriverLoaded && info.Devices > 0 && info.KernelsCompiled {
		t.Skip("a CUDA device is present")
	}
	assert.NotEmpty(t, info.Reason)
	t.Logf("GetInfo: %+v", info)
	p := dpfParams()
	errs := []error{
		Gen(0, 0, p, addrA, addrB, addrC, 1, addrD, 4),
		Eval(0, 0, p, addrA, 0, addrB, addrC, 1, addrD, 1, 8, 0),
		EvalAll(0, 0, p, addrA, 0, addrB, addrC, 1, 0),
		PrgBench(0, 0, p, addrA, addrB, 10, 20),
	}
	for _, err := range errs {
		require.Error(t, err)
		assert.Contains(t, info.Reason, err.Error())
		if info.KernelsCompiled {
			assert.True(t, errors.Is(err, ErrNoDriver) || errors.Is(err, ErrNeedsCgo), err)
		}
	}
}

func TestFatbinParse(t *testing.T) {
	_, err := parseFatbinArchs([]byte("not a fatbin at all"))
	assert.EqualError(t, err, "cuda: embedded kernels are not a fatbin")

	// A header that claims more entries than there are bytes.
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b, fatbinMagic)
	binary.LittleEndian.PutUint16(b[6:], 16)
	binary.LittleEndian.PutUint64(b[8:], 100)
	_, err = parseFatbinArchs(b)
	assert.EqualError(t, err, "cuda: embedded fatbin is truncated")

	archs, err := parseFatbinArchs(nil)
	assert.NoError(t, err)
	assert.Empty(t, archs)
}

func TestEmbeddedArchs(t *testing.T) {
	if len(fatbin) == 0 {
		t.Skip("kernels not compiled in; run python build_support/nvcc.py")
	}
	require.NoError(t, fatbinErr)
	assert.Equal(t, []string{"sm_80", "sm_90", "compute_90"}, fatbinArchs)
}
