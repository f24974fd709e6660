package binding

import (
	"errors"
	"math"

	"github.com/pyfss/pyfss/gofss"
)

// The multi-point entries (dmpf and vdmpf, docs/spec.md section 16), laid out as the
// other operations (see ops.go). They run on the CPU; MpfEvalCuda (mpf_cuda.go) is
// Eval on CUDA. A key is one scheme's
// CwRows() rows shared by both parties and, per party, one seed per bucket
// (Buckets() of them); a vdmpf evaluation also writes the party's proof, ProofBlocks
// blocks (pi = 0: none).

// mpf returns the multi-point scheme behind handle, watched by the control block at
// control, on device (CPU only).
func mpf(handle int64, device int, control uintptr) (*gofss.Mpf, error) {
	d, err := lookupAs[*gofss.Mpf](handle, "not dmpf or vdmpf")
	if err != nil {
		return nil, err
	}
	if device != CPU {
		return nil, valueErrorf("cuda: %s takes host memory here (MpfEvalCuda evaluates on CUDA)", d.Params().Kind)
	}
	c, err := controlAt(control)
	if c == nil || err != nil {
		return d, err
	}
	return d.WithControl(c), nil
}

// MpfGen makes one key into cws (CwRows() rows) for t points alphas (see
// readInputs) with values betas (t blocks), from s0s (2 seeds per bucket: party 0's,
// then party 1's) and sigma (one block: the first PRP key tried). Returns the number
// of PRP keys tried.
func MpfGen(handle int64, device int, stream uintptr, cws, s0s, sigma, alphas uintptr, alphaWords int, alphaLo, alphaHi uint64, betas uintptr, t int, control uintptr) (n int, err error) {
	defer guard(&err)
	d, err := mpf(handle, device, control)
	if err != nil {
		return 0, err
	}
	p := d.Params()
	if t < 1 || t > p.MaxPoints {
		return 0, valueErrorf("alphas must hold between 1 and max_points (%d) points, not %d", p.MaxPoints, t)
	}
	cw, err1 := view[gofss.Cw]("cws", cws, p.CwRows())
	seeds, err2 := view[gofss.Block]("s0s", s0s, 2*p.Buckets())
	key, err3 := view[gofss.Block]("sigma", sigma, 1)
	bs, err4 := view[gofss.Block]("betas", betas, t)
	as, buf, err5 := readInputs("alphas", alphas, alphaWords, t, alphaLo, alphaHi)
	defer putInputs(buf)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return 0, err
	}
	if p.Group == gofss.Bytes {
		if err := checkReservedBits(bs, "point"); err != nil {
			return 0, err
		}
	}
	return d.Gen(cw, seeds, key[0], as, bs)
}

// MpfEval evaluates one key of party (s0s: one seed per bucket; cws) at m points xs
// (see readInputs) into dst (m blocks) and, where pi is not 0, writes the party's
// vdmpf proof over those points there. Returns m.
func MpfEval(handle int64, device int, stream uintptr, dst, pi uintptr, party int, s0s, cws, xs uintptr, xWords int, xLo, xHi uint64, m int, control uintptr) (n int, err error) {
	defer guard(&err)
	d, err := mpf(handle, device, control)
	if err != nil {
		return 0, err
	}
	if m < 0 || m > math.MaxInt/gofss.ProofBlocks {
		return 0, valueErrorf("bad number of points %d", m)
	}
	out, seeds, cw, proof, err1 := mpfKeyViews(d, dst, m, pi, s0s, cws)
	in, buf, err2 := readInputs("x", xs, xWords, m, xLo, xHi)
	defer putInputs(buf)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	if proof == nil {
		return m, d.Eval(out, party, seeds, cw, in)
	}
	return m, d.EvalProof(out, proof, party, seeds, cw, in)
}

// MpfEvalAll evaluates one key of party on the whole domain into dst (2^in_bits
// blocks) and, where pi is not 0, writes the party's vdmpf proof over the inputs 0
// .. 2^in_bits - 1 there. Returns the number of outputs.
func MpfEvalAll(handle int64, device int, stream uintptr, dst, pi uintptr, party int, s0s, cws, control uintptr) (n int, err error) {
	defer guard(&err)
	d, err := mpf(handle, device, control)
	if err != nil {
		return 0, err
	}
	bits := d.Params().InBits
	if bits > gofss.MaxEvalAllBits {
		return 0, valueErrorf("in_bits %d is too large for full-domain evaluation (at most %d)", bits, gofss.MaxEvalAllBits)
	}
	out, seeds, cw, proof, err := mpfKeyViews(d, dst, 1<<bits, pi, s0s, cws)
	if err != nil {
		return 0, err
	}
	if proof == nil {
		return 1 << bits, d.EvalAll(out, party, seeds, cw)
	}
	return 1 << bits, d.EvalAllProof(out, proof, party, seeds, cw)
}

// mpfKeyViews are the views of an evaluation's outputs (outputs blocks, and the
// proof where pi is not 0) and of one party's key.
func mpfKeyViews(d *gofss.Mpf, dst uintptr, outputs int, pi, s0s, cws uintptr) ([]gofss.Block, []gofss.Block, []gofss.Cw, *[gofss.ProofBlocks]gofss.Block, error) {
	p := d.Params()
	out, err1 := view[gofss.Block]("out", dst, outputs)
	seeds, err2 := view[gofss.Block]("s0s", s0s, p.Buckets())
	cw, err3 := view[gofss.Cw]("cws", cws, p.CwRows())
	var proof *[gofss.ProofBlocks]gofss.Block
	var err4 error
	if pi != 0 {
		var blocks []gofss.Block
		blocks, err4 = view[gofss.Block]("pi", pi, gofss.ProofBlocks)
		if err4 == nil {
			proof = (*[gofss.ProofBlocks]gofss.Block)(blocks)
		}
	}
	return out, seeds, cw, proof, errors.Join(err1, err2, err3, err4)
}
