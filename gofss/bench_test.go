package gofss

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pyfss/pyfss/gofss/internal/pathtest"
)

// Benchmarks at in_bits 20, per PRG backend (fast paths and the portable one in the
// same run; the scheme is made anew under each, so its tree walks follow the PRG's
// backend as they do in a process that runs on it), for DPF, DCF and Half-Tree
// DPF, groups bytes and uint64. Metrics are per key (Gen, Eval: 2^16 keys, one point
// each; Gen also reports a key's bytes, its seed and correction words) or per output
// (EvalAll: one key). Run with -cpu 1 for one core, -cpu 1,2 to compare one core
// with two.

const benchBits = 20

// benchBackends runs fn once per implementation of the named PRG.
func benchBackends(b *testing.B, prg string, fn func(b *testing.B)) {
	names, set := prgPaths(prg)
	pathtest.EachB(b, names, set, fn)
}

type benchScheme struct {
	name string
	s    scheme
	prg  string
}

// onBackends runs fn once per backend of the scheme's PRG, with the scheme made anew
// under it: a scheme chooses its walks for the backend in use when it is made, and
// they would run on (ChaCha's: panic under) a backend selected after that.
func (bs benchScheme) onBackends(b *testing.B, fn func(b *testing.B, s Scheme)) {
	benchBackends(b, bs.prg, func(b *testing.B) {
		s, err := New(bs.s.Params())
		if err != nil {
			b.Fatal(err)
		}
		fn(b, s)
	})
}

func benchSchemes(b *testing.B) []benchScheme {
	var out []benchScheme
	for _, g := range []Group{Bytes, Uint64} {
		for _, kind := range []Kind{KindDpf, KindDcfLt, KindHalfTreeDpf} {
			for _, prg := range testPrgs(b, kind.Mul()) {
				var s scheme
				var err error
				switch kind {
				case KindDpf:
					s, err = NewDpf(benchBits, g, prg)
				case KindDcfLt:
					s, err = NewDcf(benchBits, g, prg, Lt)
				default:
					s, err = NewHalfTreeDpf(benchBits, g, prg, DefaultHashKey)
				}
				if err != nil {
					b.Fatal(err)
				}
				name := strings.TrimSuffix(kind.String(), "_lt") // dcf
				out = append(out, benchScheme{fmt.Sprintf("%s/%s/%s", name, prg.Name(), g), s, prg.Name()})
			}
		}
	}
	return out
}

// benchKeys makes k keys of s; returns party 0's seeds and all correction words.
func benchKeys(b *testing.B, s scheme, k int) ([]Block, []Block, []Uint128, []Block, []Cw) {
	r := rand.New(rand.NewPCG(9, 10))
	seeds, alphas, betas := make([]Block, 2*k), make([]Uint128, k), make([]Block, k)
	for i := range k {
		seeds[2*i], seeds[2*i+1], alphas[i], betas[i] = randBlock(r), randBlock(r), randInput(r, benchBits), randBlock(r)
	}
	cws := make([]Cw, k*s.Params().CwRows())
	if err := s.Gen(cws, seeds, alphas, betas); err != nil {
		b.Fatal(err)
	}
	p0 := make([]Block, k)
	for i := range k {
		p0[i] = seeds[2*i]
	}
	return seeds, p0, alphas, betas, cws
}

// perItem times the benchmark's loop, fn, and reports its wall time and its CPU
// time (where known) per item, items per iteration, as "ns/<unit>" and
// "cpu-ns/<unit>".
func perItem(b *testing.B, items int, unit string, fn func()) {
	cpu0 := processCPUNs()
	for b.Loop() {
		fn()
	}
	n := float64(b.N * items)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/"+unit)
	if cpu := processCPUNs() - cpu0; cpu0 != 0 {
		b.ReportMetric(float64(cpu)/n, "cpu-ns/"+unit)
	}
}

// benchKeysN is the batch of Gen and Eval.
const benchKeysN = 1 << 16

func BenchmarkGen(b *testing.B) {
	const k = benchKeysN
	for _, bs := range benchSchemes(b) {
		b.Run(fmt.Sprintf("keys=%d/%s", k, bs.name), func(b *testing.B) {
			seeds, _, alphas, betas, cws := benchKeys(b, bs.s, k)
			bs.onBackends(b, func(b *testing.B, s Scheme) {
				perItem(b, k, "key", func() {
					if err := s.Gen(cws, seeds, alphas, betas); err != nil {
						b.Fatal(err)
					}
				})
				b.ReportMetric(float64(16+32*bs.s.Params().CwRows()), "key-bytes")
			})
		})
	}
}

func BenchmarkEval(b *testing.B) {
	for _, k := range []int{1, benchKeysN} {
		for _, bs := range benchSchemes(b) {
			b.Run(fmt.Sprintf("keys=%d/%s", k, bs.name), func(b *testing.B) {
				_, p0, alphas, _, cws := benchKeys(b, bs.s, k)
				out := make([]Block, k)
				bs.onBackends(b, func(b *testing.B, s Scheme) {
					perItem(b, k, "key", func() {
						if err := s.Eval(out, 0, p0, cws, alphas); err != nil {
							b.Fatal(err)
						}
					})
				})
			})
		}
	}
}

