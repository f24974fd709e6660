package gofss

import (
	"cmp"
	"crypto/rand"
	"errors"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/hashes"
	"github.com/pyfss/pyfss/gofss/internal/scatter"
)

// Mpf is a distributed multi-point function scheme, dmpf or its verifiable form
// vdmpf: f(alphas[j]) = betas[j] for t distinct points, 0 elsewhere, over inputs of
// InBits bits (docs/spec.md section 16). Gen places the points by Cuckoo hashing
// into Buckets() buckets, each a DPF (vdmpf: VDPF) key over BucketBits-bit inputs
// (the buckets' dummy keys are for 0 at 0), and Eval adds up an input's shares in
// the three buckets its hash functions name. A vdmpf party's EvalProof also makes a
// proof, equal for both parties when the key is well formed.
//
// A key is Params.CwRows() correction words shared by both parties: a header row
// (the PRP key sigma; word 4 the number of buckets in use, m_rt), then the m
// buckets' keys in their scheme's layout (DPF: BucketBits+1 rows; VDPF: BucketBits+3).
// Each party also holds one seed per bucket.
type Mpf struct {
	params Params
	inner  mpfInner // the buckets' scheme
	proofs *Vdpf    // the same for vdmpf, nil for dmpf
	ctl    callControl
	// place is cuckooPlace; tests replace it to make placements fail.
	place func(bkts []int32, buckets int) ([]cuckooEntry, bool)
}

// ErrCuckooFailed is the error of a Gen that found no Cuckoo placement of its points
// under maxSigmaAttempts PRP keys, which has a negligible probability.
var ErrCuckooFailed = errors.New("gofss: no Cuckoo placement of the points found")

// maxSigmaAttempts is the number of PRP keys Gen tries.
const maxSigmaAttempts = 16

// mpfInner is what Mpf needs of its buckets' scheme (Dpf or Vdpf).
type mpfInner interface {
	Scheme
	checkCws(cws []Cw) error
	evalRuns(dst []Block, party int, s0s []Block, cws []Cw, start, stop uint64) error
}

