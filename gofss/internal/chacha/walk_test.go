package chacha

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/guardmem"
	"github.com/pyfss/pyfss/gofss/internal/pathtest"
)

// levelExpand writes the outputs of side w.Sides[i] of seed, for w.Mul, to out: the
// seed output, then for mul 4 the value output.
type levelExpand func(out, seed []byte, w *Walk, i int)

// walkLevels is WalkOne's definition, one level at a time, with the PRG step given
// by expand and buf (48 bytes) to work in. It writes w.Values and w.Bits for mul 4.
func walkLevels(w *Walk, seed [16]byte, t uint8, expand levelExpand, buf []byte) ([16]byte, uint8) {
	cur, out := buf[:BlockSize], buf[BlockSize:]
	copy(cur, seed[:])
	for i, side := range w.Sides {
		expand(out, cur, w, i)
		row := w.Rows[2*BlockSize*i:]
		corr := row[:BlockSize:BlockSize]
		ctrl := corr[12] & 1
		if side == 1 {
			ctrl = row[w.TrByte] & 1
		}
		if w.Mul == 4 {
			copy(w.Values[BlockSize*i:], out[BlockSize:])
			w.Bits[i] = t
		}
		if t == 1 {
			for j := range cur {
				cur[j] = out[j] ^ corr[j]
			}
			cur[12] = cur[12]&^1 | (out[12]^ctrl)&1
		} else {
			copy(cur, out[:BlockSize])
		}
		t = cur[12] & 1
		cur[12] &^= 1
	}
	return [16]byte(cur), t
}

// permuteLevel is levelExpand from the portable permutation: the outputs of side s
// of mul 2 are row s, those of mul 4 rows 2s and 2s+1.
func permuteLevel(nonce [2]uint32) levelExpand {
	return func(out, seed []byte, w *Walk, i int) {
		rows := permute(loadSeed(seed), nonce, w.Mul)
		h := w.Mul / 2
		for j := range h {
			storeRow(out[BlockSize*j:], rows[int(w.Sides[i])*h+j])
		}
	}
}

// newWalk returns a random walk of n levels whose buffers end where readable memory
// ends, so that an over-read or over-write faults.
func newWalk(t testing.TB, rng *rand.Rand, n, mul, tr int) *Walk {
	w := &Walk{Rows: guardmem.EndOfMapping(t, 2*BlockSize*n), Sides: guardmem.EndOfMapping(t, n), Mul: mul, TrByte: tr}
	fillRandom(rng, w.Rows)
	for i := range w.Sides {
		w.Sides[i] = byte(rng.IntN(2))
	}
	if mul == 4 {
		w.Values = guardmem.EndOfMapping(t, BlockSize*n)
		w.Bits = guardmem.EndOfMapping(t, n)
		fillRandom(rng, w.Values)
		fillRandom(rng, w.Bits)
	}
	return w
}

func TestWalkOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		// The portable backend and NEON have no walk routine.
		if Backend() == Generic || Backend() == "neon" {
			_, _, ok := WalkOne(&Walk{Mul: 2, TrByte: 16}, [2]uint32{}, [16]byte{}, 0)
			assert.False(t, ok, "backend %s has no walk routine", Backend())
			return
		}
		for _, mul := range []int{2, 4} {
			for _, tr := range []int{16, 28} {
				for _, n := range []int{0, 1, 2, 20, 64, 128} {
					t.Run(fmt.Sprintf("mul%d/tr%d/n%d", mul, tr, n), func(t *testing.T) {
						for range 8 {
							w := newWalk(t, rng, n, mul, tr)
							nonce := [2]uint32{rng.Uint32(), rng.Uint32()}
							var seed [16]byte
							fillRandom(rng, seed[:])
							seed[12] &^= 1
							t0 := uint8(rng.IntN(2))

							ref := *w
							if mul == 4 {
								ref.Values = make([]byte, len(w.Values))
								ref.Bits = make([]byte, len(w.Bits))
							}
							wantLeaf, wantT := walkLevels(&ref, seed, t0, permuteLevel(nonce), make([]byte, 3*BlockSize))

							leaf, tOut, ok := WalkOne(w, nonce, seed, t0)
							require.True(t, ok)
							require.Equal(t, wantLeaf, leaf, "leaf seed")
							require.Equal(t, wantT, tOut, "leaf control bit")
							require.Equal(t, ref.Values, w.Values, "Values")
							require.Equal(t, ref.Bits, w.Bits, "Bits")
						}
					})
				}
			}
		}
	})
}

func TestWalkOneChecksArguments(t *testing.T) {
	for name, w := range map[string]*Walk{
		"mul 3":            {Mul: 3},
		"short rows":       {Rows: make([]byte, 31), Sides: make([]byte, 1), Mul: 2, TrByte: 16},
		"values for DPF":   {Rows: make([]byte, 32), Sides: make([]byte, 1), Mul: 2, TrByte: 16, Values: make([]byte, 16)},
		"no bits for DCF":  {Rows: make([]byte, 32), Sides: make([]byte, 1), Mul: 4, TrByte: 28, Values: make([]byte, 16)},
		"TrByte past row":  {Rows: make([]byte, 32), Sides: make([]byte, 1), Mul: 2, TrByte: 32},
		"negative TrByte":  {Mul: 2, TrByte: -1},
		"short DCF values": {Rows: make([]byte, 64), Sides: make([]byte, 2), Mul: 4, TrByte: 28, Values: make([]byte, 16), Bits: make([]byte, 2)},
	} {
		assert.Panics(t, func() { WalkOne(w, [2]uint32{}, [16]byte{}, 0) }, name)
	}
}
