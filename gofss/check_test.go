package gofss

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// Eval's dst may be the memory of xs, or of s0s with one point per key, on every
// walk implementation; any other overlap with an input is refused (a dst one block
// into xs gave wrong outputs on the one-key DCF walks).
func TestEvalOutputMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, im := range Impls() {
		p := DefaultParams(KindDcfLt, 12, Uint64, PrgAesMmo)
		s, err := New(p, WithImpl(im))
		if err != nil {
			continue // not served here
		}
		const keys = 8
		seeds, alphas, betas := randBlocks(r, 2*keys), make([]Uint128, keys), randBlocks(r, keys)
		for i := range alphas {
			alphas[i] = Uint128{Lo: r.Uint64N(1 << 12)}
			betas[i] = s.Params().Group.Canon(betas[i])
		}
		cws := make([]Cw, keys*p.CwRows())
		require.NoError(t, s.Gen(cws, seeds, alphas, betas))
		s0s := everyOther(seeds, 0)
		buf := make([]Uint128, keys+1)
		for i := range buf {
			buf[i] = Uint128{Lo: r.Uint64N(1 << 12)}
		}
		xs := buf[:keys]
		want := make([]Block, keys)
		require.NoError(t, s.Eval(want, 0, s0s, cws, xs))

		asBlocks := func(u []Uint128) []Block { return unsafe.Slice((*Block)(unsafe.Pointer(&u[0])), len(u)) }
		same := slices.Clone(xs)
		require.NoError(t, s.Eval(asBlocks(same), 0, s0s, cws, same), im)
		require.Equal(t, want, asBlocks(same), im)

		shifted := slices.Clone(buf)
		requireArgError(t, s.Eval(asBlocks(shifted[1:]), 0, s0s, cws, shifted[:keys]), "dst must be the memory of xs")
		requireArgError(t, s.Eval(asBlocks(shifted[:keys]), 0, s0s, cws, shifted[1:]), "dst must be the memory of xs")
		rows := cwBlocks(cws)
		requireArgError(t, s.Eval(rows[:keys], 0, s0s, cws, xs), "dst must not share memory with cws")
		two := make([]Uint128, 2*keys) // two points per key
		seedsCopy := append(slices.Clone(s0s), make([]Block, keys)...)
		requireArgError(t, s.Eval(seedsCopy, 0, seedsCopy[:keys], cws, two), "dst must be the memory of s0s (one point per key)")
	}
}

func slicesClone[T any](s []T) []T { return append([]T(nil), s...) }