// NewMpf makes the multi-point scheme that p (of kind dmpf or vdmpf) describes; the
// options choose the walk implementation of its buckets' DPF.
func NewMpf(p Params, opts ...Option) (*Mpf, error) {
	if !p.Kind.multiPoint() {
		return nil, ArgErrorf("scheme: NewMpf makes dmpf and vdmpf, not %s", p.Kind)
	}
	prg, err := p.NewPrg()
	if err != nil {
		return nil, err
	}
	d := &Mpf{params: p.owned(), place: cuckooPlace}
	inner := Params{Kind: KindDpf, InBits: p.BucketBits, Group: p.Group, Prg: p.Prg, Nonce: p.Nonce, AesKeys: p.AesKeys}
	if p.Kind == KindVdmpf {
		inner.Kind, inner.Hash = KindVdpf, p.Hash
		d.proofs, err = newVdpf(inner, prg, opts)
		d.inner = d.proofs
	} else {
		d.inner, err = newDpf(inner, prg, opts)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// WithControl returns the scheme with calls that c watches and ends. Done counts
// the inputs finished, of Eval and EvalProof, or outputs of EvalAll and
// EvalAllProof (those of EvalAll in proportion to the buckets walked and added,
// the whole domain once its last adds are done); the buckets' own calls stop
// with the call and count nothing.
func (d *Mpf) WithControl(c *Control) *Mpf {
	cp := *d
	cp.ctl = callControl{c: c}
	inner := callControl{c: c, uncounted: true}
	switch in := d.inner.(type) {
	case *Vdpf:
		v := *in
		v.ctl = inner
		cp.inner, cp.proofs = &v, &v
	case *Dpf:
		dp := *in
		dp.ctl = inner
		cp.inner = &dp
	}
	return &cp
}

func (d *Mpf) Params() Params { return d.params }
func (d *Mpf) Impl() string   { return d.inner.Impl() }

// bucketRows is the number of rows of one bucket's key.
func (d *Mpf) bucketRows() int { return d.inner.Params().CwRows() }

// bucket returns bucket b's key within a key's rows.
func (d *Mpf) bucket(cws []Cw, b int) []Cw {
	r := d.bucketRows()
	return cws[1+b*r : 1+(b+1)*r]
}

// Gen makes a key for the points alphas (t distinct values, 1 <= t <= MaxPoints)
// and values betas into cws (CwRows() rows). s0s holds two seeds per bucket
// (bucket i: party 0's at 2i, party 1's at 2i+1). sigma is the first PRP key
// tried; should the points find no Cuckoo placement under it, Gen draws new ones
// (crypto/rand). It returns the number of keys tried.
func (d *Mpf) Gen(cws []Cw, s0s []Block, sigma Block, alphas []Uint128, betas []Block) (int, error) {
	p, m := &d.params, d.params.Buckets()
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
	if err := checkSeedPairs(s0s, "bucket"); err != nil { // before the header row is written
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
func (d *Mpf) genBuckets(cws []Cw, s0s []Block, table []cuckooEntry, idxs []Uint128, betas []Block) error {
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
	if x, ok := repeatedPoint(xs); ok {
		return ArgErrorf("alphas must be distinct: %s appears more than once", x.big())
	}
	return nil
}

// repeatedPoint is the least point that xs holds more than once, if any. Points of
// 64 bits, in_bits <= 64 (the usual case), sort as plain words: through a comparison
// function the sort took a sixth of a DMPF Gen of 1024 points.
func repeatedPoint(xs []Uint128) (Uint128, bool) {
	if slices.ContainsFunc(xs, func(x Uint128) bool { return x.Hi != 0 }) {
		sorted := slices.Clone(xs)
		slices.SortFunc(sorted, func(a, b Uint128) int {
			return cmp.Or(cmp.Compare(a.Hi, b.Hi), cmp.Compare(a.Lo, b.Lo))
		})
		return repeatedIn(sorted)
	}
	words := make([]uint64, len(xs))
	for i, x := range xs {
		words[i] = x.Lo
	}
	slices.Sort(words)
	w, ok := repeatedIn(words)
	return Uint128{Lo: w}, ok
}

// repeatedIn is the first element of sorted equal to the one before it, if any.
func repeatedIn[T comparable](sorted []T) (T, bool) {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return sorted[i], true
		}
	}
	var zero T
	return zero, false
}

// header reads a key's header row: the PRP key and the number of buckets in use,
// refusing a count that the parameters cannot have given.
func (d *Mpf) header(cws []Cw) (Block, int, error) {
	p, m := &d.params, d.params.Buckets()
	hdr := cws[0][1]
	least := minBuckets(p.InBits, p.BucketBits)
	if hdr.Hi != 0 || hdr.Lo < uint64(least) || hdr.Lo > uint64(m) {
		return Block{}, 0, ArgErrorf("cws: the header row's words 4-7 must be (m_rt, 0, 0, 0) with m_rt between %d and %d", least, m)
	}
	return cws[0][0], int(hdr.Lo), nil
}

// checkKey checks a party's key: m seeds, CwRows() rows, a valid header and
// buckets that are DPF keys; it returns the header.
func (d *Mpf) checkKey(party int, s0s []Block, cws []Cw) (Block, int, error) {
	if err := checkParty(party); err != nil {
		return Block{}, 0, err
	}
	if m := d.params.Buckets(); len(s0s) != m {
		return Block{}, 0, ArgErrorf("s0s must hold one seed per bucket (%d), not %d", m, len(s0s))
	}
	if err := checkCwsLen(&d.params, 1, len(cws)); err != nil {
		return Block{}, 0, err
	}
	if err := d.inner.checkCws(cws[1:]); err != nil {
		return Block{}, 0, err
	}
	return d.header(cws)
}

// Eval writes party's shares of f at every x of xs to dst (BatchEval without the
// proof).
func (d *Mpf) Eval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128) error {
	return d.batchEval(dst, nil, party, s0s, cws, xs, nil)
}

// EvalProof is vdmpf's BatchEval: Eval, and party's proof over xs into pi.
func (d *Mpf) EvalProof(dst []Block, pi *[ProofBlocks]Block, party int, s0s []Block, cws []Cw, xs []Uint128) error {
	if err := d.checkProofs(pi); err != nil {
		return err
	}
	return d.batchEval(dst, pi, party, s0s, cws, xs, nil)
}

// checkProofs refuses a proof call on keys without proofs, or with nowhere to put it.
func (d *Mpf) checkProofs(pi *[ProofBlocks]Block) error {
	if d.proofs == nil {
		return ArgErrorf("scheme: %s keys have no proofs", d.params.Kind)
	}
	if pi == nil {
		return ArgErrorf("pi must not be nil")
	}
	return nil
}

// EvalAllProof is vdmpf's full-domain evaluation: EvalAll, and party's proof over
// the inputs 0 .. 2^in_bits - 1 in order (BatchEval's over the whole domain). Where
// each worker can hold a bucket's pieces (proofGroup), each bucket's whole domain is
// walked once: its shares added to the inputs its indices stand for, as EvalAll
// adds them, and its pieces taken into its proof in the order of those inputs
// (both found through the PRP's inverse); else it is BatchEval over the domain.
func (d *Mpf) EvalAllProof(dst []Block, pi *[ProofBlocks]Block, party int, s0s []Block, cws []Cw) error {
	if err := d.checkProofs(pi); err != nil {
		return err
	}
	n := d.params.InBits
	if err := checkDomainLen(n, len(dst), 1, "blocks"); err != nil {
		return err
	}
	adviseHugePages(dst) // a fresh dst faults once per huge page, not per 4 KiB
	group := proofGroup(d.params.BucketBits)
	if group == 0 {
		return d.batchEval(dst, pi, party, s0s, cws, nil, func(xs []Uint128, lo int) {
			for i := range xs {
				xs[i] = Uint128{Lo: uint64(lo + i)}
			}
		})
	}
	sigma, mRt, err := d.checkKey(party, s0s, cws)
	if err != nil {
		return err
	}
	p := planEvalAll(sigma, n, mRt)
	clear(dst)
	adds := newRegionAdds(n, p.domain, d.params.Group, dst, Workers())
	defer adds.release()
	pibs := make([][ProofBlocks]Block, d.params.Buckets())
	for b := range pibs {
		pibs[b] = keyCs(d.bucket(cws, b), d.params.BucketBits)
	}
	if err := d.proveBuckets(pibs, p, group, adds, party, s0s, cws); err != nil {
		return err
	}
	adds.flush()
	*pi = [ProofBlocks]Block{}
	hp := d.proofs.hp.Get()
	defer hp.Put()
	for b := range pibs {
		proofStep(hp, pi, &pibs[b])
	}
	return nil
}

// maxProofScratchBytes bounds what EvalAllProof's walks of whole bucket domains
// hold at once over all workers (a variable for tests): per bucket, its domain's
// pieces and shares and its pieces in order, proofBucketBytes.
var maxProofScratchBytes = 256 << 20

func proofBucketBytes(bucketBits int) int { return (2*16*ProofBlocks + 16) << bucketBits }

// proofGroup is how many buckets' whole domains a worker of EvalAllProof walks and
// proves together: up to proveLanes (their chains step side by side), as many as
// its share of maxProofScratchBytes holds; 0 where not one does.
func proofGroup(bucketBits int) int {
	if bucketBits > 30 {
		return 0
	}
	return min(proveLanes, maxProofScratchBytes/Workers()/proofBucketBytes(bucketBits))
}

// proveBuckets walks each bucket b in use whole: it adds the shares of its indices
// to their inputs through adds, and takes into pibs[b] their proof pieces in the
// order of those inputs: index i of bucket b stands for z = PRP^-1(b*size + i) = x +
// k*2^n, BatchEval's pair (x, k), and BatchEval takes its inputs in order and each
// input's pairs in k's order. The buckets go in groups of group spread over the
// workers: a group's whole domains walked in one call, their pieces put in
// that order, their chains stepped side by side. It counts the outputs, in
// proportion to the buckets done.
func (d *Mpf) proveBuckets(pibs [][ProofBlocks]Block, p evalAllPlan, group int, adds *regionAdds, party int, s0s []Block, cws []Cw) error {
	counted := uint64(1) << d.params.InBits
	bb := d.params.BucketBits
	groups := (p.used + group - 1) / group
	errs := make([]error, groups)
	// About what a bucket's leaf costs: its walk, XH and H'.
	forChunks(groups, float64(group)*float64(uint64(1)<<bb)*300, func(lo, hi int) {
		w := bucketProver{d: d, p: p, domain: 1 << bb}
		for g := lo; g < hi && !d.ctl.stopped(); g++ {
			b0, b1 := g*group, min(p.used, (g+1)*group)
			if errs[g] = w.prove(pibs, adds, b0, b1, party, s0s, cws); errs[g] != nil {
				return
			}
			d.ctl.advance(int(counted*uint64(b1)/uint64(p.used) - counted*uint64(b0)/uint64(p.used)))
		}
	})
	if err := firstError(errs); err != nil {
		return err
	}
	return d.ctl.err()
}

// bucketProver is one worker's proveBuckets, with its buffers.
type bucketProver struct {
	d                       *Mpf
	p                       evalAllPlan
	domain                  int
	shares, pieces, ordered []Block
	zs, sortBuf             []uint64
	order                   []uint32
	counts                  []int
	walking                 []int32
}

// prove walks buckets b0 .. b1-1, adds their shares and takes their pieces into
// their proofs.
func (w *bucketProver) prove(pibs [][ProofBlocks]Block, adds *regionAdds, b0, b1, party int, s0s []Block, cws []Cw) error {
	d, p, domain := w.d, w.p, w.domain
	n, rows, size := d.params.InBits, d.bucketRows(), int(p.size)
	shares, pieces := grow(&w.shares, (b1-b0)*domain), grow(&w.pieces, ProofBlocks*(b1-b0)*domain)
	ordered := grow(&w.ordered, ProofBlocks*(b1-b0)*size)
	if err := d.proofs.evalAllPieces(shares, pieces, party, s0s[b0:b1], cws[1+b0*rows:1+b1*rows], size); err != nil {
		return err
	}
	// Each bucket's shares added and its pieces put in its inputs' order; only
	// the last bucket in use may stand for fewer than size inputs, and its chain
	// then goes alone.
	count := size
	s := adds.take()
	for b := b0; b < b1; b++ {
		w.zs, w.walking = p.invertBucket(grow(&w.zs, size), b, w.walking)
		count = len(w.zs)
		adds.add(s, w.zs, shares[(b-b0)*domain:], 1<<n-1)
		w.order = inputOrder(grow(&w.order, count), w.zs, n, &w.sortBuf, &w.counts)
		from, to := pieces[ProofBlocks*(b-b0)*domain:], ordered[ProofBlocks*(b-b0)*size:]
		for j, i := range w.order {
			f, t := from[ProofBlocks*int(i):ProofBlocks*int(i+1)], to[ProofBlocks*j:ProofBlocks*(j+1)]
			t[0], t[1], t[2], t[3] = f[0], f[1], f[2], f[3] // not a memmove call each
		}
	}
	adds.give(s)
	whole := b1 - b0
	if count < size {
		whole--
	}
	// The chains on this goroutine (proveGroups, not Prove, which would spread a
	// group's chains over the workers, fewer to a routine call).
	flat := unsafe.Slice(&pibs[b0][0], ProofBlocks*(b1-b0))
	d.proofs.proveGroups(flat, ordered, cws[1+b0*rows:1+(b0+whole)*rows], ProofBlocks*size, proveLanes, 0, 1)
	if whole < b1-b0 {
		last := ordered[ProofBlocks*whole*size : ProofBlocks*(whole*size+count)]
		d.proofs.proveGroups(flat[ProofBlocks*whole:], last, cws[1+(b1-1)*rows:1+b1*rows], ProofBlocks*count, 1, 0, 1)
	}
	return d.proofs.ctl.err()
}

// inputOrder writes to order the indices 0 .. len(zs)-1 of a bucket sorted by the
// pair (x, k) that each one's z = x + k*2^n stands for (z < 3*2^n, so the key
// x*4 + k has n+2 bits), and returns it. The keys, each packed above its index, go
// to about one bin per index by their top bits (a counting sort), and an insertion
// sort then orders each bin's few: the bucket's inputs are spread evenly by the PRP.
func inputOrder(order []uint32, zs []uint64, n int, buf *[]uint64, counts *[]int) []uint32 {
	idxBits := bits.Len(uint(len(zs)))
	binBits := min(idxBits, n+2)
	shift := idxBits + n + 2 - binBits
	packed, sorted := grow(buf, 2*len(zs))[:len(zs)], (*buf)[len(zs):2*len(zs)]
	at := grow(counts, 1<<binBits+1)
	clear(at)
	for i, z := range zs {
		packed[i] = ((z&(1<<n-1))<<2|z>>n)<<idxBits | uint64(i)
		at[1+packed[i]>>shift]++
	}
	for c := 1; c < len(at); c++ {
		at[c] += at[c-1]
	}
	for _, v := range packed {
		sorted[at[v>>shift]] = v
		at[v>>shift]++
	}
	moves := 0
	for j := 1; j < len(sorted) && moves <= 8*len(sorted); j++ {
		v, i := sorted[j], j
		for ; i > 0 && sorted[i-1] > v; i-- {
			sorted[i] = sorted[i-1]
		}
		sorted[i] = v
		moves += j - i
	}
	if moves > 8*len(sorted) {
		slices.Sort(sorted) // crowded bins, which a PRP spreads with negligible odds
	}
	for j, v := range sorted {
		order[j] = uint32(v & (1<<idxBits - 1))
	}
	return order
}

// evalChunk is the number of inputs that BatchEval locates and evaluates together:
// enough that each bucket's batched Eval carries about a hundred points (t = 1024),
// while the scratch (about 200 bytes an input, 400 with proofs) stays under 26 MiB
// however many inputs there are. Where all buckets go through one walk (DMPF on
// walks with keyedWalks), the buckets' sizes do not matter and keyedEvalChunk
// keeps the scratch in a core's L2 cache: about a tenth less time at t = 1024.
const (
	evalChunk      = 1 << 16
	keyedEvalChunk = 1 << 14
)

// batchEval is BatchEval: the inputs a chunk at a time, each chunk's (bucket, index)
// pairs gathered per bucket, every bucket's key evaluated at its indices in one
// batch, and the three shares of each input added up. With pi, each bucket's proof
// (starting from its cs) takes the pieces of its pairs in input order, chunk after
// chunk, and pi = the chain of all m buckets' proofs. The inputs are xs, or with
// fill (xs nil), 0 .. len(dst)-1 that fill writes a chunk at a time.
func (d *Mpf) batchEval(dst []Block, pi *[ProofBlocks]Block, party int, s0s []Block, cws []Cw, xs []Uint128, fill func(xs []Uint128, lo int)) error {
	sigma, mRt, err := d.checkKey(party, s0s, cws)
	if err != nil {
		return err
	}
	if fill == nil {
		if len(dst) != len(xs) {
			return ArgErrorf("dst must hold one block per point (%d), not %d", len(xs), len(dst))
		}
		if err := checkInputs("x", d.params.InBits, xs); err != nil {
			return err
		}
	}
	var pibs [][ProofBlocks]Block
	if pi != nil {
		pibs = make([][ProofBlocks]Block, d.params.Buckets())
		for b := range pibs {
			pibs[b] = keyCs(d.bucket(cws, b), d.params.BucketBits)
		}
	}
	h := newCuckooHash(sigma, d.params.InBits, mRt)
	tab := h.tablesFor(len(dst))
	size := evalChunk
	if d.keyedBuckets() && pi == nil {
		size = keyedEvalChunk
	}
	if pi == nil && fill == nil {
		// No proof runs through the chunks, so they go to the workers whole: each
		// chunk's Locate and sums as well as its walk (with the walks alone spread,
		// two cores ran 1.4 times as fast as one; now 1.9).
		chunks := (len(dst) + size - 1) / size
		errs := make([]error, chunks)
		perChunk := float64(size) * cuckooHashes * evalCostNs(d.params.BucketBits, 1)
		forChunks(chunks, perChunk, func(c0, c1 int) {
			for c := c0; c < c1 && !d.ctl.stopped(); c++ {
				lo, hi := c*size, min(len(dst), (c+1)*size)
				errs[c] = d.evalChunk(dst[lo:hi], nil, party, s0s, cws, xs[lo:hi], h, tab, mRt)
				d.ctl.advance(hi - lo)
			}
		})
		if err := firstError(errs); err != nil {
			return err
		}
	} else {
		// The buckets' proofs take the chunks in order (and fill shares one chunk).
		var chunk []Uint128
		if fill != nil {
			chunk = make([]Uint128, min(len(dst), size))
		}
		for lo := 0; lo < len(dst) && !d.ctl.stopped(); lo += size {
			hi := min(len(dst), lo+size)
			if fill != nil {
				fill(chunk[:hi-lo], lo)
			} else {
				chunk = xs[lo:hi]
			}
			if err := d.evalChunk(dst[lo:hi], pibs, party, s0s, cws, chunk[:hi-lo], h, tab, mRt); err != nil {
				return err
			}
			d.ctl.advance(hi - lo)
		}
	}
	if d.ctl.stopped() {
		return ErrStopped
	}
	if pi != nil {
		*pi = [ProofBlocks]Block{}
		hp := d.proofs.hp.Get()
		defer hp.Put()
		for b := range pibs {
			proofStep(hp, pi, &pibs[b])
		}
	}
	return nil
}

// evalChunk is batchEval on one chunk of inputs.
func (d *Mpf) evalChunk(dst []Block, pibs [][ProofBlocks]Block, party int, s0s []Block, cws []Cw, xs []Uint128, h *cuckooHash, tab *prpTables, mRt int) error {
	sc, _ := evalScratchPool.Get().(*evalScratch)
	if sc == nil {
		sc = new(evalScratch)
	}
	defer evalScratchPool.Put(sc)
	pairs := cuckooHashes * len(xs)
	bkts, idxs := grow(&sc.bkts, pairs), grow(&sc.idxs, pairs)
	h.locate(xs, bkts, idxs, tab)
	ar := d.params.Group.arith()
	if dpf, ok := d.inner.(*Dpf); ok && pibs == nil {
		// DMPF on walks that take points under several keys: all pairs in one
		// walk, in the inputs' order, so that an input's shares lie side by side
		// (sorting the pairs by bucket, for the walk's fetches of rows in bucket
		// order, cost more than those fetches saved).
		shares, rows := grow(&sc.shares, pairs), d.bucketRows()
		if served, err := dpf.evalKeyed(shares, party, s0s[:mRt], cws[1:1+mRt*rows], idxs, bkts); served {
			if err != nil {
				return err
			}
			for j := range xs {
				var y Block
				for _, share := range shares[cuckooHashes*j:][:cuckooHashes] {
					y = ar.add(y, ar.from(share))
				}
				dst[j] = ar.into(y)
			}
			return nil
		}
	}
	// The pairs in bucketLists' order: inputOf[i] is the input of the pair at i in
	// sortedIdxs (and shares).
	start := bucketStarts(bkts, mRt)
	sortedIdxs, shares, inputOf := grow(&sc.sortedIdxs, pairs), grow(&sc.shares, pairs), grow(&sc.inputOf, pairs)
	next := append([]int(nil), start[:mRt]...)
	for j := range xs {
		for p := cuckooHashes * j; p < cuckooHashes*(j+1); p++ {
			i := next[bkts[p]]
			sortedIdxs[i], inputOf[i] = idxs[p], int32(j)
			next[bkts[p]]++
		}
	}
	if err := d.evalBuckets(shares, pibs, party, s0s, cws, sortedIdxs, start, sc); err != nil {
		return err
	}
	// Each share added into its input's sum, in the shares' order: the reads in
	// order and the adds into the chunk's sums, which stay in cache (gathering each
	// input's three shares instead took twice the time).
	sums := grow(&sc.sums, len(xs))
	clear(sums)
	for i, j := range inputOf {
		sums[j] = ar.add(sums[j], ar.from(shares[i]))
	}
	for j, y := range sums {
		dst[j] = ar.into(y)
	}
	return nil
}

// evalBuckets evaluates the buckets in use (m_rt = len(start)-1) at their pairs'
// indices idxs (bucket b's at start[b] .. start[b+1]-1) into shares, each bucket a
// batched Eval of its own, and with pibs takes their proof pieces into the buckets'
// proofs.
func (d *Mpf) evalBuckets(shares []Block, pibs [][ProofBlocks]Block, party int, s0s []Block, cws []Cw, idxs []Uint128, start []int, sc *evalScratch) error {
	mRt := len(start) - 1
	var pieces []Block
	if pibs != nil {
		pieces = grow(&sc.pieces, ProofBlocks*len(idxs))
	}
	errs := make([]error, mRt)
	perBucket := float64(len(idxs)) / float64(mRt)
	forChunks(mRt, perBucket*evalCostNs(d.params.BucketBits, 1)+1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			errs[b] = d.evalBucket(shares[start[b]:start[b+1]], pieces, pibs != nil, b, start[b], party, s0s, cws, idxs[start[b]:start[b+1]])
		}
		if pibs != nil {
			hp := d.proofs.hp.Get()
			chainBuckets(hp, pibs, pieces, start, lo, hi)
			hp.Put()
		}
	})
	return firstError(errs)
}

