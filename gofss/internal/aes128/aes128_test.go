package aes128

import (
	"bytes"
	"crypto/aes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/cpupath"
	"github.com/pyfss/pyfss/gofss/internal/guardmem"
	"github.com/pyfss/pyfss/gofss/internal/pathtest"

	"github.com/pyfss/pyfss/gofss/internal/kat"
)

func TestBackends(t *testing.T) {
	names := Backends()
	require.NotEmpty(t, names)
	assert.Equal(t, "generic", names[len(names)-1], "the portable backend comes last")
	want := names[0]
	if forced := os.Getenv(cpupath.EnvVar("aes128")); forced != "" {
		want = forced
	}
	assert.Equal(t, want, Backend(), "the fastest supported backend is the default, unless the environment names one")
	_, err := SetBackend("no-such-backend")
	assert.Error(t, err)
}

// reference is MMO straight from crypto/aes: out block i*len(raws)+j of the blocks in
// src under key raws[pick(i, j)].
func reference(t *testing.T, raws [][16]byte, src []byte, mul int, pick func(i, j int) int) []byte {
	out := make([]byte, len(src)*mul)
	for i := 0; i*BlockSize < len(src); i++ {
		in := src[i*BlockSize : (i+1)*BlockSize]
		for j := range mul {
			c, err := aes.NewCipher(raws[pick(i, j)][:])
			require.NoError(t, err)
			o := out[(i*mul+j)*BlockSize : (i*mul+j+1)*BlockSize]
			c.Encrypt(o, in)
			for b := range o {
				o[b] ^= in[b]
			}
		}
	}
	return out
}

// counts are the source block counts tried: every count up to past the widest
// routine's group and its tails (8 vectors of up to 4 blocks), then large ones.
var counts = func() []int {
	var c []int
	for n := range 71 {
		c = append(c, n)
	}
	return append(c, 127, 128, 129, 1000, 4099)
}()

// entries are the ways into a backend: the exported functions, which send batches of
// up to smallBatch bytes one block at a time, and the backend's own batch routines,
// so that those are also tried on the smallest batches.
var entries = []struct {
	name      string
	mmo       func(keys []*Key, dst, src []byte)
	mmoSelect func(keys []*Key, dst, src, sel []byte)
}{
	{"exported", MMO, MMOSelect},
	{"routines", func(keys []*Key, dst, src []byte) { impls.Ops().mmo(keys, dst, src) },
		func(keys []*Key, dst, src, sel []byte) { impls.Ops().mmoSelect(keys, dst, src, sel) }},
}

const guard = 64

// guardedDst returns a dst of n bytes with guard bytes on both sides, and a check
// that they are intact.
func guardedDst(t *testing.T, n int) ([]byte, func()) {
	buf := bytes.Repeat([]byte{0xA5}, n+2*guard)
	return buf[guard : guard+n : guard+n], func() {
		for _, g := range [][]byte{buf[:guard], buf[guard+n:]} {
			require.Equal(t, bytes.Repeat([]byte{0xA5}, guard), g, "write outside dst")
		}
	}
}

func randomKeys(rng *rand.Rand, n int) ([][16]byte, []*Key) {
	raws := make([][16]byte, n)
	keys := make([]*Key, n)
	for i := range raws {
		fillRandom(rng, raws[i][:])
		keys[i] = NewKey(raws[i])
	}
	return raws, keys
}

func fillRandom(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// TestMatchesCryptoAES runs every backend on random keys and inputs against
// crypto/aes. src and sel end where readable memory ends, so an over-read faults.
// Key counts 0 and 3 (MMO) and 6 (MMOSelect) take the paths for counts that the
// VAES lane patterns do not cover.
func TestMatchesCryptoAES(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, n := range counts {
			for _, e := range entries {
				t.Run(fmt.Sprintf("%s/n%d", e.name, n), func(t *testing.T) { matchCryptoAES(t, rng, n, e.mmo, e.mmoSelect) })
			}
		}
	})
}

func matchCryptoAES(t *testing.T, rng *rand.Rand, n int, mmo func(keys []*Key, dst, src []byte), mmoSelect func(keys []*Key, dst, src, sel []byte)) {
	for _, mul := range []int{0, 1, 2, 3, 4} {
		t.Run(fmt.Sprintf("MMO/keys%d", mul), func(t *testing.T) {
			raws, keys := randomKeys(rng, mul)
			src := guardmem.EndOfMapping(t, n*BlockSize)
			fillRandom(rng, src)
			want := reference(t, raws, src, mul, func(_, j int) int { return j })
			got, check := guardedDst(t, len(want))
			mmo(keys, got, src)
			check()
			require.Equal(t, want, got)
		})
	}
	for _, nkeys := range []int{2, 4, 6} {
		t.Run(fmt.Sprintf("MMOSelect/keys%d", nkeys), func(t *testing.T) {
			raws, keys := randomKeys(rng, nkeys)
			h := nkeys / 2
			src := guardmem.EndOfMapping(t, n*BlockSize)
			fillRandom(rng, src)
			sel := guardmem.EndOfMapping(t, n)
			for i := range sel {
				sel[i] = byte(rng.IntN(2))
			}
			want := reference(t, raws, src, h, func(i, j int) int { return int(sel[i])*h + j })
			got, check := guardedDst(t, len(want))
			mmoSelect(keys, got, src, sel)
			check()
			require.Equal(t, want, got)
		})
	}
}

