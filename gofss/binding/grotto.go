package binding

import (
	"errors"
	"math"

	"github.com/pyfss/pyfss/gofss"
)

// The Grotto DCF entries (docs/spec.md section 12), laid out as the other operations
// (see ops.go): handle, device, stream, the output, the arguments, the control block.
// Grotto has no CUDA kernels yet, so every device but the CPU is refused. Its keys
// are DPF keys of group bytes (in_bits+1 correction-word rows); a party evaluates
// its key through the key's preprocessed form, ParityWords() 64-bit words.

// grotto returns the Grotto DCF behind handle, watched by the control block at
// control, on device (CPU only).
func grotto(handle int64, device int, control uintptr) (*gofss.GrottoDcf, error) {
	g, err := lookupGrotto(handle)
	if err != nil {
		return nil, err
	}
	if device != CPU {
		return nil, valueErrorf("cuda: grotto_dcf has no CUDA kernels yet")
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
// blocks, cws: k*(in_bits+1) rows) into pre (k*ParityWords() words). Returns k.
func GrottoPreprocess(handle int64, device int, stream uintptr, pre uintptr, party int, s0s uintptr, k int, cws, control uintptr) (n int, err error) {
	defer guard(&err)
	g, err := grotto(handle, device, control)
	if err != nil {
		return 0, err
	}
	words, rows := g.ParityWords(), g.Params().CwRows()
	if k < 0 || k > math.MaxInt/max(words, rows) {
		return 0, valueErrorf("bad number of keys %d", k)
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

// GrottoEvalAll evaluates k keys of one party on the whole domain into dst
// (k*2^in_bits bytes, 0 or 1). Returns the number of outputs.
func GrottoEvalAll(handle int64, device int, stream uintptr, dst uintptr, party int, s0s uintptr, k int, cws, control uintptr) (n int, err error) {
	defer guard(&err)
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