// keyedWalks are walks that evaluate points under several keys in one batch (the
// AES routines of fastDpf): point j of xs under key keyOf[j] of s0s and cws, in any
// order, the keys' rows already checked. walkEvalKeyed reports whether it
// took the batch.
type keyedWalks interface {
	walkEvalKeyed(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, keyOf []int32) (bool, error)
}

// keyedBuckets says whether the buckets' walks are keyedWalks.
func (d *Mpf) keyedBuckets() bool {
	dpf, ok := d.inner.(*Dpf)
	if ok {
		_, ok = dpf.walks.(keyedWalks)
	}
	return ok
}

// evalKeyed is keyedWalks' call through the DPF's walks, false where they have none.
func (d *Dpf) evalKeyed(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, keyOf []int32) (bool, error) {
	kw, ok := d.walks.(keyedWalks)
	if !ok {
		return false, nil
	}
	return kw.walkEvalKeyed(d.ctl, dst, party, s0s, cws, xs, keyOf)
}

// evalScratch is evalChunk's scratch, kept for the next call: fresh, its tens of
// MiB would fault a page every 4 KiB. Every element is written before it is read.
type evalScratch struct {
	bkts, inputOf        []int32
	idxs, sortedIdxs     []Uint128
	shares, pieces, sums []Block
}

