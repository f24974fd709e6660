package gofss

import (
	"encoding/binary"
	"math/big"
	"slices"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
)

// feistelPrp is the pseudorandom permutation of the integers 0 .. D-1 that the
// multi-point schemes hash with (docs/spec.md section 16.1): a four-round Feistel
// network on two halves of h = ceil(ceil(log2 D) / 2) bits, round r's function the
// AES-128 encryption under the key sigma with r XORed into its first word, walked
// again until the value falls inside the domain (cycle walking).
type feistelPrp struct {
	keys [4]*aes128.Key // round r's
}

func newFeistelPrp(sigma Block) *feistelPrp {
	p := &feistelPrp{}
	for r := range p.keys {
		key := sigma.Bytes()
		binary.LittleEndian.PutUint32(key[:4], binary.LittleEndian.Uint32(key[:4])^uint32(r))
		p.keys[r] = aes128.NewKey(key)
	}
	return p
}

// prpDomain is a domain 0 .. D-1 with its half width h. Domains that fit in 64 bits
// (D < 2^64) take the batched path on uint64 values; wider ones (up to 3·2^128,
// the multi-point schemes' Locate at 128-bit inputs) go one value at a time through
// math/big.
type prpDomain struct {
	h     uint
	small uint64   // D when it fits in 64 bits, else 0
	big   *big.Int // D
	// The domain's halves (D >> h, D mod 2^h), for the wide path's comparisons.
	hiHalf, loHalf Uint128
}

// newPrpDomain makes the domain 0 .. d-1; d must be at least 1.
func newPrpDomain(d *big.Int) prpDomain {
	b := uint(new(big.Int).Sub(d, big.NewInt(1)).BitLen()) // ceil(log2 d)
	dom := prpDomain{h: (b + 1) / 2, big: new(big.Int).Set(d)}
	if d.IsUint64() {
		dom.small = d.Uint64()
	}
	dom.hiHalf = uint128FromBig(new(big.Int).Rsh(d, dom.h))
	dom.loHalf = uint128FromBig(new(big.Int).And(d, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), dom.h), big.NewInt(1))))
	return dom
}

// prpTile is the number of values that the batched path carries through the rounds
// together, in one aes128.FeistelPass. The passes of the cycle walk take a quarter
// of a tile's values (at Locate's worst), a sixteenth, and so on down to a few,
// which the routine's latency makes cost as much as a full group: large tiles
// make those passes few (4096 against 256: Locate of 2^14 inputs at in_bits 32
// took 26.7 against 29.1 ns an input).
const prpTile = 4096

// cycleWalk is permute64's room for a tile's values outside the domain and their
// places. It is 48 KiB: declared in permute64 it went to the heap on every call,
// which took a twentieth of a DMPF BatchEval; callers keep one in a pool.
type cycleWalk struct {
	walking [prpTile]uint64
	at      [prpTile]int32
}

// permute64 replaces every v of vs (each below the domain's D, which fits in 64
// bits) by PRP(v): a tile at a time, one pass of the rounds over all of its
// values, then further passes over those outside the domain, gathered in cw.
func (p *feistelPrp) permute64(vs []uint64, dom *prpDomain, cw *cycleWalk) {
	walking, at := &cw.walking, &cw.at
	for lo := 0; lo < len(vs); lo += prpTile {
		tile := vs[lo:min(len(vs), lo+prpTile)]
		aes128.FeistelPass(&p.keys, tile, dom.h)
		left := 0
		for i, v := range tile {
			at[left], walking[left] = int32(i), v
			left += int(bool2uint(v >= dom.small))
		}
		for left > 0 {
			aes128.FeistelPass(&p.keys, walking[:left], dom.h)
			next := 0
			for j, v := range walking[:left] {
				tile[at[j]] = v
				at[next], walking[next] = at[j], v
				next += int(bool2uint(v >= dom.small))
			}
			left = next
		}
	}
}

