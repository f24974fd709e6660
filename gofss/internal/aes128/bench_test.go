package aes128

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMMO measures every backend this CPU supports. Bytes are output bytes;
// Mblocks/s counts output blocks, i.e. AES encryptions, per second.
func BenchmarkMMO(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range Backends() {
		for _, c := range []struct {
			op    string
			nkeys int
		}{{"MMO", 1}, {"MMO", 2}, {"MMO", 4}, {"MMOSelect", 2}, {"MMOSelect", 4}} {
			for _, n := range []int{1, 1024, 65536} {
				b.Run(fmt.Sprintf("%s/%s/keys%d/n%d", name, c.op, c.nkeys, n), func(b *testing.B) {
					prev, err := SetBackend(name)
					if err != nil {
						b.Fatal(err)
					}
					defer SetBackend(prev)
					_, keys := randomKeys(rng, c.nkeys)
					src := make([]byte, n*BlockSize)
					fillRandom(rng, src)
					sel := make([]byte, n)
					for i := range sel {
						sel[i] = byte(rng.IntN(2))
					}
					outs := c.nkeys
					if c.op == "MMOSelect" {
						outs /= 2
					}
					dst := make([]byte, len(src)*outs)
					b.SetBytes(int64(len(dst)))
					for b.Loop() {
						if c.op == "MMOSelect" {
							MMOSelect(keys, dst, src, sel)
						} else {
							MMO(keys, dst, src)
						}
					}
					b.ReportMetric(float64(b.N)*float64(n*outs)/b.Elapsed().Seconds()/1e6, "Mblocks/s")
				})
			}
		}
	}
}
