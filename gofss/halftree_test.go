package gofss

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Half-Tree DPF's own checks: the reconstruction, batch and stop-flag properties run
// with the other schemes' in props_test.go and params_test.go.

func TestHalfTreeErrors(t *testing.T) {
	cc1, _ := NewChaCha(1, DefaultNonce)
	cc2, _ := NewChaCha(2, DefaultNonce)
	_, err := NewHalfTreeDpf(8, Bytes, cc2, DefaultHashKey)
	requireArgError(t, err, "prg must have 1 outputs per seed, not 2")
	_, err = NewHalfTreeDpf(129, Bytes, cc1, DefaultHashKey)
	requireArgError(t, err, "in_bits must be between 1 and 128")
	_, err = NewHalfTreeDpf(8, Bytes, cc1, DefaultHashKey, WithImpl("no-such-impl"))
	requireArgError(t, err, "impl must be one of")

	r := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{7, 8} { // odd: no padding block; even: one
		h, err := NewHalfTreeDpf(n, Uint32, cc1, DefaultHashKey)
		require.NoError(t, err)
		rows := h.Params().CwRows()
		require.Equal(t, (n+2)/2, rows)
		seeds := []Block{randBlock(r), randBlock(r)}
		alpha := []Uint128{{Lo: 5}}
		cws := make([]Cw, rows)
		requireArgError(t, h.Gen(cws[:rows-1], seeds, alpha, []Block{{}}), "cws must hold")
		requireArgError(t, h.Gen(cws, []Block{{Lo: 9}, {Lo: 9, Hi: 1 << 32}}, alpha, []Block{{}}), "the two seeds are equal")
		requireArgError(t, h.Gen(cws, seeds, []Uint128{{Lo: 1 << n}}, []Block{{}}), "alpha must be in")
		require.NoError(t, h.Gen(cws, seeds, alpha, []Block{{Lo: 77}}))
		out := make([]Block, 1)
		requireArgError(t, h.Eval(out, 0, seeds[:1], cws, []Uint128{{Lo: 1 << n}}), "x must be in")
		requireArgError(t, h.Eval(out, 2, seeds[:1], cws, alpha), "party must be 0 or 1")

		// Block n, the output correction word, is a uint32 element (words 1-3 zero)
		// with LCW1 in its control bit.
		blocks := cwBlocks(cws)
		bad := append([]Cw(nil), cws...)
		cwBlocks(bad)[n].Hi |= 1 << 40
		requireArgError(t, h.Eval(out, 0, seeds[:1], bad, alpha), fmt.Sprintf("block %d: not a Half-Tree output correction word", n))
		requireArgError(t, h.EvalAll(make([]Block, 1<<n), 0, seeds[:1], bad), "not a Half-Tree output correction word")
		flipped := append([]Cw(nil), cws...)
		cwBlocks(flipped)[n] = blocks[n].WithLsb(blocks[n].Lsb() ^ 1) // LCW1 is free
		require.NoError(t, h.Eval(out, 0, seeds[:1], flipped, alpha))
		if n%2 == 0 {
			bad = append([]Cw(nil), cws...)
			bad[rows-1][1].Lo = 1
			requireArgError(t, h.Eval(out, 0, seeds[:1], bad, alpha), "words 4-7 must be zero padding")
		}

		// The reference layout: n rows of 8 words and the output correction word.
		ref := make([]Cw, n)
		ocw, err := h.ReferenceKey(ref, cws)
		require.NoError(t, err)
		_, err = h.ReferenceKey(ref[:n-1], cws)
		requireArgError(t, err, "rows must hold in_bits")
		requireArgError(t, h.FromReferenceKey(make([]Cw, rows+1), ref, ocw), "key must hold")
		requireArgError(t, h.FromReferenceKey(make([]Cw, rows), ref, ocw.WithLsb(1)), "ocw: the control bit must be clear")
		badRef := append([]Cw(nil), ref...)
		badRef[0][1].Hi = 1
		requireArgError(t, h.FromReferenceKey(make([]Cw, rows), badRef, ocw), "rows: row 0: words 4-7 must be zero")
		badRef = append([]Cw(nil), ref...)
		badRef[n-1][1].Lo = 2
		requireArgError(t, h.FromReferenceKey(make([]Cw, rows), badRef, ocw), "words 4-7 must be (0 or 1, 0, 0, 0)")
		requireArgError(t, h.FromReferenceKey(make([]Cw, rows), ref, Block{Hi: 1}), "not a Half-Tree output correction word")
	}
}

// Every group's into(v) leaves the control bit clear, so the output correction word
// can carry LCW1 there: checked on the extremes of each group's values.
func TestIntoLeavesTheControlBitFree(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, g := range allGroups {
		ar := g.arith()
		vals := []Block{{}, {^uint64(0), ^uint64(0)}, {Hi: 1 << 32}}
		for range 1000 {
			vals = append(vals, randBlock(r))
		}
		for _, b := range vals {
			v := ar.from(b)
			for _, w := range []Block{v, ar.neg(v), ar.add(v, ar.from(randBlock(r)))} {
				require.Zero(t, ar.into(w).Lsb(), "%s: into(%v)", g, w)
			}
		}
	}
}

// A key is n+1 blocks, fewer bytes than a DPF key's n+1 correction words.
func TestHalfTreeKeyIsSmaller(t *testing.T) {
	for _, n := range []int{1, 2, 20, 127, 128} {
		ht, dpf := DefaultParams(KindHalfTreeDpf, n, Bytes, PrgAesMmo), DefaultParams(KindDpf, n, Bytes, PrgAesMmo)
		require.Equal(t, (n+1+1)/2, ht.CwRows(), "n=%d: ceil((n+1)/2) rows", n)
		require.Less(t, ht.CwRows(), dpf.CwRows(), "n=%d", n)
	}
}
