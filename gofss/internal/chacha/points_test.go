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

// newPoints returns random points of n levels whose keys' rows are spread over a
// shared Rows (some lanes sharing a key, as points of one key do), each buffer
// ending where readable memory ends, so that an over-read or over-write faults.
func newPoints(t testing.TB, rng *rand.Rand, lanes, n, mul, tr int) *Points {
	keys := 1 + rng.IntN(lanes)
	w := &Points{
		Nodes: guardmem.EndOfMapping(t, lanes*BlockSize), Sides: guardmem.EndOfMapping(t, n*lanes),
		Rows: guardmem.EndOfMapping(t, keys*2*BlockSize*n), Offs: make([]int32, lanes), Mul: mul, TrByte: tr,
	}
	fillRandom(rng, w.Nodes)
	fillRandom(rng, w.Rows)
	for i := range w.Sides {
		w.Sides[i] = byte(rng.IntN(2))
	}
	for j := range w.Offs {
		// The last lane takes the last key, whose rows end at the end of Rows.
		k := keys - 1
		if j < lanes-1 {
			k = rng.IntN(keys)
		}
		w.Offs[j] = int32(k * 2 * BlockSize * n)
	}
	if mul == 4 {
		w.Values = guardmem.EndOfMapping(t, n*lanes*BlockSize)
		w.Bits = guardmem.EndOfMapping(t, n*lanes/8)
		fillRandom(rng, w.Values)
		fillRandom(rng, w.Bits)
	}
	return w
}

// lanePath is point j's walk of w in WalkOne's terms.
func lanePath(w *Points, j, n int) *Walk {
	lanes := len(w.Offs)
	lw := &Walk{Rows: w.Rows[w.Offs[j]:][:2*BlockSize*n], Sides: make([]byte, n), Mul: w.Mul, TrByte: w.TrByte}
	for i := range n {
		lw.Sides[i] = w.Sides[i*lanes+j]
	}
	if w.Mul == 4 {
		lw.Values, lw.Bits = make([]byte, n*BlockSize), make([]byte, n)
	}
	return lw
}

func TestWalkPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		lanes := PointLanes()
		if lanes == 0 {
			assert.Panics(t, func() { WalkPoints(&Points{Mul: 2, TrByte: 16}, [2]uint32{}) })
			return
		}
		for _, mul := range []int{2, 4} {
			for _, tr := range []int{16, 28} {
				for _, n := range []int{0, 1, 2, 3, 20, 63, 64, 128} {
					t.Run(fmt.Sprintf("mul%d/tr%d/n%d", mul, tr, n), func(t *testing.T) {
						for range 4 {
							w := newPoints(t, rng, lanes, n, mul, tr)
							nonce := [2]uint32{rng.Uint32(), rng.Uint32()}
							roots := append([]byte(nil), w.Nodes...)
							WalkPoints(w, nonce)
							for j := range lanes {
								lw := lanePath(w, j, n)
								var seed [16]byte
								copy(seed[:], roots[j*BlockSize:])
								t0 := seed[12] & 1
								seed[12] &^= 1
								leaf, tOut := walkLevels(lw, seed, t0, permuteLevel(nonce), make([]byte, 3*BlockSize))
								leaf[12] |= tOut
								require.Equal(t, leaf[:], w.Nodes[j*BlockSize:][:BlockSize], "point %d: leaf", j)
								for i := range len(lw.Bits) {
									require.Equal(t, lw.Values[i*BlockSize:][:BlockSize], w.Values[(i*lanes+j)*BlockSize:][:BlockSize], "point %d level %d: value", j, i)
									bit := w.Bits[i*lanes/8+j/8] >> (j % 8) & 1
									require.Equal(t, lw.Bits[i], bit, "point %d level %d: parent control bit", j, i)
								}
							}
						}
					})
				}
			}
		}
	})
}

func TestWalkPointsChecksArguments(t *testing.T) {
	lanes := PointLanes()
	if lanes == 0 {
		t.Skip("no point walk on this backend")
	}
	ok := func() *Points {
		return &Points{
			Nodes: make([]byte, lanes*BlockSize), Sides: make([]byte, lanes), Rows: make([]byte, 64),
			Offs: make([]int32, lanes), Mul: 2, TrByte: 16,
		}
	}
	assert.NotPanics(t, func() { WalkPoints(ok(), [2]uint32{}) })
	for name, change := range map[string]func(w *Points){
		"mul 3":            func(w *Points) { w.Mul = 3 },
		"short nodes":      func(w *Points) { w.Nodes = w.Nodes[1:] },
		"ragged sides":     func(w *Points) { w.Sides = w.Sides[1:] },
		"short offs":       func(w *Points) { w.Offs = w.Offs[1:] },
		"offset past rows": func(w *Points) { w.Offs[lanes-1] = 33 },
		"negative offset":  func(w *Points) { w.Offs[0] = -32 },
		"TrByte unaligned": func(w *Points) { w.TrByte = 17 },
		"TrByte past row":  func(w *Points) { w.TrByte = 32 },
		"values for DPF":   func(w *Points) { w.Values = make([]byte, lanes*BlockSize) },
		"no bits for DCF":  func(w *Points) { w.Mul, w.Values = 4, make([]byte, lanes*BlockSize) },
	} {
		w := ok()
		change(w)
		assert.Panics(t, func() { WalkPoints(w, [2]uint32{}) }, name)
	}
}
