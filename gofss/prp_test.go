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
			p.permute64(xs, &dom)
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
		p.permute64(vs, &dom)
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

// TestPrpTables checks the table path against the batched one, and its inverse.
func TestPrpTables(t *testing.T) {
	p := newFeistelPrp(Block{Lo: 3, Hi: 1 << 40})
	for _, d := range []uint64{2, 7, 3 << 10, 3 << 21, 1 << 30} {
		dom := newPrpDomain(new(big.Int).SetUint64(d))
		tab := p.tables(&dom)
		vs := []uint64{0, 1, d / 3, d / 2, d - 1}
		want := append([]uint64(nil), vs...)
		p.permute64(want, &dom)
		for i, v := range vs {
			got := tab.permute(v, d)
			require.Equal(t, want[i], got, "domain %d: PRP(%d)", d, v)
			require.Equal(t, v, tab.invert(got, d), "domain %d: inverse of PRP(%d)", d, v)
		}
	}
}
