// Package chacha computes the ChaCha-based PRG of myl7/fss for many seeds per call.
//
// It is not the ChaCha20 stream cipher: the 4x4 state is the constant row, the
// 16-byte seed twice and a row (0, 0, nonce0, nonce1); after 20 rounds the output
// rows are XORed with the input rows they came from instead of the usual
// feed-forward addition. See docs/spec.md section 3.
package chacha

import "encoding/binary"

// BlockSize is the size of one seed or output block in bytes.
const BlockSize = 16

// Rows 0 of the state: "expand 16-byte k" for mul <= 2, "expand 32-byte k" for mul 4.
var (
	sigma16 = [4]uint32{0x61707865, 0x3120646e, 0x79622d36, 0x6b206574}
	sigma32 = [4]uint32{0x61707865, 0x3320646e, 0x79622d32, 0x6b206574}
)

// Expand writes mul (1, 2 or 4) output blocks for every 16-byte seed of src:
// dst block (i*mul+j) is output j of seed i. len(dst) must be len(src)*mul.
func Expand(dst, src []byte, nonce [2]uint32, mul int) {
	if mul != 1 && mul != 2 && mul != 4 {
		panic("chacha: mul must be 1, 2 or 4")
	}
	if len(src)%BlockSize != 0 || len(dst) != len(src)*mul {
		panic("chacha: bad buffer lengths")
	}
	impls.Ops().expand(dst, src, nonce, mul)
}

// ExpandSelect is Expand for half of the outputs per seed: with h = mul/2 (mul 2 or
// 4), dst block (i*h+j) is output sel[i]*h+j of seed i. sel[i] must be 0 or 1.
func ExpandSelect(dst, src []byte, nonce [2]uint32, mul int, sel []byte) {
	if mul != 2 && mul != 4 {
		panic("chacha: ExpandSelect needs mul 2 or 4")
	}
	h := mul / 2
	if len(src)%BlockSize != 0 || len(dst) != len(src)*h || len(sel) != len(src)/BlockSize {
		panic("chacha: bad buffer lengths")
	}
	// A value above 1 would pick a row past the seed's outputs: refused on every
	// backend before any is written. Any such value sets a bit above bit 0 of the OR.
	var bits byte
	for _, s := range sel {
		bits |= s
	}
	if bits > 1 {
		panic("chacha: sel values must be 0 or 1")
	}
	impls.Ops().expandSelect(dst, src, nonce, mul, sel)
}

// permute runs the reference variant on one seed and returns the four output rows.
func permute(seed [4]uint32, nonce [2]uint32, mul int) [4][4]uint32 {
	c := sigma16
	if mul == 4 {
		c = sigma32
	}
	in := [16]uint32{
		c[0], c[1], c[2], c[3],
		seed[0], seed[1], seed[2], seed[3],
		seed[0], seed[1], seed[2], seed[3],
		0, 0, nonce[0], nonce[1],
	}
	x := in
	for range 10 {
		x[0], x[4], x[8], x[12] = quarterRound(x[0], x[4], x[8], x[12])
		x[1], x[5], x[9], x[13] = quarterRound(x[1], x[5], x[9], x[13])
		x[2], x[6], x[10], x[14] = quarterRound(x[2], x[6], x[10], x[14])
		x[3], x[7], x[11], x[15] = quarterRound(x[3], x[7], x[11], x[15])
		x[0], x[5], x[10], x[15] = quarterRound(x[0], x[5], x[10], x[15])
		x[1], x[6], x[11], x[12] = quarterRound(x[1], x[6], x[11], x[12])
		x[2], x[7], x[8], x[13] = quarterRound(x[2], x[7], x[8], x[13])
		x[3], x[4], x[9], x[14] = quarterRound(x[3], x[4], x[9], x[14])
	}
	var out [4][4]uint32
	for r := range 4 {
		for w := range 4 {
			out[r][w] = x[4*r+w] ^ in[4*r+w]
		}
	}
	return out
}

// quarterRound works on values rather than on indices into the state so that it
// inlines and the state stays in registers (twice as fast as the indexed form).
func quarterRound(a, b, c, d uint32) (uint32, uint32, uint32, uint32) {
	a += b
	d ^= a
	d = d<<16 | d>>16
	c += d
	b ^= c
	b = b<<12 | b>>20
	a += b
	d ^= a
	d = d<<8 | d>>24
	c += d
	b ^= c
	b = b<<7 | b>>25
	return a, b, c, d
}

