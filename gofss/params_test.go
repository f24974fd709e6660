package gofss

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
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
		// encoding/json would drop a third word and zero a missing second one.
		`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "nonce": [7, 8, 9]}`: "nonce must be two 32-bit words, not 3",
		`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "nonce": [7]}`:       "nonce must be two 32-bit words, not 1",
		`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "nonce": []}`:        "nonce must be two 32-bit words, not 0",
		// A misspelt field would take its default.
		`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "nonse": [7, 8]}`:                    `unknown field "nonse"`,
		`{"scheme": "dmpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "max_points": 4, "bucket_bit": 30}`: `unknown field "bucket_bit"`,
		`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha"} {}`:                                  "data after the object",
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
		cws := make([]Cw, 2*c.rows())
		err := c.scheme.Gen(cws, seeds, make([]Uint128, 2), make([]Block, 2))
		requireArgError(t, err, "s0s: key 1: the two seeds are equal once the control bit is cleared")
	}
}

// A Control counts every operation's items and ends it: with Stop set before the call
// it returns ErrStopped; with Stop left at zero the outputs are those of the scheme
// without a Control, and Done ends at the operation's keys, points or outputs.
func TestWithControl(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range testCases(t, []int{10}) {
		const keys = 300
		seeds, alphas, betas := randKeys(r, c.n, keys)
		cws := make([]Cw, keys*c.rows())
		var ctl Control
		s := c.scheme.(Scheme).WithControl(&ctl)
		require.NoError(t, s.Gen(cws, seeds, alphas, betas))
		require.EqualValues(t, keys, ctl.Done.Swap(0), "%s: keys generated", c.name)
		want := make([]Cw, len(cws))
		require.NoError(t, c.scheme.Gen(want, seeds, alphas, betas))
		require.Equal(t, want, cws, c.name)
		ps := make([]Block, keys)
		for k := range ps {
			ps[k] = seeds[2*k]
		}
		for _, m := range []int{1, 3} {
			xs := make([]Uint128, keys*m)
			for i := range xs {
				xs[i] = randInput(r, c.n)
			}
			require.NoError(t, s.Eval(make([]Block, len(xs)), 0, ps, want, xs))
			require.EqualValues(t, len(xs), ctl.Done.Swap(0), "%s: points evaluated", c.name)
		}
		require.NoError(t, s.EvalAll(make([]Block, keys<<c.n), 0, ps, want))
		require.EqualValues(t, keys<<c.n, ctl.Done.Swap(0), "%s: outputs of EvalAll", c.name)

		ctl.Stop.Store(1)
		require.ErrorIs(t, s.Gen(cws, seeds, alphas, betas), ErrStopped, c.name)
		require.ErrorIs(t, s.Eval(make([]Block, keys), 0, ps, want, alphas), ErrStopped, c.name)
		require.ErrorIs(t, s.EvalAll(make([]Block, keys<<c.n), 0, ps, want), ErrStopped, c.name)
		// A call stopped before it starts does nothing, on short batches too (the
		// one-key walks take them).
		for _, k := range []int{1, keys} {
			before := slices.Clone(cws[:k*c.rows()])
			require.ErrorIs(t, s.Gen(cws[:k*c.rows()], seeds[:2*k], alphas[:k], betas[:k]), ErrStopped, c.name)
			require.Equal(t, before, cws[:k*c.rows()], "%s: Gen of %d keys wrote", c.name, k)
			dst := slices.Repeat([]Block{{Lo: 7, Hi: 7}}, k)
			require.ErrorIs(t, s.Eval(dst, 0, ps[:k], want[:k*c.rows()], alphas[:k]), ErrStopped, c.name)
			require.Equal(t, slices.Repeat([]Block{{Lo: 7, Hi: 7}}, k), dst, "%s: Eval of %d keys wrote", c.name, k)
		}
		require.Zero(t, ctl.Done.Load(), "%s: items counted after the stop", c.name)
		require.NoError(t, c.scheme.EvalAll(make([]Block, keys<<c.n), 0, ps, want), "the scheme itself keeps no flag")
	}
}