// permuteWide returns PRP(v) for v below a domain of any width.
func (p *feistelPrp) permuteWide(v *big.Int, dom *prpDomain) *big.Int {
	h := dom.h
	mask := Uint128{Lo: ^uint64(0), Hi: ^uint64(0)}.lowBits(h)
	l := uint128FromBig(new(big.Int).Rsh(v, h))
	r := uint128FromBig(v).and(mask)
	var out [aes128.BlockSize]byte
	for {
		for k := range p.keys {
			in := Block(r).Bytes()
			aes128.MMO(p.keys[k:k+1], out[:], in[:])
			f := Uint128(BlockFromBytes(out).Xor(Block(r))).and(mask)
			l, r = r, l.xor(f)
		}
		if l.less(dom.hiHalf) || l == dom.hiHalf && r.less(dom.loHalf) {
			break
		}
	}
	joined := new(big.Int).Lsh(l.big(), h)
	return joined.Or(joined, r.big())
}

// lowBits returns x mod 2^k.
func (x Uint128) lowBits(k uint) Uint128 {
	switch {
	case k >= 128:
		return x
	case k >= 64:
		return Uint128{x.Lo, x.Hi & (1<<(k-64) - 1)}
	}
	return Uint128{Lo: x.Lo & (1<<k - 1)}
}

func (x Uint128) and(y Uint128) Uint128 { return Uint128{x.Lo & y.Lo, x.Hi & y.Hi} }
func (x Uint128) xor(y Uint128) Uint128 { return Uint128{x.Lo ^ y.Lo, x.Hi ^ y.Hi} }
func (x Uint128) less(y Uint128) bool   { return x.Hi < y.Hi || x.Hi == y.Hi && x.Lo < y.Lo }

// big returns x as a big.Int.
func (x Uint128) big() *big.Int {
	v := new(big.Int).SetUint64(x.Hi)
	return v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(x.Lo))
}

// uint128FromBig returns v mod 2^128 for v >= 0.
func uint128FromBig(v *big.Int) Uint128 {
	var words [2]uint64
	bytes := v.Bytes() // big-endian
	for i, b := range bytes {
		shift := uint(len(bytes)-1-i) * 8
		if shift < 128 {
			words[shift/64] |= uint64(b) << (shift % 64)
		}
	}
	return Uint128{words[0], words[1]}
}

// prpTables hold the four round functions of a PRP over a domain of half width
// h <= maxPrpTableBits, one word per half value: once built (4·2^h AES
// encryptions), a permutation or its inverse costs four lookups per walk, which
// pays off for full-domain evaluation and large batches. The words are 16-bit
// where h <= 16 (narrow), half the cache of 32-bit ones (wide): at in_bits 20
// (h = 11) the four take 16 KiB instead of 32, which fills a Zen 3 core's L1 data
// cache (docs/spec.md section 16.5).
type prpTables struct {
	h      uint
	narrow *[4][]uint16
	wide   *[4][]uint32
}

// prpWord is a table word.
type prpWord interface{ uint16 | uint32 }

// maxPrpTableBits is the widest half that gets tables (4 x 2^22 words: 64 MiB),
// enough for full-domain evaluation up to 2^40 inputs.
const maxPrpTableBits = 22

func (p *feistelPrp) tables(dom *prpDomain) *prpTables {
	tab := &prpTables{h: dom.h}
	if dom.h <= 16 {
		tab.narrow = buildPrpTables[uint16](p, dom.h)
	} else {
		tab.wide = buildPrpTables[uint32](p, dom.h)
	}
	return tab
}

func buildPrpTables[T prpWord](p *feistelPrp, h uint) *[4][]T {
	var f [4][]T
	size := 1 << h
	var src, dst [prpTile * aes128.BlockSize]byte
	for r := range p.keys {
		f[r] = make([]T, size)
		for lo := 0; lo < size; lo += prpTile {
			n := min(prpTile, size-lo)
			for j := range n {
				binary.LittleEndian.PutUint64(src[16*j:], uint64(lo+j))
				binary.LittleEndian.PutUint64(src[16*j+8:], 0)
			}
			aes128.MMO(p.keys[r:r+1], dst[:16*n], src[:16*n])
			for j := range n {
				f[r][lo+j] = T((binary.LittleEndian.Uint32(dst[16*j:]) ^ uint32(lo+j)) & uint32(size-1))
			}
		}
	}
	return &f
}

