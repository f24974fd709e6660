package gofss

import (
	"math"
	"math/big"
	"math/bits"
	"sync"

	"github.com/pyfss/pyfss/gofss/internal/mt19937"
)

// Cuckoo hashing of the multi-point schemes (docs/spec.md section 16.2): each
// point goes to one of the three buckets its hash functions name, and an input is
// evaluated in all three.

const (
	cuckooHashes    = 3    // kappa: hash functions, so 3·2^in_bits hashed values
	cuckooLambda    = 80   // ch_lambda, the statistical security parameter of ChBucket
	cuckooEvictions = 1000 // evictions allowed in one insertion before Gen gives up
	cuckooRngSeed   = 42   // the seed of the Mersenne Twister that picks hash functions
)

// chBuckets is ChBucket(t), the number of buckets for t points.
func chBuckets(t int) int {
	ft := float64(t)
	return int(math.Ceil(ft * (cuckooLambda + 130 + math.Log2(ft)) / 123.5))
}

// hashedDomain is 3·2^inBits, the domain of Locate's PRP.
func hashedDomain(inBits int) *big.Int {
	return new(big.Int).Lsh(big.NewInt(cuckooHashes), uint(inBits))
}

// minBuckets is the least number of buckets of at most 2^bucketBits values each
// that hold all 3·2^inBits hashed values.
func minBuckets(inBits, bucketBits int) int {
	if inBits >= bucketBits {
		return cuckooHashes << (inBits - bucketBits) // callers keep this small
	}
	return int(ceilDiv(hashedDomain(inBits), new(big.Int).Lsh(big.NewInt(1), uint(bucketBits))).Int64())
}

// ceilDiv returns ceil(a / b).
func ceilDiv(a, b *big.Int) *big.Int {
	q := new(big.Int).Add(a, b)
	q.Sub(q, big.NewInt(1))
	return q.Quo(q, b)
}

// cuckooHash is Locate for one PRP key: input x and hash function k to (bucket,
// index) = divmod(PRP(x + k·2^in_bits), bucket size), over `buckets` buckets.
type cuckooHash struct {
	prp     *feistelPrp
	inBits  int
	dom     prpDomain
	size    uint64   // the bucket size where 3·2^in_bits fits in 64 bits, else 0
	sizeBig *big.Int // the bucket size
	// recip is ceil(2^64 / size) where D·size <= 2^64 and size > 1, else 0: then
	// y / size is the high word of y·recip for every y < D (the error of the
	// rounding up, below y / 2^64, stays under 1/size).
	recip uint64
}

func newCuckooHash(sigma Block, inBits, buckets int) *cuckooHash {
	d := hashedDomain(inBits)
	c := &cuckooHash{prp: newFeistelPrp(sigma), inBits: inBits, dom: newPrpDomain(d)}
	c.sizeBig = ceilDiv(d, big.NewInt(int64(buckets)))
	if c.dom.small != 0 {
		c.size = c.sizeBig.Uint64()
		if hi, lo := bits.Mul64(c.dom.small, c.size); c.size > 1 && (hi == 0 || hi == 1 && lo == 0) {
			c.recip = ^uint64(0)/c.size + 1
		}
	}
	return c
}

// bucketOf returns y / size for y below the domain.
func (c *cuckooHash) bucketOf(y uint64) uint64 {
	if c.recip == 0 {
		return y / c.size
	}
	q, _ := bits.Mul64(y, c.recip)
	return q
}

