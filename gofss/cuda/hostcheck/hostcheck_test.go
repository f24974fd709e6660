//go:build cgo

package hostcheck

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda/internal/prgparams"
	"github.com/pyfss/pyfss/gofss/cuda/internal/vectortest"
	"github.com/pyfss/pyfss/gofss/internal/kat"
)

const cudaDir = "../../../cuda"

var (
	hostOnce sync.Once
	host     *lib
	hostErr  error
	hostDir  string
)

// hostLib builds the host check once per test binary. It runs inside the tests, not
// in TestMain, because the test cache tracks only files opened after m.Run starts.
func hostLib(t *testing.T) *lib {
	hostOnce.Do(func() {
		// g++ reads the sources in a child process, which the test cache does not
		// see; reading them here makes a change to any of them invalidate the cache.
		sources, _ := filepath.Glob(filepath.Join(cudaDir, "*.cuh"))
		for _, f := range append(sources, "hostcheck.cpp") {
			if _, hostErr = os.ReadFile(f); hostErr != nil {
				return
			}
		}
		if hostDir, hostErr = os.MkdirTemp("", "hostcheck"); hostErr == nil {
			host, hostErr = buildLib(hostDir)
		}
	})
	require.NoError(t, hostErr, "building the host check")
	return host
}

func TestMain(m *testing.M) {
	code := m.Run()
	if hostDir != "" {
		os.RemoveAll(hostDir)
	}
	os.Exit(code)
}

func TestPrg(t *testing.T) {
	prims, err := kat.LoadPrimitives()
	require.NoError(t, err)
	host := hostLib(t)
	checked := 0
	for _, set := range prims.Prg {
		keys, err := set.Prg.AesKeys()
		require.NoError(t, err)
		// mul 1 is Half-Tree DPF's hash, which with a zero hash key is the PRG itself.
		pp := prgparams.Pack(set.Prg.NonceU32(), keys, gofss.Block{})
		for i, v := range set.Vectors {
			var want []uint32
			for _, o := range v.Out {
				w := vectortest.Words(o)
				want = append(want, w[:]...)
			}
			got, err := host.prgExpand(set.Prg.Name, pp, set.Prg.Mul, false, 0, vectortest.Words(v.Seed))
			require.NoError(t, err)
			assert.Equal(t, want, got, "%s mul %d vector %d", set.Prg.Name, set.Prg.Mul, i)
			checked++
			if set.Prg.Mul == 1 {
				continue // no halves
			}
			half := len(want) / 2
			for sel := range 2 {
				got, err := host.prgExpand(set.Prg.Name, pp, set.Prg.Mul, true, uint32(sel), vectortest.Words(v.Seed))
				require.NoError(t, err)
				assert.Equal(t, want[sel*half:(sel+1)*half], got, "%s mul %d vector %d half %d",
					set.Prg.Name, set.Prg.Mul, i, sel)
			}
		}
	}
	t.Logf("%d PRG vectors checked", checked)
	assert.Positive(t, checked)
}

func TestVectors(t *testing.T) {
	n := vectortest.Run(t, hostLib(t), 16)
	t.Logf("%d DPF/DCF/Half-Tree DPF cases checked", n)
}

func TestGrottoVectors(t *testing.T) {
	n := vectortest.RunGrotto(t, hostLib(t), 20)
	t.Logf("%d Grotto DCF cases checked", n)
}
