package cuda

import "github.com/pyfss/pyfss/gofss"

// Planning turns a call into the kernel launches that run it, after checking every
// argument. An empty batch plans none: it is checked only for what does not depend on
// its addresses.

// As kThreads and kEvalAllTopLevels in cuda/batch.cuh: the threads of every block (the
// kernels' launch bounds), and how many levels the first EvalAll launch runs, a block
// per key.
const (
	threadsPerBlock  = 256
	evalAllTopLevels = 9
)

const cwBytes = 32 // a correction word: two blocks

// launch is one kernel launch of a planned call: the kernel's grid-stride loop covers
// `threads` indices (EvalAll: threadsPerBlock per block of work).
type launch struct {
	kernel  string
	threads uint64
	args    *args
}

func planGen(p gofss.Params, cws, s0s, alphas uintptr, alphaWords int, betas uintptr, k int) ([]launch, error) {
	err := firstError(checkParams(p, "gen"), checkWords("alpha_words", alphaWords), checkCount("k", k, maxItems))
	if err != nil || k == 0 {
		return nil, err
	}
	betasErr := checkPtr("betas", betas, blockAlign)
	if p.Kind == gofss.KindGrottoDcf {
		betas, betasErr = 0, nil // the kernel reads null betas as zero
	}
	if err := firstError(checkPtr("cws", cws, blockAlign), checkPtr("s0s", s0s, blockAlign),
		checkPtr("alphas", alphas, inputWordsAlign), betasErr); err != nil {
		return nil, err
	}
	if p.Kind == gofss.KindVdpf {
		a := vdpfArgs(p)
		a.ptr(cws).ptr(s0s).ptr(alphas).ptr(betas).i32(alphaWords).i32(p.InBits).u64(uint64(k))
		return []launch{{kernelName(p, "gen"), uint64(k), a}}, nil
	}
	a := newArgs(packedPrg(p))
	a.ptr(cws).ptr(s0s).ptr(alphas).ptr(betas).i32(alphaWords).i32(p.InBits).i32(predArg(p.Kind)).u64(uint64(k))
	return []launch{{kernelName(p, "gen"), uint64(k), a}}, nil
}

func planEval(p gofss.Params, dst uintptr, party int, s0s uintptr, k int, cws, xs uintptr, xWords, m int,
	scratch uintptr) ([]launch, error) {
	return planPoints(p, "eval", dst, 0, party, s0s, k, cws, xs, xWords, m, scratch)
}

// planEvalProof is VDPF's Eval with the proof pieces (k, m, 4, 4) in pieces.
func planEvalProof(p gofss.Params, dst, pieces uintptr, party int, s0s uintptr, k int, cws, xs uintptr, xWords,
	m int, scratch uintptr) ([]launch, error) {
	return planPoints(p, "eval_proof", dst, pieces, party, s0s, k, cws, xs, xWords, m, scratch)
}

// planPoints plans op "eval" or "eval_proof" (which also writes pieces) of k keys at
// m points each.
func planPoints(p gofss.Params, op string, dst, pieces uintptr, party int, s0s uintptr, k int, cws, xs uintptr,
	xWords, m int, scratch uintptr) ([]launch, error) {
	if err := firstError(checkParams(p, op), checkParty(party), checkWords("x_words", xWords), checkCount("k", k, maxItems),
		checkCount("m", m, maxItems), checkPoints(k, m)); err != nil || k == 0 || m == 0 {
		return nil, err
	}
	piecesErr := error(nil)
	if op == "eval_proof" {
		piecesErr = checkPtr("pieces", pieces, blockAlign)
	}
	if err := firstError(checkPtr("dst", dst, blockAlign), piecesErr, checkPtr("s0s", s0s, blockAlign),
		checkPtr("cws", cws, blockAlign), checkPtr("xs", xs, inputWordsAlign)); err != nil {
		return nil, err
	}
	launches, cwsLm, err := relayout(p, op, cws, k, scratch)
	if err != nil {
		return nil, err
	}
	var a *args
	if op == "eval_proof" {
		a = vdpfArgs(p).ptr(dst).ptr(pieces)
	} else {
		a = newArgs(packedPrg(p)).ptr(dst)
	}
	a.ptr(s0s).ptr(cwsLm).ptr(xs).u32(uint32(party)).i32(xWords).i32(p.InBits).u64(uint64(k)).u64(uint64(m))
	return append(launches, launch{kernelName(p, op), uint64(k) * uint64(m), a}), nil
}

