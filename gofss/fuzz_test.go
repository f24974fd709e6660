package gofss

import (
	"testing"
)

// The fuzz targets feed arbitrary correction-word bytes, inputs and parameters to
// the public calls: whatever they get, they must return (an error or a result) and
// never panic.

func fuzzScheme(t *testing.T, inBits, group uint8, kind uint8, useAes bool) (scheme, int) {
	n := 1 + int(inBits)%MaxInBits
	g := Group(group % 4)
	mul := 2
	if kind%3 != 0 {
		mul = 4
	}
	var prg Prg
	var err error
	if useAes {
		prg, err = NewAesMmo(DefaultAesKeys[:mul])
	} else {
		prg, err = NewChaCha(mul, DefaultNonce)
	}
	if err != nil {
		t.Fatal(err)
	}
	if mul == 2 {
		d, err := NewDpf(n, g, prg)
		if err != nil {
			t.Fatal(err)
		}
		return d, n
	}
	d, err := NewDcf(n, g, prg, Pred(kind%3-1))
	if err != nil {
		t.Fatal(err)
	}
	return d, n
}

// cwsFromBytes decodes as many whole correction words as raw holds.
func cwsFromBytes(raw []byte) []Cw {
	cws := make([]Cw, len(raw)/32)
	for i := range cws {
		cws[i] = Cw{blockFrom(raw[32*i:]), blockFrom(raw[32*i+16:])}
	}
	return cws
}

// blockFrom reads a block from the first 16 bytes of b, zero-padded if shorter.
func blockFrom(b []byte) Block {
	var a [16]byte
	copy(a[:], b)
	return BlockFromBytes(a)
}

func FuzzEval(f *testing.F) {
	f.Add([]byte{}, uint8(7), uint8(1), uint8(0), false, 0, uint64(3), uint64(0), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, raw []byte, inBits, group, kind uint8, useAes bool, party int, xLo, xHi uint64, seed []byte) {
		s, _ := fuzzScheme(t, inBits, group, kind, useAes)
		s0 := blockFrom(seed)
		cws := cwsFromBytes(raw)
		out := make([]Block, 1)
		_ = s.Eval(out, party, []Block{s0}, cws, []Uint128{{xLo, xHi}})
	})
}

func FuzzEvalAll(f *testing.F) {
	f.Add([]byte{}, uint8(3), uint8(2), uint8(1), true, 1, []byte{9})
	f.Fuzz(func(t *testing.T, raw []byte, inBits, group, kind uint8, useAes bool, party int, seed []byte) {
		s, n := fuzzScheme(t, inBits%10, group, kind, useAes)
		s0 := blockFrom(seed)
		cws := cwsFromBytes(raw)
		out := make([]Block, 1<<n)
		_ = s.EvalAll(out, party, []Block{s0}, cws)
	})
}

func FuzzGen(f *testing.F) {
	f.Add(uint8(20), uint8(3), uint8(2), false, uint64(1), uint64(0), []byte{1}, []byte{2}, []byte{3})
	f.Fuzz(func(t *testing.T, inBits, group, kind uint8, useAes bool, aLo, aHi uint64, s0, s1, beta []byte) {
		s, n := fuzzScheme(t, inBits, group, kind, useAes)
		seeds := [2]Block{blockFrom(s0), blockFrom(s1)}
		b := blockFrom(beta)
		cws := make([]Cw, n+1)
		alpha := Uint128{aLo, aHi}
		if err := s.Gen(cws, seeds[:], []Uint128{alpha}, []Block{b}); err != nil {
			if alpha.FitsIn(n) {
				t.Fatalf("Gen refused a valid alpha: %v", err)
			}
			return
		}
		// Keys that Gen made must evaluate without error.
		out := make([]Block, 1)
		if err := s.Eval(out, 0, seeds[:1], cws, []Uint128{alpha}); err != nil {
			t.Fatalf("Eval refused Gen's key: %v", err)
		}
	})
}