var evalScratchPool sync.Pool

// grow returns (*s)[:n], reallocating it where it is shorter.
func grow[T any](s *[]T, n int) []T {
	*s = slices.Grow((*s)[:0], n)[:n]
	return *s
}

// evalBucket evaluates bucket b at its pairs' indices idxs (pairs first ..
// first+len(idxs)-1 of the chunk) into shares, and with proofs their pieces into
// pieces at ProofBlocks*first.
func (d *Mpf) evalBucket(shares, pieces []Block, proofs bool, b, first, party int, s0s []Block, cws []Cw, idxs []Uint128) error {
	if len(idxs) == 0 {
		return nil
	}
	if !proofs {
		return d.inner.Eval(shares, party, s0s[b:b+1], d.bucket(cws, b), idxs)
	}
	mine := pieces[ProofBlocks*first : ProofBlocks*(first+len(idxs))]
	return d.proofs.EvalProof(shares, mine, party, s0s[b:b+1], d.bucket(cws, b), idxs)
}

// chainBuckets takes the pieces of buckets lo .. hi-1 (bucket b's pairs' at
// pieces[ProofBlocks*start[b]:], in input order) into their proofs pibs[b], each
// piece a proof step. The chains of up to proveLanes buckets step together, the
// hashes of a step in one HMany (BLAKE3 eight at once, SHA-256 two); a bucket with
// fewer pairs than the others of its group drops out once its pieces are taken.
func chainBuckets(hp *hashes.Hasher, pibs [][ProofBlocks]Block, pieces []Block, start []int, lo, hi int) {
	var ms [proveLanes][16 * ProofBlocks]byte
	var hs [proveLanes][2]Block // H' of each message: two blocks
	var lanes [proveLanes]int   // the bucket of each message
	for g := lo; g < hi; g += proveLanes {
		group := min(proveLanes, hi-g)
		longest := 0
		for b := g; b < g+group; b++ {
			longest = max(longest, start[b+1]-start[b])
		}
		for j := range longest {
			k := 0
			for b := g; b < g+group; b++ {
				if j >= start[b+1]-start[b] {
					continue
				}
				pi, p := &pibs[b], pieces[ProofBlocks*(start[b]+j):]
				m := [ProofBlocks]Block{pi[0].Xor(p[0]), pi[1].Xor(p[1]), pi[2].Xor(p[2]), pi[3].Xor(p[3])}
				ms[k], lanes[k] = *proofImage(&m), b
				k++
			}
			hp.HMany(unsafe.Slice((*[32]byte)(unsafe.Pointer(&hs[0])), k), ms[:k])
			for i, o := range hs[:k] {
				pi := &pibs[lanes[i]]
				pi[0], pi[1] = pi[0].Xor(o[0]), pi[1].Xor(o[1])
			}
		}
	}
}

