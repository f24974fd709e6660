package chacha

import (
	"bytes"
	"encoding/binary"
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
		Nodes: guardmem.EndOfMapping(t, lanes*BlockSize), Paths: guardmem.EndOfMapping(t, lanes*BlockSize), Levels: n,
		Rows: guardmem.EndOfMapping(t, keys*2*BlockSize*n), Offs: make([]int32, lanes), Mul: mul, TrByte: tr,
	}
	fillRandom(rng, w.Nodes)
	fillRandom(rng, w.Rows)
	// The bits past a path's first n are random too: the walk must not read them.
	fillRandom(rng, w.Paths)
	for j := range w.Offs {
		// The last lane takes the last key, whose rows end at the end of Rows.
		k := keys - 1
		if j < lanes-1 {
			k = rng.IntN(keys)
		}
		w.Offs[j] = int32(k * 2 * BlockSize * n)
	}
	// Rows to fetch for a next call: the walk must leave the results alone.
	if n >= 2 {
		w.Next = make([]int32, lanes)
		for j := range w.Next {
			w.Next[j] = int32(rng.IntN(keys) * 2 * BlockSize * n)
		}
	}
	// Rows to fetch ahead, of any length (odd line counts, part lines) or none: the
	// walk must leave the results alone.
	if rng.IntN(4) > 0 {
		w.Ahead = w.Rows[rng.IntN(len(w.Rows)+1):]
	}
	if mul == 4 {
		w.Sums = guardmem.EndOfMapping(t, lanes*BlockSize)
		fillRandom(rng, w.Sums)
		w.Arith = randomArith(rng)
	}
	return w
}

// randomArith returns random masks, each 8-byte half adding by XOR or by 64-bit
// addition, as a group's halves do (a mix within a half would not be associative).
func randomArith(rng *rand.Rand) *Arith {
	a := &Arith{}
	fillRandom(rng, a.From[:])
	for h := 0; h < BlockSize; h += 8 {
		mode := &a.Xor
		if rng.IntN(2) == 1 {
			mode = &a.Add
		}
		copy(mode[h:h+8], bytes.Repeat([]byte{0xff}, 8))
	}
	return a
}

// addTerm is sum + (term AND a.From) in a's arithmetic.
func addTerm(a *Arith, sum, term []byte) {
	for h := 0; h < BlockSize; h += 8 {
		x := binary.LittleEndian.Uint64(sum[h:])
		y := binary.LittleEndian.Uint64(term[h:]) & binary.LittleEndian.Uint64(a.From[h:])
		r := (x^y)&binary.LittleEndian.Uint64(a.Xor[h:]) | (x+y)&binary.LittleEndian.Uint64(a.Add[h:])
		binary.LittleEndian.PutUint64(sum[h:], r)
	}
}

// lanePath is point j's walk of w in WalkOne's terms.
func lanePath(w *Points, j, n int) *Walk {
	lw := &Walk{Rows: w.Rows[w.Offs[j]:][:2*BlockSize*n], Sides: make([]byte, n), Mul: w.Mul, TrByte: w.TrByte}
	path := w.Paths[j*BlockSize:][:BlockSize]
	for i := range n {
		bit := 127 - i
		lw.Sides[i] = path[bit/8] >> (bit % 8) & 1
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
		for chunks := 1; chunks <= PointChunks(); chunks++ {
			for _, mul := range []int{2, 4} {
				for _, tr := range []int{16, 28} {
					for _, n := range []int{0, 1, 2, 3, 20, 63, 64, 128} {
						t.Run(fmt.Sprintf("chunks%d/mul%d/tr%d/n%d", chunks, mul, tr, n), func(t *testing.T) {
							testWalkPoints(t, rng, chunks*lanes, n, mul, tr)
						})
					}
				}
			}
		}
	})
}

// testWalkPoints walks 4 sets of random points, lanes of them, of n levels and checks
// each lane against the portable walk.
func testWalkPoints(t *testing.T, rng *rand.Rand, lanes, n, mul, tr int) {
	for i := range 4 {
		w := newPoints(t, rng, lanes, n, mul, tr)
		if mul == 2 && i%2 == 0 && n > 0 {
			oneBitInSecondBlocks(rng, w)
		}
		nonce := [2]uint32{rng.Uint32(), rng.Uint32()}
		roots := append([]byte(nil), w.Nodes...)
		prior := rng.Uint64() & 0xf0f0
		w.RowsOr = prior
		WalkPoints(w, nonce)
		rowsOr := prior
		for j := range lanes {
			lw := lanePath(w, j, n)
			var seed [16]byte
			copy(seed[:], roots[j*BlockSize:])
			t0 := seed[12] & 1
			seed[12] &^= 1
			leaf, tOut := walkLevels(lw, seed, t0, permuteLevel(nonce), make([]byte, 3*BlockSize))
			leaf[12] |= tOut
			require.Equal(t, leaf[:], w.Nodes[j*BlockSize:][:BlockSize], "point %d: leaf", j)
			for i := range n {
				row := lw.Rows[i*2*BlockSize+BlockSize:]
				if mul == 2 {
					rowsOr |= binary.LittleEndian.Uint64(row)&^1 | binary.LittleEndian.Uint64(row[8:])
				}
			}
			if mul == 4 {
				sum := make([]byte, BlockSize)
				for i, t := range lw.Bits {
					addTerm(w.Arith, sum, lw.Values[i*BlockSize:])
					if t == 1 {
						addTerm(w.Arith, sum, lw.Rows[i*2*BlockSize+BlockSize:])
					}
				}
				require.Equal(t, sum, w.Sums[j*BlockSize:][:BlockSize], "point %d: sum", j)
			}
		}
		require.Equal(t, rowsOr, w.RowsOr, "RowsOr")
	}
}

