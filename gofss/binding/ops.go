package binding

import (
	"errors"
	"math"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda"
)

// The operations, one entry each for every device: device is CPU (-1) or a CUDA
// ordinal, with stream the CUDA stream to launch on (torch's current stream; ignored
// on the CPU). Every address is memory of that device that the caller allocated:
// outputs first, then the party, the seeds, the number of keys, the correction
// words, the inputs, and the scratch a CUDA call needs (ScratchBytes; 0 on the CPU).
// control is the address of a gofss.Control (16 bytes: an int32 that the caller sets
// nonzero to end a long CPU call early, 4 bytes of padding, then an int64 count of
// the items finished, which the call advances as it goes), or 0 for none. A stopped
// call fails with kind interrupted.

// CPU is the device argument for the host.
const CPU = -1

// Gen makes k keys into cws (k*CwRows() rows of 32 bytes, see gofss.Params) from s0s
// (2k blocks: key i's party 0 and 1 seeds), alphas (see readInputs; a tensor on
// CUDA) and betas (k blocks). Returns k.
func Gen(handle int64, device int, stream uintptr, cws, s0s, alphas uintptr, alphaWords int, alphaLo, alphaHi uint64, betas uintptr, k int, control uintptr) (n int, err error) {
	defer guard(&err)
	s, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	p := s.Params()
	if device != CPU {
		if alphaWords == 0 {
			return 0, valueErrorf("alphas: CUDA takes inputs as a tensor")
		}
		return k, cuda.Gen(device, stream, p, cws, s0s, alphas, alphaWords, betas, k)
	}
	if k < 0 || k > math.MaxInt/(2*p.CwRows()) {
		return 0, valueErrorf("bad number of keys %d", k)
	}
	seeds, err := view[gofss.Block]("s0s", s0s, 2*k)
	if err != nil {
		return 0, err
	}
	return genCPU(s, cws, seeds, alphas, alphaWords, alphaLo, alphaHi, betas, k, control)
}

// genCPU is Gen on the CPU with the seeds in Go's view, for k keys (checked).
func genCPU(s gofss.Scheme, cws uintptr, seeds []gofss.Block, alphas uintptr, alphaWords int, alphaLo, alphaHi uint64, betas uintptr, k int, control uintptr) (n int, err error) {
	p := s.Params()
	cw, err1 := view[gofss.Cw]("cws", cws, k*p.CwRows())
	bs, err2 := view[gofss.Block]("betas", betas, k)
	as, buf, err3 := readInputs("alphas", alphas, alphaWords, k, alphaLo, alphaHi)
	defer putInputs(buf)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	if p.Group == gofss.Bytes {
		if err := checkReservedBits(bs, "key"); err != nil {
			return 0, err
		}
	}
	s, err = withControl(s, control)
	if err != nil {
		return 0, err
	}
	return k, s.Gen(cw, seeds, as, bs)
}

// checkReservedBits refuses bytes-group betas with the control bit set: the library
// clears it, as the spec's Gen does, so the function would silently output another
// value than the one asked for. what names the betas in the error: keys' or points'.
func checkReservedBits(betas []gofss.Block, what string) error {
	for i, b := range betas {
		if b.Lsb() != 0 {
			return valueErrorf("beta: %s %d: bit 0 of word 3 is reserved in the bytes group (outputs never carry it) and must be 0", what, i)
		}
	}
	return nil
}

// Eval evaluates k keys of one party at m points each: s0s holds k blocks, cws
// k*CwRows() rows of correction words, xs k*m inputs (see readInputs; a tensor on
// CUDA), dst k*m blocks. Returns k*m.
func Eval(handle int64, device int, stream uintptr, dst uintptr, party int, s0s uintptr, k int, cws, xs uintptr, xWords int, xLo, xHi uint64, m int, scratch, control uintptr) (n int, err error) {
	defer guard(&err)
	s, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	if m < 0 || k < 0 || k > 0 && m > math.MaxInt/k {
		return 0, valueErrorf("bad batch size %d x %d", k, m)
	}
	p := s.Params()
	if device != CPU {
		if xWords == 0 {
			return 0, valueErrorf("xs: CUDA takes inputs as a tensor")
		}
		return k * m, cuda.Eval(device, stream, p, dst, party, s0s, k, cws, xs, xWords, m, scratch)
	}
	out, err1 := view[gofss.Block]("out", dst, k*m)
	seeds, err2 := view[gofss.Block]("s0s", s0s, k)
	cw, err3 := view[gofss.Cw]("cws", cws, k*p.CwRows())
	in, buf, err4 := readInputs("xs", xs, xWords, k*m, xLo, xHi)
	defer putInputs(buf)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return 0, err
	}
	s, err = withControl(s, control)
	if err != nil {
		return 0, err
	}
	return k * m, s.Eval(out, party, seeds, cw, in)
}

