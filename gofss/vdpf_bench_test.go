package gofss

import (
	"math/rand/v2"
	"testing"
)

// VDPF at in_bits 20 with aes128_mmo on the fastest PRG backend and the default
// (fastest) walks, for both hashes, next to DPF's same call on its default walks in
// the same run (the baseline of the ratio): Eval with the proof pieces of 2^14 keys
// at one point each (ns per point), Prove over those pieces (ns per piece), and
// EvalAll with the proof of one key (ns per output); the vdpf-portable rows are VDPF
// on the portable walks. Run pinned to one core:
// taskset -c 1 go test -run '^$' -bench Vdpf -cpu 1.

func benchVdpfKeys(b *testing.B, kind Kind, hash HashKind, keys int, opts ...Option) (Scheme, []Block, []Cw, []Uint128) {
	p := DefaultParams(kind, benchBits, Uint64, PrgAesMmo)
	if kind == KindVdpf {
		p.Hash = DefaultVdpfHash(hash)
	}
	s, err := New(p, opts...)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	seeds, betas := randBlocks(r, 2*keys), randBlocks(r, keys)
	alphas, xs := make([]Uint128, keys), make([]Uint128, keys)
	for k := range alphas {
		alphas[k], xs[k] = Uint128{Lo: r.Uint64() & (1<<benchBits - 1)}, Uint128{Lo: r.Uint64() & (1<<benchBits - 1)}
	}
	cws := make([]Cw, keys*p.CwRows())
	if err := s.Gen(cws, seeds, alphas, betas); err != nil {
		b.Fatal(err)
	}
	s0s := make([]Block, keys)
	for k := range s0s {
		s0s[k] = seeds[2*k]
	}
	return s, s0s, cws, xs
}

func BenchmarkVdpfEval(b *testing.B) {
	const keys = 1 << 14
	b.Run("dpf", func(b *testing.B) {
		s, s0s, cws, xs := benchVdpfKeys(b, KindDpf, 0, keys)
		dst := make([]Block, keys)
		perItem(b, keys, "point", func() {
			if err := s.Eval(dst, 0, s0s, cws, xs); err != nil {
				b.Fatal(err)
			}
		})
	})
	for _, h := range []HashKind{HashSha256, HashBlake3} {
		s, s0s, cws, xs := benchVdpfKeys(b, KindVdpf, h, keys)
		v := s.(*Vdpf)
		dst, pieces := make([]Block, keys), make([]Block, ProofBlocks*keys)
		b.Run("vdpf/"+h.String(), func(b *testing.B) {
			perItem(b, keys, "point", func() {
				if err := v.EvalProof(dst, pieces, 0, s0s, cws, xs); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("vdpf-portable/"+h.String(), func(b *testing.B) {
			s, s0s, cws, xs := benchVdpfKeys(b, KindVdpf, h, keys, WithImpl(PortableImpl))
			perItem(b, keys, "point", func() {
				if err := s.(*Vdpf).EvalProof(dst, pieces, 0, s0s, cws, xs); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("prove/"+h.String(), func(b *testing.B) {
			pis := make([]Block, ProofBlocks*keys)
			perItem(b, keys, "piece", func() {
				if err := v.Prove(pis, pieces, cws); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkVdpfEvalAll(b *testing.B) {
	const n = 1 << benchBits
	b.Run("dpf", func(b *testing.B) {
		s, s0s, cws, _ := benchVdpfKeys(b, KindDpf, 0, 1)
		dst := make([]Block, n)
		perItem(b, n, "output", func() {
			if err := s.EvalAll(dst, 0, s0s, cws); err != nil {
				b.Fatal(err)
			}
		})
	})
	for _, h := range []HashKind{HashSha256, HashBlake3} {
		// vdpf-keys8: a batch of eight keys, whose proof chains step side by side
		// where the hash has lanes (ns per output of one key).
		for _, row := range []struct {
			name string
			keys int
			opts []Option
		}{{"vdpf", 1, nil}, {"vdpf-keys8", 8, nil}, {"vdpf-portable", 1, []Option{WithImpl(PortableImpl)}}} {
			b.Run(row.name+"/"+h.String(), func(b *testing.B) {
				s, s0s, cws, _ := benchVdpfKeys(b, KindVdpf, h, row.keys, row.opts...)
				v := s.(*Vdpf)
				dst, pis := make([]Block, row.keys*n), make([]Block, ProofBlocks*row.keys)
				perItem(b, row.keys*n, "output", func() {
					if err := v.EvalAllProof(dst, pis, 0, s0s, cws); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// BenchmarkVdpfChain is Prove of one key over 2^16 pieces: one H' per piece, each
// waiting on the one before, so ns per piece is the latency bound of EvalAllProof's
// proof chain (one output, one H').
// The keys8 rows are Prove of eight keys over 2^13 pieces each, whose chains step
// side by side.
func BenchmarkVdpfChain(b *testing.B) {
	const pieces = 1 << 16
	for _, h := range []HashKind{HashSha256, HashBlake3} {
		for _, keys := range []int{1, 8} {
			name := h.String()
			if keys > 1 {
				name = "keys8/" + name
			}
			b.Run(name, func(b *testing.B) {
				s, _, cws, _ := benchVdpfKeys(b, KindVdpf, h, keys)
				v := s.(*Vdpf)
				ps, pi := randBlocks(rand.New(rand.NewPCG(7, 8)), ProofBlocks*pieces), make([]Block, ProofBlocks*keys)
				perItem(b, pieces, "piece", func() {
					if err := v.Prove(pi, ps, cws); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
