package cuda

import (
	"fmt"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda/internal/prgparams"
)

// What the kernels of cuda/kernels.cu take from gofss.Params: their names, the DCF
// predicate and the packed PRG parameters. p has passed Check.

// kernelName is the kernel of op ("gen", "eval", "eval_all", "eval_proof") for p:
// <scheme>_<op>_<prg>_<group>. Both comparisons run the "dcf" kernels, which tell
// them apart by predArg; Grotto DCF's Gen is DPF's (group bytes).
//
// VDPF's Gen and its Eval with proof pieces ("eval_proof") have kernels of their own,
// vdpf_<op>_<prg>_<group>_<hash>; its shares alone are DPF's, since a VDPF key's first
// rows are a DPF key.
func kernelName(p gofss.Params, op string) string {
	if p.Kind == gofss.KindVdpf && (op == "gen" || op == "eval_proof") {
		return fmt.Sprintf("vdpf_%s_%s_%s_%s", op, p.Prg, p.Group, p.Hash.Kind)
	}
	scheme := "dcf"
	switch p.Kind {
	case gofss.KindDpf, gofss.KindGrottoDcf, gofss.KindVdpf:
		scheme = "dpf"
	case gofss.KindHalfTreeDpf:
		scheme = "half_tree_dpf"
	}
	return fmt.Sprintf("%s_%s_%s_%s", scheme, op, p.Prg, p.Group)
}

// mpfKernel is the multi-point schemes' Eval kernel for p: dmpf_eval_<prg>_<group>, or
// vdmpf_eval_<prg>_<group>_<hash>.
func mpfKernel(p gofss.Params) string {
	if p.Kind == gofss.KindVdmpf {
		return fmt.Sprintf("vdmpf_eval_%s_%s_%s", p.Prg, p.Group, p.Hash.Kind)
	}
	return fmt.Sprintf("dmpf_eval_%s_%s", p.Prg, p.Group)
}

// grottoKernel is Grotto DCF's kernel of a Preprocess step ("tree" or "leaf_bits")
// for p's PRG.
func grottoKernel(p gofss.Params, step string) string {
	return fmt.Sprintf("grotto_%s_%s", step, p.Prg)
}

// prgBenchKernel is the PRG bound kernel for p's PRG and outputs per seed.
func prgBenchKernel(p gofss.Params) string {
	return fmt.Sprintf("prg_bench_%s_mul%d", p.Prg, p.Kind.Mul())
}

// predArg is the Gen kernels' pred argument, kPredLt or kPredGt of cuda/dcf.cuh; the
// DPF kernels ignore it.
func predArg(kind gofss.Kind) int {
	if kind == gofss.KindDcfGt {
		return 1
	}
	return 0
}

// packedPrg is every scheme kernel's first argument. Check leaves the parameters of
// the other PRG zero, so both pack as they are.
func packedPrg(p gofss.Params) []byte { return prgparams.Pack(p.Nonce, p.AesKeys, p.HashKey) }

// vdpfArgs starts the parameter list of a VDPF kernel: PrgParams, then HashKeys.
func vdpfArgs(p gofss.Params) *args {
	return newArgs(packedPrg(p)).add(prgparams.PackHashKeys(p.Hash), 4)
}
