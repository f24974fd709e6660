//go:build cgo

package hostcheck

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
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

// TestMpfAgainstCpu compares the kernels with gofss's Mpf (which the vectors check)
// where the vectors have no case: odd in_bits, whose PRP halves are not in_bits / 2 +
// 1 wide, in_bits up to 62, the widest the kernels take, and the 128-bit groups.
func TestMpfAgainstCpu(t *testing.T) {
	host := hostLib(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		kind   gofss.Kind
		inBits int
		group  gofss.Group
		prg    gofss.PrgKind
	}{
		{gofss.KindDmpf, 9, gofss.Uint64, gofss.PrgChaCha},
		{gofss.KindVdmpf, 13, gofss.Uint127, gofss.PrgAesMmo},
		{gofss.KindDmpf, 33, gofss.Bytes, gofss.PrgAesMmo},
		{gofss.KindVdmpf, 61, gofss.Uint32, gofss.PrgChaCha},
		{gofss.KindDmpf, 62, gofss.Uint127, gofss.PrgChaCha},
	} {
		p := gofss.DefaultParams(c.kind, c.inBits, c.group, c.prg).WithMaxPoints(5)
		t.Run(fmt.Sprintf("%s-n%d-%s-%s", c.kind, c.inBits, c.group, c.prg), func(t *testing.T) {
			d, err := gofss.NewMpf(p)
			require.NoError(t, err)
			buckets, mask := p.Buckets(), uint64(1)<<c.inBits-1
			s0s := make([]gofss.Block, 2*buckets)
			for i := range s0s {
				s0s[i] = gofss.Block{Lo: rng.Uint64(), Hi: rng.Uint64()}
			}
			xs := make([]gofss.Uint128, 200)
			for i := range xs {
				xs[i] = gofss.Uint128{Lo: rng.Uint64() & mask}
			}
			alphas := []gofss.Uint128{xs[0], xs[1], xs[2]}
			betas := []gofss.Block{{Lo: 7}, {Lo: 1 << 40}, {Lo: 3, Hi: 1 << 20}}
			cws := make([]gofss.Cw, p.CwRows())
			_, err = d.Gen(cws, s0s, gofss.Block{Lo: rng.Uint64(), Hi: rng.Uint64()}, alphas, betas)
			require.NoError(t, err)
			var cwWords, xWords []uint32
			for _, cw := range cws {
				lo, hi := vectortest.BlockWords(cw[0]), vectortest.BlockWords(cw[1])
				cwWords = append(append(cwWords, lo[:]...), hi[:]...)
			}
			for _, x := range xs {
				xWords = append(xWords, uint32(x.Lo), uint32(x.Lo>>32))
			}
			for party := range 2 {
				seeds := make([]gofss.Block, buckets)
				var seedWords []uint32
				for b := range seeds {
					seeds[b] = s0s[2*b+party]
					w := vectortest.BlockWords(seeds[b])
					seedWords = append(seedWords, w[:]...)
				}
				want := make([]gofss.Block, len(xs))
				var wantPi, gotPi [gofss.ProofBlocks]gofss.Block
				if c.kind == gofss.KindVdmpf {
					require.NoError(t, d.EvalProof(want, &wantPi, party, seeds, cws, xs))
				} else {
					require.NoError(t, d.Eval(want, party, seeds, cws, xs))
				}
				ys, bkts, pieces, err := host.MpfEval(p, party, seedWords, 1, cwWords, xWords, 2, len(xs))
				require.NoError(t, err)
				for j := range xs {
					require.Equal(t, vectortest.BlockWords(want[j]), [4]uint32(ys[4*j:4*j+4]), "party %d at x=%d", party, xs[j].Lo)
				}
				if c.kind == gofss.KindVdmpf {
					require.NoError(t, d.FoldProof(&gotPi, cws, vectortest.Int32s(bkts), vectortest.Blocks(pieces)))
					require.Equal(t, wantPi, gotPi, "party %d proof", party)
				}
			}
		})
	}
}

// The kernels' division through a double reciprocal against Go's, where its estimate
// falls on either side of the quotient: every small case, exact multiples, and the
// widest values (sizes near 3·2^62 / m_rt, inputs near 2^64, keys near 2^48).
func TestDivide(t *testing.T) {
	host := hostLib(t)
	check := func(y, size uint64) {
		q, r := host.divide(y, size)
		if q != y/size || r != y%size {
			t.Fatalf("divide(%d, %d) = (%d, %d), want (%d, %d)", y, size, q, r, y/size, y%size)
		}
	}
	for size := uint64(1); size <= 200; size++ {
		for y := range 200 * size {
			check(y, size)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		m := rng.Uint64N(1<<21) + 1
		size := (3<<62 + m - 1) / m
		b := rng.Uint64N(m)
		for _, y := range []uint64{b * size, b*size + size - 1, b*size + rng.Uint64N(size)} {
			if y < 3<<62 {
				check(y, size)
			}
		}
		k := rng.Uint64N(1<<20) + 1
		check(rng.Uint64N(1<<48/k*k), k) // an input's key t / m, m = k here
	}
}
