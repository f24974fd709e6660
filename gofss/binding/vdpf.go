package binding

import (
	"errors"
	"math"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda"
)

// VDPF's proof operations (docs/spec.md section 15). Its keys are made by Gen, and
// Eval and EvalAll give its shares alone, as for every scheme; the entries below add
// the proofs. VdpfEval runs on CUDA too (device >= 0, its pieces from the kernels);
// the proofs' folds (VdpfEvalAll, VdpfProve) are sequential chains and run on the CPU.
// A proof piece and a proof are gofss.ProofBlocks blocks each.

// lookupVdpf returns the VDPF behind handle, with calls that the gofss.Control at
// control watches and ends (control 0: none).
func lookupVdpf(handle int64, control uintptr) (*gofss.Vdpf, error) {
	v, err := lookupAs[*gofss.Vdpf](handle, "not vdpf")
	if err != nil {
		return nil, err
	}
	c, err := controlAt(control)
	if c == nil {
		return v, err
	}
	return v.WithControl(c).(*gofss.Vdpf), nil
}

// VdpfEval is Eval that also writes each point's proof piece into pieces (k*m
// pieces); on CUDA it needs ScratchBytes(..., "eval_proof", k, m) of scratch.
// Returns k*m.
func VdpfEval(handle int64, device int, stream uintptr, dst, pieces uintptr, party int, s0s uintptr, k int, cws, xs uintptr, xWords int, xLo, xHi uint64, m int, scratch, control uintptr) (n int, err error) {
	defer guard(&err)
	v, err := lookupVdpf(handle, control)
	if err != nil {
		return 0, err
	}
	if m < 0 || k < 0 || k > 0 && m > math.MaxInt/(gofss.ProofBlocks*k) {
		return 0, valueErrorf("bad batch size %d x %d", k, m)
	}
	if device != CPU {
		if xWords == 0 {
			return 0, valueErrorf("xs: CUDA takes inputs as a tensor")
		}
		return k * m, cuda.EvalProof(device, stream, v.Params(), dst, pieces, party, s0s, k, cws, xs, xWords, m, scratch)
	}
	out, err1 := view[gofss.Block]("out", dst, k*m)
	pts, err2 := view[gofss.Block]("pieces", pieces, gofss.ProofBlocks*k*m)
	seeds, err3 := view[gofss.Block]("s0s", s0s, k)
	cw, err4 := view[gofss.Cw]("cws", cws, k*v.Params().CwRows())
	in, buf, err5 := readInputs("xs", xs, xWords, k*m, xLo, xHi)
	defer putInputs(buf)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return 0, err
	}
	return k * m, v.EvalProof(out, pts, party, seeds, cw, in)
}

// VdpfEvalAll is EvalAll that also writes each key's proof over its whole domain
// into pis (k proofs). Returns the number of outputs.
func VdpfEvalAll(handle int64, device int, stream uintptr, dst, pis uintptr, party int, s0s uintptr, k int, cws, control uintptr) (n int, err error) {
	defer guard(&err)
	v, err := lookupVdpf(handle, control)
	if err != nil {
		return 0, err
	}
	if device != CPU {
		return 0, valueErrorf("vdpf: eval_all with proofs runs on the CPU (a proof is a sequential chain over the whole domain): pass CPU tensors")
	}
	bits := v.Params().InBits
	if bits > gofss.MaxEvalAllBits || k < 0 || k > math.MaxInt>>bits {
		return 0, valueErrorf("%d keys of in_bits %d are too large for full-domain evaluation (at most in_bits %d)", k, bits, gofss.MaxEvalAllBits)
	}
	out, err1 := view[gofss.Block]("out", dst, k<<bits)
	proofs, err2 := view[gofss.Block]("pis", pis, gofss.ProofBlocks*k)
	seeds, err3 := view[gofss.Block]("s0s", s0s, k)
	cw, err4 := view[gofss.Cw]("cws", cws, k*v.Params().CwRows())
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return 0, err
	}
	return k << bits, v.EvalAllProof(out, proofs, party, seeds, cw)
}

// VdpfProve writes into pis the proofs of k keys (cws: k*CwRows() rows) from their
// proof pieces at m points each (pieces: k*m pieces, key by key, in evaluation order).
// Returns k.
func VdpfProve(handle int64, pis, pieces uintptr, m int, cws uintptr, k int, control uintptr) (n int, err error) {
	defer guard(&err)
	v, err := lookupVdpf(handle, control)
	if err != nil {
		return 0, err
	}
	if m < 0 || k < 0 || k > 0 && m > math.MaxInt/(gofss.ProofBlocks*k) || k > math.MaxInt/(2*v.Params().CwRows()) {
		return 0, valueErrorf("bad batch size %d x %d", k, m)
	}
	proofs, err1 := view[gofss.Block]("pis", pis, gofss.ProofBlocks*k)
	pts, err2 := view[gofss.Block]("pieces", pieces, gofss.ProofBlocks*k*m)
	cw, err3 := view[gofss.Cw]("cws", cws, k*v.Params().CwRows())
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	return k, v.Prove(proofs, pts, cw)
}

// VdpfVerify compares k pairs of proofs, pi0 and pi1 (k proofs each), in constant
// time: ok (k bytes) gets 1 where a pair is equal, else 0. Returns k.
func VdpfVerify(ok, pi0, pi1 uintptr, k int) (n int, err error) {
	defer guard(&err)
	if k < 0 || k > math.MaxInt/(16*gofss.ProofBlocks) {
		return 0, valueErrorf("bad number of proofs %d", k)
	}
	res, err1 := view[uint8]("ok", ok, k)
	a, err2 := view[gofss.Block]("pi0", pi0, gofss.ProofBlocks*k)
	b, err3 := view[gofss.Block]("pi1", pi1, gofss.ProofBlocks*k)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	return k, gofss.VerifyProofs(res, a, b)
}
