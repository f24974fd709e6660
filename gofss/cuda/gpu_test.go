//go:build cgo

package cuda

// Tests and benchmarks on a real GPU; they skip where GetInfo reports none. On a GPU
// machine without Go, build them here with `go test -c` and run the binary there with
// -test.run GPU -test.bench GPU.

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda/internal/vectortest"
)

const gpu = 0 // device ordinal

func needGPU(t testing.TB) {
	if info := GetInfo(); info.Reason != "" {
		t.Skip(info.Reason)
	}
}

// guard is the pattern around every test buffer: a kernel that writes outside its
// output changes it.
const (
	guardWords = 64
	guardWord  = 0xa5a5a5a5
)

// deviceBuffer allocates n words with guards on both sides, fills them from src (or
// with the guard pattern when src is nil), and checks and frees them when the test
// ends. It returns the address of the first word.
func deviceBuffer(t testing.TB, n int, src []uint32) uintptr {
	all := make([]uint32, n+2*guardWords)
	for i := range all {
		all[i] = guardWord
	}
	copy(all[guardWords:], src)
	base, err := deviceAlloc(gpu, 4*len(all))
	require.NoError(t, err)
	require.NoError(t, copyToDevice(gpu, base, all))
	t.Cleanup(func() {
		got := make([]uint32, len(all))
		if err := copyFromDevice(gpu, got, base); err != nil {
			t.Error(err)
		}
		for i := range guardWords {
			if got[i] != guardWord || got[len(got)-1-i] != guardWord {
				t.Errorf("a kernel wrote outside a buffer of %d words", n)
				break
			}
		}
		if err := deviceFree(gpu, base); err != nil {
			t.Error(err)
		}
	})
	return base + 4*guardWords
}

func download(t testing.TB, src uintptr, n int) []uint32 {
	out := make([]uint32, n)
	require.NoError(t, copyFromDevice(gpu, out, src))
	return out
}

// gpuBackend runs the vectors through the launcher on device 0, stream 0.
type gpuBackend struct{ t *testing.T }

func (g gpuBackend) Gen(p gofss.Params, seeds, alphas []uint32, alphaWords int, betas []uint32, k int) ([]uint32, error) {
	n := k * p.CwRows() * 8
	cws := deviceBuffer(g.t, n, nil)
	err := Gen(gpu, 0, p, cws, deviceBuffer(g.t, len(seeds), seeds), deviceBuffer(g.t, len(alphas), alphas),
		alphaWords, deviceBuffer(g.t, len(betas), betas), k)
	if err != nil {
		return nil, err
	}
	return download(g.t, cws, n), nil
}

func (g gpuBackend) Eval(p gofss.Params, party int, s0s []uint32, k int, cws, xs []uint32, xWords, m int) ([]uint32, error) {
	dst := deviceBuffer(g.t, k*m*4, nil)
	var scratch uintptr
	if size := ScratchBytes("eval", p, k, m); size > 0 {
		scratch = deviceBuffer(g.t, size/4, nil)
	}
	err := Eval(gpu, 0, p, dst, party, deviceBuffer(g.t, len(s0s), s0s), k, deviceBuffer(g.t, len(cws), cws),
		deviceBuffer(g.t, len(xs), xs), xWords, m, scratch)
	if err != nil {
		return nil, err
	}
	return download(g.t, dst, k*m*4), nil
}

func (g gpuBackend) EvalAll(p gofss.Params, party int, s0s []uint32, k int, cws []uint32) ([]uint32, error) {
	n := k << p.InBits * 4
	dst := deviceBuffer(g.t, n, nil)
	var scratch uintptr
	if size := ScratchBytes("eval_all", p, k, 0); size > 0 {
		scratch = deviceBuffer(g.t, size/4, nil)
	}
	err := EvalAll(gpu, 0, p, dst, party, deviceBuffer(g.t, len(s0s), s0s), k, deviceBuffer(g.t, len(cws), cws), scratch)
	if err != nil {
		return nil, err
	}
	return download(g.t, dst, n), nil
}

