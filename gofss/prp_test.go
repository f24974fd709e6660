package gofss

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/kat"
)

// TestPrpVectors checks the Feistel PRP against primitives.json on every AES path,
// through the batched path where the domain fits in 64 bits and always through the
// wide one.
func TestPrpVectors(t *testing.T) {
	vs, err := kat.LoadPrpVectors()
	require.NoError(t, err)
	require.NotEmpty(t, vs)
	forEachBackend(t, "aes128_mmo", func(t *testing.T) {
		for _, v := range vs {
			p := newFeistelPrp(katBlock(v.Seed))
			dom := newPrpDomain(&v.Domain.Int)
			for _, xy := range v.XY {
				got := p.permuteWide(&xy[0].Int, &dom)
				require.Zero(t, got.Cmp(&xy[1].Int), "domain %v: PRP(%v) = %v, want %v", &v.Domain.Int, &xy[0].Int, got, &xy[1].Int)
			}
			if dom.small == 0 {
				continue
			}
			xs := make([]uint64, len(v.XY))
			for i, xy := range v.XY {
				xs[i] = xy[0].Uint64()
			}
			p.permute64(xs, &dom, new(cycleWalk))
			for i, xy := range v.XY {
				require.Equal(t, xy[1].Uint64(), xs[i], "domain %d: PRP(%v)", dom.small, &xy[0].Int)
			}
		}
	})
}

// TestPrpPermutes checks that small domains are permuted (a bijection onto the
// domain), batched in more than one tile, and that both paths agree.
func TestPrpPermutes(t *testing.T) {
	p := newFeistelPrp(Block{Lo: 7, Hi: 9})
	for _, d := range []uint64{1, 2, 3, 5, 1000, 3 << 8} {
		dom := newPrpDomain(new(big.Int).SetUint64(d))
		vs := make([]uint64, d)
		for i := range vs {
			vs[i] = uint64(i)
		}
		p.permute64(vs, &dom, new(cycleWalk))
		seen := make([]bool, d)
		for i, v := range vs {
			require.Less(t, v, d)
			require.False(t, seen[v], "domain %d: %d appears twice", d, v)
			seen[v] = true
			if i%97 == 0 {
				require.Equal(t, v, p.permuteWide(new(big.Int).SetUint64(uint64(i)), &dom).Uint64())
			}
		}
	}
}

// TestPrpTables checks the table path against the batched one, and invertRange
// against it: over whole small domains, and over runs of a large one that start
// anywhere in a high half (the runs share its first lookup), straddle one, or end at
// the domain's end, every value's inverse is the one that the PRP maps to it.
func TestPrpTables(t *testing.T) {
	p := newFeistelPrp(Block{Lo: 3, Hi: 1 << 40})
	var walking []int32
	// Half widths 1, 2, 6, 12, 15, 16 (the widest narrow tables) and 17 (wide).
	for _, d := range []uint64{2, 7, 3 << 10, 3 << 21, 1 << 30, 1 << 32, 3 << 31} {
		dom := newPrpDomain(new(big.Int).SetUint64(d))
		tab := p.tables(&dom)
		vs := []uint64{0, 1, d / 3, d / 2, d - 1}
		want := append([]uint64(nil), vs...)
		p.permute64(want, &dom, new(cycleWalk))
		for i, v := range vs {
			require.Equal(t, want[i], tab.permute(v, d), "domain %d: PRP(%d)", d, v)
		}
		runs := [][2]uint64{{0, d}}
		if d > 1<<20 {
			half := uint64(1) << dom.h
			runs = [][2]uint64{{0, 1724}, {half - 5, half + 3000}, {d/2 + 77, d/2 + 2077}, {d - 1500, d}}
		}
		for _, r := range runs {
			xs := make([]uint64, r[1]-r[0])
			walking = tab.invertRange(xs, r[0], d, walking)
			for i, x := range xs {
				require.Less(t, x, d, "domain %d: inverse of %d", d, r[0]+uint64(i))
				require.Equal(t, r[0]+uint64(i), tab.permute(x, d), "domain %d: PRP(inverse of %d)", d, r[0]+uint64(i))
			}
		}
	}
}