// EvalAll writes party's shares of f at every input x to dst[x]. It evaluates the
// buckets in use on their whole domains, a group at a time, and adds the share at
// each index in a bucket to the input that index stands for, found through the
// PRP's inverse. Those inputs are random: where dst outgrows the caches, the shares
// first go to per-region lists (appends in order), and each region's adds then stay
// in cache (docs/spec.md section 16.5). The walks, the inverses and appends of a
// group's buckets, and the regions' adds spread over the workers.
func (d *Mpf) EvalAll(dst []Block, party int, s0s []Block, cws []Cw) error {
	sigma, mRt, err := d.checkKey(party, s0s, cws)
	if err != nil {
		return err
	}
	n, rows := d.params.InBits, d.bucketRows()
	if err := checkDomainLen(n, len(dst), 1, "blocks"); err != nil {
		return err
	}
	adviseHugePages(dst) // a fresh dst faults once per huge page, not per 4 KiB
	clear(dst)
	p := planEvalAll(sigma, n, mRt)
	leaves := make([]Block, p.group*int(p.walked))
	adds := newRegionAdds(n, p.domain, d.params.Group, dst, Workers())
	defer adds.release()
	// A bucket's inverses and adds, by the worker holding set s.
	bucket := func(s *queueSet, b, b0 int) {
		var inputs []uint64
		inputs, s.walking = p.invertBucket(grow(&s.xs, int(p.size)), b, s.walking)
		adds.add(s, inputs, leaves[(b-b0)*int(p.walked):], 1<<n-1)
	}
	for b0 := 0; b0 < p.used; b0 += p.group {
		b1 := min(p.used, b0+p.group)
		// The rows were checked above: the walk runs without DPF's checks.
		if err := d.inner.evalRuns(leaves[:(b1-b0)*int(p.walked)], party, s0s[b0:b1], cws[1+b0*rows:1+b1*rows], 0, p.walked); err != nil {
			return err
		}
		if d.ctl.stopped() {
			return ErrStopped
		}
		if adds.direct() {
			s := adds.take()
			for b := b0; b < b1; b++ {
				bucket(s, b, b0)
			}
			adds.give(s)
		} else {
			forChunks(b1-b0, float64(p.size)*bucketNsPerValue, func(lo, hi int) {
				s := adds.take()
				defer adds.give(s)
				for b := b0 + lo; b < b0+hi; b++ {
					bucket(s, b, b0)
				}
			})
		}
		// The outputs, counted in proportion to the buckets done; the last adds
		// count as one bucket more.
		d.ctl.advance(int(uint64(b1)<<n/uint64(p.used+1) - uint64(b0)<<n/uint64(p.used+1)))
	}
	adds.flush()
	d.ctl.advance(int(uint64(1)<<n - uint64(p.used)<<n/uint64(p.used+1)))
	return nil
}

