package gofss

import (
	"encoding/binary"
	"slices"
	"testing"
)

// The fuzz targets feed arbitrary correction-word bytes, inputs and parameters to
// the public calls: whatever they get, they must return (an error or a result) and
// never panic.

func fuzzScheme(t *testing.T, inBits, group uint8, kind uint8, useAes bool) (scheme, int) {
	n := 1 + int(inBits)%MaxInBits
	prg := PrgChaCha
	if useAes {
		prg = PrgAesMmo
	}
	kinds := []Kind{KindDpf, KindDcfLt, KindDcfGt, KindHalfTreeDpf}
	s, err := New(DefaultParams(kinds[kind%4], n, Group(group%4), prg))
	if err != nil {
		t.Fatal(err)
	}
	return s, n
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
		cws := make([]Cw, s.Params().CwRows())
		alpha := Uint128{aLo, aHi}
		if err := s.Gen(cws, seeds[:], []Uint128{alpha}, []Block{b}); err != nil {
			if alpha.FitsIn(n) && seeds[0].Clamp() != seeds[1].Clamp() {
				t.Fatalf("Gen refused a valid key: %v", err)
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

// FuzzHalfTreeReference feeds arbitrary reference-layout keys to the conversion: it
// refuses them or converts them, and then back without loss.
func FuzzHalfTreeReference(f *testing.F) {
	f.Add([]byte{}, uint8(7), uint8(1), []byte{5})
	f.Fuzz(func(t *testing.T, raw []byte, inBits, group uint8, ocwBytes []byte) {
		s, n := fuzzScheme(t, inBits, group, 3, false)
		h := s.(*HalfTreeDpf)
		rows, ocw := cwsFromBytes(raw), blockFrom(ocwBytes)
		key := make([]Cw, h.Params().CwRows())
		if h.FromReferenceKey(key, rows, ocw) != nil {
			return
		}
		back := make([]Cw, n)
		got, err := h.ReferenceKey(back, key)
		if err != nil || got != ocw || !slices.Equal(back, rows) {
			t.Fatalf("a key from the reference layout did not convert back: %v", err)
		}
	})
}

// fuzzGrotto is the Grotto DCF of in_bits 1 + inBits%12 (a preprocessed key of at
// most 64 words).
func fuzzGrotto(t *testing.T, inBits uint8, useAes bool) *GrottoDcf {
	prg := PrgChaCha
	if useAes {
		prg = PrgAesMmo
	}
	g, err := NewGrottoDcf(DefaultParams(KindGrottoDcf, 1+int(inBits)%12, Bytes, prg))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// wordsFromBytes decodes as many whole 64-bit words as raw holds.
func wordsFromBytes(raw []byte) []uint64 {
	w := make([]uint64, len(raw)/8)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	return w
}

func FuzzGrottoPreprocess(f *testing.F) {
	f.Add([]byte{}, uint8(7), false, 0, []byte{1})
	f.Fuzz(func(t *testing.T, raw []byte, inBits uint8, useAes bool, party int, seed []byte) {
		g := fuzzGrotto(t, inBits, useAes)
		pre := make([]uint64, g.ParityWords())
		_ = g.Preprocess(pre, party, []Block{blockFrom(seed)}, cwsFromBytes(raw))
	})
}

func FuzzGrottoEval(f *testing.F) {
	f.Add([]byte{}, uint8(7), uint64(3), uint64(0), uint64(9), uint64(0))
	f.Fuzz(func(t *testing.T, raw []byte, inBits uint8, lo, loHi, hi, hiHi uint64) {
		g := fuzzGrotto(t, inBits, false)
		pre, out := wordsFromBytes(raw), make([]uint8, 1)
		_ = g.Eval(out, pre, []Uint128{{lo, loHi}})
		_ = g.EvalInterval(out, pre, []Uint128{{lo, loHi}}, []Uint128{{hi, hiHi}})
	})
}
