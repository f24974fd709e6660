package binding

import (
	"errors"
	"math"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda"
)

// The multi-point schemes on CUDA: the kernels evaluate one key at m inputs, and for
// vdmpf write each input's three buckets and proof pieces, which MpfFoldProof folds
// into the party's proof on the CPU (a sequential chain, as VDPF's Prove).

// MpfEvalCuda enqueues the evaluation of one key of party (s0s: one seed per bucket;
// cws) at m inputs xs (a tensor of xWords words each) into dst (m blocks) on device;
// for vdmpf bkts (3m int32) and pieces (3m proof pieces) get each input's pairs. The
// caller checks the key and the inputs' range (pyfss._validate). scratch holds
// ScratchBytes(..., "mpf_eval", 1, m). Returns m.
func MpfEvalCuda(handle int64, device int, stream uintptr, dst, bkts, pieces uintptr, party int, s0s, cws, xs uintptr, xWords, m int, scratch, control uintptr) (n int, err error) {
	defer guard(&err)
	d, err := lookupAs[*gofss.Mpf](handle, "not dmpf or vdmpf")
	if err != nil {
		return 0, err
	}
	if device == CPU {
		return 0, valueErrorf("cuda: MpfEvalCuda takes device memory (MpfEval runs on the CPU)")
	}
	if xWords == 0 {
		return 0, valueErrorf("xs: CUDA takes inputs as a tensor")
	}
	return m, cuda.MpfEval(device, stream, d.Params(), dst, bkts, pieces, party, s0s, 1, cws, xs, xWords, m, scratch)
}

// MpfFoldProof writes party's vdmpf proof over m inputs into pi (ProofBlocks blocks)
// from what MpfEvalCuda wrote, copied to the host: bkts (3m int32) and pieces (3m
// proof pieces), for the key cws. Returns m.
func MpfFoldProof(handle int64, pi, cws, bkts, pieces uintptr, m int, control uintptr) (n int, err error) {
	defer guard(&err)
	d, err := mpf(handle, CPU, control)
	if err != nil {
		return 0, err
	}
	if m < 0 || m > math.MaxInt/(3*gofss.ProofBlocks*16) {
		return 0, valueErrorf("bad number of inputs %d", m)
	}
	proof, err1 := view[gofss.Block]("pi", pi, gofss.ProofBlocks)
	cw, err2 := view[gofss.Cw]("cws", cws, d.Params().CwRows())
	bs, err3 := view[int32]("bkts", bkts, 3*m)
	ps, err4 := view[gofss.Block]("pieces", pieces, 3*gofss.ProofBlocks*m)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return 0, err
	}
	return m, d.FoldProof((*[gofss.ProofBlocks]gofss.Block)(proof), cw, bs, ps)
}
