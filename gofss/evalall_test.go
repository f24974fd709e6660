package gofss

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// EvalAll allocates a few times a call, not per tile and level: values handed to
// the routines through func values escape to the heap, which at in_bits 20 made
// 3600-7200 allocations a call (the tiles' correction-word pairs, leaf masks and
// levels). Every implementation this CPU serves, both PRGs, DPF and DCF.
func TestEvalAllAllocatesPerCall(t *testing.T) {
	const n = 16
	for _, prg := range []PrgKind{PrgAesMmo, PrgChaCha} {
		for _, kind := range []Kind{KindDpf, KindDcfLt} {
			for _, im := range Impls() {
				s, err := New(DefaultParams(kind, n, Uint64, prg), WithImpl(im))
				if err != nil {
					continue // not served here
				}
				seeds, alphas, betas := []Block{{Lo: 1}, {Lo: 2}}, []Uint128{{Lo: 77}}, []Block{{Lo: 9}}
				cws, out := make([]Cw, s.Params().CwRows()), make([]Block, 1<<n)
				require.NoError(t, s.Gen(cws, seeds, alphas, betas))
				allocs := testing.AllocsPerRun(3, func() { require.NoError(t, s.EvalAll(out, 0, seeds[:1], cws)) })
				require.LessOrEqual(t, allocs, 24.0, "%s %s on %s", prg, kind, im)
			}
		}
	}
}