// The Half-Tree and Grotto kinds: half_tree_dpf's hash key survives the JSON form
// (the default when missing), grotto_dcf's group may be left out; a hash key
// elsewhere, a wider word and grotto_dcf outside its group and input range are
// refused by name.
func TestParamsHalfTreeAndGrotto(t *testing.T) {
	custom := DefaultParams(KindHalfTreeDpf, 9, Uint127, PrgChaCha)
	custom.HashKey = Block{Lo: 0xffffffff_00000001, Hi: 0x80000000_7fffffff}
	for _, p := range []Params{
		DefaultParams(KindHalfTreeDpf, 20, Uint64, PrgAesMmo),
		custom,
		DefaultParams(KindGrottoDcf, 40, Bytes, PrgChaCha),
	} {
		b, err := json.Marshal(p)
		require.NoError(t, err)
		got, err := ParseParams(b)
		require.NoError(t, err, "%s", b)
		assert.Equal(t, p, got, "%s", b)
	}
	b, err := json.Marshal(DefaultParams(KindHalfTreeDpf, 20, Uint64, PrgAesMmo))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"hash_key":[305419896,-1698898192,324478056,610839776]`)
	b, err = json.Marshal(DefaultParams(KindDpf, 20, Uint64, PrgAesMmo))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "hash_key", "only half_tree_dpf writes a hash key")

	got, err := ParseParams([]byte(`{"scheme": "half_tree_dpf", "in_bits": 5, "group": "bytes", "prg": "aes128_mmo"}`))
	require.NoError(t, err)
	assert.Equal(t, DefaultHashKey, got.HashKey)
	assert.Equal(t, DefaultAesKeys[:1], got.AesKeys)
	got, err = ParseParams([]byte(`{"scheme": "half_tree_dpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash_key": [1, 2, 3, 4294967295]}`))
	require.NoError(t, err)
	assert.Equal(t, Block{Lo: 2<<32 | 1, Hi: 0xffffffff<<32 | 3}, got.HashKey)
	got, err = ParseParams([]byte(`{"scheme": "grotto_dcf", "in_bits": 16, "prg": "chacha"}`))
	require.NoError(t, err)
	assert.Equal(t, Bytes, got.Group)
	assert.Equal(t, 2, got.Kind.Mul())

	for src, msg := range map[string]string{
		`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "hash_key": [0, 0, 0, 0]}`:                                                                           "hash_key is a parameter of half_tree_dpf, not of dpf",
		`{"scheme": "half_tree_dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "hash_key": [0, 0, 0, -2147483649]}`:                                                       "hash_key words must fit in 32 bits",
		`{"scheme": "half_tree_dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "hash_key": [0, 0, 0]}`:                                                                    "hash_key must be a block of 4 words, not 3",
		`{"scheme": "half_tree_dpf", "in_bits": 8, "group": "bytes", "prg": "aes128_mmo", "aes_keys": ["000102030405060708090a0b0c0d0e0f", "000102030405060708090a0b0c0d0e0f"]}`: "half_tree_dpf with aes128_mmo needs 1 AES keys, not 2",
		`{"scheme": "grotto_dcf", "in_bits": 8, "group": "uint64", "prg": "chacha"}`:                                                                                             "group: grotto_dcf outputs bit shares",
		`{"scheme": "grotto_dcf", "in_bits": 41, "prg": "chacha"}`:                                                                                                               "in_bits must be between 1 and 40 for grotto_dcf",
	} {
		_, err := ParseParams([]byte(src))
		requireArgError(t, err, msg)
	}
	p := DefaultParams(KindDcfLt, 8, Bytes, PrgChaCha)
	p.HashKey = DefaultHashKey
	requireArgError(t, p.Check(), "hash_key is a parameter of half_tree_dpf, not of dcf_lt")

	c := Catalogue()["schemes"].(map[string]any)
	assert.Equal(t, map[string]any{"mul": 1, "default_hash_key": [4]int64{305419896, -1698898192, 324478056, 610839776}}, c["half_tree_dpf"])
	assert.Equal(t, map[string]any{"mul": 2, "groups": []string{"bytes"}, "max_in_bits": 40}, c["grotto_dcf"])
}

// New makes a Half-Tree DPF, on its portable walks only.
func TestNewHalfTree(t *testing.T) {
	p := DefaultParams(KindHalfTreeDpf, 9, Uint32, PrgAesMmo)
	s, err := New(p)
	require.NoError(t, err)
	assert.IsType(t, &HalfTreeDpf{}, s)
	assert.Equal(t, p, s.Params())
	assert.Equal(t, PortableImpl, s.Impl())
	for _, name := range Impls() {
		if name != PortableImpl {
			_, err = New(p, WithImpl(name))
			requireArgError(t, err, "does not serve these parameters")
		}
	}
}

// A Params value's AES keys are the caller's to change: neither the package's
// defaults nor a scheme made from them change with it.
func TestParamsOwnTheirAesKeys(t *testing.T) {
	defaults := DefaultAesKeys
	p := DefaultParams(KindDpf, 8, Uint64, PrgAesMmo)
	s, err := New(p)
	require.NoError(t, err)
	p.AesKeys[0] = [16]byte{0xde, 0xad}
	require.Equal(t, defaults, DefaultAesKeys)
	require.Equal(t, DefaultAesKeys[:2], s.Params().AesKeys)
	require.Equal(t, DefaultAesKeys[:2], DefaultParams(KindDpf, 8, Uint64, PrgAesMmo).AesKeys)
	for _, q := range []Params{DefaultParams(KindDmpf, 8, Uint64, PrgAesMmo).WithMaxPoints(4), DefaultParams(KindGrottoDcf, 8, Bytes, PrgAesMmo)} {
		var got Params
		switch q.Kind {
		case KindDmpf:
			m, err := NewMpf(q)
			require.NoError(t, err)
			got = m.Params()
		default:
			g, err := NewGrottoDcf(q)
			require.NoError(t, err)
			got = g.Params()
		}
		q.AesKeys[0] = [16]byte{1}
		require.Equal(t, DefaultAesKeys[:2], got.AesKeys, "%s", q.Kind)
	}
}

// The catalogue gives vdmpf the same default hashes as vdpf.
func TestCatalogueHashes(t *testing.T) {
	schemes := Catalogue()["schemes"].(map[string]any)
	vdpf := schemes["vdpf"].(map[string]any)["default_hashes"]
	require.NotNil(t, vdpf)
	require.Equal(t, vdpf, schemes["vdmpf"].(map[string]any)["default_hashes"])
}
