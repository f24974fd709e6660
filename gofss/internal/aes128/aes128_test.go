package aes128

import (
	"bytes"
	"crypto/aes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/guardmem"
	"github.com/pyfss/pyfss/gofss/internal/pathtest"

	"github.com/pyfss/pyfss/gofss/internal/kat"
)

func TestBackends(t *testing.T) {
	names := Backends()
	require.NotEmpty(t, names)
	assert.Equal(t, "generic", names[len(names)-1], "the portable backend comes last")
	assert.Equal(t, names[0], Backend(), "the fastest supported backend is the default")
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

var counts = []int{0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 64, 1000}

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
			for _, mul := range []int{0, 1, 2, 3, 4} {
				t.Run(fmt.Sprintf("MMO/n%d/keys%d", n, mul), func(t *testing.T) {
					raws, keys := randomKeys(rng, mul)
					src := guardmem.EndOfMapping(t, n*BlockSize)
					fillRandom(rng, src)
					want := reference(t, raws, src, mul, func(_, j int) int { return j })
					got, check := guardedDst(t, len(want))
					MMO(keys, got, src)
					check()
					require.Equal(t, want, got)
				})
			}
			for _, nkeys := range []int{2, 4, 6} {
				t.Run(fmt.Sprintf("MMOSelect/n%d/keys%d", n, nkeys), func(t *testing.T) {
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
					MMOSelect(keys, got, src, sel)
					check()
					require.Equal(t, want, got)
				})
			}
		}
	})
}

// TestSelectRejectsBadSel: a sel value other than 0 or 1 would name a key outside
// keys, so every backend must refuse it, wherever it sits in the batch.
func TestSelectRejectsBadSel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, n := range []int{1, 9, 40, 100} {
			for _, nkeys := range []int{2, 4} {
				for _, at := range []int{0, n / 2, n - 1} {
					_, keys := randomKeys(rng, nkeys)
					src := make([]byte, n*BlockSize)
					dst := make([]byte, len(src)*nkeys/2)
					sel := make([]byte, n)
					sel[at] = 2
					assert.Panics(t, func() { MMOSelect(keys, dst, src, sel) }, "n %d keys %d at %d", n, nkeys, at)
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
