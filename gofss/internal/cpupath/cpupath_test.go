package cpupath

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRegistry(t *testing.T) {
	r := New("pkg",
		&Impl[int]{Name: "wide", Available: false, Ops: 3},
		&Impl[int]{Name: "fast", Available: true, Ops: 2},
		&Impl[int]{Name: "generic", Available: true, Ops: 1})
	require.Equal(t, "fast", r.Name(), "the fastest available one is selected")
	require.Equal(t, 2, r.Ops())
	require.Equal(t, []string{"fast", "generic"}, r.Names())

	prev, err := r.Set("generic")
	require.NoError(t, err)
	require.Equal(t, "fast", prev)
	require.Equal(t, 1, r.Ops())

	_, err = r.Set("wide")
	require.ErrorContains(t, err, `pkg: backend "wide" is not supported by this CPU`)
	_, err = r.Set("nope")
	require.ErrorContains(t, err, `pkg: unknown backend "nope"`)
	require.Equal(t, "generic", r.Name(), "a refused Set changes nothing")

	require.Panics(t, func() { New("pkg", &Impl[int]{Name: "x"}) })
}
