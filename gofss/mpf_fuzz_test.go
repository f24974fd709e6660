package gofss

import (
	"math/rand/v2"
	"testing"
)

// fuzzMpf is a small multi-point scheme (dmpf or vdmpf, in_bits 1..12) with one key
// of 3 points: the scheme, the key and party 0's seeds.
func fuzzMpf(t *testing.T, inBits uint8, verifiable bool) (*Mpf, []Cw, []Block) {
	kind := KindDmpf
	if verifiable {
		kind = KindVdmpf
	}
	n := 2 + int(inBits)%11
	p := DefaultParams(kind, n, Uint32, PrgChaCha).WithMaxPoints(4)
	d, cws, s0s, _, _ := genRandomMpf(t, rand.New(rand.NewPCG(uint64(n), 1)), p, 3)
	seeds := make([]Block, p.Buckets())
	for i := range seeds {
		seeds[i] = s0s[2*i]
	}
	return d, cws, seeds
}

// FuzzMpfEval feeds keys with arbitrary changes (XORed bytes from an offset, a
// length off by some rows) and arbitrary inputs to Eval, EvalProof and EvalAll: they
// must return an error or a result, never panic.
func FuzzMpfEval(f *testing.F) {
	f.Add(uint8(6), true, 0, []byte{1, 2, 3}, 0, uint64(3), 0)
	f.Add(uint8(9), false, 40, []byte{0, 0, 0, 0, 9}, -1, uint64(1<<40), 1)
	f.Fuzz(func(t *testing.T, inBits uint8, verifiable bool, offset int, change []byte, rows int, x uint64, party int) {
		d, cws, seeds := fuzzMpf(t, inBits, verifiable)
		key := cwBytes(cws)
		if offset >= 0 && offset < len(key) {
			for i, b := range change[:min(len(change), len(key)-offset)] {
				key[offset+i] ^= b
			}
		}
		bad := cwsFromBytes(key)
		if rows = rows % 4; rows < 0 {
			bad = bad[:len(bad)+rows]
		} else {
			bad = append(bad, make([]Cw, rows)...)
		}
		out := make([]Block, 2)
		xs := []Uint128{{Lo: x}, {Lo: x >> 3}}
		var pi [ProofBlocks]Block
		_ = d.Eval(out, party, seeds, bad, xs)
		_ = d.EvalProof(out, &pi, party, seeds, bad, xs)
		all := make([]Block, 1<<d.Params().InBits)
		_ = d.EvalAll(all, party, seeds, bad)
		_ = d.EvalAllProof(all, &pi, party, seeds, bad)
	})
}

// FuzzMpfGen makes keys for arbitrary points and values: Gen refuses them (out of
// range, repeated, too many) or makes a key whose shares add up to the values.
func FuzzMpfGen(f *testing.F) {
	f.Add(uint8(5), false, []byte{1, 2, 3})
	f.Add(uint8(1), true, []byte{0, 0})
	f.Fuzz(func(t *testing.T, inBits uint8, verifiable bool, points []byte) {
		d, _, _ := fuzzMpf(t, inBits, verifiable)
		p := d.Params()
		alphas, betas := make([]Uint128, len(points)), make([]Block, len(points))
		for i, a := range points {
			alphas[i], betas[i] = Uint128{Lo: uint64(a)}, Block{Lo: uint64(i + 1)}
		}
		s0s := make([]Block, 2*p.Buckets())
		for i := range s0s {
			s0s[i] = Block{Lo: uint64(i)}
		}
		cws := make([]Cw, p.CwRows())
		if _, err := d.Gen(cws, s0s, Block{Hi: 5}, alphas, betas); err != nil {
			return
		}
		got := reconstruct(t, d, cws, s0s, alphas)
		for i := range got {
			if got[i] != betas[i] {
				t.Fatalf("point %d: shares add up to %v, not %v", i, got[i], betas[i])
			}
		}
	})
}

// cwBytes is the memory image of correction words.
func cwBytes(cws []Cw) []byte {
	out := make([]byte, 0, 32*len(cws))
	for _, cw := range cws {
		a, b := cw[0].Bytes(), cw[1].Bytes()
		out = append(append(out, a[:]...), b[:]...)
	}
	return out
}
