package chacha

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/cpupath"
	"github.com/pyfss/pyfss/gofss/internal/guardmem"
	"github.com/pyfss/pyfss/gofss/internal/pathtest"
)

func TestBackends(t *testing.T) {
	names := Backends()
	require.NotEmpty(t, names)
	assert.Equal(t, "generic", names[len(names)-1], "the portable backend comes last")
	want := names[0]
	if forced := os.Getenv(cpupath.EnvVar("chacha")); forced != "" {
		want = forced
	}
	assert.Equal(t, want, Backend(), "the fastest supported backend is the default, unless the environment names one")
	_, err := SetBackend("no-such-backend")
	assert.Error(t, err)
}

// prgVector is one entry of the "prg" section of primitives.json.
type prgVector struct {
	Prg struct {
		Name   string   `json:"name"`
		Mul    int      `json:"mul"`
		Rounds int      `json:"rounds"`
		Nonce  [2]int32 `json:"nonce"`
	} `json:"prg"`
	Vectors []struct {
		Seed [4]int32   `json:"seed"`
		Out  [][4]int32 `json:"out"`
	} `json:"vectors"`
}

func loadChachaVectors(t *testing.T) []prgVector {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "vectors", "primitives.json"))
	require.NoError(t, err)
	var file struct {
		Cases []struct {
			Prg []prgVector `json:"prg"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	var out []prgVector
	for _, c := range file.Cases {
		for _, p := range c.Prg {
			if p.Prg.Name == "chacha" {
				require.Equal(t, 20, p.Prg.Rounds)
				out = append(out, p)
			}
		}
	}
	require.Len(t, out, 3, "want chacha vectors for mul 1, 2 and 4")
	return out
}

func blockBytes(words [4]int32) []byte {
	b := make([]byte, BlockSize)
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(w))
	}
	return b
}

// TestVectors checks every backend against the reference library's outputs, for
// the first k seeds of an entry in one call for every k, so that the SIMD backends
// run them through the rows routine and through a padded chunk.
func TestVectors(t *testing.T) {
	entries := loadChachaVectors(t)
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, e := range entries {
			mul := e.Prg.Mul
			nonce := [2]uint32{uint32(e.Prg.Nonce[0]), uint32(e.Prg.Nonce[1])}
			var src, want []byte
			for _, v := range e.Vectors {
				require.Len(t, v.Out, mul)
				src = append(src, blockBytes(v.Seed)...)
				for _, o := range v.Out {
					want = append(want, blockBytes(o)...)
				}
			}
			// ExpandSelect picks half of each seed's outputs: alternate the halves.
			h := mul / 2
			sel := make([]byte, len(e.Vectors))
			var wantSel []byte
			for i := range sel {
				sel[i] = byte(i % 2)
				half := want[(i*mul+int(sel[i])*h)*BlockSize:]
				wantSel = append(wantSel, half[:h*BlockSize]...)
			}
			for k := 1; k <= len(e.Vectors); k++ {
				got := make([]byte, k*mul*BlockSize)
				Expand(got, src[:k*BlockSize], nonce, mul)
				assert.Equal(t, want[:len(got)], got, "Expand mul %d, %d seeds", mul, k)
				if mul == 1 {
					continue
				}
				got = make([]byte, k*h*BlockSize)
				ExpandSelect(got, src[:k*BlockSize], nonce, mul, sel[:k])
				assert.Equal(t, wantSel[:len(got)], got, "ExpandSelect mul %d, %d seeds", mul, k)
			}
		}
	})
}

// counts are the batch sizes to test: every size up to two chunks of 16 seeds, so
// that each backend runs every tail after whole chunks (through the rows routine or a
// padded chunk) and the rows routine every group of seeds; three and four chunks with
// and without a tail (AVX-512 takes chunks in pairs, then an odd one alone); and a
// large batch.
var counts = func() []int {
	c := []int{48, 49, 63, 64, 65, 1000}
	for n := range 34 {
		c = append(c, n)
	}
	return c
}()

const guard = 64

// guardedDst returns a dst of n bytes with guard bytes on both sides, and a check
// that they are intact.
func guardedDst(t *testing.T, n int) ([]byte, func()) {
	buf := make([]byte, n+2*guard)
	for i := range buf {
		buf[i] = 0xA5
	}
	return buf[guard : guard+n : guard+n], func() {
		for _, g := range [][]byte{buf[:guard], buf[guard+n:]} {
			require.Equal(t, bytes.Repeat([]byte{0xA5}, guard), g, "write outside dst")
		}
	}
}

// TestMatchesPortable runs every backend and the portable path on the same random
// inputs. src and sel end where readable memory ends, so an over-read faults.
func TestMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, n := range counts {
			for _, mul := range []int{1, 2, 4} {
				t.Run(fmt.Sprintf("n%d/mul%d", n, mul), func(t *testing.T) {
					nonce := [2]uint32{rng.Uint32(), rng.Uint32()}
					src := guardmem.EndOfMapping(t, n*BlockSize)
					fillRandom(rng, src)

					want := make([]byte, n*mul*BlockSize)
					expandGeneric(want, src, nonce, mul)
					got, check := guardedDst(t, len(want))
					Expand(got, src, nonce, mul)
					check()
					require.Equal(t, want, got, "Expand")

					if mul == 1 {
						return
					}
					h := mul / 2
					sel := guardmem.EndOfMapping(t, n)
					for i := range sel {
						sel[i] = byte(rng.IntN(2))
					}
					want = make([]byte, n*h*BlockSize)
					expandSelectGeneric(want, src, nonce, mul, sel)
					got, check = guardedDst(t, len(want))
					ExpandSelect(got, src, nonce, mul, sel)
					check()
					require.Equal(t, want, got, "ExpandSelect")
				})
			}
		}
	})
}

// A sel value above 1 is refused on every backend, and nothing is written.
func TestExpandSelectRefusesBadSel(t *testing.T) {
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, mul := range []int{2, 4} {
			for _, bad := range []byte{2, 3, 0x80, 0xff} {
				src := make([]byte, 5*BlockSize)
				sel := []byte{0, 1, 0, bad, 1}
				dst := make([]byte, 5*mul/2*BlockSize)
				require.PanicsWithValue(t, "chacha: sel values must be 0 or 1", func() {
					ExpandSelect(dst, src, [2]uint32{1, 2}, mul, sel)
				}, "mul %d, sel value %d", mul, bad)
				require.Equal(t, make([]byte, len(dst)), dst, "nothing written")
			}
		}
	})
}

func fillRandom(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}
