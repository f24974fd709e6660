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
	err := firstError(checkParams(p), checkWords("alpha_words", alphaWords), checkCount("k", k, maxItems))
	if err != nil || k == 0 {
		return nil, err
	}
	if err := firstError(checkPtr("cws", cws, blockAlign), checkPtr("s0s", s0s, blockAlign),
		checkPtr("alphas", alphas, inputWordsAlign), checkPtr("betas", betas, blockAlign)); err != nil {
		return nil, err
	}
	a := newArgs(packedPrg(p))
	a.ptr(cws).ptr(s0s).ptr(alphas).ptr(betas).i32(alphaWords).i32(p.InBits).i32(predArg(p.Kind)).u64(uint64(k))
	return []launch{{kernelName(p, "gen"), uint64(k), a}}, nil
}

func planEval(p gofss.Params, dst uintptr, party int, s0s uintptr, k int, cws, xs uintptr, xWords, m int,
	scratch uintptr) ([]launch, error) {
	if err := firstError(checkParams(p), checkParty(party), checkWords("x_words", xWords), checkCount("k", k, maxItems),
		checkCount("m", m, maxItems), checkPoints(k, m)); err != nil || k == 0 || m == 0 {
		return nil, err
	}
	if err := firstError(checkPtr("dst", dst, blockAlign), checkPtr("s0s", s0s, blockAlign),
		checkPtr("cws", cws, blockAlign), checkPtr("xs", xs, inputWordsAlign)); err != nil {
		return nil, err
	}
	launches, cwsLm, err := relayout(p, "eval", cws, k, scratch)
	if err != nil {
		return nil, err
	}
	a := newArgs(packedPrg(p))
	a.ptr(dst).ptr(s0s).ptr(cwsLm).ptr(xs).u32(uint32(party)).i32(xWords).i32(p.InBits).u64(uint64(k)).u64(uint64(m))
	return append(launches, launch{kernelName(p, "eval"), uint64(k) * uint64(m), a}), nil
}

func planEvalAll(p gofss.Params, dst uintptr, party int, s0s uintptr, k int, cws, scratch uintptr) ([]launch, error) {
	if err := firstError(checkParams(p), checkParty(party), checkEvalAllBits(p.InBits)); err != nil {
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
	pp := packedPrg(p)
	for first, levels := 0, min(p.InBits, evalAllTopLevels); first < p.InBits; first, levels = first+levels, 1 {
		a := newArgs(pp)
		a.ptr(dst).ptr(s0s).ptr(cwsLm).u32(uint32(party)).i32(p.InBits).i32(first).i32(levels).u64(uint64(k))
		// A block expands threadsPerBlock >> (levels - 1) nodes of level `first`.
		nodes, slice := uint64(k)<<first, uint64(threadsPerBlock>>(levels-1))
		launches = append(launches, launch{kernelName(p, "eval_all"), (nodes + slice - 1) / slice * threadsPerBlock, a})
	}
	return launches, nil
}

func planPrgBench(p gofss.Params, dst, seeds uintptr, count, levels int) ([]launch, error) {
	err := firstError(checkParams(p), checkCount("count", count, maxItems), checkCount("levels", levels, 1<<20))
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
	a := newArgs(nil)
	a.ptr(scratch).ptr(cws).i32(p.InBits + 1).u64(uint64(k))
	return []launch{{"cw_relayout", uint64(k) * uint64(p.InBits+1), a}}, scratch, nil
}