// oneBitInSecondBlocks clears the second blocks of w's rows but for one bit of a row
// that a random lane reads: random rows OR to nearly all ones, under which a RowsOr
// that takes in the wrong bytes (first blocks, say) would pass unseen.
func oneBitInSecondBlocks(rng *rand.Rand, w *Points) {
	for r := 0; r < len(w.Rows); r += 2 * BlockSize {
		clear(w.Rows[r+BlockSize : r+2*BlockSize])
	}
	row := int(w.Offs[rng.IntN(len(w.Offs))]) + rng.IntN(w.Levels)*2*BlockSize
	bit := rng.IntN(8 * BlockSize)
	w.Rows[row+BlockSize+bit/8] |= 1 << (bit % 8)
}

func TestWalkPointsChecksArguments(t *testing.T) {
	lanes := PointLanes()
	if lanes == 0 {
		t.Skip("no point walk on this backend")
	}
	ok := func() *Points {
		return &Points{
			Nodes: make([]byte, lanes*BlockSize), Paths: make([]byte, lanes*BlockSize), Levels: 1, Rows: make([]byte, 64),
			Offs: make([]int32, lanes), Mul: 2, TrByte: 16,
		}
	}
	assert.NotPanics(t, func() { WalkPoints(ok(), [2]uint32{}) })
	for name, change := range map[string]func(w *Points){
		"mul 3":       func(w *Points) { w.Mul = 3 },
		"short nodes": func(w *Points) { w.Nodes = w.Nodes[1:] },
		"short paths": func(w *Points) { w.Paths = w.Paths[1:] },
		"short next":  func(w *Points) { w.Next = make([]int32, lanes-1) },
		"next past rows": func(w *Points) {
			w.Next = make([]int32, lanes)
			w.Next[lanes-1] = 1
		},
		"part of a chunk": func(w *Points) {
			w.Nodes, w.Paths, w.Offs = w.Nodes[BlockSize:], w.Paths[BlockSize:], w.Offs[1:]
		},
		"too many chunks": func(w *Points) {
			m := (PointChunks() + 1) * lanes
			w.Nodes, w.Paths, w.Offs = make([]byte, m*BlockSize), make([]byte, m*BlockSize), make([]int32, m)
		},
		"negative levels":  func(w *Points) { w.Levels = -1 },
		"129 levels":       func(w *Points) { w.Levels, w.Rows = 129, make([]byte, 129*64) },
		"short offs":       func(w *Points) { w.Offs = w.Offs[1:] },
		"offset past rows": func(w *Points) { w.Offs[lanes-1] = 33 },
		"negative offset":  func(w *Points) { w.Offs[0] = -32 },
		"TrByte unaligned": func(w *Points) { w.TrByte = 17 },
		"TrByte past row":  func(w *Points) { w.TrByte = 32 },
		"sums for DPF":     func(w *Points) { w.Sums = make([]byte, lanes*BlockSize) },
		"no sums for DCF":  func(w *Points) { w.Mul, w.Arith = 4, &Arith{} },
		"no arith for DCF": func(w *Points) { w.Mul, w.Sums = 4, make([]byte, lanes*BlockSize) },
	} {
		w := ok()
		change(w)
		assert.Panics(t, func() { WalkPoints(w, [2]uint32{}) }, name)
	}
}