// VdpfGen is Gen: the launcher picks VDPF's kernel by the parameters.
func (g gpuBackend) VdpfGen(p gofss.Params, seeds, alphas []uint32, alphaWords int, betas []uint32, k int) ([]uint32,
	error) {
	return g.Gen(p, seeds, alphas, alphaWords, betas, k)
}

func (g gpuBackend) VdpfEval(p gofss.Params, party int, s0s []uint32, k int, cws, xs []uint32, xWords, m int) ([]uint32,
	[]uint32, error) {
	dst, pieces := deviceBuffer(g.t, k*m*4, nil), deviceBuffer(g.t, k*m*16, nil)
	var scratch uintptr
	if size := ScratchBytes("eval_proof", p, k, m); size > 0 {
		scratch = deviceBuffer(g.t, size/4, nil)
	}
	err := EvalProof(gpu, 0, p, dst, pieces, party, deviceBuffer(g.t, len(s0s), s0s), k, deviceBuffer(g.t, len(cws), cws),
		deviceBuffer(g.t, len(xs), xs), xWords, m, scratch)
	if err != nil {
		return nil, nil, err
	}
	return download(g.t, dst, k*m*4), download(g.t, pieces, k*m*16), nil
}

func (g gpuBackend) MpfEval(p gofss.Params, party int, s0s []uint32, k int, cws, xs []uint32, xWords, m int) ([]uint32,
	[]uint32, []uint32, error) {
	dst := deviceBuffer(g.t, k*m*4, nil)
	var bkts, pieces uintptr
	if p.Kind == gofss.KindVdmpf {
		bkts, pieces = deviceBuffer(g.t, k*m*3, nil), deviceBuffer(g.t, k*m*48, nil)
	}
	scratch := deviceBuffer(g.t, ScratchBytes("mpf_eval", p, k, m)/4, nil)
	err := MpfEval(gpu, 0, p, dst, bkts, pieces, party, deviceBuffer(g.t, len(s0s), s0s), k,
		deviceBuffer(g.t, len(cws), cws), deviceBuffer(g.t, len(xs), xs), xWords, m, scratch)
	if err != nil || p.Kind != gofss.KindVdmpf {
		return download(g.t, dst, k*m*4), nil, nil, err
	}
	return download(g.t, dst, k*m*4), download(g.t, bkts, k*m*3), download(g.t, pieces, k*m*48), nil
}

func (g gpuBackend) Preprocess(p gofss.Params, party int, s0s []uint32, k int, cws []uint32) ([]uint64, error) {
	n := k * int(parityWords(p.InBits)) * 2
	pre := deviceBuffer(g.t, n, nil)
	var scratch uintptr
	if size := ScratchBytes("preprocess", p, k, 0); size > 0 {
		scratch = deviceBuffer(g.t, size/4, nil)
	}
	err := Preprocess(gpu, 0, p, pre, party, deviceBuffer(g.t, len(s0s), s0s), k, deviceBuffer(g.t, len(cws), cws), scratch)
	if err != nil {
		return nil, err
	}
	w := download(g.t, pre, n)
	out := make([]uint64, n/2)
	for i := range out {
		out[i] = uint64(w[2*i]) | uint64(w[2*i+1])<<32
	}
	return out, nil
}

func (g gpuBackend) GrottoEval(p gofss.Params, pre []uint64, k int, xs []uint32, xWords, m int) ([]uint8, error) {
	return g.lookups(k*m, func(dst uintptr) error {
		return GrottoEval(gpu, 0, p, dst, g.upload64(pre), k, deviceBuffer(g.t, len(xs), xs), xWords, m)
	})
}

func (g gpuBackend) GrottoEvalInterval(p gofss.Params, pre []uint64, k int, los []uint32, loWords int, his []uint32,
	hiWords, m int) ([]uint8, error) {
	return g.lookups(k*m, func(dst uintptr) error {
		return GrottoEvalInterval(gpu, 0, p, dst, g.upload64(pre), k, deviceBuffer(g.t, len(los), los), loWords,
			deviceBuffer(g.t, len(his), his), hiWords, m)
	})
}

func (g gpuBackend) upload64(v []uint64) uintptr {
	w := make([]uint32, 2*len(v))
	for i, x := range v {
		w[2*i], w[2*i+1] = uint32(x), uint32(x>>32)
	}
	return deviceBuffer(g.t, len(w), w)
}

