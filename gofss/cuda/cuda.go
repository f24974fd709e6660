// Package cuda launches the DPF and DCF kernels of cuda/ on NVIDIA GPUs.
//
// All buffers are device memory that the caller (PyTorch) allocated, passed as
// addresses; layouts are those of SPEC section 6. The package opens the CUDA driver
// (libcuda.so.1) itself at first use and links neither libcuda nor libcudart, so a
// binary built with it runs on machines without a GPU, where calls return errors and
// GetInfo says why. Launches go to the primary context of the device (the one PyTorch
// uses) on the stream the caller passes, and never synchronise.
//
// The kernels are compiled at build time into kernels/pyfss.fatbin (see
// build_support/nvcc.py) and embedded; a build without nvcc reports "kernels not
// compiled in".
package cuda

import (
	"errors"
	"fmt"

	"github.com/pyfss/pyfss/gofss/cuda/internal/prgparams"
)

// Scheme selects the function family and, for DCF, the predicate.
type Scheme int

const (
	SchemeDpf   Scheme = iota // f(x) = beta if x == alpha
	SchemeDcfLt               // f(x) = beta if x < alpha
	SchemeDcfGt               // f(x) = beta if x > alpha
)

// Output groups (Params.Group), numbered as in SPEC section 2.
const (
	GroupBytes = iota
	GroupUint32
	GroupUint64
	GroupUint127
)

// PRGs (Params.Prg).
const (
	PrgChacha = iota
	PrgAES128MMO
)

// Params are the public parameters of a key set.
type Params struct {
	Scheme  Scheme
	InBits  int        // 1..128
	Group   int        // GroupBytes ... GroupUint127
	Prg     int        // PrgChacha or PrgAES128MMO
	Nonce   [2]uint32  // chacha
	AesKeys [][16]byte // aes128_mmo: 2 for DPF, 4 for DCF
}

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

// As kThreads and kEvalAllTopLevels in cuda/batch.cuh: the threads of every block (the
// kernels' launch bounds), and how many levels the first EvalAll launch runs, a block
// per key.
const (
	threadsPerBlock  = 256
	evalAllTopLevels = 9
)

// Limits that keep every index of the kernels in 64 bits with room to spare; memory
// runs out long before them.
const (
	maxItems        = 1 << 48 // keys, or keys x points, or keys x 2^in_bits outputs
	maxEvalAllBits  = 48
	cwBytes         = 32
	blockAlign      = 16 // blocks are moved as 16-byte vectors
	inputWordsAlign = 4
)

var groupNames = [...]string{"bytes", "uint32", "uint64", "uint127"}
var prgNames = [...]string{"chacha", "aes128_mmo"}

func (p Params) check() error {
	if p.Scheme < SchemeDpf || p.Scheme > SchemeDcfGt {
		return fmt.Errorf("cuda: unknown scheme %d", p.Scheme)
	}
	if p.InBits < 1 || p.InBits > 128 {
		return fmt.Errorf("cuda: in_bits must be in 1..128, got %d", p.InBits)
	}
	if p.Group < 0 || p.Group >= len(groupNames) {
		return fmt.Errorf("cuda: unknown group %d (0 bytes, 1 uint32, 2 uint64, 3 uint127)", p.Group)
	}
	if p.Prg < 0 || p.Prg >= len(prgNames) {
		return fmt.Errorf("cuda: unknown prg %d (0 chacha, 1 aes128_mmo)", p.Prg)
	}
	if p.Prg == PrgAES128MMO && len(p.AesKeys) != p.mul() {
		return fmt.Errorf("cuda: aes128_mmo for %s needs %d AES keys, got %d", p.schemeName(), p.mul(), len(p.AesKeys))
	}
	return nil
}

// mul is the number of PRG outputs per seed: 2 for DPF, 4 for DCF.
func (p Params) mul() int {
	if p.Scheme == SchemeDpf {
		return 2
	}
	return 4
}

func (p Params) schemeName() string {
	if p.Scheme == SchemeDpf {
		return "dpf"
	}
	return "dcf"
}

// pred is the DCF predicate argument of the Gen kernels (kPredLt/kPredGt in dcf.cuh).
func (p Params) pred() int {
	if p.Scheme == SchemeDcfGt {
		return 1
	}
	return 0
}

func (p Params) kernel(op string) string {
	return fmt.Sprintf("%s_%s_%s_%s", p.schemeName(), op, prgNames[p.Prg], groupNames[p.Group])
}

