// Package cuda launches the kernels of cuda/ on NVIDIA GPUs: DPF, DCF, Half-Tree DPF and
// VDPF Gen, Eval and EvalAll (VDPF's also with proof pieces), Grotto DCF's Gen,
// Preprocess and lookups, and DMPF's and VDMPF's batched Eval.
//
// All buffers are device memory that the caller (PyTorch) allocated, passed as
// addresses; layouts are those of docs/spec.md section 6, and the public parameters
// are a gofss.Params. The package opens the CUDA driver (libcuda.so.1) itself at first
// use and links neither libcuda nor libcudart, so a binary built with it runs on
// machines without a GPU, where calls return errors and GetInfo says why. Launches go
// to the primary context of the device (the one PyTorch uses) on the stream the
// caller passes, and never synchronise.
//
// Refusals of caller input (parameters, counts, addresses) are *gofss.ArgError, as
// the CPU path's are; failures of the driver or device are other errors. An empty
// batch launches nothing and succeeds whatever its addresses, as PyTorch gives empty
// tensors any data pointer, null included.
//
// The kernels are compiled at build time into kernels/pyfss.fatbin (see
// build_support/nvcc.py) and embedded; a build without nvcc reports "kernels not
// compiled in".
package cuda

import (
	"errors"

	"github.com/pyfss/pyfss/gofss"
)

// Info describes what this process can do with CUDA.
type Info struct {
	KernelsCompiled bool     // the build embedded compiled kernels
	Archs           []string // what the embedded fatbin holds: sm_XX machine code, compute_XX PTX
	DriverLoaded    bool     // libcuda.so.1 was opened
	Devices         int      // CUDA devices the driver reports
	Reason          string   // why CUDA cannot be used, or "" if it can
}

// Errors that say CUDA cannot run here at all, for errors.Is.
var (
	ErrNoKernels = errors.New("cuda: kernels not compiled in (the library was built without nvcc)")
	ErrNoDriver  = errors.New("cuda: CUDA driver not available")
	ErrNeedsCgo  = errors.New("cuda: CUDA support needs cgo (this library was built with CGO_ENABLED=0)")
)

// Gen writes the correction words of k key pairs: cws (k, p.CwRows(), 8) int32 from
// seeds s0s (k, 2, 4) (key i, party b at block 2i + b), alphas (k, alphaWords) and
// betas (k, 4); for grotto_dcf, whose betas are zero, betas is not read.
func Gen(dev int, stream uintptr, p gofss.Params, cws, s0s, alphas uintptr, alphaWords int, betas uintptr, k int) error {
	return runPlan(dev, stream)(planGen(p, cws, s0s, alphas, alphaWords, betas, k))
}

// Eval writes party's shares dst (k, m, 4) of k keys, each at its own m points:
// s0s (k, 4) is each key's seed, cws (k, p.CwRows(), 8), xs (k, m, xWords). With
// k > 1 it needs ScratchBytes("eval", ...) bytes of scratch.
func Eval(dev int, stream uintptr, p gofss.Params, dst uintptr, party int, s0s uintptr, k int, cws, xs uintptr,
	xWords, m int, scratch uintptr) error {
	return runPlan(dev, stream)(planEval(p, dst, party, s0s, k, cws, xs, xWords, m, scratch))
}

// EvalProof is VDPF's Eval with the proof pieces: as Eval, and pieces (k, m, 4, 4)
// gets each point's four blocks, which gofss.(*Vdpf).Prove folds. It needs
// ScratchBytes("eval_proof", ...) bytes of scratch for k > 1.
func EvalProof(dev int, stream uintptr, p gofss.Params, dst, pieces uintptr, party int, s0s uintptr, k int, cws,
	xs uintptr, xWords, m int, scratch uintptr) error {
	return runPlan(dev, stream)(planEvalProof(p, dst, pieces, party, s0s, k, cws, xs, xWords, m, scratch))
}

// MpfEval writes party's shares dst (k, m, 4) of k dmpf or vdmpf keys, each at its
// own m inputs: s0s (k, p.Buckets(), 4) are each key's seeds, cws (k, p.CwRows(), 8),
// xs (k, m, xWords); in_bits is at most 62. For vdmpf it also writes each input's
// three pairs' buckets to bkts (k, m, 3) int32 and their proof pieces to pieces
// (k, m, 3, 4, 4), from which gofss.(*Mpf).FoldProof makes each key's proof; dmpf
// reads neither. Only the low in_bits bits of an input are read, and a key whose
// header is not valid gives zero shares and out-of-range buckets: the caller checks
// both. It needs ScratchBytes("mpf_eval", ...) bytes of scratch.
func MpfEval(dev int, stream uintptr, p gofss.Params, dst, bkts, pieces uintptr, party int, s0s uintptr, k int,
	cws, xs uintptr, xWords, m int, scratch uintptr) error {
	return runPlan(dev, stream)(planMpfEval(p, dst, bkts, pieces, party, s0s, k, cws, xs, xWords, m, scratch))
}