func planEvalAll(p gofss.Params, dst uintptr, party int, s0s uintptr, k int, cws, scratch uintptr) ([]launch, error) {
	if err := firstError(checkParams(p, "eval_all"), checkParty(party), checkEvalAllBits(p.InBits)); err != nil {
		return nil, err
	}
	if err := checkCount("k", k, maxItems>>p.InBits); err != nil || k == 0 {
		return nil, err
	}
	if err := firstError(checkPtr("dst", dst, blockAlign), checkPtr("s0s", s0s, blockAlign),
		checkPtr("cws", cws, blockAlign)); err != nil {
		return nil, err
	}
	launches, cwsLm, err := relayout(p, "eval_all", cws, k, scratch)
	if err != nil {
		return nil, err
	}
	return append(launches, treeLaunches(p, kernelName(p, "eval_all"), dst, party, s0s, k, cwsLm, p.InBits)...), nil
}

// treeLaunches are the launches of an EvalAll kernel that builds a tree of `levels`
// levels in dst: the first levels in one launch, then one per level.
func treeLaunches(p gofss.Params, kernel string, dst uintptr, party int, s0s uintptr, k int, cwsLm uintptr,
	depth int) []launch {
	var launches []launch
	pp := packedPrg(p)
	for first, levels := 0, min(depth, evalAllTopLevels); first < depth; first, levels = first+levels, 1 {
		a := newArgs(pp)
		a.ptr(dst).ptr(s0s).ptr(cwsLm).u32(uint32(party)).i32(depth).i32(first).i32(levels).u64(uint64(k))
		// A block expands threadsPerBlock >> (levels - 1) nodes of level `first`.
		nodes, slice := uint64(k)<<first, uint64(threadsPerBlock>>(levels-1))
		launches = append(launches, launch{kernel, (nodes + slice - 1) / slice * threadsPerBlock, a})
	}
	return launches
}

// As kChunkLevels of cuda/grotto.cuh: the levels of a key's tree that one thread of
// grotto_leaf_bits walks, down to 2^7 leaves.
const grottoChunkLevels = 7

// grottoTreeLevels are the levels above those chunks, which grotto_tree builds.
func grottoTreeLevels(inBits int) int { return max(inBits-grottoChunkLevels, 0) }

// parityWords is the length of one preprocessed key in 64-bit words.
func parityWords(inBits int) uint64 { return (uint64(1)<<inBits + 63) / 64 }

// scanLevels are the words per key of the levels of Preprocess's prefix XOR above the
// preprocessed key's own: each holds a bit per word of the one below, up to one word.
func scanLevels(inBits int) []uint64 {
	var counts []uint64
	for c := parityWords(inBits); c > 1; {
		c = (c + 63) / 64
		counts = append(counts, c)
	}
	return counts
}