// outputRow maps output j of a PRG with the given mul to the state row it is read
// from: mul 1 outputs row 1; mul 2 rows 0, 1; mul 4 rows 0..3.
func outputRow(mul, j int) int {
	if mul == 1 {
		return 1
	}
	return j
}

func loadSeed(b []byte) [4]uint32 {
	return [4]uint32{
		binary.LittleEndian.Uint32(b[0:]), binary.LittleEndian.Uint32(b[4:]),
		binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:]),
	}
}

func storeRow(b []byte, row [4]uint32) {
	for w := range 4 {
		binary.LittleEndian.PutUint32(b[4*w:], row[w])
	}
}

// ExpandChildren writes both children of every DPF tree node of src (blocks, the
// node's control bit t in bit 0 of byte 12): dst block 2i+c is output c of the PRG
// with mul 2 on node i's seed (its control bit cleared), XORed with cws[c] where t
// is 1; with leaf not nil, that child's leaf output (see Leaf). len(dst) must be
// 2*len(src).
func ExpandChildren(dst, src []byte, nonce [2]uint32, cws *[2][16]byte, leaf *Leaf) {
	if len(src)%BlockSize != 0 || len(dst) != 2*len(src) {
		panic("chacha: bad buffer lengths")
	}
	impls.Ops().children(dst, src, nonce, cws, leaf)
}

// Leaf turns the children of ExpandChildren into a DPF's outputs, in a group's
// arithmetic as Arith says: a child c with control bit t becomes (c AND From) +
// t*Value, then 0 minus that in the bits of Neg (party 1 of an integer group).
type Leaf struct {
	Arith
	Neg, Value [16]byte
}

// output turns the child b into its output in place.
func (l *Leaf) output(b []byte) {
	l.share(b, &l.Value)
	negate(b, &l.Neg)
}

// share sets b, a leaf with control bit t, to (b AND From) + t*value.
func (a *Arith) share(b []byte, value *[16]byte) {
	t := b[12] & 1
	for i := range BlockSize {
		b[i] &= a.From[i]
	}
	if t == 1 {
		a.addTo(b, value[:])
	}
}

// addTo sets sum to sum + term in a's arithmetic.
func (a *Arith) addTo(sum, term []byte) {
	for h := 0; h < BlockSize; h += 8 {
		word := func(m []byte) uint64 { return binary.LittleEndian.Uint64(m[h:]) }
		x, y := word(sum), word(term)
		binary.LittleEndian.PutUint64(sum[h:], (x^y)&word(a.Xor[:])|(x+y)&word(a.Add[:]))
	}
}

// negate sets b to 0 - b (in 64-bit halves) in the bits of neg.
func negate(b []byte, neg *[16]byte) {
	for h := 0; h < BlockSize; h += 8 {
		x, n := binary.LittleEndian.Uint64(b[h:]), binary.LittleEndian.Uint64(neg[h:])
		binary.LittleEndian.PutUint64(b[h:], -x&n|x&^n)
	}
}

// DcfLevel is a level of a DCF tree for ExpandDcfChildren, in a group's arithmetic
// as Arith says (values are blocks ANDed with From).
type DcfLevel struct {
	Arith
	Cws [3][16]byte // the left and right children's seed corrections, the value correction (a value)
	// Leaf: write the children's outputs rather than children. Neg and Last are
	// then as Leaf's Neg and Value, Last the output correction word's value.
	Leaf      bool
	Neg, Last [16]byte
}

// ExpandDcfChildren writes both children of every DCF tree node of src (blocks,
// control bit t in bit 0 of byte 12) with path values srcV: dst block 2i+c is child
// c of node i, the PRG's (mul 4) output 2c on the node's seed (control bit cleared)
// XORed with l.Cws[c] where t is 1, and dstV block 2i+c its path value, node i's
// value + (output 2c+1 AND From) + t*l.Cws[2]. With l.Leaf, dst block 2i+c is
// instead that child's output: its value + (the child AND From) + t'*l.Last (t' the
// child's control bit), then 0 minus that in the bits of l.Neg; dstV is not used.
// dst and dstV must not overlap src or srcV.
func ExpandDcfChildren(dst, dstV, src, srcV []byte, nonce [2]uint32, l *DcfLevel) {
	values := len(dst)
	if l.Leaf {
		values = 0
	}
	if len(src)%BlockSize != 0 || len(srcV) != len(src) || len(dst) != 2*len(src) || len(dstV) != values {
		panic("chacha: bad buffer lengths")
	}
	impls.Ops().dcfChildren(dst, dstV, src, srcV, nonce, l)
}