// EvalAll writes party's shares dst (k, 2^in_bits, 4) of k keys over the whole
// domain: the first levels of the trees in one kernel, then one kernel per level,
// expanding each node once. in_bits is at most gofss.MaxEvalAllBits. With k > 1 it
// needs ScratchBytes("eval_all", ...) bytes of scratch.
func EvalAll(dev int, stream uintptr, p gofss.Params, dst uintptr, party int, s0s uintptr, k int, cws,
	scratch uintptr) error {
	return runPlan(dev, stream)(planEvalAll(p, dst, party, s0s, k, cws, scratch))
}

// Preprocess writes the prefix parities pre (k, ceil(2^in_bits / 64)) 64-bit words of
// k Grotto DCF keys of party: s0s (k, 4), cws (k, in_bits + 1, 8). It needs
// ScratchBytes("preprocess", ...) bytes of scratch.
func Preprocess(dev int, stream uintptr, p gofss.Params, pre uintptr, party int, s0s uintptr, k int, cws,
	scratch uintptr) error {
	return runPlan(dev, stream)(planPreprocess(p, pre, party, s0s, k, cws, scratch))
}

// GrottoEval writes the shares dst (k, m) bytes, 0 or 1, of k preprocessed Grotto DCF
// keys pre at m points each: xs (k, m, xWords). Only the low in_bits bits of a point
// are read; the caller checks the range.
func GrottoEval(dev int, stream uintptr, p gofss.Params, dst, pre uintptr, k int, xs uintptr, xWords, m int) error {
	return runPlan(dev, stream)(planGrottoEval(p, dst, pre, k, m, points{"x", xs, xWords}))
}

// GrottoEvalInterval writes the shares dst (k, m) bytes of 1{lo <= alpha <= hi} of k
// preprocessed keys for m intervals each: los (k, m, loWords), his (k, m, hiWords).
// The caller checks lo <= hi.
func GrottoEvalInterval(dev int, stream uintptr, p gofss.Params, dst, pre uintptr, k int, los uintptr, loWords int,
	his uintptr, hiWords, m int) error {
	return runPlan(dev, stream)(planGrottoEval(p, dst, pre, k, m, points{"lo", los, loWords}, points{"hi", his, hiWords}))
}

// PrgBench runs the PRG-only bound of a point Eval: for each of count seeds (count, 4)
// a chain of `levels` half-expansions of p's PRG (p.Kind.Mul() outputs per seed),
// writing the last block to dst (count, 4). Timed against Eval at in_bits = levels
// with k * m = count, it tells how close Eval runs to its PRG cost.
func PrgBench(dev int, stream uintptr, p gofss.Params, dst, seeds uintptr, count, levels int) error {
	return runPlan(dev, stream)(planPrgBench(p, dst, seeds, count, levels))
}

// ScratchBytes is the size of the device scratch buffer that op ("gen", "eval",
// "eval_all", "eval_proof", "preprocess" or "mpf_eval") needs for k keys (and m points
// per key for "eval"): room for a level-major copy of the correction words when k > 1,
// for "preprocess" the levels of its prefix XOR, for "mpf_eval" the PRP keys' round
// keys. It is 0 when none is needed, for an
// unknown op or one without kernels for p, for parameters that fail Check and for k
// out of range.
func ScratchBytes(op string, p gofss.Params, k, m int) int {
	if checkParams(p, op) != nil || k < 1 || k > maxItems {
		return 0
	}
	switch op {
	case "eval", "eval_all", "eval_proof":
		return relayoutBytes(p, k)
	case "mpf_eval":
		if k > maxItems/p.CwRows() {
			return 0
		}
		return relayoutBytes(p, k) + k*prpKeysBytes
	case "preprocess":
		n := relayoutBytes(p, k)
		for _, c := range scanLevels(p.InBits) {
			n += 8 * k * int(c)
		}
		return n
	}
	return 0
}

// runPlan runs what a plan function returns: nothing for an empty batch.
func runPlan(dev int, stream uintptr) func([]launch, error) error {
	return func(launches []launch, err error) error {
		if err != nil || len(launches) == 0 {
			return err
		}
		return run(dev, stream, launches)
	}
}
