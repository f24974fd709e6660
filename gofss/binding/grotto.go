package binding

import (
	"errors"
	"math"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda"
)

// The Grotto DCF entries (docs/spec.md section 12), laid out as the other operations
// (see ops.go): handle, device, stream, the output, the arguments, the control block.
// Its keys are DPF keys of group bytes (in_bits+1 correction-word rows); a party
// evaluates its key through the key's preprocessed form, ParityWords() 64-bit words.
// On CUDA (device >= 0) Gen, Preprocess and the lookups go to the launcher; EvalAll
// is the CPU's only (on CUDA, pyfss preprocesses and unpacks the bits).

// grotto returns the Grotto DCF behind handle, watched on the CPU by the control
// block at control.
func grotto(handle int64, device int, control uintptr) (*gofss.GrottoDcf, error) {
	g, err := lookupGrotto(handle)
	if err != nil || device != CPU {
		return g, err
	}
	c, err := controlAt(control)
	if c == nil || err != nil {
		return g, err
	}
	return g.WithControl(c), nil
}

// GrottoGen makes k keys into cws (k*(in_bits+1) rows) from s0s (2k blocks: key
// i's party 0 and 1 seeds) and alphas (see readInputs). Returns k.
func GrottoGen(handle int64, device int, stream uintptr, cws, s0s, alphas uintptr, alphaWords int, alphaLo, alphaHi uint64, k int, control uintptr) (n int, err error) {
	defer guard(&err)
	g, err := grotto(handle, device, control)
	if err != nil {
		return 0, err
	}
	rows := g.Params().CwRows()
	if k < 0 || k > math.MaxInt/(2*rows) {
		return 0, valueErrorf("bad number of keys %d", k)
	}
	if device != CPU {
		if alphaWords == 0 {
			return 0, valueErrorf("alphas: CUDA takes inputs as a tensor")
		}
		return k, cuda.Gen(device, stream, g.Params(), cws, s0s, alphas, alphaWords, 0, k)
	}
	cw, err1 := view[gofss.Cw]("cws", cws, k*rows)
	seeds, err2 := view[gofss.Block]("s0s", s0s, 2*k)
	as, buf, err3 := readInputs("alphas", alphas, alphaWords, k, alphaLo, alphaHi)
	defer putInputs(buf)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	return k, g.Gen(cw, seeds, as)
}

// GrottoPreprocess writes the preprocessed forms of k keys of one party (s0s: k
// blocks, cws: k*(in_bits+1) rows) into pre (k*ParityWords() words), with the
// scratch a CUDA call needs (ScratchBytes "preprocess"; 0 on the CPU). Returns k.
func GrottoPreprocess(handle int64, device int, stream uintptr, pre uintptr, party int, s0s uintptr, k int, cws, scratch, control uintptr) (n int, err error) {
	defer guard(&err)
	g, err := grotto(handle, device, control)
	if err != nil {
		return 0, err
	}
	words, rows := g.ParityWords(), g.Params().CwRows()
	if k < 0 || k > math.MaxInt/max(words, rows) {
		return 0, valueErrorf("bad number of keys %d", k)
	}
	if device != CPU {
		return k, cuda.Preprocess(device, stream, g.Params(), pre, party, s0s, k, cws, scratch)
	}
	out, err1 := view[uint64]("pre", pre, k*words)
	seeds, err2 := view[gofss.Block]("s0s", s0s, k)
	cw, err3 := view[gofss.Cw]("cws", cws, k*rows)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	return k, g.Preprocess(out, party, seeds, cw)
}

// GrottoEval looks up the shares of k preprocessed keys (pre) at m points each (xs,
// see readInputs) into dst (k*m bytes, 0 or 1). Returns k*m.
func GrottoEval(handle int64, device int, stream uintptr, dst, pre uintptr, k int, xs uintptr, xWords int, xLo, xHi uint64, m int, control uintptr) (n int, err error) {
	defer guard(&err)
	if device != CPU {
		g, err := cudaLookups(handle, k, m, xWords)
		if err != nil {
			return 0, err
		}
		return k * m, cuda.GrottoEval(device, stream, g.Params(), dst, pre, k, xs, xWords, m)
	}
	l, err := newLookups(handle, device, control, dst, pre, k, m)
	if err != nil {
		return 0, err
	}
	in, buf, err := readInputs("x", xs, xWords, k*m, xLo, xHi)
	defer putInputs(buf)
	if err != nil {
		return 0, err
	}
	return k * m, l.g.Eval(l.out, l.pre, in)
}