// locate writes Locate(x, k) for every x of xs and k = 0, 1, 2 to bkts[3i+k] and
// idxs[3i+k]. With tables (nil for none) it permutes through them.
func (c *cuckooHash) locate(xs []Uint128, bkts []int32, idxs []Uint128, tab *prpTables) {
	if c.size == 0 {
		for i, x := range xs {
			for k := range cuckooHashes {
				v := new(big.Int).Lsh(big.NewInt(int64(k)), uint(c.inBits))
				y := c.prp.permuteWide(v.Add(v, x.big()), &c.dom)
				b, idx := y.QuoRem(y, c.sizeBig, new(big.Int))
				bkts[3*i+k], idxs[3*i+k] = int32(b.Int64()), uint128FromBig(idx)
			}
		}
		return
	}
	// A tile of inputs at a time, its values staying in cache from one step to the
	// next.
	const tile = prpTile / cuckooHashes
	sc := locateScratchPool.Get().(*locateScratch)
	defer locateScratchPool.Put(sc)
	for lo := 0; lo < len(xs); lo += tile {
		part := xs[lo:min(len(xs), lo+tile)]
		vs := sc.vs[:cuckooHashes*len(part)]
		for i, x := range part {
			for k := range cuckooHashes {
				vs[3*i+k] = x.Lo + uint64(k)<<c.inBits
			}
		}
		if tab != nil {
			for i, v := range vs {
				vs[i] = tab.permute(v, c.dom.small)
			}
		} else {
			c.prp.permute64(vs, &c.dom, &sc.walk)
		}
		bkts, idxs := bkts[cuckooHashes*lo:], idxs[cuckooHashes*lo:]
		for i, y := range vs {
			b := c.bucketOf(y)
			bkts[i], idxs[i] = int32(b), Uint128{Lo: y - b*c.size}
		}
	}
}

// locateScratch is locate's room for a tile's permuted values, reused from call
// to call (see cycleWalk).
type locateScratch struct {
	vs   [prpTile]uint64
	walk cycleWalk
}

var locateScratchPool = sync.Pool{New: func() any { return new(locateScratch) }}

// cachedPrpTableBits is the widest half whose tables a batch uses.
const cachedPrpTableBits = 14

// tablesFor returns the PRP's tables when they pay for a batch of n inputs (3n
// permutations, about 16n AES encryptions, against 4·2^h to build them) and stay
// in cache (4 x 2^14 words: 256 KiB), else nil: lookups that miss the cache cost
// more than the batched AES rounds.
func (c *cuckooHash) tablesFor(n int) *prpTables {
	if c.size == 0 || c.dom.h > cachedPrpTableBits || 1<<c.dom.h > 4*n {
		return nil
	}
	return c.prp.tables(&c.dom)
}

// cuckooEntry is a bucket's point (an index into the alphas) and the hash function
// that put it there; point -1 marks an empty bucket.
type cuckooEntry struct {
	point int32
	hash  int8
}

// cuckooPlace puts every point j, whose bucket under hash function k is
// bkts[3j+k], into a table of `buckets` buckets, evicting as Cuckoo hashing does,
// with the hash functions drawn from a Mersenne Twister seeded with 42. It reports
// false once an insertion needs more than cuckooEvictions evictions: the caller
// then draws a new PRP key.
func cuckooPlace(bkts []int32, buckets int) ([]cuckooEntry, bool) {
	table := make([]cuckooEntry, buckets)
	for i := range table {
		table[i] = cuckooEntry{point: -1, hash: -1}
	}
	rng := mt19937.New(cuckooRngSeed)
	for j := range len(bkts) / cuckooHashes {
		cur := cuckooEntry{point: int32(j), hash: int8(rng.Uint32() % cuckooHashes)}
		for evictions := 0; ; {
			b := bkts[cuckooHashes*int(cur.point)+int(cur.hash)]
			table[b], cur = cur, table[b]
			if cur.point < 0 {
				break
			}
			if evictions++; evictions > cuckooEvictions {
				return nil, false
			}
			cur.hash = int8(rng.Uint32() % cuckooHashes)
		}
	}
	return table, true
}

// bucketLists orders the 3n (bucket, index) pairs of n inputs (from locate) by
// bucket, each bucket's pairs in input order, into order (len(bkts) long): pairs
// start[b] .. start[b+1]-1 of order are bucket b's, order[p] being the position
// (3·input + k) of a pair.
func bucketLists(bkts []int32, buckets int, order []int32) (start []int) {
	start = bucketStarts(bkts, buckets)
	next := append([]int(nil), start[:buckets]...)
	for p, b := range bkts {
		order[next[b]] = int32(p)
		next[b]++
	}
	return start
}

// bucketStarts returns where each bucket's pairs start in bucketLists' order, and
// at start[buckets] the number of pairs.
func bucketStarts(bkts []int32, buckets int) []int {
	start := make([]int, buckets+1)
	for _, b := range bkts {
		start[b+1]++
	}
	for b := range buckets {
		start[b+1] += start[b]
	}
	return start
}
