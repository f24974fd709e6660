package cpupath

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRegistry(t *testing.T) {
	r := newFastest("pkg",
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

func TestSetFromEnv(t *testing.T) {
	r := newFastest("aes128",
		&Impl[int]{Name: "wide", Available: false, Ops: 3},
		&Impl[int]{Name: "fast", Available: true, Ops: 2},
		&Impl[int]{Name: "generic", Available: true, Ops: 1})
	require.Equal(t, "PYFSS_AES128_BACKEND", EnvVar("aes128"))
	require.NoError(t, r.setFromEnv(""), "unset: the fastest stays")
	require.Equal(t, "fast", r.Name())
	require.NoError(t, r.setFromEnv("generic"))
	require.Equal(t, "generic", r.Name())
	require.EqualError(t, r.setFromEnv("wide"),
		`PYFSS_AES128_BACKEND=wide: aes128: backend "wide" is not supported by this CPU (this CPU runs: fast, generic)`)
	require.ErrorContains(t, r.setFromEnv("nope"), `PYFSS_AES128_BACKEND=nope: aes128: unknown backend "nope"`)
	require.Equal(t, "generic", r.Name(), "a refused value changes nothing")
}

func TestNewReportsBadEnv(t *testing.T) {
	defer func(saved []error) { envErrors = saved }(envErrors)
	envErrors = nil
	t.Setenv("PYFSS_PKG_BACKEND", "wide")
	r := New("pkg", &Impl[int]{Name: "wide", Available: false}, &Impl[int]{Name: "generic", Available: true})
	require.Equal(t, "generic", r.Name(), "the fastest available stays")
	require.EqualError(t, EnvError(),
		`PYFSS_PKG_BACKEND=wide: pkg: backend "wide" is not supported by this CPU (this CPU runs: generic)`)
	envErrors = nil
	t.Setenv("PYFSS_PKG_BACKEND", "generic")
	r = New("pkg", &Impl[int]{Name: "fast", Available: true}, &Impl[int]{Name: "generic", Available: true})
	require.Equal(t, "generic", r.Name())
	require.NoError(t, EnvError())
}
