package binding

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda"
)

// Schemes live on the Go side behind integer handles, so that a call does not parse
// names or expand AES keys again: Python creates one per Dpf/Dcf object and frees it
// when the object goes away.

type scheme interface {
	Gen(cws []gofss.Cw, s0s []gofss.Block, alphas []gofss.Uint128, betas []gofss.Block) error
	Eval(dst []gofss.Block, party int, s0s []gofss.Block, cws []gofss.Cw, xs []gofss.Uint128) error
	EvalAll(dst []gofss.Block, party int, s0s []gofss.Block, cws []gofss.Cw) error
	InBits() int
}

// entry is a scheme as both backends need it: the CPU object and the GPU
// launcher's parameters.
type entry struct {
	cpu scheme
	gpu cuda.Params
}

var (
	schemesMu  sync.RWMutex
	schemes    = map[int64]entry{}
	nextHandle int64
)

// NewScheme builds a scheme and returns its handle. kind is "dpf", "dcf_lt" or
// "dcf_gt"; group one of bytes, uint32, uint64, uint127; prg "chacha" (with the
// nonce words, each in int32 or uint32 range) or "aes128_mmo" (with aesKeysHex, the
// keys' bytes in hex, concatenated: 2 keys for DPF, 4 for DCF).
func NewScheme(kind string, inBits int, group, prg string, nonce0, nonce1 int64, aesKeysHex string) (handle int64, err error) {
	defer guard(&err)
	mul := 2
	if kind != "dpf" {
		mul = 4
	}
	g, err := gofss.ParseGroup(group)
	if err != nil {
		return 0, wrap(err)
	}
	p, err := newPrg(prg, mul, nonce0, nonce1, aesKeysHex)
	if err != nil {
		return 0, wrap(err)
	}
	e := entry{gpu: cuda.Params{InBits: inBits, Group: int(g), Nonce: [2]uint32{uint32(nonce0), uint32(nonce1)}}}
	switch kind {
	case "dpf":
		e.cpu, err = gofss.NewDpf(inBits, g, p)
		e.gpu.Scheme = cuda.SchemeDpf
	case "dcf_lt", "dcf_gt":
		pred, _ := gofss.ParsePred(kind[4:])
		e.cpu, err = gofss.NewDcf(inBits, g, p, pred)
		e.gpu.Scheme = map[gofss.Pred]cuda.Scheme{gofss.Lt: cuda.SchemeDcfLt, gofss.Gt: cuda.SchemeDcfGt}[pred]
	default:
		return 0, fmt.Errorf("ValueError: scheme must be one of dpf, dcf_lt, dcf_gt, not %q", kind)
	}
	if err != nil {
		return 0, wrap(err)
	}
	if aes, ok := p.(*gofss.AesMmo); ok {
		e.gpu.Prg, e.gpu.AesKeys = cuda.PrgAES128MMO, aes.Keys()
	}
	schemesMu.Lock()
	defer schemesMu.Unlock()
	nextHandle++
	schemes[nextHandle] = e
	return nextHandle, nil
}

func newPrg(name string, mul int, nonce0, nonce1 int64, aesKeysHex string) (gofss.Prg, error) {
	switch name {
	case "chacha":
		for _, w := range []int64{nonce0, nonce1} {
			if w < math.MinInt32 || w > math.MaxUint32 {
				return nil, fmt.Errorf("ValueError: nonce words must fit in 32 bits, not %d", w)
			}
		}
		return gofss.NewChaCha(mul, [2]uint32{uint32(nonce0), uint32(nonce1)})
	case "aes128_mmo":
		raw, err := hex.DecodeString(aesKeysHex)
		if err != nil || len(raw) != 16*mul {
			return nil, fmt.Errorf("ValueError: aes_keys must be %d keys of 16 bytes", mul)
		}
		keys := make([][16]byte, mul)
		for i := range keys {
			keys[i] = [16]byte(raw[16*i:])
		}
		return gofss.NewAesMmo(keys)
	}
	return nil, fmt.Errorf("ValueError: prg must be one of chacha, aes128_mmo, not %q", name)
}