// planPreprocess writes the prefix parities of k Grotto DCF keys of one party into
// pre (k, parityWords) (docs/spec.md section 12; the steps are those of
// cuda/grotto.cuh). scratch holds the level-major cws for k > 1, then the levels of
// the prefix XOR.
func planPreprocess(p gofss.Params, pre uintptr, party int, s0s uintptr, k int, cws, scratch uintptr) ([]launch, error) {
	if err := firstError(checkParams(p, "preprocess"), checkParty(party)); err != nil {
		return nil, err
	}
	if err := checkCount("k", k, maxItems>>p.InBits); err != nil || k == 0 {
		return nil, err
	}
	if err := firstError(checkPtr("pre", pre, blockAlign), checkPtr("s0s", s0s, blockAlign),
		checkPtr("cws", cws, blockAlign)); err != nil {
		return nil, err
	}
	launches, cwsLm, err := relayout(p, "preprocess", cws, k, scratch)
	if err != nil {
		return nil, err
	}
	n, kk := p.InBits, uint64(k)
	r := grottoTreeLevels(n)
	launches = append(launches, treeLaunches(p, grottoKernel(p, "tree"), pre, party, s0s, k, cwsLm, r)...)
	a := newArgs(packedPrg(p))
	a.ptr(pre).ptr(s0s).ptr(cwsLm).u32(uint32(party)).i32(n).u64(kk).u64(parityWords(n))
	launches = append(launches, launch{grottoKernel(p, "leaf_bits"), kk << r, a})

	above := scanLevels(n)
	if len(above) > 0 {
		if problem := ptrProblem(scratch, blockAlign); problem != "" {
			return nil, gofss.ArgErrorf("cuda: scratch: %s (preprocess of %d keys needs %d bytes)", problem, k,
				ScratchBytes("preprocess", p, k, 0))
		}
	}
	// Level 0 is pre; the others follow the cws copy in scratch.
	addrs, counts := []uintptr{pre}, []uint64{parityWords(n)}
	next := scratch + uintptr(relayoutBytes(p, k))
	for _, c := range above {
		addrs, counts = append(addrs, next), append(counts, c)
		next += uintptr(8 * kk * c)
	}
	for i := range above {
		a := newArgs(nil)
		a.ptr(addrs[i+1]).ptr(addrs[i]).u64(counts[i]).u64(kk)
		launches = append(launches, launch{"parity_gather", kk * counts[i+1], a})
	}
	for i := len(counts) - 1; i >= 0; i-- {
		carries, mask := uintptr(0), ^uint64(0)
		if i+1 < len(counts) {
			carries = addrs[i+1]
		}
		if i == 0 && n < 6 {
			mask = 1<<(1<<n) - 1 // no inputs there
		}
		a := newArgs(nil)
		a.ptr(addrs[i]).ptr(carries).u64(counts[i]).u64(kk).u64(mask)
		launches = append(launches, launch{"parity_apply", kk * counts[i], a})
	}
	return launches, nil
}

// points are the inputs of a Grotto lookup: xs, or the intervals' los and his, each
// (k, m, words).
type points struct {
	name  string
	addr  uintptr
	words int
}

// planGrottoEval looks up the shares dst (k, m) bytes of k preprocessed keys pre (k,
// parityWords) at m points each (grotto_eval), or for m intervals each given their
// lower and upper bounds (grotto_eval_interval).
func planGrottoEval(p gofss.Params, dst, pre uintptr, k, m int, in ...points) ([]launch, error) {
	errs := []error{checkParams(p, "grotto_eval"), checkCount("k", k, maxItems), checkCount("m", m, maxItems),
		checkPoints(k, m)}
	for _, x := range in {
		errs = append(errs, checkWords(x.name+"_words", x.words))
	}
	if err := firstError(errs...); err != nil || k == 0 || m == 0 {
		return nil, err
	}
	errs = []error{checkPtr("dst", dst, 1), checkPtr("pre", pre, wordAlign)}
	for _, x := range in {
		errs = append(errs, checkPtr(x.name+"s", x.addr, inputWordsAlign))
	}
	if err := firstError(errs...); err != nil {
		return nil, err
	}
	a, kernel := newArgs(nil), "grotto_eval"
	if len(in) == 2 {
		kernel = "grotto_eval_interval"
	}
	a.ptr(dst).ptr(pre)
	for _, x := range in {
		a.ptr(x.addr)
	}
	for _, x := range in {
		a.i32(x.words)
	}
	a.i32(p.InBits).u64(parityWords(p.InBits)).u64(uint64(k)).u64(uint64(m))
	return []launch{{kernel, uint64(k) * uint64(m), a}}, nil
}

func planPrgBench(p gofss.Params, dst, seeds uintptr, count, levels int) ([]launch, error) {
	err := firstError(checkParams(p, "prg_bench"), checkCount("count", count, maxItems), checkCount("levels", levels, 1<<20))
	if err != nil || count == 0 {
		return nil, err
	}
	if err := firstError(checkPtr("dst", dst, blockAlign), checkPtr("seeds", seeds, blockAlign)); err != nil {
		return nil, err
	}
	a := newArgs(packedPrg(p))
	a.ptr(dst).ptr(seeds).i32(levels).u64(uint64(count))
	return []launch{{prgBenchKernel(p), uint64(count), a}}, nil
}

// prpKeysBytes is the size of one multi-point key's schedule in scratch, kPrpKeyWords
// of cuda/mpf.cuh: its PRP's round keys (4, 44), its bucket size and that size's
// reciprocal.
const prpKeysBytes = (4*44 + 4) * 4