// TestSelectRejectsBadSel: a sel value other than 0 or 1 would name a key outside
// keys, so every backend must refuse it, wherever it sits in the batch.
func TestSelectRejectsBadSel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, n := range []int{1, 2, 3, 9, 17, 33, 40, 100} {
			for _, nkeys := range []int{2, 4} {
				for at := range n {
					if n > 33 && at != 0 && at != n/2 && at != n-1 {
						continue
					}
					for _, e := range entries {
						_, keys := randomKeys(rng, nkeys)
						src := make([]byte, n*BlockSize)
						dst := make([]byte, len(src)*nkeys/2)
						sel := make([]byte, n)
						sel[at] = byte(2 + rng.IntN(254))
						assert.Panics(t, func() { e.mmoSelect(keys, dst, src, sel) }, "%s n %d keys %d at %d", e.name, n, nkeys, at)
					}
				}
			}
		}
	})
}

// TestVectors checks every backend against the reference library's aes128_mmo
// outputs, all seeds of an entry in one call (a partial vector for the SIMD
// backends). MMOSelect with sel alternating picks one half of each seed's outputs.
func TestVectors(t *testing.T) {
	prims, err := kat.LoadPrimitives()
	require.NoError(t, err)
	var entries []kat.PrgVectors
	for _, e := range prims.Prg {
		if e.Prg.Name == "aes128_mmo" {
			entries = append(entries, e)
		}
	}
	require.Len(t, entries, 3, "want aes128_mmo vectors for mul 1, 2 and 4")
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, e := range entries {
			mul := e.Prg.Mul
			raws, err := e.Prg.AesKeys()
			require.NoError(t, err)
			require.Len(t, raws, mul)
			keys := make([]*Key, mul)
			for i, r := range raws {
				keys[i] = NewKey(r)
			}
			var src, want []byte
			for _, v := range e.Vectors {
				require.Len(t, v.Out, mul)
				seed := v.Seed.Bytes()
				src = append(src, seed[:]...)
				for _, o := range v.Out {
					ob := o.Bytes()
					want = append(want, ob[:]...)
				}
			}
			got := make([]byte, len(want))
			MMO(keys, got, src)
			assert.Equal(t, want, got, "MMO mul %d", mul)

			if mul == 1 {
				continue
			}
			h := mul / 2
			sel := make([]byte, len(e.Vectors))
			var wantSel []byte
			for i := range sel {
				sel[i] = byte(i % 2)
				half := want[(i*mul+int(sel[i])*h)*BlockSize:]
				wantSel = append(wantSel, half[:h*BlockSize]...)
			}
			gotSel := make([]byte, len(wantSel))
			MMOSelect(keys, gotSel, src, sel)
			assert.Equal(t, wantSel, gotSel, "MMOSelect mul %d", mul)
		}
	})
}

// TestFeistelPass runs every backend's FeistelPass against a pass written out with
// crypto/aes, one value at a time, for half widths up to 32 bits and counts that
// leave every kind of part vector. vs ends where readable memory ends, so an
// over-read or over-write faults.
func TestFeistelPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, h := range []uint{0, 1, 5, 16, 17, 31, 32} {
			for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 15, 16, 17, 33, 300} {
				raws, keyList := randomKeys(rng, 4)
				keys := (*[4]*Key)(keyList)
				mem := guardmem.EndOfMapping(t, 8*n)
				vs := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(mem))), n)
				want := make([]uint64, n)
				for i := range vs {
					vs[i] = rng.Uint64() >> (64 - 2*h) & (1<<(2*h) - 1)
					want[i] = feistelReference(t, raws, vs[i], h)
				}
				FeistelPass(keys, vs, h)
				require.Equal(t, want, vs, "h %d, n %d", h, n)
			}
		}
		_, keyList := randomKeys(rng, 4)
		assert.Panics(t, func() { FeistelPass((*[4]*Key)(keyList), make([]uint64, 4), 33) }, "halves over 32 bits")
	})
}

func feistelReference(t *testing.T, raws [][16]byte, v uint64, h uint) uint64 {
	mask := uint64(1)<<h - 1
	l, r := v>>h, v&mask
	for _, raw := range raws {
		c, err := aes.NewCipher(raw[:])
		require.NoError(t, err)
		var block [16]byte
		binary.LittleEndian.PutUint64(block[:], r)
		c.Encrypt(block[:], block[:])
		l, r = r, l^binary.LittleEndian.Uint64(block[:])&mask
	}
	return l<<h | r
}
