package gofss

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks of the multi-point schemes against their single-point baselines in the
// same run (docs/spec.md section 16.5 has the targets): BatchEval of 2^16 inputs
// against a key of 1024 points at in_bits 32 (per input, against one DPF / VDPF key
// evaluated at the same 2^16 inputs: VDPF's eval with its proof), EvalAll at
// in_bits 20 (per output), and Gen of 1024 points (against 1024 DPF / VDPF keys at
// in_bits 32). Run on one core: taskset -c 1 go test -cpu 1 -bench Mpf.

const (
	benchMpfPoints = 1024
	benchMpfInputs = 1 << 16
)

// benchMpfKey makes a key of benchMpfPoints points for params p.
func benchMpfKey(b *testing.B, p Params) (*Mpf, []Cw, []Block, []Uint128, []Block) {
	rng := rand.New(rand.NewPCG(1, 2))
	d, cws, s0s, alphas, betas := genRandomMpf(b, rng, p, benchMpfPoints)
	seeds := make([]Block, p.Buckets())
	for i := range seeds {
		seeds[i] = s0s[2*i]
	}
	return d, cws, seeds, alphas, betas
}

// benchSingle is the single-point baseline of a multi-point kind: Dpf or Vdpf.
func benchSingle(b *testing.B, kind Kind, inBits int) Scheme {
	single := KindDpf
	if kind == KindVdmpf {
		single = KindVdpf
	}
	s, err := New(DefaultParams(single, inBits, Uint64, PrgAesMmo))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// evalSingle evaluates one key of s at xs, with the proof for a Vdpf.
func evalSingle(b *testing.B, s Scheme, dst []Block, s0s []Block, cws []Cw, xs []Uint128) {
	var err error
	if v, ok := s.(*Vdpf); ok {
		pieces := make([]Block, ProofBlocks*len(xs))
		if err = v.EvalProof(dst, pieces, 0, s0s[:1], cws, xs); err == nil {
			err = v.Prove(make([]Block, ProofBlocks), pieces, cws)
		}
	} else {
		err = s.Eval(dst, 0, s0s[:1], cws, xs)
	}
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkMpfEval(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]Uint128, benchMpfInputs)
	for i := range xs {
		xs[i] = Uint128{Lo: rng.Uint64() >> 32}
	}
	dst := make([]Block, len(xs))
	for _, kind := range []Kind{KindDmpf, KindVdmpf} {
		single := benchSingle(b, kind, 32)
		s0s := []Block{{Lo: 1}, {Lo: 2}}
		cws := make([]Cw, single.Params().CwRows())
		if err := single.Gen(cws, s0s, xs[:1], []Block{{Lo: 5}}); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/baseline", single.Params().Kind), func(b *testing.B) {
			perItem(b, len(xs), "input", func() {
				evalSingle(b, single, dst, s0s, cws, xs)
			})
		})
		d, key, seeds, _, _ := benchMpfKey(b, DefaultParams(kind, 32, Uint64, PrgAesMmo).WithMaxPoints(benchMpfPoints))
		b.Run(kind.String(), func(b *testing.B) {
			var pi [ProofBlocks]Block
			perItem(b, len(xs), "input", func() {
				var err error
				if kind == KindVdmpf {
					err = d.EvalProof(dst, &pi, 0, seeds, key, xs)
				} else {
					err = d.Eval(dst, 0, seeds, key, xs)
				}
				if err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkMpfEvalAll(b *testing.B) {
	const n = 20
	dst := make([]Block, 1<<n)
	single := benchSingle(b, KindDmpf, n)
	s0s := []Block{{Lo: 1}, {Lo: 2}}
	cws := make([]Cw, single.Params().CwRows())
	if err := single.Gen(cws, s0s, []Uint128{{Lo: 77}}, []Block{{Lo: 5}}); err != nil {
		b.Fatal(err)
	}
	b.Run("dpf/baseline", func(b *testing.B) {
		perItem(b, len(dst), "output", func() {
			if err := single.EvalAll(dst, 0, s0s[:1], cws); err != nil {
				b.Fatal(err)
			}
		})
	})
	d, key, seeds, _, _ := benchMpfKey(b, DefaultParams(KindDmpf, n, Uint64, PrgAesMmo).WithMaxPoints(benchMpfPoints))
	b.Run("dmpf", func(b *testing.B) {
		perItem(b, len(dst), "output", func() {
			if err := d.EvalAll(dst, 0, seeds, key); err != nil {
				b.Fatal(err)
			}
		})
	})
	benchEvalAllParts(b, d, dst, seeds, key)
	// vdmpf's EvalAllProof with each hash: the buckets walked whole (the default)
	// against BatchEval over the domain (vdmpf-batcheval, the form for buckets over
	// maxProofScratchBytes), in the same run.
	for _, h := range []HashKind{HashSha256, HashBlake3} {
		p := DefaultParams(KindVdmpf, n, Uint64, PrgAesMmo).WithMaxPoints(benchMpfPoints)
		p.Hash = DefaultVdpfHash(h)
		v, vkey, vseeds, _, _ := benchMpfKey(b, p)
		for _, row := range []struct {
			name  string
			bound int
		}{{"vdmpf", maxProofScratchBytes}, {"vdmpf-batcheval", 0}} {
			b.Run(row.name+"/"+h.String(), func(b *testing.B) {
				defer func(was int) { maxProofScratchBytes = was }(maxProofScratchBytes)
				maxProofScratchBytes = row.bound
				var pi [ProofBlocks]Block
				perItem(b, len(dst), "output", func() {
					if err := v.EvalAllProof(dst, &pi, 0, vseeds, vkey); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// benchEvalAllParts times the three parts of dmpf's EvalAll alone, per output, for
// the cost bound of docs/spec.md section 16.5: the buckets' walks, the PRP
// inverses of every bucket's indices, and the queued adds of the shares (zeros) to
// those inputs.
func benchEvalAllParts(b *testing.B, d *Mpf, dst, seeds []Block, key []Cw) {
	sigma, mRt, err := d.header(key)
	if err != nil {
		b.Fatal(err)
	}
	n, rows := d.params.InBits, d.bucketRows()
	p := planEvalAll(sigma, n, mRt)
	leaves := make([]Block, p.group*int(p.walked))
	b.Run("dmpf/walks", func(b *testing.B) {
		perItem(b, len(dst), "output", func() {
			for b0 := 0; b0 < p.used; b0 += p.group {
				b1 := min(p.used, b0+p.group)
				if err := d.inner.evalRuns(leaves[:(b1-b0)*int(p.walked)], 0, seeds[b0:b1], key[1+b0*rows:1+b1*rows], 0, p.walked); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	inputs := make([][]uint64, p.used)
	var walking []int32
	b.Run("dmpf/inverses", func(b *testing.B) {
		xs := make([]uint64, p.size)
		perItem(b, len(dst), "output", func() {
			for bkt := range p.used {
				inputs[bkt], walking = p.invertBucket(xs, bkt, walking)
			}
		})
	})
	for bkt := range inputs {
		inputs[bkt], walking = p.invertBucket(make([]uint64, p.size), bkt, walking)
	}
	clear(leaves)
	b.Run("dmpf/adds", func(b *testing.B) {
		perItem(b, len(dst), "output", func() {
			adds := newRegionAdds(n, p.domain, d.params.Group, dst, 1)
			s := adds.take()
			for _, xs := range inputs {
				adds.add(s, xs, leaves, 1<<n-1)
			}
			adds.give(s)
			adds.flush()
			adds.release()
		})
	})
}

func BenchmarkMpfGen(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kind := range []Kind{KindDmpf, KindVdmpf} {
		single := benchSingle(b, kind, 32)
		d, _, _, alphas, betas := benchMpfKey(b, DefaultParams(kind, 32, Uint64, PrgAesMmo).WithMaxPoints(benchMpfPoints))
		s0s := make([]Block, 2*max(benchMpfPoints, d.Params().Buckets()))
		for i := range s0s {
			s0s[i] = Block{rng.Uint64(), rng.Uint64()}
		}
		cws := make([]Cw, benchMpfPoints*single.Params().CwRows())
		b.Run(fmt.Sprintf("%s/baseline", single.Params().Kind), func(b *testing.B) {
			perItem(b, benchMpfPoints, "point", func() {
				if err := single.Gen(cws, s0s[:2*benchMpfPoints], alphas, betas); err != nil {
					b.Fatal(err)
				}
			})
		})
		key := make([]Cw, d.Params().CwRows())
		b.Run(kind.String(), func(b *testing.B) {
			perItem(b, benchMpfPoints, "point", func() {
				if _, err := d.Gen(key, s0s[:2*d.Params().Buckets()], Block{Lo: 9}, alphas, betas); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