// EvalAll evaluates k keys of one party at the inputs start .. stop-1 of the domain
// (0 <= start <= stop <= 2^in_bits; 0 and 2^in_bits for the whole domain) into dst
// (k*(stop-start) blocks, key i's from i*(stop-start)). CUDA evaluates the whole
// domain only. Returns the number of outputs.
func EvalAll(handle int64, device int, stream uintptr, dst uintptr, party int, s0s uintptr, k int, cws uintptr, start, stop uint64, scratch, control uintptr) (n int, err error) {
	defer guard(&err)
	s, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	p := s.Params()
	bits := p.InBits
	if bits > gofss.MaxEvalAllBits || k < 0 || k > math.MaxInt>>bits {
		return 0, valueErrorf("%d keys of in_bits %d are too large for full-domain evaluation (at most in_bits %d)", k, bits, gofss.MaxEvalAllBits)
	}
	whole := start == 0 && stop == 1<<bits
	if start > stop || stop > 1<<bits {
		return 0, valueErrorf("start and stop must have 0 <= start <= stop <= 2**%d, not start %d, stop %d", bits, start, stop)
	}
	n = k * int(stop-start) // at most k << bits
	if device != CPU {
		if !whole {
			return 0, valueErrorf("cuda: eval_all evaluates the whole domain only: a range [start, stop) runs on the CPU")
		}
		return n, cuda.EvalAll(device, stream, p, dst, party, s0s, k, cws, scratch)
	}
	out, err1 := view[gofss.Block]("out", dst, n)
	seeds, err2 := view[gofss.Block]("s0s", s0s, k)
	cw, err3 := view[gofss.Cw]("cws", cws, k*p.CwRows())
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	s, err = withControl(s, control)
	if err != nil {
		return 0, err
	}
	if r, ok := s.(gofss.RangeScheme); ok {
		return n, r.EvalAllRange(out, party, seeds, cw, start, stop)
	}
	if !whole {
		return 0, valueErrorf("%v evaluates the whole domain only, not a range [start, stop)", p.Kind)
	}
	return n, s.EvalAll(out, party, seeds, cw)
}

// withControl returns s with calls that the gofss.Control at control watches and
// ends; s itself for control 0.
func withControl(s gofss.Scheme, control uintptr) (gofss.Scheme, error) {
	c, err := controlAt(control)
	if c == nil {
		return s, err
	}
	return s.WithControl(c), nil
}

// controlAt is the gofss.Control at control; nil for control 0.
func controlAt(control uintptr) (*gofss.Control, error) {
	if control == 0 {
		return nil, nil
	}
	c, err := view[gofss.Control]("control", control, 1)
	if err != nil {
		return nil, err
	}
	return &c[0], nil
}

// ScratchBytes is the scratch memory that op ("gen", "eval", "eval_all", and Grotto's
// "preprocess") needs on device for k keys (and m points per key): 0 on the CPU.
func ScratchBytes(handle int64, device int, op string, k, m int) (n int, err error) {
	defer guard(&err)
	s, err := lookupAny(handle)
	if err != nil || device == CPU {
		return 0, err
	}
	return cuda.ScratchBytes(op, s.Params(), k, m), nil
}

// CudaPrgBench runs the PRG-only bound of a point Eval with this scheme's PRG:
// count seeds, each through levels half-expansions (for benchmarks).
func CudaPrgBench(handle int64, device int, stream uintptr, dst, seeds uintptr, count, levels int) (n int, err error) {
	defer guard(&err)
	s, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	return count, cuda.PrgBench(device, stream, s.Params(), dst, seeds, count, levels)
}
