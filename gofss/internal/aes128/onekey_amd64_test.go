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

// refEval is EvalWalk's walk; raws are the PRG keys (L, R or SL, VL, SR, VR).
func refEval(raws [][16]byte, w *EvalWalk, s [16]byte, t uint8) ([16]byte, uint8) {
	h := len(raws) / 2
	for i, side := range w.Sides {
		side &= 1
		row := w.Rows[32*i:]
		child := refMMO(raws[int(side)*h], s)
		if w.Values != nil {
			v := refMMO(raws[int(side)*h+1], s)
			copy(w.Values[16*i:], v[:])
			w.Bits[i] = t
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
	for i, a := range w.Sides {
		a &= 1
		var l, r [2][16]byte
		for p := range 2 {
			l[p], r[p] = refMMO(raws[0], seeds[p]), refMMO(raws[h], seeds[p])
			if w.Values != nil {
				vl, vr := refMMO(raws[1], seeds[p]), refMMO(raws[h+1], seeds[p])
				copy(w.Values[64*i+32*p:], vl[:])
				copy(w.Values[64*i+32*p+16:], vr[:])
			}
		}
		if w.Values != nil {
			w.Bits[i] = t[1]
		}
		dl, dr := xorBlocks(l[0], l[1]), xorBlocks(r[0], r[1])
		tl, tr := ctl(dl)^a^1, ctl(dr)^a
		lose, keep, tKeep := dr, l, tl
		if a == 1 {
			lose, keep, tKeep = dl, r, tr
		}
		sCw := withCtl(lose, 0)
		row := w.Rows[32*i:][:32]
		clear(row)
		rowCw := withCtl(sCw, tl)
		copy(row, rowCw[:])
		binary.LittleEndian.PutUint64(row[16:], uint64(tr))
		for p := range 2 {
			child := xorIf(keep[p], withCtl(sCw, tKeep), t[p])
			t[p], seeds[p] = ctl(child), withCtl(child, 0)
		}
	}
	return t[1]
}

func TestWalksMatchReference(t *testing.T) {
	if !HasWalk() {
		t.Skip("no walk routines on this CPU")
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, mul := range []int{2, 4} {
		raws, keys := randomKeys(rng, mul)
		wk := NewWalkKeys(keys)
		for _, n := range []int{1, 2, 7, 20, 64, 128} {
			for range 20 {
				sides := make([]byte, n)
				fillRandom(rng, sides)
				for i := range sides {
					sides[i] &= 0x81 // bit 7 must not count
				}
				var seed [16]byte
				fillRandom(rng, seed[:])
				seed = withCtl(seed, 0)
				tIn := uint8(rng.IntN(2))

				e := EvalWalk{Rows: make([]byte, 32*n), Sides: sides, TrByte: 16}
				fillRandom(rng, e.Rows)
				want := e
				if mul == 4 {
					e.TrByte, want.TrByte = 28, 28
					e.Values, e.Bits = make([]byte, 16*n), make([]byte, n)
					want.Values, want.Bits = make([]byte, 16*n), make([]byte, n)
				}
				gs, gt := wk.Eval(&e, seed, tIn)
				ws, wt := refEval(raws, &want, seed, tIn)
				require.Equal(t, ws, gs, "Eval seed, mul %d, n %d", mul, n)
				require.Equal(t, wt, gt, "Eval t")
				require.Equal(t, want.Values, e.Values)
				require.Equal(t, want.Bits, e.Bits)

				g := GenWalk{Rows: make([]byte, 32*n), Sides: sides}
				fillRandom(rng, g.Rows) // every byte must be written
				gw := GenWalk{Rows: make([]byte, 32*n), Sides: sides}
				if mul == 4 {
					g.Values, g.Bits = make([]byte, 64*n), make([]byte, n)
					gw.Values, gw.Bits = make([]byte, 64*n), make([]byte, n)
				}
				var s2 [2][16]byte
				fillRandom(rng, s2[0][:])
				fillRandom(rng, s2[1][:])
				s2[0], s2[1] = withCtl(s2[0], 0), withCtl(s2[1], 0)
				ref := s2
				require.Equal(t, refGen(raws, &gw, &ref), wk.Gen(&g, &s2), "Gen t1, mul %d, n %d", mul, n)
				require.Equal(t, ref, s2, "Gen seeds")
				require.Equal(t, gw.Rows, g.Rows, "Gen rows")
				require.Equal(t, gw.Values, g.Values)
				require.Equal(t, gw.Bits, g.Bits)
			}
		}
	}
}

func TestWalksRefuseBadLengths(t *testing.T) {
	_, keys := randomKeys(rand.New(rand.NewPCG(1, 2)), 2)
	wk := NewWalkKeys(keys)
	require.Panics(t, func() { wk.Eval(&EvalWalk{Rows: make([]byte, 31), Sides: make([]byte, 1)}, [16]byte{}, 0) })
	require.Panics(t, func() { wk.Eval(&EvalWalk{Rows: make([]byte, 32), Sides: make([]byte, 1), TrByte: 32}, [16]byte{}, 0) })
	require.Panics(t, func() { // value outputs need a 4-output PRG's keys
		wk.Eval(&EvalWalk{Rows: make([]byte, 32), Sides: make([]byte, 1), Values: make([]byte, 16), Bits: make([]byte, 1)}, [16]byte{}, 0)
	})
	require.Panics(t, func() { wk.Gen(&GenWalk{Rows: make([]byte, 64), Sides: make([]byte, 1)}, &[2][16]byte{}) })
	require.Panics(t, func() { NewWalkKeys(keys[:1]) })
}

func BenchmarkWalk(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 20
	for _, mul := range []int{2, 4} {
		_, keys := randomKeys(rng, mul)
		wk := NewWalkKeys(keys)
		e := EvalWalk{Rows: make([]byte, 32*n), Sides: make([]byte, n), TrByte: 16}
		g := GenWalk{Rows: make([]byte, 32*n), Sides: make([]byte, n)}
		fillRandom(rng, e.Rows)
		fillRandom(rng, e.Sides)
		g.Sides = e.Sides
		if mul == 4 {
			e.TrByte, e.Values, e.Bits = 28, make([]byte, 16*n), make([]byte, n)
			g.Values, g.Bits = make([]byte, 64*n), make([]byte, n)
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
