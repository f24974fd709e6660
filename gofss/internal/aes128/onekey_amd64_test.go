//go:build amd64 && !purego

package aes128

import (
	"crypto/aes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The walk routines against the walks their doc comments describe, run a block at a
// time with crypto/aes, on random rows, seeds and sides (side bytes with bits above
// bit 0 set too, which the routines ignore).

func refMMO(raw [16]byte, s [16]byte) [16]byte {
	c, err := aes.NewCipher(raw[:])
	if err != nil {
		panic(err)
	}
	var out [16]byte
	c.Encrypt(out[:], s[:])
	for i := range out {
		out[i] ^= s[i]
	}
	return out
}

func ctl(b [16]byte) uint8 { return b[12] & 1 }

func withCtl(b [16]byte, t uint8) [16]byte {
	b[12] = b[12]&^1 | t
	return b
}

func xorIf(b, c [16]byte, t uint8) [16]byte {
	if t == 1 {
		for i := range b {
			b[i] ^= c[i]
		}
	}
	return b
}

func xorBlocks(b, c [16]byte) [16]byte { return xorIf(b, c, 1) }

// laneOp is x + y (x - y with sub) in l's group, a 64-bit half at a time.
func laneOp(l *Lanes, x, y [16]byte, sub bool) [16]byte {
	var out [16]byte
	for h := 0; h < 16; h += 8 {
		a, b := binary.LittleEndian.Uint64(x[h:]), binary.LittleEndian.Uint64(y[h:])
		s := a + b
		if sub {
			s = a - b
		}
		xm, am := binary.LittleEndian.Uint64(l.Xor[h:]), binary.LittleEndian.Uint64(l.Add[h:])
		binary.LittleEndian.PutUint64(out[h:], (a^b)&xm|s&am)
	}
	return out
}

func value(l *Lanes, b [16]byte) [16]byte {
	for i := range b {
		b[i] &= l.From[i]
	}
	return b
}

// side is level i's bit of path p.
func side(p Path, i int) uint8 {
	if i < 64 {
		return uint8(p.Hi >> (63 - i) & 1)
	}
	return uint8(p.Lo >> (127 - i) & 1)
}

// dpfRows clears the rows' bytes 16-31 but tr (bit 0 of byte 16), as in a DPF key,
// then sets one random bit among them in a random row, or none.
func dpfRows(rng *rand.Rand, rows []byte) {
	for r := 0; r < len(rows); r += 32 {
		clear(rows[r+17 : r+32])
		rows[r+16] &= 1
	}
	if rng.IntN(2) == 0 {
		b := 32*rng.IntN(len(rows)/32) + 16 + rng.IntN(16)
		rows[b] |= 1 << rng.IntN(8)
	}
}

// refEval is EvalWalk's walk; raws are the PRG keys (L, R or SL, VL, SR, VR).
func refEval(raws [][16]byte, w *EvalWalk, s [16]byte, t uint8) ([16]byte, uint8) {
	h := len(raws) / 2
	w.Sum = [16]byte{}
	for i := range len(w.Rows) / 32 {
		side := side(w.Path, i)
		row := w.Rows[32*i:]
		child := refMMO(raws[int(side)*h], s)
		if w.Lanes != nil {
			v := value(w.Lanes, refMMO(raws[int(side)*h+1], s))
			v = laneOp(w.Lanes, v, xorIf([16]byte{}, value(w.Lanes, [16]byte(row[16:32])), t), false)
			w.Sum = laneOp(w.Lanes, w.Sum, v, false)
		} else {
			for b := range 16 {
				w.Sum[b] |= row[16+b]
			}
		}
		cw := [16]byte(row[:16])
		if side == 1 {
			cw = withCtl(cw, row[w.TrByte]&1)
		}
		child = xorIf(child, cw, t)
		t, s = ctl(child), withCtl(child, 0)
	}
	return s, t
}

// refGen is GenWalk's walk.
func refGen(raws [][16]byte, w *GenWalk, seeds *[2][16]byte) uint8 {
	h := len(raws) / 2
	t := [2]uint8{0, 1}
	var sum [16]byte
	for i := range len(w.Rows) / 32 {
		a := side(w.Path, i)
		var l, r, vl, vr [2][16]byte
		for p := range 2 {
			l[p], r[p] = refMMO(raws[0], seeds[p]), refMMO(raws[h], seeds[p])
			if w.Lanes != nil {
				vl[p], vr[p] = value(w.Lanes, refMMO(raws[1], seeds[p])), value(w.Lanes, refMMO(raws[h+1], seeds[p]))
			}
		}
		dl, dr := xorBlocks(l[0], l[1]), xorBlocks(r[0], r[1])
		tl, tr := ctl(dl)^a^1, ctl(dr)^a
		lose, keep, tKeep := dr, l, tl
		vLose, vKeep := vr, vl
		if a == 1 {
			lose, keep, tKeep = dl, r, tr
			vLose, vKeep = vl, vr
		}
		sCw := withCtl(lose, 0)
		row := w.Rows[32*i:][:32]
		clear(row)
		rowCw := withCtl(sCw, tl)
		copy(row, rowCw[:])
		if w.Lanes == nil {
			binary.LittleEndian.PutUint64(row[16:], uint64(tr))
		} else {
			g := w.Lanes
			d := laneOp(g, laneOp(g, vLose[1], vLose[0], true), w.Beta[a], false)
			word := laneOp(g, d, sum, true)
			if t[1] == 1 {
				word = laneOp(g, [16]byte{}, word, true)
			}
			sum = laneOp(g, d, laneOp(g, vKeep[0], vKeep[1], true), false)
			word[12] |= tr
			copy(row[16:], word[:])
		}
		for p := range 2 {
			child := xorIf(keep[p], withCtl(sCw, tKeep), t[p])
			t[p], seeds[p] = ctl(child), withCtl(child, 0)
		}
	}
	w.Sum = sum
	return t[1]
}

// testLanes are the groups' lane masks (bytes, uint32, uint64) and a random set.
func testLanes(rng *rand.Rand) []*Lanes {
	ones, low32, low64 := [16]byte{}, [16]byte{}, [16]byte{}
	for i := range ones {
		ones[i] = 0xff
	}
	bytesFrom := ones
	bytesFrom[12] = 0xfe
	copy(low32[:4], ones[:])
	copy(low64[:8], ones[:])
	random := &Lanes{}
	fillRandom(rng, random.From[:])
	fillRandom(rng, random.Xor[:])
	fillRandom(rng, random.Add[:])
	random.From[12] &^= 1 // a group's values leave the control bit clear
	return []*Lanes{{From: bytesFrom, Xor: ones}, {From: low32, Add: low32}, {From: low64, Add: low64}, random}
}

func randomPath(rng *rand.Rand) Path { return Path{rng.Uint64(), rng.Uint64()} }

func TestWalksMatchReference(t *testing.T) {
	if !HasWalk() {
		t.Skip("no walk routines on this CPU")
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, mul := range []int{2, 4} {
		raws, keys := randomKeys(rng, mul)
		wk := NewWalkKeys(keys)
		lanes := []*Lanes{nil}
		if mul == 4 {
			lanes = testLanes(rng)
		}
		for _, g := range lanes {
			for _, n := range []int{1, 2, 7, 20, 64, 65, 128} {
				for range 20 {
					path := randomPath(rng) // the bits below the n levels' must not count
					var seed [16]byte
					fillRandom(rng, seed[:]) // its control bit must not count
					tIn := uint8(rng.IntN(2))

					e := EvalWalk{Rows: make([]byte, 32*n), Path: path, TrByte: 16, Lanes: g}
					fillRandom(rng, e.Rows)
					if mul == 4 {
						e.TrByte = 28
					}
					if g == nil && rng.IntN(2) == 0 {
						dpfRows(rng, e.Rows) // the OR in Sum shows one stray bit or none
					}
					fillRandom(rng, e.Sum[:]) // must start from zero
					want := e
					gs, gt := wk.Eval(&e, seed, tIn)
					ws, wt := refEval(raws, &want, withCtl(seed, 0), tIn)
					require.Equal(t, ws, gs, "Eval seed, mul %d, n %d", mul, n)
					require.Equal(t, wt, gt, "Eval t")
					require.Equal(t, want.Sum, e.Sum, "Eval sum")

					g2 := GenWalk{Rows: make([]byte, 32*n), Path: path, Lanes: g}
					fillRandom(rng, g2.Rows) // every byte must be written
					fillRandom(rng, g2.Beta[0][:])
					fillRandom(rng, g2.Beta[1][:])
					gw := g2
					gw.Rows = make([]byte, 32*n)
					var s2 [2][16]byte
					fillRandom(rng, s2[0][:])
					fillRandom(rng, s2[1][:])
					ref := [2][16]byte{withCtl(s2[0], 0), withCtl(s2[1], 0)}
					require.Equal(t, refGen(raws, &gw, &ref), wk.Gen(&g2, &s2), "Gen t1, mul %d, n %d", mul, n)
					require.Equal(t, ref, s2, "Gen seeds")
					require.Equal(t, gw.Rows, g2.Rows, "Gen rows")
					require.Equal(t, gw.Sum, g2.Sum, "Gen sum")
				}
			}
		}
	}
}

func TestWalksRefuseBadLengths(t *testing.T) {
	_, keys := randomKeys(rand.New(rand.NewPCG(1, 2)), 2)
	wk := NewWalkKeys(keys)
	require.Panics(t, func() { wk.Eval(&EvalWalk{Rows: make([]byte, 31)}, [16]byte{}, 0) })
	require.Panics(t, func() { wk.Eval(&EvalWalk{Rows: make([]byte, 32), TrByte: 32}, [16]byte{}, 0) })
	require.Panics(t, func() { wk.Eval(&EvalWalk{Rows: make([]byte, 32)}, [16]byte{}, 2) })
	// value outputs need a 4-output PRG's keys
	require.Panics(t, func() { wk.Eval(&EvalWalk{Rows: make([]byte, 32), Lanes: &Lanes{}}, [16]byte{}, 0) })
	require.Panics(t, func() { wk.Gen(&GenWalk{Rows: make([]byte, 33)}, &[2][16]byte{}) })
	require.Panics(t, func() { wk.Gen(&GenWalk{Rows: make([]byte, 32), Lanes: &Lanes{}}, &[2][16]byte{}) })
	require.Panics(t, func() { NewWalkKeys(keys[:1]) })
}

func BenchmarkWalk(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 20
	for _, mul := range []int{2, 4} {
		_, keys := randomKeys(rng, mul)
		wk := NewWalkKeys(keys)
		e := EvalWalk{Rows: make([]byte, 32*n), Path: randomPath(rng), TrByte: 16}
		g := GenWalk{Rows: make([]byte, 32*n), Path: e.Path}
		fillRandom(rng, e.Rows)
		if mul == 4 {
			lanes := testLanes(rng)[2] // uint64
			e.TrByte, e.Lanes, g.Lanes = 28, lanes, lanes
		}
		b.Run(map[int]string{2: "dpf", 4: "dcf"}[mul]+"/eval", func(b *testing.B) {
			for b.Loop() {
				wk.Eval(&e, [16]byte{1}, 0)
			}
		})
		b.Run(map[int]string{2: "dpf", 4: "dcf"}[mul]+"/gen", func(b *testing.B) {
			var s [2][16]byte
			for b.Loop() {
				s = [2][16]byte{{1}, {2}}
				wk.Gen(&g, &s)
			}
		})
	}
}