func (p Params) packed() []byte {
	var keys [][16]byte
	if p.Prg == PrgAES128MMO {
		keys = p.AesKeys
	}
	b, err := prgparams.Pack(p.Nonce, keys)
	if err != nil {
		panic(err) // unreachable: check() allows at most 4 keys
	}
	return b
}

// ScratchBytes is the size of the device scratch buffer that op ("gen", "eval" or
// "eval_all") needs for k keys (and m points per key for "eval"): room for a
// level-major copy of the correction words when k > 1. It is 0 when none is needed,
// for an unknown op, and for parameters that the op would reject.
func ScratchBytes(op string, p Params, k, m int) int {
	if p.check() != nil || k <= 1 || k > maxItems {
		return 0
	}
	switch op {
	case "eval", "eval_all":
		return (p.InBits + 1) * k * cwBytes
	}
	return 0
}

// launch is one kernel launch of a planned call: the kernel's grid-stride loop covers
// `threads` indices (EvalAll: threadsPerBlock per block of work).
type launch struct {
	kernel  string
	threads uint64
	args    *args
}

// Gen writes the correction words of k key pairs: cws (k, in_bits + 1, 8) int32 from
// seeds s0s (k, 2, 4) (key i, party b at block 2i + b), alphas (k, alphaWords) and
// betas (k, 4).
func Gen(dev int, stream uintptr, p Params, cws, s0s, alphas uintptr, alphaWords int, betas uintptr, k int) error {
	return runPlan(dev, stream)(planGen(p, cws, s0s, alphas, alphaWords, betas, k))
}

// Eval writes party's shares dst (k, m, 4) of k keys, each at its own m points:
// s0s (k, 4) is each key's seed, cws (k, in_bits + 1, 8), xs (k, m, xWords). With
// k > 1 it needs ScratchBytes("eval", ...) bytes of scratch.
func Eval(dev int, stream uintptr, p Params, dst uintptr, party int, s0s, cws uintptr, k int, xs uintptr,
	xWords, m int, scratch uintptr) error {
	return runPlan(dev, stream)(planEval(p, dst, party, s0s, cws, k, xs, xWords, m, scratch))
}

// EvalAll writes party's shares dst (k, 2^in_bits, 4) of k keys over the whole
// domain: the first levels of the trees in one kernel, then one kernel per level,
// expanding each node once. With k > 1 it needs ScratchBytes("eval_all", ...)
// bytes of scratch.
func EvalAll(dev int, stream uintptr, p Params, dst uintptr, party int, s0s, cws uintptr, k int, scratch uintptr) error {
	return runPlan(dev, stream)(planEvalAll(p, dst, party, s0s, cws, k, scratch))
}

