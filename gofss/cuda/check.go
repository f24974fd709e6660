package cuda

import (
	"fmt"
	"slices"

	"github.com/pyfss/pyfss/gofss"
)

// Checks of caller input. Each returns a *gofss.ArgError naming the argument, so that
// the binding reports them as the CPU path's refusals.

// Limits that keep every index of the kernels in 64 bits with room to spare; memory
// runs out long before them.
const maxItems = 1 << 48 // keys, or keys x points, or keys x 2^in_bits outputs

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// kernelOps are the operations that each scheme has kernels for. Grotto DCF's Gen is
// DPF's; its keys are evaluated through Preprocess and the lookups. VDPF's eval and
// eval_all give the shares alone (DPF's kernels), eval_proof adds the proof pieces;
// Prove, a sequential chain, runs on the CPU. The multi-point schemes have their
// batched Eval ("mpf_eval"; vdmpf's also writes each pair's bucket and proof piece,
// which gofss.(*Mpf).FoldProof folds on the CPU).
var kernelOps = map[gofss.Kind][]string{
	gofss.KindDpf:         {"gen", "eval", "eval_all", "prg_bench"},
	gofss.KindDcfLt:       {"gen", "eval", "eval_all", "prg_bench"},
	gofss.KindDcfGt:       {"gen", "eval", "eval_all", "prg_bench"},
	gofss.KindHalfTreeDpf: {"gen", "eval", "eval_all"},
	gofss.KindGrottoDcf:   {"gen", "preprocess", "grotto_eval"},
	gofss.KindVdpf:        {"gen", "eval", "eval_all", "eval_proof"},
	gofss.KindDmpf:        {"mpf_eval"},
	gofss.KindVdmpf:       {"mpf_eval"},
}

// checkParams refuses parameters that no scheme has, and operations without kernels.
func checkParams(p gofss.Params, op string) error {
	if err := p.Check(); err != nil {
		return err
	}
	if !slices.Contains(kernelOps[p.Kind], op) {
		return gofss.ArgErrorf("cuda: %s has no CUDA %s kernel", p.Kind, op)
	}
	return nil
}

func checkParty(party int) error {
	if party != 0 && party != 1 {
		return gofss.ArgErrorf("cuda: party must be 0 or 1, not %d", party)
	}
	return nil
}

// checkWords refuses an input packing the kernels do not read: 1, 2 or 4 words of 32 bits.
func checkWords(name string, words int) error {
	if words != 1 && words != 2 && words != 4 {
		return gofss.ArgErrorf("cuda: %s must be 1, 2 or 4, not %d", name, words)
	}
	return nil
}

func checkCount(name string, v, limit int) error {
	if v < 0 || v > limit {
		return gofss.ArgErrorf("cuda: %s must be between 0 and %d, not %d", name, limit, v)
	}
	return nil
}

// checkPoints refuses more than maxItems points in all; k and m are in range.
func checkPoints(k, m int) error {
	if k > 0 && m > maxItems/k {
		return gofss.ArgErrorf("cuda: k x m = %d x %d points is more than %d", k, m, maxItems)
	}
	return nil
}

// maxMpfInBits is the widest input of the multi-point kernels (cuda/mpf.cuh), whose
// PRP domain, 3·2^in_bits, must fit in their 64-bit words.
const maxMpfInBits = 62

func checkMpfBits(inBits int) error {
	if inBits > maxMpfInBits {
		return gofss.ArgErrorf("cuda: the multi-point kernels take in_bits <= %d (the PRP's domain 3·2^in_bits in 64 bits), not %d",
			maxMpfInBits, inBits)
	}
	return nil
}

func checkEvalAllBits(inBits int) error {
	if inBits > gofss.MaxEvalAllBits {
		return gofss.ArgErrorf("cuda: eval_all needs in_bits <= %d, not %d", gofss.MaxEvalAllBits, inBits)
	}
	return nil
}

// Device addresses must be non-null and aligned for the kernels' vector loads.
const (
	blockAlign      = 16 // blocks are moved as 16-byte vectors
	inputWordsAlign = 4
	wordAlign       = 8 // Grotto's preprocessed keys are 64-bit words
)

func checkPtr(name string, addr, align uintptr) error {
	if problem := ptrProblem(addr, align); problem != "" {
		return gofss.ArgErrorf("cuda: %s: %s", name, problem)
	}
	return nil
}

// ptrProblem says what is wrong with a device address, or "" if nothing is.
func ptrProblem(addr, align uintptr) string {
	switch {
	case addr == 0:
		return "null device address"
	case addr%align != 0:
		return fmt.Sprintf("address %#x is not %d-byte aligned", addr, align)
	}
	return ""
}
