package gofss

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestArithSub checks sub, written as one step, against add(x, neg(y)) on random
// values and on the edges where borrows cross the halves.
func TestArithSub(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	edges := []Block{{}, {Lo: 1}, {Lo: ^uint64(0)}, {Hi: 1}, {Lo: ^uint64(0), Hi: ^uint64(0)}, {Hi: 1 << 63}}
	for _, g := range allGroups {
		ar := g.arith()
		values := append([]Block{}, edges...)
		for range 1000 {
			values = append(values, randBlock(r))
		}
		for i, x := range values {
			y := values[(i*7+3)%len(values)]
			x, y = ar.from(x), ar.from(y)
			require.Equal(t, ar.add(x, ar.neg(y)), ar.sub(x, y), "%s: %v - %v", g, x, y)
			require.Equal(t, Block{}, ar.sub(x, x), "%s: %v - itself", g, x)
		}
	}
}
