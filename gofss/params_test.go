package gofss

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Params survive their JSON form, defaults filled in; fields of the other PRG and
// out-of-range values are refused by name.
func TestParamsJSON(t *testing.T) {
	for _, p := range []Params{
		DefaultParams(KindDpf, 20, Uint64, PrgAesMmo),
		DefaultParams(KindDcfGt, 128, Uint127, PrgChaCha),
		{Kind: KindDcfLt, InBits: 1, Group: Bytes, Prg: PrgChaCha, Nonce: [2]uint32{0xffffffff, 7}},
	} {
		b, err := json.Marshal(p)
		require.NoError(t, err)
		got, err := ParseParams(b)
		require.NoError(t, err, "%s", b)
		assert.Equal(t, p, got, "%s", b)
	}
	got, err := ParseParams([]byte(`{"scheme": "dcf_lt", "in_bits": 5, "group": "bytes", "prg": "aes128_mmo"}`))
	require.NoError(t, err)
	assert.Equal(t, DefaultAesKeys[:4], got.AesKeys, "missing keys take the defaults")
	for src, msg := range map[string]string{
		`{"scheme": "dpf", "in_bits": 129, "group": "bytes", "prg": "chacha"}`:                                                        "in_bits must be between 1 and 128",
		`{"scheme": "dpf", "in_bits": 8, "group": "uint8", "prg": "chacha"}`:                                                          "group must be one of bytes, uint32, uint64, uint127",
		`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "nonce": [-2147483649, 0]}`:                               "nonce words must fit in 32 bits",
		`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "aes128_mmo", "nonce": [0, 0]}`:                                     "nonce is a parameter of chacha",
		`{"scheme": "dcf_lt", "in_bits": 8, "group": "bytes", "prg": "aes128_mmo", "aes_keys": ["000102030405060708090a0b0c0d0e0f"]}`: "needs 4 AES keys, not 1",
		`{"scheme": "dpf", "in_bits": 8.5, "group": "bytes", "prg": "chacha"}`:                                                        "params:",
	} {
		_, err := ParseParams([]byte(src))
		requireArgError(t, err, msg)
	}
}

// New and the scheme constructors agree, and a scheme can be made on the portable
// walks directly; an implementation that does not serve the parameters is refused.
func TestNewChoosesImplOnce(t *testing.T) {
	p := DefaultParams(KindDpf, 9, Bytes, PrgAesMmo)
	s, err := New(p)
	require.NoError(t, err)
	assert.Equal(t, p, s.Params())
	assert.Contains(t, Impls(), s.Impl())
	port, err := New(p, WithImpl(PortableImpl))
	require.NoError(t, err)
	assert.Equal(t, PortableImpl, port.Impl())
	_, err = New(p, WithImpl("no-such-impl"))
	requireArgError(t, err, "impl must be one of")
	if slices.Contains(Impls(), "avx512") && !simdOnCPU {
		_, err = New(p, WithImpl("avx512"))
		requireArgError(t, err, "does not serve these parameters")
	}
}

// Gen refuses a pair of seeds that are equal once the control bit is cleared: the
// correction words would then spell alpha out.
func TestGenRefusesEqualSeeds(t *testing.T) {
	for _, c := range testCases(t, []int{8}) {
		seeds := []Block{{Lo: 1}, {Lo: 2}, {Lo: 5, Hi: 1 << 32}, {Lo: 5}}
		cws := make([]Cw, 2*9)
		err := c.scheme.Gen(cws, seeds, make([]Uint128, 2), make([]Block, 2))
		requireArgError(t, err, "s0s: key 1: the two seeds are equal once the control bit is cleared")
	}
}

// A stop flag ends every operation: set before the call, it returns ErrStopped; a
// flag left at zero changes no output.
func TestWithStop(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range testCases(t, []int{10}) {
		const keys = 300
		seeds, alphas, betas := randKeys(r, c.n, keys)
		cws := make([]Cw, keys*(c.n+1))
		var flag atomic.Int32
		s := c.scheme.(Scheme).WithStop(&flag)
		require.NoError(t, s.Gen(cws, seeds, alphas, betas))
		want := make([]Cw, len(cws))
		require.NoError(t, c.scheme.Gen(want, seeds, alphas, betas))
		require.Equal(t, want, cws, c.name)

		flag.Store(1)
		require.ErrorIs(t, s.Gen(cws, seeds, alphas, betas), ErrStopped, c.name)
		ps := make([]Block, keys)
		for k := range ps {
			ps[k] = seeds[2*k]
		}
		require.ErrorIs(t, s.Eval(make([]Block, keys), 0, ps, want, alphas), ErrStopped, c.name)
		require.ErrorIs(t, s.EvalAll(make([]Block, keys<<c.n), 0, ps, want), ErrStopped, c.name)
		require.NoError(t, c.scheme.EvalAll(make([]Block, keys<<c.n), 0, ps, want), "the scheme itself keeps no flag")
	}
}
