package binding

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
)

// KeyGen draws fresh, distinct seeds and makes the key Gen makes from them; bad
// arguments get Gen's errors.
func TestKeyGenIsGenOnFreshSeeds(t *testing.T) {
	h := newScheme(t, `{"scheme": "dcf_lt", "in_bits": 12, "group": "uint64", "prg": "aes128_mmo"}`)
	beta := []gofss.Block{{Lo: 9}}
	seeds, other := make([]gofss.Block, 2), make([]gofss.Block, 2)
	cws, want := make([]gofss.Cw, 13), make([]gofss.Cw, 13)
	_, err := KeyGen(h, addr(cws), addr(seeds), 77, 0, addr(beta))
	require.NoError(t, err)
	_, err = KeyGen(h, addr(want), addr(other), 77, 0, addr(beta))
	require.NoError(t, err)
	assert.NotEqual(t, seeds, other, "fresh seeds each call")
	assert.NotEqual(t, seeds[0].Clamp(), seeds[1].Clamp())
	_, err = Gen(h, CPU, 0, addr(want), addr(seeds), 0, 0, 77, 0, addr(beta), 1, 0)
	require.NoError(t, err)
	assert.Equal(t, want, cws)

	_, err = KeyGen(h, addr(cws), addr(seeds), 1<<12, 0, addr(beta))
	requireKind(t, err, KindValue, "alpha")
	_, err = KeyGen(h, addr(cws), 0, 77, 0, addr(beta))
	requireKind(t, err, KindValue, "s0s: null address")
	_, err = KeyGen(-5, addr(cws), addr(seeds), 77, 0, addr(beta))
	require.Error(t, err)
}
