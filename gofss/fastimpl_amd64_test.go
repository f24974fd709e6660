//go:build amd64 && !purego

package gofss

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/simd"
)

// simdOnCPU: this CPU runs the routines of the fast walks.
var simdOnCPU = simd.Available

// fusedEvalImpls name the implementations whose Eval runs a fused AES walk.
var fusedEvalImpls = []string{"avx512-vaes", "avx2-vaes", "avx2-aesni"}

// avx2Walks: the implementation aes128_mmo gets under each AES backend on a CPU
// with AVX2 but without AVX-512.
var avx2Walks = map[string]string{}

func init() {
	if simd.FusedAESNI.Available {
		avx2Walks = map[string]string{aes128.VAES256: "avx2-vaes", "aesni": "avx2-aesni"}
	}
}

// A Gen whose correction words exceed ntMinBytes goes through the staging area and
// CopyNT, on every fast implementation that serves it, against the portable Gen.
func TestFastGenStaged(t *testing.T) {
	const n = 40
	keys := ntMinBytes/((n+1)*cwSize) + 3
	r := rand.New(rand.NewPCG(25, 26))
	seeds, alphas, betas := randKeys(r, n, keys)
	for _, kind := range []Kind{KindDpf, KindDcfLt, KindDcfGt} {
		t.Run(kind.String(), func(t *testing.T) {
			p := DefaultParams(kind, n, Uint64, PrgAesMmo)
			port, err := New(p, WithImpl(PortableImpl))
			require.NoError(t, err)
			want := make([]Cw, keys*(n+1))
			require.NoError(t, port.Gen(want, seeds, alphas, betas))
			forEachFusedEval(t, p, func(t *testing.T, fast Scheme) {
				got := make([]Cw, keys*(n+1))
				require.NoError(t, fast.Gen(got, seeds, alphas, betas))
				requireSame(t, want, got, "rows")
			})
		})
	}
}

// A walk's refusal that the key check does not confirm is an error, never a
// success with outputs left unwritten; a confirmed one is the check's error.
func TestRefusalWithoutBadKeyFails(t *testing.T) {
	cws := make([]Cw, 3)
	require.Error(t, refusal(func([]Cw) error { return nil }, cws))
	bad := ArgErrorf("cws: key 0: bad")
	require.Equal(t, bad, refusal(func([]Cw) error { return bad }, cws))
}