// bucketNsPerValue is about what EvalAll's inverse and adds cost per value of a
// bucket.
const bucketNsPerValue = 12

// evalAllPlan is EvalAll's layout for a key: the PRP's tables, the hashed domain
// D, the bucket size, the buckets in use (those from ceil(D / size) on hold no
// hashed value: m_rt may round up), the indices walked in each, and the buckets
// walked together.
type evalAllPlan struct {
	tab                  *prpTables
	domain, size, walked uint64
	used, group          int
}

func planEvalAll(sigma Block, n, mRt int) evalAllPlan {
	h := newCuckooHash(sigma, n, mRt)
	p := evalAllPlan{tab: h.prp.tables(&h.dom), domain: h.dom.small, size: h.size}
	p.used = min(mRt, int((p.domain+p.size-1)/p.size))
	p.walked = walkedIndices(p.size)
	p.group = max(1, min(p.used, evalAllGroupBlocks/int(p.walked)))
	return p
}

// invertBucket returns the hashed values that bucket b's indices stand for, in
// xs (which holds size values): PRP^-1(b·size + i) for each index i below size
// that is inside the domain. walking is invertRange's scratch.
func (p *evalAllPlan) invertBucket(xs []uint64, b int, walking []int32) ([]uint64, []int32) {
	first := uint64(b) * p.size
	xs = xs[:min(p.size, p.domain-first)]
	return xs, p.tab.invertRange(xs, first, p.domain, walking)
}