// planMpfEval plans the batched Eval of k dmpf or vdmpf keys at m inputs each: s0s
// (k, buckets, 4), cws (k, CwRows(), 8), xs (k, m, xWords) into dst (k, m, 4), and
// for vdmpf each pair's bucket into bkts (k, m, 3) int32 and proof piece into pieces
// (k, m, 3, 4, 4). The keys' schedules (PRP round keys, bucket sizes) go to scratch,
// after the level-major copy of cws that k > 1 needs.
func planMpfEval(p gofss.Params, dst, bkts, pieces uintptr, party int, s0s uintptr, k int, cws, xs uintptr, xWords,
	m int, scratch uintptr) ([]launch, error) {
	err := firstError(checkParams(p, "mpf_eval"), checkMpfBits(p.InBits), checkParty(party),
		checkWords("x_words", xWords))
	if err != nil {
		return nil, err
	}
	err = firstError(checkCount("k", k, maxItems/p.CwRows()), checkCount("m", m, maxItems), checkPoints(k, m))
	if err != nil || k == 0 || m == 0 {
		return nil, err
	}
	vdmpf := p.Kind == gofss.KindVdmpf
	errs := []error{checkPtr("dst", dst, blockAlign)}
	if vdmpf {
		errs = append(errs, checkPtr("bkts", bkts, inputWordsAlign), checkPtr("pieces", pieces, blockAlign))
	}
	errs = append(errs, checkPtr("s0s", s0s, blockAlign), checkPtr("cws", cws, blockAlign),
		checkPtr("xs", xs, inputWordsAlign))
	if err := firstError(errs...); err != nil {
		return nil, err
	}
	if problem := ptrProblem(scratch, blockAlign); problem != "" {
		return nil, gofss.ArgErrorf("cuda: scratch: %s (mpf_eval of %d keys needs %d bytes)", problem, k,
			ScratchBytes("mpf_eval", p, k, m))
	}
	kk, prpKeys := uint64(k), scratch+uintptr(relayoutBytes(p, k))
	schedule := newArgs(packedPrg(p)).ptr(prpKeys).ptr(cws).i32(p.CwRows()).i32(p.InBits).u64(kk)
	launches, cwsLm, err := relayout(p, "mpf_eval", cws, k, scratch)
	if err != nil {
		return nil, err
	}
	a := newArgs(packedPrg(p))
	if vdmpf {
		a = vdpfArgs(p).ptr(dst).ptr(bkts).ptr(pieces)
	} else {
		a.ptr(dst)
	}
	a.ptr(s0s).ptr(cwsLm).ptr(prpKeys).ptr(xs).u32(uint32(party)).i32(xWords).i32(p.InBits).i32(p.BucketBits)
	// 1 / m: the kernels find an input's key without a 64-bit division (cuda/mpf.cuh's divide).
	a.i32(p.Buckets()).i32(p.MinBuckets()).u64(kk).u64(uint64(m)).f64(1 / float64(m))
	return append(launches, launch{"mpf_prp_keys", 4 * kk, schedule}, launch{mpfKernel(p), kk * uint64(m), a}), nil
}

// relayout plans the level-major copy of cws into scratch that evaluations of k > 1
// keys read, and returns the address they should read.
func relayout(p gofss.Params, op string, cws uintptr, k int, scratch uintptr) ([]launch, uintptr, error) {
	if k == 1 {
		return nil, cws, nil
	}
	if problem := ptrProblem(scratch, blockAlign); problem != "" {
		return nil, 0, gofss.ArgErrorf("cuda: scratch: %s (%s of %d keys needs %d bytes)", problem, op, k,
			ScratchBytes(op, p, k, 0))
	}
	rows := p.CwRows()
	a := newArgs(nil)
	a.ptr(scratch).ptr(cws).i32(rows).u64(uint64(k))
	return []launch{{"cw_relayout", uint64(k) * uint64(rows), a}}, scratch, nil
}

// relayoutBytes is the size of relayout's copy: none for one key.
func relayoutBytes(p gofss.Params, k int) int {
	if k <= 1 {
		return 0
	}
	return p.CwRows() * k * cwBytes
}