func TestExpandChildren(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, leaves := range []bool{false, true} {
			for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 33, 48, 100} {
				src := guardmem.EndOfMapping(t, n*BlockSize)
				dst := guardmem.EndOfMapping(t, 2*n*BlockSize)
				fillRandom(rng, src)
				fillRandom(rng, dst)
				var cws [2][16]byte
				fillRandom(rng, cws[0][:])
				fillRandom(rng, cws[1][:])
				var leaf *Leaf
				if leaves {
					leaf = &Leaf{Arith: *randomArith(rng)}
					fillRandom(rng, leaf.Neg[:])
					fillRandom(rng, leaf.Value[:])
				}
				nonce := [2]uint32{rng.Uint32(), rng.Uint32()}
				ExpandChildren(dst, src, nonce, &cws, leaf)
				for i := range n {
					seed := loadSeed(src[i*BlockSize:])
					t0 := seed[3] & 1
					seed[3] &^= 1
					rows := permute(seed, nonce, 2)
					for c := range 2 {
						want := make([]byte, BlockSize)
						storeRow(want, rows[c])
						if t0 == 1 {
							for b := range want {
								want[b] ^= cws[c][b]
							}
						}
						if leaf != nil {
							leafModel(leaf, want)
						}
						require.Equal(t, want, dst[(2*i+c)*BlockSize:][:BlockSize], "%d nodes: node %d child %d", n, i, c)
					}
				}
			}
		}
	})
	assert.Panics(t, func() { ExpandChildren(make([]byte, 31), make([]byte, 16), [2]uint32{}, &[2][16]byte{}, nil) })
}

// leafModel is Leaf's definition on child b, in place, a half at a time.
func leafModel(l *Leaf, b []byte) {
	var value [BlockSize]byte
	if b[12]&1 == 1 {
		value = l.Value
	}
	for i := range b {
		b[i] &= l.From[i]
	}
	sum := make([]byte, BlockSize)
	addTerm(&Arith{From: [16]byte(bytes.Repeat([]byte{0xff}, 16)), Xor: l.Xor, Add: l.Add}, sum, b)
	addTerm(&Arith{From: [16]byte(bytes.Repeat([]byte{0xff}, 16)), Xor: l.Xor, Add: l.Add}, sum, value[:])
	for h := 0; h < BlockSize; h += 8 {
		x := binary.LittleEndian.Uint64(sum[h:])
		neg := binary.LittleEndian.Uint64(l.Neg[h:])
		binary.LittleEndian.PutUint64(b[h:], (0-x)&neg|x&^neg)
	}
}

func TestExpandDcfChildren(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	all := [16]byte(bytes.Repeat([]byte{0xff}, 16))
	pathtest.Each(t, Backends(), SetBackend, func(t *testing.T) {
		for _, leaf := range []bool{false, true} {
			for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 33, 48, 100} {
				src, srcV := guardmem.EndOfMapping(t, n*BlockSize), guardmem.EndOfMapping(t, n*BlockSize)
				dst, dstV := guardmem.EndOfMapping(t, 2*n*BlockSize), guardmem.EndOfMapping(t, 2*n*BlockSize)
				for _, b := range [][]byte{src, srcV, dst, dstV} {
					fillRandom(rng, b)
				}
				l := &DcfLevel{Arith: *randomArith(rng), Leaf: leaf}
				for _, b := range [][]byte{l.Cws[0][:], l.Cws[1][:], l.Cws[2][:], l.Neg[:], l.Last[:]} {
					fillRandom(rng, b)
				}
				values := dstV
				if leaf {
					values = nil
				}
				nonce := [2]uint32{rng.Uint32(), rng.Uint32()}
				ExpandDcfChildren(dst, values, src, srcV, nonce, l)
				plain := &Arith{From: all, Xor: l.Xor, Add: l.Add}
				for i := range n {
					seed := loadSeed(src[i*BlockSize:])
					t0 := seed[3] & 1
					seed[3] &^= 1
					rows := permute(seed, nonce, 4)
					for c := range 2 {
						child, v := make([]byte, BlockSize), make([]byte, BlockSize)
						storeRow(child, rows[2*c])
						raw := make([]byte, BlockSize)
						storeRow(raw, rows[2*c+1])
						copy(v, srcV[i*BlockSize:])
						addTerm(&l.Arith, v, raw)
						if t0 == 1 {
							for b := range child {
								child[b] ^= l.Cws[c][b]
							}
							addTerm(plain, v, l.Cws[2][:])
						}
						got := dst[(2*i+c)*BlockSize:][:BlockSize]
						if !leaf {
							require.Equal(t, child, got, "%d nodes: node %d child %d", n, i, c)
							require.Equal(t, v, dstV[(2*i+c)*BlockSize:][:BlockSize], "%d nodes: node %d child %d value", n, i, c)
							continue
						}
						if child[12]&1 == 1 {
							addTerm(plain, v, l.Last[:])
						}
						addTerm(&l.Arith, v, child)
						for h := 0; h < BlockSize; h += 8 {
							x, neg := binary.LittleEndian.Uint64(v[h:]), binary.LittleEndian.Uint64(l.Neg[h:])
							binary.LittleEndian.PutUint64(v[h:], (0-x)&neg|x&^neg)
						}
						require.Equal(t, v, got, "%d nodes: node %d child %d output", n, i, c)
					}
				}
			}
		}
	})
}