// walkedIndices is the indices 0 .. walked-1 of a bucket that EvalAll walks to
// reach the size that stand for inputs: a small size rounded up to a multiple of a
// quarter of its highest power of two, so that the range splits into at most three
// aligned runs (each a batched walk from a subtree's root) for at most a quarter
// more leaves. From evalAllGroupBlocks on, a run's few descents cost nothing next to
// its leaves, and size stays as it is.
func walkedIndices(size uint64) uint64 {
	if size >= evalAllGroupBlocks {
		return size
	}
	step := uint64(1) << max(0, bits.Len64(size)-3)
	return (size + step - 1) &^ (step - 1)
}

// evalAllGroupBlocks is the most leaves that EvalAll evaluates in one batched walk
// (of several buckets' keys): 1 MiB.
const evalAllGroupBlocks = 1 << 16

// regionBits is log2 of a region of regionAdds: 2^14 blocks, 256 KiB, which stay in
// a core's L2 cache.
const regionBits = 14

// maxRegionsLog: there are at most 2^maxRegionsLog regions (lists written at once),
// larger ones beyond 2^22 outputs (up to 2^32 blocks at in_bits 40, so that offsets
// take 32 bits). A variable for the tests.
var maxRegionsLog = 8

// regionAdds adds shares into dst at random inputs. With one region (dst in cache)
// it adds at once, one caller at a time; with several, each worker (a goroutine of
// EvalAll's) appends its shares and their inputs' offsets to its own queues, and
// flush adds them all region by region, the regions spread over the workers.
type regionAdds struct {
	dst   []Block
	ar    *arith
	wide  bool // the group's values have high words or XOR (else only Lo, added, is queued)
	shift uint // region of input x: x >> shift
	per   int32
	sets  []*queueSet
	free  chan *queueSet // the sets no worker holds
	mu    sync.Mutex     // a set that fills flushes alone: one flush at a time adds into dst
}

// queueSet is one worker's queues: region g's at [g*per, (g+1)*per) of three
// parallel lists, a share's offset in its region, its value's low word and (wide
// groups) high word (a uint64 share takes 12 bytes there); q.Fill[g] is where
// region g's next add goes. It carries the worker's scratch for EvalAll too.
type queueSet struct {
	q       scatter.Lists
	safe    int      // shares that can be queued before a queue may be full
	hi      []uint64 // q.Hi's memory, kept (for later wide groups) where q.Hi is nil
	acc     []uint64 // a region's low words while a flush by this worker adds to them
	xs      []uint64 // EvalAll's inputs of a bucket
	walking []int32  // and the scratch of their inverses
}

// newRegionAdds prepares the adds of `count` shares (about count / regions per
// region) of group g into dst, which holds 2^n blocks, by up to `workers` workers.
func newRegionAdds(n int, count uint64, g Group, dst []Block, workers int) *regionAdds {
	ar := g.arith()
	r := &regionAdds{dst: dst, ar: ar, wide: ar.fromHi|ar.fromShifted|ar.xorLo|ar.addHi != 0}
	log := max(0, min(n-regionBits, maxRegionsLog))
	r.shift = uint(n - log)
	// Lists of an earlier call, whose pages are mapped already. Fresh ones (the
	// pool drops its lists in some garbage collections) fault in every 4 KiB as
	// they are written, unless the OS gives them huge pages, which they ask for: at
	// in_bits 20, 11,000 faults took a call from Python from 48 to 78-115 ns per
	// output on the development VM (which gave no huge pages).
	if old, ok := queuePool.Get().(*[]*queueSet); ok {
		r.sets = *old
	}
	if log == 0 {
		workers = 1 // one set, its scratch alone
	}
	for len(r.sets) < workers {
		r.sets = append(r.sets, &queueSet{})
	}
	r.sets = r.sets[:workers]
	r.free = make(chan *queueSet, workers)
	for _, s := range r.sets {
		r.free <- s
	}
	if log == 0 {
		return r
	}
	regions := 1 << log
	// The queues hold at most maxQueuedAdds between flushes, split between the
	// workers; a set whose queue is full flushes early.
	count = min(count, uint64(maxQueuedAdds)) / uint64(workers)
	r.per = int32(count/uint64(regions) + count/uint64(8*regions) + 64) // the mean, and slack
	total := regions * int(r.per)
	for _, s := range r.sets {
		s.q.Offs = slices.Grow(s.q.Offs[:0], total)[:total]
		s.q.Lo = slices.Grow(s.q.Lo[:0], total)[:total]
		adviseHugePages(s.q.Offs)
		adviseHugePages(s.q.Lo)
		s.q.Hi = nil
		if r.wide {
			s.hi = slices.Grow(s.hi[:0], total)[:total]
			s.q.Hi = s.hi
			adviseHugePages(s.hi)
		}
		s.q.Fill = make([]int32, regions)
		r.empty(s)
	}
	return r
}