// PrgBench runs the PRG-only bound of a point Eval: for each of count seeds (count, 4)
// a chain of `levels` half-expansions of p's PRG (mul 2 for DPF, 4 for DCF), writing
// the last block to dst (count, 4). Timed against Eval at in_bits = levels with
// k * m = count, it tells how close Eval runs to its PRG cost.
func PrgBench(dev int, stream uintptr, p Params, dst, seeds uintptr, count, levels int) error {
	return runPlan(dev, stream)(planPrgBench(p, dst, seeds, count, levels))
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

func planGen(p Params, cws, s0s, alphas uintptr, alphaWords int, betas uintptr, k int) ([]launch, error) {
	if err := firstError(p.check(), checkCount("k", k, maxItems), checkWords("alpha_words", alphaWords),
		checkPtr("cws", cws, blockAlign), checkPtr("s0s", s0s, blockAlign),
		checkPtr("alphas", alphas, inputWordsAlign), checkPtr("betas", betas, blockAlign)); err != nil || k == 0 {
		return nil, err
	}
	a := newArgs(p.packed())
	a.ptr(cws).ptr(s0s).ptr(alphas).ptr(betas).i32(alphaWords).i32(p.InBits).i32(p.pred()).u64(uint64(k))
	return []launch{{p.kernel("gen"), uint64(k), a}}, nil
}

func planEval(p Params, dst uintptr, party int, s0s, cws uintptr, k int, xs uintptr, xWords, m int,
	scratch uintptr) ([]launch, error) {
	if err := firstError(p.check(), checkParty(party), checkCount("k", k, maxItems),
		checkCount("m", m, maxItems), checkWords("x_words", xWords)); err != nil {
		return nil, err
	}
	if k > 0 && m > maxItems/k {
		return nil, fmt.Errorf("cuda: k * m = %d * %d points is too many", k, m)
	}
	if err := firstError(checkPtr("dst", dst, blockAlign), checkPtr("s0s", s0s, blockAlign),
		checkPtr("cws", cws, blockAlign), checkPtr("xs", xs, inputWordsAlign)); err != nil || k == 0 || m == 0 {
		return nil, err
	}
	launches, cwsLm, err := relayout(p, "eval", cws, k, scratch)
	if err != nil {
		return nil, err
	}
	a := newArgs(p.packed())
	a.ptr(dst).ptr(s0s).ptr(cwsLm).ptr(xs).u32(uint32(party)).i32(xWords).i32(p.InBits).u64(uint64(k)).u64(uint64(m))
	return append(launches, launch{p.kernel("eval"), uint64(k) * uint64(m), a}), nil
}

func planEvalAll(p Params, dst uintptr, party int, s0s, cws uintptr, k int, scratch uintptr) ([]launch, error) {
	if err := firstError(p.check(), checkParty(party)); err != nil {
		return nil, err
	}
	if p.InBits > maxEvalAllBits {
		return nil, fmt.Errorf("cuda: EvalAll needs in_bits <= %d, got %d", maxEvalAllBits, p.InBits)
	}
	if err := firstError(checkCount("k", k, maxItems>>p.InBits), checkPtr("dst", dst, blockAlign),
		checkPtr("s0s", s0s, blockAlign), checkPtr("cws", cws, blockAlign)); err != nil || k == 0 {
		return nil, err
	}
	launches, cwsLm, err := relayout(p, "eval_all", cws, k, scratch)
	if err != nil {
		return nil, err
	}
	pp := p.packed()
	for first, levels := 0, min(p.InBits, evalAllTopLevels); first < p.InBits; first, levels = first+levels, 1 {
		a := newArgs(pp)
		a.ptr(dst).ptr(s0s).ptr(cwsLm).u32(uint32(party)).i32(p.InBits).i32(first).i32(levels).u64(uint64(k))
		// A block expands threadsPerBlock >> (levels - 1) nodes of level `first`.
		nodes, slice := uint64(k)<<first, uint64(threadsPerBlock>>(levels-1))
		launches = append(launches, launch{p.kernel("eval_all"), (nodes + slice - 1) / slice * threadsPerBlock, a})
	}
	return launches, nil
}

func planPrgBench(p Params, dst, seeds uintptr, count, levels int) ([]launch, error) {
	if err := firstError(p.check(), checkCount("count", count, maxItems), checkCount("levels", levels, 1<<20),
		checkPtr("dst", dst, blockAlign), checkPtr("seeds", seeds, blockAlign)); err != nil || count == 0 {
		return nil, err
	}
	a := newArgs(p.packed())
	a.ptr(dst).ptr(seeds).i32(levels).u64(uint64(count))
	name := fmt.Sprintf("prg_bench_%s_mul%d", prgNames[p.Prg], p.mul())
	return []launch{{name, uint64(count), a}}, nil
}

// relayout plans the level-major copy of cws into scratch that evaluations of k > 1
// keys read, and returns the address they should read.
func relayout(p Params, op string, cws uintptr, k int, scratch uintptr) ([]launch, uintptr, error) {
	if k == 1 {
		return nil, cws, nil
	}
	if err := checkPtr("scratch", scratch, blockAlign); err != nil {
		return nil, 0, fmt.Errorf("%w (%s of %d keys needs %d bytes)", err, op, k, ScratchBytes(op, p, k, 0))
	}
	a := newArgs(nil)
	a.ptr(scratch).ptr(cws).i32(p.InBits + 1).u64(uint64(k))
	return []launch{{"cw_relayout", uint64(k) * uint64(p.InBits+1), a}}, scratch, nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func checkPtr(name string, addr, align uintptr) error {
	if addr == 0 {
		return fmt.Errorf("cuda: %s: null device address", name)
	}
	if addr%align != 0 {
		return fmt.Errorf("cuda: %s: address %#x is not %d-byte aligned", name, addr, align)
	}
	return nil
}

func checkCount(name string, v, limit int) error {
	if v < 0 || v > limit {
		return fmt.Errorf("cuda: %s must be in 0..%d, got %d", name, limit, v)
	}
	return nil
}

func checkParty(party int) error {
	if party != 0 && party != 1 {
		return fmt.Errorf("cuda: party must be 0 or 1, got %d", party)
	}
	return nil
}

func checkWords(name string, words int) error {
	if words != 1 && words != 2 && words != 4 {
		return fmt.Errorf("cuda: %s must be 1, 2 or 4, got %d", name, words)
	}
	return nil
}
