package gofss

import (
	"crypto/rand"
	"errors"
	"slices"
)

// Dmpf is a distributed multi-point function scheme: f(alphas[j]) = betas[j] for t
// distinct points, 0 elsewhere, over inputs of InBits bits (docs/spec.md section
// 14). Gen places the points by Cuckoo hashing into Buckets() buckets, each a DPF
// key over BucketBits-bit inputs (the buckets' dummy keys are for 0 at 0), and Eval
// adds up an input's shares in the three buckets its hash functions name.
//
// A key is Params.CwRows() correction words shared by both parties: a header row
// (the PRP key sigma; word 4 the number of buckets in use, m_rt), then the m DPF
// keys of BucketBits+1 rows each. Each party also holds one seed per bucket.
type Dmpf struct {
	params Params
	inner  *Dpf // the buckets' scheme
	// place is cuckooPlace; tests replace it to make placements fail.
	place func(bkts []int32, buckets int) ([]cuckooEntry, bool)
}

// ErrCuckooFailed is the error of a Gen that found no Cuckoo placement of its points
// under maxSigmaAttempts PRP keys, which has a negligible probability.
var ErrCuckooFailed = errors.New("gofss: no Cuckoo placement of the points found")

// maxSigmaAttempts is the number of PRP keys Gen tries.
const maxSigmaAttempts = 16

// NewDmpf makes the multi-point scheme that p (of kind dmpf) describes; the options
// choose the walk implementation of its buckets' DPF.
func NewDmpf(p Params, opts ...Option) (*Dmpf, error) {
	if p.Kind != KindDmpf {
		return nil, ArgErrorf("scheme: NewDmpf makes dmpf, not %s", p.Kind)
	}
	prg, err := p.NewPrg()
	if err != nil {
		return nil, err
	}
	inner := Params{Kind: KindDpf, InBits: p.BucketBits, Group: p.Group, Prg: p.Prg, Nonce: p.Nonce, AesKeys: p.AesKeys}
	d, err := newDpf(inner, prg, opts)
	if err != nil {
		return nil, err
	}
	return &Dmpf{params: p, inner: d, place: cuckooPlace}, nil
}

func (d *Dmpf) Params() Params { return d.params }
func (d *Dmpf) Impl() string   { return d.inner.Impl() }

// bucketRows is the number of rows of one bucket's key.
func (d *Dmpf) bucketRows() int { return d.params.BucketBits + 1 }

// bucket returns bucket b's key within a key's rows.
func (d *Dmpf) bucket(cws []Cw, b int) []Cw {
	r := d.bucketRows()
	return cws[1+b*r : 1+(b+1)*r]
}

// Gen makes a key for the points alphas (t distinct values, 1 <= t <= MaxPoints)
// and values betas into cws (CwRows() rows). s0s holds two seeds per bucket
// (bucket i: party 0's at 2i, party 1's at 2i+1). sigma is the first PRP key
// tried; should the points find no Cuckoo placement under it, Gen draws new ones
// (crypto/rand). It returns the number of keys tried.
func (d *Dmpf) Gen(cws []Cw, s0s []Block, sigma Block, alphas []Uint128, betas []Block) (int, error) {
	p, m := d.params, d.params.Buckets()
	t := len(alphas)
	if t < 1 || t > p.MaxPoints {
		return 0, ArgErrorf("alphas must hold between 1 and max_points (%d) points, not %d", p.MaxPoints, t)
	}
	if len(betas) != t {
		return 0, ArgErrorf("betas must hold one block per point (%d), not %d", t, len(betas))
	}
	if len(s0s) != 2*m {
		return 0, ArgErrorf("s0s must hold 2 seeds per bucket (%d buckets), not %d", m, len(s0s))
	}
	if err := checkCwsLen(p, 1, len(cws)); err != nil {
		return 0, err
	}
	if err := checkInputs("alpha", p.InBits, alphas); err != nil {
		return 0, err
	}
	if err := checkDistinct(alphas); err != nil {
		return 0, err
	}
	mRt := mpfBuckets(p.InBits, t, p.BucketBits)
	bkts, idxs := make([]int32, cuckooHashes*t), make([]Uint128, cuckooHashes*t)
	for attempt := 1; ; attempt++ {
		h := newCuckooHash(sigma, p.InBits, mRt)
		h.locate(alphas, bkts, idxs, h.tablesFor(t))
		if table, ok := d.place(bkts, mRt); ok {
			cws[0] = Cw{sigma, Block{Lo: uint64(mRt)}}
			return attempt, d.genBuckets(cws[1:], s0s, table, idxs, betas)
		}
		if attempt == maxSigmaAttempts {
			return attempt, ErrCuckooFailed
		}
		var b [16]byte
		_, _ = rand.Read(b[:]) // never fails (crypto/rand's contract)
		sigma = BlockFromBytes(b)
	}
}

// genBuckets makes the m buckets' DPF keys: for a placed point its index within the
// bucket and its value, for the other buckets (0, 0).
func (d *Dmpf) genBuckets(cws []Cw, s0s []Block, table []cuckooEntry, idxs []Uint128, betas []Block) error {
	m := d.params.Buckets()
	points, values := make([]Uint128, m), make([]Block, m)
	for b, e := range table {
		if e.point >= 0 {
			points[b], values[b] = idxs[cuckooHashes*int(e.point)+int(e.hash)], betas[e.point]
		}
	}
	return d.inner.Gen(cws, s0s, points, values)
}

