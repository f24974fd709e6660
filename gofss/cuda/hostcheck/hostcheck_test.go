//go:build cgo

package hostcheck

import (
	"encoding/binary"
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

// words8 is a hash key's bytes as the 8 words of HashKeys (SHA-256's second block zero).
func words8(key []byte) [8]uint32 {
	var w [8]uint32
	for i := range len(key) / 4 {
		w[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	return w
}

func blocksWords(blocks ...kat.Block) []uint32 {
	var w []uint32
	for _, b := range blocks {
		v := vectortest.Words(b)
		w = append(w, v[:]...)
	}
	return w
}

// H' and XH under both keys of each hash, against primitives.json.
func TestHashes(t *testing.T) {
	sets, err := kat.LoadHashVectors()
	require.NoError(t, err)
	host := hostLib(t)
	checked := 0
	for _, set := range sets {
		xorKey, key := set.Hash.Keys()
		name := set.Hash.Name
		for i, v := range set.Hash64 {
			msg := blocksWords(v.Msg[:]...)
			got, err := host.hash(name, false, words8(key), msg)
			require.NoError(t, err)
			assert.Equal(t, blocksWords(v.WithHashKey[:]...), got, "%s hash64 %d, hash key", name, i)
			got, err = host.hash(name, false, words8(xorKey), msg)
			require.NoError(t, err)
			assert.Equal(t, blocksWords(v.WithXorHashKey[:]...), got, "%s hash64 %d, xor hash key", name, i)
			checked++
		}
		for i, v := range set.XorHash {
			msg := blocksWords(v.A, v.B)
			got, err := host.hash(name, true, words8(xorKey), msg)
			require.NoError(t, err)
			assert.Equal(t, blocksWords(v.WithXorHashKey[:]...), got, "%s xor_hash %d, xor hash key", name, i)
			got, err = host.hash(name, true, words8(key), msg)
			require.NoError(t, err)
			assert.Equal(t, blocksWords(v.WithHashKey[:]...), got, "%s xor_hash %d, hash key", name, i)
			checked++
		}
	}
	t.Logf("%d hash vectors checked", checked)
	assert.Positive(t, checked)
	_, err = host.hash("md5", false, [8]uint32{}, make([]uint32, 8))
	assert.Error(t, err, "an unknown hash is refused")
}

func TestVdpfVectors(t *testing.T) {
	n := vectortest.RunVdpf(t, hostLib(t))
	t.Logf("%d VDPF cases checked", n)
}

func TestMpfVectors(t *testing.T) {
	n := vectortest.RunMpf(t, hostLib(t))
	t.Logf("%d DMPF/VDMPF cases checked", n)
}