// FreeScheme releases a handle; freeing an unknown handle is an error.
func FreeScheme(handle int64) (n int, err error) {
	defer guard(&err)
	schemesMu.Lock()
	defer schemesMu.Unlock()
	if _, ok := schemes[handle]; !ok {
		return 0, fmt.Errorf("ValueError: no scheme with handle %d", handle)
	}
	delete(schemes, handle)
	return 1, nil
}

func lookup(handle int64) (entry, error) {
	schemesMu.RLock()
	defer schemesMu.RUnlock()
	e, ok := schemes[handle]
	if !ok {
		return entry{}, fmt.Errorf("ValueError: no scheme with handle %d", handle)
	}
	return e, nil
}

// Gen makes k keys into cws (k*(in_bits+1) correction words of 32 bytes) from s0s
// (2k blocks: key i's party 0 and 1 seeds), alphas (see readInputs) and betas (k
// blocks). Returns k.
func Gen(handle int64, cws, s0s, alphas uintptr, alphaWords int, alphaLo, alphaHi uint64, betas uintptr, k int) (n int, err error) {
	defer guard(&err)
	e, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	s := e.cpu
	cw, err1 := view[gofss.Cw](cws, k*(s.InBits()+1))
	seeds, err2 := view[gofss.Block](s0s, 2*k)
	bs, err3 := view[gofss.Block](betas, k)
	as, buf, err4 := readInputs(alphas, alphaWords, k, alphaLo, alphaHi)
	defer putInputs(buf)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return 0, err
	}
	return k, wrap(s.Gen(cw, seeds, as, bs))
}

// Eval evaluates k keys of one party at m points each: s0s holds k blocks, cws
// k*(in_bits+1) correction words, xs k*m inputs (see readInputs), dst k*m blocks.
// Returns k*m.
func Eval(handle int64, dst uintptr, party int, s0s uintptr, k int, cws, xs uintptr, xWords int, xLo, xHi uint64, m int) (n int, err error) {
	defer guard(&err)
	e, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	s := e.cpu
	if m < 0 || k < 0 || k > 0 && m > math.MaxInt/k {
		return 0, fmt.Errorf("ValueError: bad batch size %d x %d", k, m)
	}
	out, err1 := view[gofss.Block](dst, k*m)
	seeds, err2 := view[gofss.Block](s0s, k)
	cw, err3 := view[gofss.Cw](cws, k*(s.InBits()+1))
	in, buf, err4 := readInputs(xs, xWords, k*m, xLo, xHi)
	defer putInputs(buf)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return 0, err
	}
	return k * m, wrap(s.Eval(out, party, seeds, cw, in))
}

// EvalAll evaluates k keys of one party on the whole domain into dst (k*2^in_bits
// blocks). Returns the number of outputs.
func EvalAll(handle int64, dst uintptr, party int, s0s uintptr, k int, cws uintptr) (n int, err error) {
	defer guard(&err)
	e, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	s := e.cpu
	bits := s.InBits()
	if bits > gofss.MaxEvalAllBits || k < 0 || k > math.MaxInt>>bits {
		return 0, fmt.Errorf("ValueError: %d keys of in_bits %d are too large for full-domain evaluation", k, bits)
	}
	out, err1 := view[gofss.Block](dst, k<<bits)
	seeds, err2 := view[gofss.Block](s0s, k)
	cw, err3 := view[gofss.Cw](cws, k*(bits+1))
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	return k << bits, wrap(s.EvalAll(out, party, seeds, cw))
}