// BenchmarkImpls runs, under each PRG backend, every walk implementation that serves
// the scheme there (impl=<name>, as WithImpl forces it), on batched Gen and Eval
// (2^16 keys, ns/key) and EvalAll (one key, ns/output), so that one run compares
// them: the other benchmarks run the implementation a scheme gets by default.
func BenchmarkImpls(b *testing.B) {
	for _, bs := range benchSchemes(b) {
		b.Run(bs.name, func(b *testing.B) {
			seeds, p0, alphas, betas, cws := benchKeys(b, bs.s, benchKeysN)
			out := make([]Block, max(benchKeysN, 1<<benchBits))
			for i := range out { // fault its pages in before the first timing
				out[i] = Block{Lo: 1}
			}
			benchBackends(b, bs.prg, func(b *testing.B) {
				for _, im := range Impls() {
					s, err := New(bs.s.Params(), WithImpl(im))
					if err != nil {
						continue // not served under this backend on this CPU
					}
					b.Run("gen/impl="+im, func(b *testing.B) {
						perItem(b, benchKeysN, "key", func() {
							if err := s.Gen(cws, seeds, alphas, betas); err != nil {
								b.Fatal(err)
							}
						})
					})
					b.Run("eval/impl="+im, func(b *testing.B) {
						perItem(b, benchKeysN, "key", func() {
							if err := s.Eval(out[:benchKeysN], 0, p0, cws, alphas); err != nil {
								b.Fatal(err)
							}
						})
					})
					b.Run("eval_all/impl="+im, func(b *testing.B) {
						perItem(b, 1<<benchBits, "output", func() {
							if err := s.EvalAll(out[:1<<benchBits], 0, p0[:1], cws[:s.Params().CwRows()]); err != nil {
								b.Fatal(err)
							}
						})
					})
				}
			})
		})
	}
}

func BenchmarkEvalAll(b *testing.B) {
	for _, bs := range benchSchemes(b) {
		b.Run(bs.name, func(b *testing.B) {
			_, p0, _, _, cws := benchKeys(b, bs.s, 1)
			out := make([]Block, 1<<benchBits)
			bs.onBackends(b, func(b *testing.B, s Scheme) {
				b.SetBytes(int64(len(out) * 16))
				perItem(b, len(out), "output", func() {
					if err := s.EvalAll(out, 0, p0, cws); err != nil {
						b.Fatal(err)
					}
				})
			})
		})
	}
}

// Grotto DCF at in_bits 20, per PRG backend: Preprocess of one key (ns per domain
// point) and Eval of 2^16 random points against it (ns per point).

func benchGrotto(b *testing.B, prg PrgKind) (*GrottoDcf, []Block, []Cw) {
	g, err := NewGrottoDcf(DefaultParams(KindGrottoDcf, benchBits, Bytes, prg))
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	seeds := []Block{randBlock(r), randBlock(r)}
	cws := make([]Cw, benchBits+1)
	if err := g.Gen(cws, seeds, []Uint128{randInput(r, benchBits)}); err != nil {
		b.Fatal(err)
	}
	return g, seeds[:1], cws
}

func BenchmarkGrottoPreprocess(b *testing.B) {
	for _, prg := range []PrgKind{PrgChaCha, PrgAesMmo} {
		b.Run(prg.String(), func(b *testing.B) {
			g, s0, cws := benchGrotto(b, prg)
			pre := make([]uint64, g.ParityWords())
			benchBackends(b, prg.String(), func(b *testing.B) {
				perItem(b, 1<<benchBits, "point", func() {
					if err := g.Preprocess(pre, 0, s0, cws); err != nil {
						b.Fatal(err)
					}
				})
			})
		})
	}
}

func BenchmarkGrottoEval(b *testing.B) {
	g, s0, cws := benchGrotto(b, PrgAesMmo)
	pre := make([]uint64, g.ParityWords())
	if err := g.Preprocess(pre, 0, s0, cws); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(13, 14))
	xs, his := make([]Uint128, benchKeysN), make([]Uint128, benchKeysN)
	for i := range xs {
		xs[i], his[i] = randInput(r, benchBits), Uint128{Lo: 1<<benchBits - 1}
	}
	out := make([]uint8, len(xs))
	b.Run("points", func(b *testing.B) {
		perItem(b, len(xs), "point", func() {
			if err := g.Eval(out, pre, xs); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("intervals", func(b *testing.B) {
		perItem(b, len(xs), "interval", func() {
			if err := g.EvalInterval(out, pre, xs, his); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkOneKey times one key per call (DPF and DCF, aes128_mmo, uint64, in_bits
// 20), as fss_crypto's API calls: Gen of one key and Eval of one key at one point,
// per implementation that serves it, beside the batched walks' cost per key
// (keys=65536), on the implementation chosen by default.
func BenchmarkOneKey(b *testing.B) {
	for _, kind := range []Kind{KindDpf, KindDcfLt} {
		p := DefaultParams(kind, benchBits, Uint64, PrgAesMmo)
		name := strings.TrimSuffix(kind.String(), "_lt")
		for _, im := range Impls() {
			s, err := New(p, WithImpl(im))
			if err != nil {
				continue // not served on this CPU
			}
			bs := s.(scheme)
			seeds, p0, alphas, betas, cws := benchKeys(b, bs, 1)
			out := make([]Block, 1)
			b.Run(fmt.Sprintf("%s/gen/%s", name, im), func(b *testing.B) {
				perItem(b, 1, "key", func() {
					if err := s.Gen(cws, seeds, alphas, betas); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run(fmt.Sprintf("%s/eval/%s", name, im), func(b *testing.B) {
				perItem(b, 1, "key", func() {
					if err := s.Eval(out, 0, p0, cws, alphas); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