// GrottoEvalInterval looks up the shares of 1{lo <= alpha <= hi} of k preprocessed
// keys (pre) for m intervals each (los, his: see readInputs) into dst (k*m bytes, 0
// or 1). Returns k*m.
func GrottoEvalInterval(handle int64, device int, stream uintptr, dst, pre uintptr, k int, los uintptr, loWords int, loLo, loHi uint64, his uintptr, hiWords int, hiLo, hiHi uint64, m int, control uintptr) (n int, err error) {
	defer guard(&err)
	if device != CPU {
		g, err := cudaLookups(handle, k, m, min(loWords, hiWords))
		if err != nil {
			return 0, err
		}
		return k * m, cuda.GrottoEvalInterval(device, stream, g.Params(), dst, pre, k, los, loWords, his, hiWords, m)
	}
	l, err := newLookups(handle, device, control, dst, pre, k, m)
	if err != nil {
		return 0, err
	}
	lo, loBuf, err1 := readInputs("lo", los, loWords, k*m, loLo, loHi)
	defer putInputs(loBuf)
	hi, hiBuf, err2 := readInputs("hi", his, hiWords, k*m, hiLo, hiHi)
	defer putInputs(hiBuf)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return k * m, l.g.EvalInterval(l.out, l.pre, lo, hi)
}

// lookups is what both lookup entries read and write: the scheme, k*m output bytes
// and k preprocessed keys.
type lookups struct {
	g   *gofss.GrottoDcf
	out []uint8
	pre []uint64
}

func newLookups(handle int64, device int, control, dst, pre uintptr, k, m int) (*lookups, error) {
	g, err := grotto(handle, device, control)
	if err != nil {
		return nil, err
	}
	if err := checkBatch(g, k, m); err != nil {
		return nil, err
	}
	out, err1 := view[uint8]("out", dst, k*m)
	p, err2 := view[uint64]("pre", pre, k*g.ParityWords())
	return &lookups{g, out, p}, errors.Join(err1, err2)
}

// cudaLookups is the Grotto DCF behind handle for a CUDA lookup of k x m points, whose
// inputs must be tensors (words > 0).
func cudaLookups(handle int64, k, m, words int) (*gofss.GrottoDcf, error) {
	g, err := lookupGrotto(handle)
	if err != nil {
		return nil, err
	}
	if words == 0 {
		return nil, valueErrorf("x: CUDA takes inputs as a tensor")
	}
	return g, checkBatch(g, k, m)
}

// GrottoEvalAll evaluates k keys of one party on the whole domain into dst
// (k*2^in_bits bytes, 0 or 1). Returns the number of outputs.
func GrottoEvalAll(handle int64, device int, stream uintptr, dst uintptr, party int, s0s uintptr, k int, cws, control uintptr) (n int, err error) {
	defer guard(&err)
	if device != CPU {
		return 0, valueErrorf("cuda: grotto_dcf's eval_all is preprocess, then an unpacking of the bits: call those")
	}
	g, err := grotto(handle, device, control)
	if err != nil {
		return 0, err
	}
	bits, rows := g.Params().InBits, g.Params().CwRows()
	if k < 0 || k > math.MaxInt>>bits {
		return 0, valueErrorf("bad number of keys %d", k)
	}
	out, err1 := view[uint8]("out", dst, k<<bits)
	seeds, err2 := view[gofss.Block]("s0s", s0s, k)
	cw, err3 := view[gofss.Cw]("cws", cws, k*rows)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	return k << bits, g.EvalAll(out, party, seeds, cw)
}

// checkBatch refuses a batch of k keys x m points whose sizes overflow.
func checkBatch(g *gofss.GrottoDcf, k, m int) error {
	if m < 0 || k < 0 || k > 0 && (m > math.MaxInt/k || k > math.MaxInt/g.ParityWords()) {
		return valueErrorf("bad batch size %d x %d", k, m)
	}
	return nil
}