// permute returns PRP(v) for v below d.
func (tab *prpTables) permute(v, d uint64) uint64 {
	if tab.narrow != nil {
		return permuteThrough(tab.narrow, tab.h, v, d)
	}
	return permuteThrough(tab.wide, tab.h, v, d)
}

func permuteThrough[T prpWord](f *[4][]T, h uint, v, d uint64) uint64 {
	mask := uint64(1)<<h - 1
	for {
		l, r := v>>h, v&mask
		for k := range f {
			l, r = r, l^uint64(f[k][r])
		}
		if v = l<<h | r; v < d {
			return v
		}
	}
}

// invertRange writes PRP^-1(first + i) to xs[i] for every i; first + len(xs) must
// not exceed d. Each pass goes over all the values still outside the domain, free
// of the walk's branch, so that the passes of several values overlap (a value's
// pass is a chain of four dependent lookups); the positions of those values are
// kept in walking, which it returns for the next call to reuse. In the first pass
// the last round's lookup is shared by each run of values with the same high half.
// Each loop is a function of its own, not inlined: in one function the compiler
// kept the loops' counters and slices on the stack, and with the narrow tables the
// inverses took 1.2 times as long.
func (tab *prpTables) invertRange(xs []uint64, first, d uint64, walking []int32) []int32 {
	if tab.narrow != nil {
		return invertRangeThrough(tab.narrow, tab.h, xs, first, d, walking)
	}
	return invertRangeThrough(tab.wide, tab.h, xs, first, d, walking)
}

func invertRangeThrough[T prpWord](f *[4][]T, h uint, xs []uint64, first, d uint64, walking []int32) []int32 {
	mask := uint64(1)<<h - 1
	for i := 0; i < len(xs); {
		y := first + uint64(i)
		l4 := y >> h
		run := xs[i:min(len(xs), i+int(mask+1-y&mask))]
		invertRun(f, h, run, y&mask, l4)
		i += len(run)
	}
	walking = slices.Grow(walking[:0], len(xs))[:len(xs)]
	walking = walking[:listOutside(walking, xs, d)]
	for len(walking) > 0 {
		invertListed(f, h, xs, walking)
		walking = walking[:keepOutside(walking, xs, d)]
	}
	return walking
}

// invertRun is the first pass over a run of values y = l4·2^h + lo + j.
//
//go:noinline
func invertRun[T prpWord](f *[4][]T, h uint, run []uint64, lo, l4 uint64) {
	f3 := uint64(f[3][l4])
	for j := range run {
		run[j] = invertFrom(f, h, l4, (lo+uint64(j))^f3)
	}
}

// invertListed is a further pass over the values at the positions listed.
//
//go:noinline
func invertListed[T prpWord](f *[4][]T, h uint, xs []uint64, walking []int32) {
	mask := uint64(1)<<h - 1
	for _, i := range walking {
		y := xs[i]
		xs[i] = invertFrom(f, h, y>>h, y&mask^uint64(f[3][y>>h]))
	}
}

// listOutside lists the positions of the values of xs outside the domain 0 .. d-1
// in walking and returns how many.
//
//go:noinline
func listOutside(walking []int32, xs []uint64, d uint64) int {
	n := 0
	walking = walking[:len(xs)]
	for i, x := range xs {
		walking[n] = int32(i)
		n += int(bool2uint(x >= d))
	}
	return n
}

// keepOutside keeps those listed whose value is still outside, and returns how
// many.
//
//go:noinline
func keepOutside(walking []int32, xs []uint64, d uint64) int {
	n := 0
	for _, i := range walking {
		walking[n] = i
		n += int(bool2uint(xs[i] >= d))
	}
	return n
}

// invertFrom is a pass of the rounds backwards (over 0 .. 2^2h - 1) from its
// first round's result: rounds 2 .. 0 from (l3, r3 = l4).
func invertFrom[T prpWord](f *[4][]T, h uint, l4, l3 uint64) uint64 {
	l2 := l4 ^ uint64(f[2][l3])
	l1 := l3 ^ uint64(f[1][l2])
	return (l2^uint64(f[0][l1]))<<h | l1
}

// bool2uint is 1 for true, 0 for false, without a branch.
func bool2uint(b bool) uint {
	var u uint
	if b {
		u = 1
	}
	return u
}
