package gofss

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// FitsIn agrees with x < 2^bits computed on big integers, for every width from
// below zero to above 128, at values on both sides of each power of two.
func TestUint128FitsIn(t *testing.T) {
	for e := 0; e <= 128; e++ {
		p := new(big.Int).Lsh(big.NewInt(1), uint(e))
		for _, d := range []int64{-1, 0, 1} {
			v := new(big.Int).Add(p, big.NewInt(d))
			if v.Sign() < 0 || v.BitLen() > 128 {
				continue
			}
			lo := new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0))).Uint64()
			x := Uint128{Lo: lo, Hi: new(big.Int).Rsh(v, 64).Uint64()}
			for bits := -2; bits <= 130; bits++ {
				limit := new(big.Int).Lsh(big.NewInt(1), uint(max(bits, 0)))
				want := v.Cmp(limit) < 0 // below zero bits: x < 1, as FitsIn documents
				require.Equal(t, want, x.FitsIn(bits), "%v < 2^%d", v, bits)
			}
		}
	}
}

// shl agrees with x << k computed on big integers and cut to 128 bits, for every
// shift from 0 to 130, on values with bits set across both words.
func TestUint128Shl(t *testing.T) {
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
	for _, x := range []Uint128{{Lo: 1}, {Hi: 1 << 63}, {Lo: 0x8000000000000001, Hi: 0x0123456789abcdef}, {Lo: ^uint64(0), Hi: ^uint64(0)}} {
		v := new(big.Int).Or(new(big.Int).Lsh(new(big.Int).SetUint64(x.Hi), 64), new(big.Int).SetUint64(x.Lo))
		for k := uint(0); k <= 130; k++ {
			w := new(big.Int).And(new(big.Int).Lsh(v, k), mask)
			want := Uint128{Lo: new(big.Int).And(w, new(big.Int).SetUint64(^uint64(0))).Uint64(), Hi: new(big.Int).Rsh(w, 64).Uint64()}
			require.Equal(t, want, x.shl(k), "%#x << %d", v, k)
		}
	}
}