var queuePool sync.Pool

// maxQueuedAdds bounds the adds queued at once (at most 20 bytes each: with the
// slack, about 90 MiB): from in_bits 21 on, where more would be, the queues are
// flushed whenever one fills, so their memory stays about that whatever in_bits. A
// variable for the tests.
var maxQueuedAdds = 1 << 22

// direct says whether the adds go straight into dst (one region): add is then for
// one caller at a time.
func (r *regionAdds) direct() bool { return r.per == 0 }

// take hands a worker a set of its own, which it gives back with give.
func (r *regionAdds) take() *queueSet  { return <-r.free }
func (r *regionAdds) give(s *queueSet) { r.free <- s }

// release gives the queues back for the next call (without the caller's output).
func (r *regionAdds) release() {
	queuePool.Put(&r.sets)
}

// add adds shares[i] into dst[xs[i] & mask] for every i (or queues it in s).
func (r *regionAdds) add(s *queueSet, xs []uint64, shares []Block, mask uint64) {
	ar := r.ar
	if r.direct() {
		// The inputs were all computed first: a loop of adds alone keeps several of
		// its cache misses in flight at once.
		for i, x := range xs {
			x &= mask
			r.dst[x] = ar.into(ar.add(ar.from(r.dst[x]), ar.from(shares[i])))
		}
		return
	}
	shares = shares[:len(xs)]
	for len(xs) > 0 {
		if s.safe == 0 {
			if s.safe = r.room(s); s.safe == 0 {
				r.mu.Lock()
				for g := range s.q.Fill {
					r.flushRegion(g, &s.acc, s)
				}
				r.mu.Unlock()
				r.empty(s)
				s.safe = r.room(s)
			}
		}
		k := min(len(xs), s.safe)
		s.q.Append(xs[:k], blockHalves(shares[:k]), mask, r.shift)
		s.safe -= k
		xs, shares = xs[k:], shares[k:]
	}
}

// room is the fewest free places of any region's queue of s: that many shares can
// be queued without a check.
func (r *regionAdds) room(s *queueSet) int {
	least := int(r.per)
	for g, p := range s.q.Fill {
		least = min(least, int(int32(g+1)*r.per-p))
	}
	return least
}

// flush makes the queued adds of every set and empties the queues: each region's
// from all sets at once, the regions spread over the workers.
func (r *regionAdds) flush() {
	if r.direct() {
		return
	}
	regions := len(r.sets[0].q.Fill)
	forChunks(regions, float64(int(1)<<r.shift)*flushNsPerOutput, func(lo, hi int) {
		s := r.take()
		defer r.give(s)
		for g := lo; g < hi; g++ {
			r.flushRegion(g, &s.acc, r.sets...)
		}
	})
	for _, s := range r.sets {
		r.empty(s)
	}
}

// flushNsPerOutput is about what flush costs per output (3 shares each).
const flushNsPerOutput = 6

// flushRegion makes the adds queued for region g in sets; acc is its scratch.
func (r *regionAdds) flushRegion(g int, acc *[]uint64, sets ...*queueSet) {
	ar := r.ar
	region := r.dst[g<<r.shift:][:1<<r.shift]
	from := int32(g) * r.per
	switch {
	case r.wide:
		for _, s := range sets {
			to := s.q.Fill[g]
			offs, lo, hi := s.q.Offs[from:to], s.q.Lo[from:to], s.q.Hi[from:to]
			for i, off := range offs {
				region[off] = ar.into(ar.add(ar.from(region[off]), ar.from(Block{lo[i], hi[i]})))
			}
		}
	case len(region) <= 1<<regionBits:
		// Values of the low word alone, added modulo 2^32 or 2^64, into a compact
		// copy of the region's low words: half the cache of its blocks.
		a := grow(acc, len(region))
		for i := range a {
			a[i] = region[i].Lo
		}
		for _, s := range sets {
			to := s.q.Fill[g]
			offs, lo := s.q.Offs[from:to], s.q.Lo[from:to]
			lo = lo[:len(offs)]
			for i, off := range offs {
				a[off] += lo[i]
			}
		}
		for i := range a {
			region[i].Lo = a[i] & ar.addLo
		}
	default:
		// The same in place, where regions are larger (beyond 2^22 outputs).
		for _, s := range sets {
			to := s.q.Fill[g]
			offs, lo := s.q.Offs[from:to], s.q.Lo[from:to]
			lo = lo[:len(offs)]
			for i, off := range offs {
				region[off].Lo = (region[off].Lo + lo[i]) & ar.addLo
			}
		}
	}
}

// empty empties the queues of s.
func (r *regionAdds) empty(s *queueSet) {
	s.safe = 0
	for g := range s.q.Fill {
		s.q.Fill[g] = int32(g) * r.per
	}
}