// checkDistinct refuses a point given twice.
func checkDistinct(xs []Uint128) error {
	sorted := slices.Clone(xs)
	slices.SortFunc(sorted, func(a, b Uint128) int {
		if a.less(b) {
			return -1
		}
		if b.less(a) {
			return 1
		}
		return 0
	})
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return ArgErrorf("alphas must be distinct: %s appears more than once", sorted[i].big())
		}
	}
	return nil
}

// header reads a key's header row: the PRP key and the number of buckets in use,
// refusing a count that the parameters cannot have given.
func (d *Dmpf) header(cws []Cw) (Block, int, error) {
	p, m := d.params, d.params.Buckets()
	hdr := cws[0][1]
	least := minBuckets(p.InBits, p.BucketBits)
	if hdr.Hi != 0 || hdr.Lo < uint64(least) || hdr.Lo > uint64(m) {
		return Block{}, 0, ArgErrorf("cws: the header row's words 4-7 must be (m_rt, 0, 0, 0) with m_rt between %d and %d", least, m)
	}
	return cws[0][0], int(hdr.Lo), nil
}

// checkKey checks a party's key: m seeds, CwRows() rows, a valid header and
// buckets that are DPF keys; it returns the header.
func (d *Dmpf) checkKey(party int, s0s []Block, cws []Cw) (Block, int, error) {
	if err := checkParty(party); err != nil {
		return Block{}, 0, err
	}
	if m := d.params.Buckets(); len(s0s) != m {
		return Block{}, 0, ArgErrorf("s0s must hold one seed per bucket (%d), not %d", m, len(s0s))
	}
	if err := checkCwsLen(d.params, 1, len(cws)); err != nil {
		return Block{}, 0, err
	}
	if err := d.inner.checkCws(cws[1:]); err != nil {
		return Block{}, 0, err
	}
	return d.header(cws)
}

// Eval writes party's shares of f at every x of xs to dst (BatchEval): each x's
// three (bucket, index) pairs are gathered per bucket, every bucket's DPF key is
// evaluated at its indices in one batch, and the three shares are added up.
func (d *Dmpf) Eval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128) error {
	sigma, mRt, err := d.checkKey(party, s0s, cws)
	if err != nil {
		return err
	}
	if len(dst) != len(xs) {
		return ArgErrorf("dst must hold one block per point (%d), not %d", len(xs), len(dst))
	}
	if err := checkInputs("x", d.params.InBits, xs); err != nil {
		return err
	}
	if len(xs) == 0 {
		return nil
	}
	h := newCuckooHash(sigma, d.params.InBits, mRt)
	bkts, idxs := make([]int32, cuckooHashes*len(xs)), make([]Uint128, cuckooHashes*len(xs))
	h.locate(xs, bkts, idxs, h.tablesFor(len(xs)))
	order, start := bucketLists(bkts, mRt)
	sortedIdxs, shares := make([]Uint128, len(order)), make([]Block, len(order))
	for i, pos := range order {
		sortedIdxs[i] = idxs[pos]
	}
	errs := make([]error, mRt)
	perBucket := float64(len(order)) / float64(mRt)
	forChunks(mRt, perBucket*evalCostNs(d.params.BucketBits, 1)+1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			if start[b] < start[b+1] {
				errs[b] = d.inner.Eval(shares[start[b]:start[b+1]], party, s0s[b:b+1], d.bucket(cws, b), sortedIdxs[start[b]:start[b+1]])
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// where[3j+k] is the position in shares of input j's pair under hash k.
	where := make([]int32, len(order))
	for i, pos := range order {
		where[pos] = int32(i)
	}
	ar := d.params.Group.arith()
	for j := range dst {
		y := ar.from(shares[where[3*j]])
		y = ar.add(y, ar.from(shares[where[3*j+1]]))
		dst[j] = ar.into(ar.add(y, ar.from(shares[where[3*j+2]])))
	}
	return nil
}

// EvalAll writes party's shares of f at every input x to dst[x]. It evaluates each
// bucket in use on its whole domain and adds the share at each index in the bucket
// to the input that index stands for, found through the PRP's inverse.
func (d *Dmpf) EvalAll(dst []Block, party int, s0s []Block, cws []Cw) error {
	sigma, mRt, err := d.checkKey(party, s0s, cws)
	if err != nil {
		return err
	}
	n := d.params.InBits
	if err := checkDomainLen(n, len(dst), 1, "blocks"); err != nil {
		return err
	}
	clear(dst)
	h := newCuckooHash(sigma, n, mRt)
	tab := h.prp.tables(&h.dom)
	domain, size := h.dom.small, h.size
	bucket := make([]Block, 1<<d.params.BucketBits)
	ar := d.params.Group.arith()
	// Buckets from ceil(D / size) on hold no hashed value (m_rt may round up).
	for b := range min(mRt, int((domain+size-1)/size)) {
		if err := d.inner.EvalAll(bucket, party, s0s[b:b+1], d.bucket(cws, b)); err != nil {
			return err
		}
		first := uint64(b) * size
		for idx, share := range bucket[:min(size, domain-first)] {
			x := tab.invert(first+uint64(idx), domain) & (1<<n - 1)
			dst[x] = ar.into(ar.add(ar.from(dst[x]), ar.from(share)))
		}
	}
	return nil
}
