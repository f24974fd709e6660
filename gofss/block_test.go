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
