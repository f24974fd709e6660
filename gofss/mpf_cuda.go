package gofss

// What the GPU's batched Eval of the multi-point schemes (cuda/mpf.cuh, launched by
// gofss/cuda) leaves to the host: a vdmpf proof is a chain of hashes in input order,
// which the kernels do not run. They write each pair's bucket and proof piece instead.

// FoldProof makes party's vdmpf proof over M inputs from the buckets and proof
// pieces of their pairs, as EvalProof makes it: the pair of input j under hash
// function k has its bucket at bkts[3j+k] and its piece at pieces[ProofBlocks*(3j+k):].
// Each bucket's proof starts as its cs and takes the pieces of its pairs in input
// order, and pi is the chain of all buckets' proofs. A bucket outside the key's m_rt
// (the kernels' mark of a bad header) is refused.
func (d *Mpf) FoldProof(pi *[ProofBlocks]Block, cws []Cw, bkts []int32, pieces []Block) error {
	if err := d.checkProofs(pi); err != nil {
		return err
	}
	if err := checkCwsLen(&d.params, 1, len(cws)); err != nil {
		return err
	}
	_, mRt, err := d.header(cws)
	if err != nil {
		return err
	}
	if len(bkts)%cuckooHashes != 0 || len(pieces) != ProofBlocks*len(bkts) {
		return ArgErrorf("bkts and pieces must hold %d buckets and %d pieces (%d blocks each) per input, not %d and %d blocks",
			cuckooHashes, cuckooHashes, ProofBlocks, len(bkts), len(pieces))
	}
	for _, b := range bkts {
		if b < 0 || int(b) >= mRt {
			return ArgErrorf("bkts: bucket %d is outside the key's %d buckets in use", b, mRt)
		}
	}
	order := make([]int32, len(bkts))
	start := bucketLists(bkts, mRt, order)
	h := d.proofs.hp.Get()
	defer h.Put()
	*pi = [ProofBlocks]Block{}
	for b := range d.params.Buckets() {
		bucketPi := keyCs(d.bucket(cws, b), d.params.BucketBits)
		if b < mRt {
			for i, pos := range order[start[b]:start[b+1]] {
				if i%proveSpan == 0 && d.ctl.stopped() {
					return ErrStopped
				}
				proofStep(h, &bucketPi, (*[ProofBlocks]Block)(pieces[ProofBlocks*int(pos):]))
			}
		}
		proofStep(h, pi, &bucketPi)
	}
	return d.ctl.err()
}

// MinBuckets is the least m_rt that a dmpf or vdmpf key's header may give (fewer
// buckets of 2^BucketBits values could not hold the 3·2^InBits hashed values), for
// the kernels' check of the header.
func (p Params) MinBuckets() int { return minBuckets(p.InBits, p.BucketBits) }
