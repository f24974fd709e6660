package binding

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
)

// KeyGen draws fresh, distinct seeds, writes them to the two parties' own buffers
// and makes the key Gen makes from them; bad arguments get Gen's errors.
func TestKeyGenIsGenOnFreshSeeds(t *testing.T) {
	h := newScheme(t, `{"scheme": "dcf_lt", "in_bits": 12, "group": "uint64", "prg": "aes128_mmo"}`)
	beta := []gofss.Block{{Lo: 9}}
	s0, s1, o0, o1 := make([]gofss.Block, 1), make([]gofss.Block, 1), make([]gofss.Block, 1), make([]gofss.Block, 1)
	cws, want := make([]gofss.Cw, 13), make([]gofss.Cw, 13)
	_, err := KeyGen(h, addr(cws), addr(s0), addr(s1), 77, 0, addr(beta))
	require.NoError(t, err)
	_, err = KeyGen(h, addr(want), addr(o0), addr(o1), 77, 0, addr(beta))
	require.NoError(t, err)
	assert.NotEqual(t, []gofss.Block{s0[0], s1[0]}, []gofss.Block{o0[0], o1[0]}, "fresh seeds each call")
	assert.NotEqual(t, s0[0].Clamp(), s1[0].Clamp())
	_, err = Gen(h, CPU, 0, addr(want), addr([]gofss.Block{s0[0], s1[0]}), 0, 0, 77, 0, addr(beta), 1, 0)
	require.NoError(t, err)
	assert.Equal(t, want, cws)

	kept := s0[0]
	_, err = KeyGen(h, addr(cws), addr(s0), addr(s1), 1<<12, 0, addr(beta))
	requireKind(t, err, KindValue, "alpha")
	assert.Equal(t, kept, s0[0], "a refused call leaves the seeds")
	_, err = KeyGen(h, addr(cws), 0, addr(s1), 77, 0, addr(beta))
	requireKind(t, err, KindValue, "s0: null address")
	_, err = KeyGen(h, addr(cws), addr(s0), 0, 77, 0, addr(beta))
	requireKind(t, err, KindValue, "s1: null address")
	_, err = KeyGen(-5, addr(cws), addr(s0), addr(s1), 77, 0, addr(beta))
	require.Error(t, err)
}

// KeyGens draws fresh, distinct seeds for each key of a batch, writes them to the
// parties' own buffers and makes the keys Gen makes from them; refused calls leave
// the seeds unwritten.
func TestKeyGensIsGenOnFreshSeeds(t *testing.T) {
	const k = 3
	h := newScheme(t, `{"scheme": "dpf", "in_bits": 12, "group": "uint32", "prg": "chacha"}`)
	alphas, betas := []int32{7, 4095, 0}, []gofss.Block{{Lo: 1}, {Lo: 2}, {Lo: 3}}
	s0, s1, o0, o1 := make([]gofss.Block, k), make([]gofss.Block, k), make([]gofss.Block, k), make([]gofss.Block, k)
	cws, want := make([]gofss.Cw, k*13), make([]gofss.Cw, k*13)
	n, err := KeyGens(h, CPU, 0, addr(cws), addr(s0), addr(s1), addr(alphas), 1, 0, 0, addr(betas), k, 0)
	require.NoError(t, err)
	require.Equal(t, k, n)
	_, err = KeyGens(h, CPU, 0, addr(want), addr(o0), addr(o1), addr(alphas), 1, 0, 0, addr(betas), k, 0)
	require.NoError(t, err)
	seeds := make([]gofss.Block, 2*k)
	for i := range k {
		assert.NotEqual(t, s0[i], o0[i], "fresh seeds each call")
		assert.NotEqual(t, s0[i].Clamp(), s1[i].Clamp())
		seeds[2*i], seeds[2*i+1] = s0[i], s1[i]
	}
	_, err = Gen(h, CPU, 0, addr(want), addr(seeds), addr(alphas), 1, 0, 0, addr(betas), k, 0)
	require.NoError(t, err)
	assert.Equal(t, want, cws)

	kept := append([]gofss.Block(nil), s0...)
	bad := []int32{7, 4096, 0}
	_, err = KeyGens(h, CPU, 0, addr(cws), addr(s0), addr(s1), addr(bad), 1, 0, 0, addr(betas), k, 0)
	requireKind(t, err, KindValue, "alpha")
	assert.Equal(t, kept, s0, "a refused call leaves the seeds")
	_, err = KeyGens(h, 0, 0, addr(cws), addr(s0), addr(s1), addr(alphas), 1, 0, 0, addr(betas), k, 0)
	requireKind(t, err, KindValue, "on the CPU")
	_, err = KeyGens(h, CPU, 0, addr(cws), addr(s0), 0, addr(alphas), 1, 0, 0, addr(betas), k, 0)
	requireKind(t, err, KindValue, "s1: null address")
	_, err = KeyGens(h, CPU, 0, addr(cws), addr(s0), addr(s1), addr(alphas), 1, 0, 0, addr(betas), -1, 0)
	requireKind(t, err, KindValue, "bad number of keys")
	n, err = KeyGens(h, CPU, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)
	require.NoError(t, err)
	assert.Zero(t, n)
}

// KeyGen allocates on the Go heap no more than Gen itself does for the same key (none
// on the assembly walks): its crossing runs once per key, and garbage there grows
// the process's memory between collections.
func TestKeyGenAllocatesNoMoreThanGen(t *testing.T) {
	h := newScheme(t, `{"scheme": "dpf", "in_bits": 20, "group": "uint64", "prg": "aes128_mmo"}`)
	beta := []gofss.Block{{Lo: 9}}
	s0, s1, cws := make([]gofss.Block, 1), make([]gofss.Block, 1), make([]gofss.Cw, 21)
	keyGen := testing.AllocsPerRun(100, func() {
		if _, err := KeyGen(h, addr(cws), addr(s0), addr(s1), 77, 0, addr(beta)); err != nil {
			t.Fatal(err)
		}
	})
	seeds := []gofss.Block{s0[0], s1[0]}
	gen := testing.AllocsPerRun(100, func() {
		if _, err := Gen(h, CPU, 0, addr(cws), addr(seeds), 0, 0, 77, 0, addr(beta), 1, 0); err != nil {
			t.Fatal(err)
		}
	})
	assert.LessOrEqual(t, keyGen, gen)
}