// lookups runs a Grotto lookup into n output bytes and returns them; the bytes after
// them up to the buffer's next word must keep the guard pattern.
func (g gpuBackend) lookups(n int, run func(dst uintptr) error) ([]uint8, error) {
	words := (n + 3) / 4
	dst := deviceBuffer(g.t, words, nil)
	if err := run(dst); err != nil {
		return nil, err
	}
	b := make([]uint8, 4*words)
	for i, w := range download(g.t, dst, words) {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	for _, x := range b[n:] {
		require.Equal(g.t, uint8(guardWord&0xff), x, "a lookup wrote past its %d bytes", n)
	}
	return b[:n], nil
}

func TestGPUVectors(t *testing.T) {
	needGPU(t)
	t.Logf("%+v", GetInfo())
	n := vectortest.Run(t, gpuBackend{t}, 16)
	t.Logf("%d DPF/DCF/Half-Tree DPF cases checked on the GPU", n)
	n = vectortest.RunGrotto(t, gpuBackend{t}, 20)
	t.Logf("%d Grotto DCF cases checked on the GPU", n)
	n = vectortest.RunVdpf(t, gpuBackend{t})
	t.Logf("%d VDPF cases checked on the GPU", n)
	n = vectortest.RunMpf(t, gpuBackend{t})
	t.Logf("%d DMPF/VDMPF cases checked on the GPU", n)
}

func randomWords(t testing.TB, n int) []uint32 {
	b := make([]byte, 4*n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	w := make([]uint32, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// The benchmarks' parameters; each sets in_bits.
var benchParams = []gofss.Params{
	gofss.DefaultParams(gofss.KindDpf, 0, gofss.Uint32, gofss.PrgChaCha),
	gofss.DefaultParams(gofss.KindDpf, 0, gofss.Uint32, gofss.PrgAesMmo),
	gofss.DefaultParams(gofss.KindDcfLt, 0, gofss.Uint32, gofss.PrgChaCha),
	gofss.DefaultParams(gofss.KindDcfLt, 0, gofss.Uint32, gofss.PrgAesMmo),
	gofss.DefaultParams(gofss.KindHalfTreeDpf, 0, gofss.Uint32, gofss.PrgChaCha),
	gofss.DefaultParams(gofss.KindHalfTreeDpf, 0, gofss.Uint32, gofss.PrgAesMmo),
}

func benchName(p gofss.Params, rest string) string {
	return fmt.Sprintf("%s/%s/%s", p.Kind, p.Prg, rest)
}

// benchCws generates the correction words of k random keys on the device. Timing
// needs no matching seeds: any seed evaluates at the same cost.
func benchCws(b *testing.B, p gofss.Params, k int) uintptr {
	cws := deviceBuffer(b, k*p.CwRows()*8, nil)
	require.NoError(b, Gen(gpu, 0, p, cws, deviceBuffer(b, k*8, randomWords(b, k*8)),
		deviceBuffer(b, k*4, randomWords(b, k*4)), 4, deviceBuffer(b, k*4, randomWords(b, k*4)), k))
	return cws
}

// timeLaunches reports the device time per operation by synchronising once after b.N
// launches on the legacy default stream; items is the number of outputs per launch.
func timeLaunches(b *testing.B, items int, launch func() error) {
	require.NoError(b, launch()) // loads the module and warms up
	require.NoError(b, synchronize(gpu))
	b.SetBytes(int64(16 * items))
	b.ResetTimer()
	for range b.N {
		if err := launch(); err != nil {
			b.Fatal(err)
		}
	}
	require.NoError(b, synchronize(gpu))
	b.ReportMetric(float64(items)*float64(b.N)/b.Elapsed().Seconds(), "outputs/s")
}

// Point Eval of 2^22 points at in_bits 20 (one key, and 2^16 keys of 64 points), and
// the PRG-only bound of the same work.
func BenchmarkGPUEval(b *testing.B) {
	needGPU(b)
	const n, points = 20, 1 << 22
	for _, p := range benchParams {
		p.InBits = n
		for _, k := range []int{1, 1 << 16} {
			m := points / k
			b.Run(benchName(p, fmt.Sprintf("n%d/k%d/m%d", n, k, m)), func(b *testing.B) {
				cws := benchCws(b, p, k)
				s0s := deviceBuffer(b, k*4, randomWords(b, k*4))
				xs := deviceBuffer(b, points, randomWords(b, points))
				dst := deviceBuffer(b, points*4, nil)
				var scratch uintptr
				if size := ScratchBytes("eval", p, k, m); size > 0 {
					scratch = deviceBuffer(b, size/4, nil)
				}
				timeLaunches(b, points, func() error { return Eval(gpu, 0, p, dst, 0, s0s, k, cws, xs, 1, m, scratch) })
			})
		}
		if checkParams(p, "prg_bench") != nil {
			continue // Half-Tree DPF: its hash has no bound kernel
		}
		b.Run(benchName(p, fmt.Sprintf("prg_bound/levels%d/count%d", n, points)), func(b *testing.B) {
			seeds := deviceBuffer(b, points*4, randomWords(b, points*4))
			dst := deviceBuffer(b, points*4, nil)
			timeLaunches(b, points, func() error { return PrgBench(gpu, 0, p, dst, seeds, points, n) })
		})
	}
}

// EvalAll of one key at in_bits 20 and 24.
func BenchmarkGPUEvalAll(b *testing.B) {
	needGPU(b)
	for _, p := range benchParams {
		for _, n := range []int{20, 24} {
			p.InBits = n
			b.Run(benchName(p, fmt.Sprintf("n%d", n)), func(b *testing.B) {
				cws := benchCws(b, p, 1)
				s0s := deviceBuffer(b, 4, randomWords(b, 4))
				dst := deviceBuffer(b, 4<<n, nil)
				timeLaunches(b, 1<<n, func() error { return EvalAll(gpu, 0, p, dst, 0, s0s, 1, cws, 0) })
			})
		}
	}
}

// Grotto DCF: Preprocess of one key at in_bits 20 and 24, and Eval of 2^22 points of
// one preprocessed key.
func BenchmarkGPUGrotto(b *testing.B) {
	needGPU(b)
	for _, prg := range []gofss.PrgKind{gofss.PrgChaCha, gofss.PrgAesMmo} {
		for _, n := range []int{20, 24} {
			p := gofss.DefaultParams(gofss.KindGrottoDcf, n, gofss.Bytes, prg)
			b.Run(benchName(p, fmt.Sprintf("preprocess/n%d", n)), func(b *testing.B) {
				cws := benchCws(b, p, 1)
				s0s := deviceBuffer(b, 4, randomWords(b, 4))
				pre := deviceBuffer(b, int(2*parityWords(n)), nil)
				scratch := deviceBuffer(b, ScratchBytes("preprocess", p, 1, 0)/4, nil)
				timeLaunches(b, 1<<n, func() error { return Preprocess(gpu, 0, p, pre, 0, s0s, 1, cws, scratch) })
			})
		}
		const n, points = 20, 1 << 22
		p := gofss.DefaultParams(gofss.KindGrottoDcf, n, gofss.Bytes, prg)
		b.Run(benchName(p, fmt.Sprintf("eval/n%d/m%d", n, points)), func(b *testing.B) {
			pre := deviceBuffer(b, int(2*parityWords(n)), randomWords(b, int(2*parityWords(n))))
			xs := deviceBuffer(b, points, randomWords(b, points))
			dst := deviceBuffer(b, points/4, nil)
			timeLaunches(b, points, func() error { return GrottoEval(gpu, 0, p, dst, pre, 1, xs, 1, points) })
		})
	}
}

// VDPF: Eval with proof pieces (two XH hashes per point) of 2^16 keys x 64 points at
// in_bits 20, beside DPF's Eval of the same keys and points.
func BenchmarkGPUVdpf(b *testing.B) {
	needGPU(b)
	const n, k, m = 20, 1 << 16, 64
	for _, prg := range []gofss.PrgKind{gofss.PrgChaCha, gofss.PrgAesMmo} {
		for _, hash := range []gofss.HashKind{gofss.HashSha256, gofss.HashBlake3} {
			p := gofss.DefaultParams(gofss.KindVdpf, n, gofss.Uint32, prg)
			p.Hash = gofss.DefaultVdpfHash(hash)
			b.Run(benchName(p, fmt.Sprintf("%s/n%d/k%d/m%d", hash, n, k, m)), func(b *testing.B) {
				cws := benchCws(b, p, k)
				s0s := deviceBuffer(b, k*4, randomWords(b, k*4))
				xs := deviceBuffer(b, k*m, randomWords(b, k*m))
				dst, pieces := deviceBuffer(b, k*m*4, nil), deviceBuffer(b, k*m*16, nil)
				scratch := deviceBuffer(b, ScratchBytes("eval_proof", p, k, m)/4, nil)
				timeLaunches(b, k*m, func() error {
					return EvalProof(gpu, 0, p, dst, pieces, 0, s0s, k, cws, xs, 1, m, scratch)
				})
			})
		}
	}
}

// DMPF and VDMPF: Eval of one key of 64 points at 2^22 inputs, in_bits 20 (three
// bucket walks of bucket_bits levels and three PRP evaluations per input). The key
// is made on the CPU: a key with a bad header would time the kernels' early exit.
func BenchmarkGPUMpf(b *testing.B) {
	needGPU(b)
	const n, t, points = 20, 64, 1 << 22
	for _, prg := range []gofss.PrgKind{gofss.PrgChaCha, gofss.PrgAesMmo} {
		for _, kind := range []gofss.Kind{gofss.KindDmpf, gofss.KindVdmpf} {
			p := gofss.DefaultParams(kind, n, gofss.Uint32, prg).WithMaxPoints(t)
			if kind == gofss.KindVdmpf {
				p.Hash = gofss.DefaultVdpfHash(gofss.HashBlake3)
			}
			b.Run(benchName(p, fmt.Sprintf("bucket_bits%d/n%d/t%d/m%d", p.BucketBits, n, t, points)), func(b *testing.B) {
				cws, s0s := mpfBenchKey(b, p, t)
				xs := randomWords(b, points)
				for i := range xs {
					xs[i] &= 1<<n - 1
				}
				dst := deviceBuffer(b, points*4, nil)
				var bkts, pieces uintptr
				if kind == gofss.KindVdmpf {
					bkts, pieces = deviceBuffer(b, points*3, nil), deviceBuffer(b, points*48, nil)
				}
				scratch := deviceBuffer(b, ScratchBytes("mpf_eval", p, 1, points)/4, nil)
				dcws, ds0s, dxs := deviceBuffer(b, len(cws), cws), deviceBuffer(b, len(s0s), s0s), deviceBuffer(b, points, xs)
				timeLaunches(b, points, func() error {
					return MpfEval(gpu, 0, p, dst, bkts, pieces, 0, ds0s, 1, dcws, dxs, 1, points, scratch)
				})
			})
		}
	}
}

// mpfBenchKey makes a key of t random points and party 0's seeds, as words.
func mpfBenchKey(b testing.TB, p gofss.Params, t int) ([]uint32, []uint32) {
	d, err := gofss.NewMpf(p)
	require.NoError(b, err)
	words := randomWords(b, 8*p.Buckets()+4+3*t)
	seeds := vectortest.Blocks(words[:8*p.Buckets()])
	alphas, betas := make([]gofss.Uint128, t), make([]gofss.Block, t)
	for i := range alphas {
		alphas[i] = gofss.Uint128{Lo: uint64(i) << (p.InBits - 8)} // distinct
		betas[i] = gofss.Block{Lo: uint64(words[8*p.Buckets()+4+i])}
	}
	cws := make([]gofss.Cw, p.CwRows())
	_, err = d.Gen(cws, seeds, vectortest.Blocks(words[8*p.Buckets():][:4])[0], alphas, betas)
	require.NoError(b, err)
	var cwWords, s0Words []uint32
	for _, cw := range cws {
		lo, hi := vectortest.BlockWords(cw[0]), vectortest.BlockWords(cw[1])
		cwWords = append(append(cwWords, lo[:]...), hi[:]...)
	}
	for i := 0; i < len(seeds); i += 2 {
		w := vectortest.BlockWords(seeds[i])
		s0Words = append(s0Words, w[:]...)
	}
	return cwWords, s0Words
}
