package gofss

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/kat"
)

// forEachMpfCase runs fn on every case of every VDMPF vector file.
func forEachMpfCase(t *testing.T, fn func(t *testing.T, f *kat.MpfFile, c *kat.MpfCase)) {
	for _, name := range kat.MpfFiles {
		f, err := kat.LoadMpf(name)
		require.NoError(t, err)
		require.NotEmpty(t, f.Cases, name)
		for i := range f.Cases {
			c := &f.Cases[i]
			t.Run(c.ID, func(t *testing.T) { fn(t, f, c) })
		}
	}
}

func katUints(us []kat.Uint) []Uint128 {
	out := make([]Uint128, len(us))
	for i, u := range us {
		out[i] = katUint(u)
	}
	return out
}

// TestCuckooVectors checks the bucket counts, Locate and the Cuckoo placement
// against every VDMPF case, with and without the PRP's tables.
func TestCuckooVectors(t *testing.T) {
	forEachBackend(t, "aes128_mmo", func(t *testing.T) {
		forEachMpfCase(t, func(t *testing.T, _ *kat.MpfFile, c *kat.MpfCase) {
			bb := DefaultBucketBits(c.InBits, c.MaxPoints)
			require.Equal(t, c.BucketBits, bb, "bucket_bits")
			require.Equal(t, c.M, mpfBuckets(c.InBits, c.MaxPoints, bb), "m")
			require.Equal(t, c.MRt, mpfBuckets(c.InBits, c.T, bb), "m_rt")
			h := newCuckooHash(katBlock(c.Sigma), c.InBits, c.MRt)
			require.Equal(t, c.BSizeRt, h.size, "b_size_rt")
			alphas := katUints(c.Alphas)
			for _, tab := range []*prpTables{nil, h.prp.tables(&h.dom)} {
				bkts, idxs := make([]int32, 3*len(alphas)), make([]Uint128, 3*len(alphas))
				h.locate(alphas, bkts, idxs, tab)
				for j, loc := range c.Locate {
					for k, want := range loc {
						require.Equal(t, fmt.Sprint(want), fmt.Sprint([2]uint64{uint64(bkts[3*j+k]), idxs[3*j+k].Lo}), "alpha %d, hash %d", j, k)
					}
				}
				table, ok := cuckooPlace(bkts, c.MRt)
				require.True(t, ok)
				require.Len(t, c.Table, len(table))
				for i, e := range table {
					require.Equal(t, c.Table[i], [2]int{int(e.point), int(e.hash)}, "bucket %d", i)
				}
			}
		})
	})
}

// TestBucketLists checks the order of BatchEval's pairs: by bucket, then by position.
func TestBucketLists(t *testing.T) {
	order := make([]int32, 6)
	start := bucketLists([]int32{2, 0, 2, 1, 0, 0}, 4, order)
	require.Equal(t, []int{0, 3, 4, 6, 6}, start)
	require.Equal(t, []int32{1, 4, 5, 3, 0, 2}, order)
}

// TestCuckooPlaceFails checks that an impossible placement (four points with the
// same three buckets) gives up rather than loop.
func TestCuckooPlaceFails(t *testing.T) {
	_, ok := cuckooPlace([]int32{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}, 3)
	require.False(t, ok)
}

// TestCuckooFailureRate measures how often the placement fails, over random PRP
// keys and points, for t from 1 to 10^5 (docs/spec.md section 16.2 reports a run).
// It takes minutes, so it runs only with GOFSS_CUCKOO_TRIALS set (trials per t).
func TestCuckooFailureRate(t *testing.T) {
	trials, _ := strconv.Atoi(os.Getenv("GOFSS_CUCKOO_TRIALS"))
	if trials <= 0 {
		t.Skip("set GOFSS_CUCKOO_TRIALS to the number of trials per t")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	const inBits = 32
	for _, points := range []int{1, 2, 3, 5, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000} {
		failures, runs := 0, 0
		for range max(1, trials*100/max(points, 100)) {
			alphas := make([]Uint128, points)
			seen := map[uint64]bool{}
			for i := range alphas {
				for {
					a := rng.Uint64() >> (64 - inBits)
					if !seen[a] {
						seen[a], alphas[i] = true, Uint128{Lo: a}
						break
					}
				}
			}
			mRt := chBuckets(points)
			h := newCuckooHash(Block{rng.Uint64(), rng.Uint64()}, inBits, mRt)
			bkts, idxs := make([]int32, 3*points), make([]Uint128, 3*points)
			h.locate(alphas, bkts, idxs, h.tablesFor(points))
			if _, ok := cuckooPlace(bkts, mRt); !ok {
				failures++
			}
			runs++
		}
		t.Logf("t=%d: %d failures in %d placements", points, failures, runs)
	}
}

// TestBucketOf checks Locate's division by the bucket size through a reciprocal
// against the division itself, at the values next to every kind of edge: 0, the
// multiples of the size and the values before them, the domain's last.
func TestBucketOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	reciprocals := 0
	for _, inBits := range []int{1, 2, 10, 20, 32, 40, 60, 62} {
		for _, buckets := range []int{1, 2, 3, 7, 1000, 1825, 1 << 20} {
			c := newCuckooHash(Block{}, inBits, buckets)
			if c.recip != 0 {
				reciprocals++
			}
			d := c.dom.small
			ys := []uint64{0, d - 1, d / 2}
			for range 200 {
				q := rng.Uint64N((d-1)/c.size + 1)
				ys = append(ys, q*c.size, q*c.size-1, q*c.size+1, rng.Uint64N(d))
			}
			for _, y := range ys {
				if y < d {
					require.Equal(t, y/c.size, c.bucketOf(y), "in_bits %d, %d buckets, y %d", inBits, buckets, y)
				}
			}
		}
	}
	require.NotZero(t, reciprocals)
}