// readInputs decodes n unsigned inputs of words 32-bit little-endian words each (1,
// 2 or 4), the three forms Python passes: int32, int64 and (..., 4) int32 tensors.
// With words 0 every input is lo + hi*2^64: a Python int, passed without a tensor.
// The (..., 4) form is already the memory image of []Uint128 and is used in place;
// the others are widened into a pooled buffer, buf, for the caller to putInputs.
func readInputs(addr uintptr, words, n int, lo, hi uint64) (xs []gofss.Uint128, buf *[]gofss.Uint128, err error) {
	if words == 4 {
		xs, err = view[gofss.Uint128](addr, n)
		return xs, nil, err
	}
	if words != 0 && words != 1 && words != 2 {
		return nil, nil, fmt.Errorf("ValueError: inputs must have 0, 1, 2 or 4 words each, not %d", words)
	}
	buf, _ = inputBufs.Get().(*[]gofss.Uint128)
	if buf == nil || cap(*buf) < n {
		buf = new([]gofss.Uint128)
		*buf = make([]gofss.Uint128, max(n, 0))
	}
	xs = (*buf)[:max(n, 0)]
	switch words {
	case 0:
		for i := range xs {
			xs[i] = gofss.Uint128{Lo: lo, Hi: hi}
		}
	case 1:
		in, err := view[uint32](addr, n)
		for i, v := range in {
			xs[i] = gofss.Uint128{Lo: uint64(v)}
		}
		return xs, buf, err
	case 2:
		in, err := view[uint64](addr, n)
		for i, v := range in {
			xs[i] = gofss.Uint128{Lo: v}
		}
		return xs, buf, err
	}
	return xs, buf, nil
}

// putInputs returns a readInputs buffer (nil: none) to the pool, unless it is so
// large that keeping it would hold on to memory for little gain.
func putInputs(buf *[]gofss.Uint128) {
	if buf != nil && cap(*buf) <= maxPooledInputs {
		inputBufs.Put(buf)
	}
}

// inputBufs recycles readInputs' buffers: a batch of 2^16 inputs is 1 MiB that
// would otherwise be allocated and zeroed on every call.
var inputBufs sync.Pool

// maxPooledInputs (16 MiB of inputs) bounds what the pool keeps; larger batches
// take long enough that allocating their buffer does not matter.
const maxPooledInputs = 1 << 20

// wrap marks caller-input errors so that Python raises ValueError for them.
func wrap(err error) error {
	if err == nil {
		return nil // before errors.As, whose target would be allocated on every call
	}
	var ae *gofss.ArgError
	if errors.As(err, &ae) {
		return fmt.Errorf("ValueError: %w", err)
	}
	return err
}

// The CUDA calls take the same arguments as the CPU ones plus the device ordinal
// and the CUDA stream (torch.cuda.current_stream().cuda_stream); every address is
// device memory that the caller (torch) allocated. Inputs are always tensors
// (words 1, 2 or 4); scratch is CudaScratchBytes bytes of device memory.

// CudaGen is Gen on device dev.
func CudaGen(handle int64, dev int, stream uintptr, cws, s0s, alphas uintptr, alphaWords int, betas uintptr, k int) (n int, err error) {
	defer guard(&err)
	e, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	return k, cuda.Gen(dev, stream, e.gpu, cws, s0s, alphas, alphaWords, betas, k)
}

// CudaEval is Eval on device dev.
func CudaEval(handle int64, dev int, stream uintptr, dst uintptr, party int, s0s uintptr, k int, cws, xs uintptr, xWords, m int, scratch uintptr) (n int, err error) {
	defer guard(&err)
	e, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	return k * m, cuda.Eval(dev, stream, e.gpu, dst, party, s0s, cws, k, xs, xWords, m, scratch)
}

// CudaEvalAll is EvalAll on device dev.
func CudaEvalAll(handle int64, dev int, stream uintptr, dst uintptr, party int, s0s uintptr, k int, cws, scratch uintptr) (n int, err error) {
	defer guard(&err)
	e, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	return k, cuda.EvalAll(dev, stream, e.gpu, dst, party, s0s, cws, k, scratch)
}

// CudaScratchBytes is the device scratch that op ("eval", "eval_all") needs.
func CudaScratchBytes(handle int64, op string, k, m int) (n int, err error) {
	defer guard(&err)
	e, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	return cuda.ScratchBytes(op, e.gpu, k, m), nil
}

// CudaPrgBench runs the PRG-only bound of a point Eval with this scheme's PRG:
// count seeds, each through levels half-expansions (for benchmarks).
func CudaPrgBench(handle int64, dev int, stream uintptr, dst, seeds uintptr, count, levels int) (n int, err error) {
	defer guard(&err)
	e, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	return count, cuda.PrgBench(dev, stream, e.gpu, dst, seeds, count, levels)
}
