//go:build amd64 && !purego

package gofss

import (
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
)

// The "aesni" implementation: DPF and DCF with aes128_mmo on a CPU with AES-NI,
// where the AVX-512 walks do not run. Gens and DCF Evals go a key (a point) at a
// time, each key's levels in one routine call (aes128.WalkKeys): a point's levels
// are a chain of one-seed PRG calls, so the batched walks, which expand a level of
// many seeds at once, spend most of a single point's time around the PRG. A Gen
// level runs 4 blocks (DCF: 8) and a DCF Eval level 2, enough in flight that the
// routine beats the portable walks at every batch size (per key at in_bits 20 and
// 2^16 keys: DPF Gen 363 ns against 482, DCF Gen 500 against 970, DCF Eval 338
// against 438); a DPF Eval point is one block a level, and from 8 points the
// portable level of 8 blocks wins (352 against 306), so longer DPF Evals take it.
const oneKeyMaxDpfPoints = 7

// oneKeyMaxKeys is the Gen batches that the one-key walks take in front of the
// fused walks (fusedeval_amd64.go), which are faster from there.
const oneKeyMaxKeys = 16

// oneKeyDpf and oneKeyDcf embed the scheme, whose own (portable) walks serve the
// longer batches and EvalAll, and for DCF uint127, whose values the routine's lane
// arithmetic does not add (lanes nil).
type oneKeyDpf struct {
	*Dpf
	keys *aes128.WalkKeys
}

type oneKeyDcf struct {
	*Dcf
	keys  *aes128.WalkKeys
	lanes *aes128.Lanes
}

func newOneKeyDcfWalks(d *Dcf, keys *aes128.WalkKeys) oneKeyDcf {
	w := oneKeyDcf{Dcf: d, keys: keys}
	if m, ok := d.params.Group.laneMasks(); ok {
		w.lanes = &aes128.Lanes{From: m.from.Bytes(), Xor: m.xor.Bytes(), Add: m.add.Bytes()}
	}
	return w
}

// oneKeyKeys returns the walk keys of prg, or nil where the one-key walks do not
// serve it: another PRG, no AES-NI, or the portable AES backend selected.
func oneKeyKeys(prg Prg) *aes128.WalkKeys {
	p, ok := prg.(*AesMmo)
	if !ok || !aes128.HasWalk() {
		return nil
	}
	return aes128.NewWalkKeys(p.keys)
}

func newOneKeyDpf(d *Dpf) walks {
	k := oneKeyKeys(d.prg)
	if k == nil {
		return nil
	}
	return &oneKeyDpf{d, k}
}

func newOneKeyDcf(d *Dcf) walks {
	k := oneKeyKeys(d.prg)
	if k == nil {
		return nil
	}
	w := newOneKeyDcfWalks(d, k)
	return &w
}

// oneKeyPath is a walk's path to x (n bits): x shifted left by 128-n.
func oneKeyPath(x Uint128, n int) aes128.Path {
	s := uint(128 - n)
	return aes128.Path{Lo: x.Lo << s, Hi: x.Hi<<s | x.Lo>>(64-s) | x.Lo<<(s-64)}
}

// seedImage and seedPairImage are seeds as the routines take them (which clear
// the control bits): copied as arrays, in 16-byte moves; a Block's Bytes is two
// 8-byte stores, which a routine's 16-byte load would wait on until they reach the
// cache (about 5 ns a call).
func seedImage(s *Block) [16]byte { return *(*[16]byte)(unsafe.Pointer(s)) }

func seedPairImage(s *[2]Block) [2][16]byte { return *(*[2][16]byte)(unsafe.Pointer(s)) }

// oneKeyServes tells whether a batch of items goes a key at a time: at most max,
// and the routine runs now (a test may have selected the portable AES backend since
// the walks were made, and then gets the portable walks).
func oneKeyServes(items, max int) bool { return items <= max && aes128.HasWalk() }

func (k *oneKeyDpf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if !oneKeyServes(len(xs), oneKeyMaxDpfPoints) {
		return k.Dpf.walkEval(st, dst, party, s0s, cws, xs, m)
	}
	// The level rows are checked by the walk, which ORs their words 4-7 into Sum.
	if err := k.checkLastRows(cws); err != nil {
		return err
	}
	n, rows, ar := k.params.InBits, k.params.cwRows(), k.params.Group.arith() // rows: n+1, or VDPF's n+3
	// The walk's fixed fields are set once (see oneKeyDcf.evalRange).
	w := aes128.EvalWalk{TrByte: dpfTrByte}
	for j, x := range xs {
		key := cws[j/m*rows:][:n+1]
		w.Rows, w.Path = blockBytes(cwBlocks(key[:n])), oneKeyPath(x, n)
		leaf, t := k.keys.Eval(&w, seedImage(&s0s[j/m]), uint8(party))
		if !isBit(BlockFromBytes(w.Sum)) {
			return k.checkCws(cws) // which names the row
		}
		dst[j] = dpfLeaf(ar, BlockFromBytes(leaf), t, ar.from(key[n][0]), party)
	}
	st.advance(len(xs))
	return nil
}

func (k *oneKeyDcf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if !aes128.HasWalk() || k.lanes == nil {
		return k.Dcf.walkEval(st, dst, party, s0s, cws, xs, m)
	}
	if err := k.checkCws(cws); err != nil {
		return err
	}
	if len(xs) <= oneKeyChunk { // without the closure forChunks takes, which would escape
		k.evalRange(dst, party, s0s, cws, xs, m, 0, len(xs))
		st.advance(len(xs))
		return nil
	}
	forChunks(len(xs), evalCostNs(k.params.InBits, 2), func(lo, hi int) {
		for i0, i1 := range oneKeyChunks(st, lo, hi) {
			k.evalRange(dst, party, s0s, cws, xs, m, i0, i1)
		}
	})
	return nil
}

// oneKeyChunk is the items (keys, points) that the one-key loops of a long batch
// run between checks for a stop; a batch of one chunk or less runs at once, in
// the caller's goroutine (without forChunks' closure, which would escape), longer
// ones spread over goroutines.
const oneKeyChunk = 64

// oneKeyChunks ranges over the bounds of [lo, hi)'s chunks while st is not stopped,
// counting each chunk's items done.
func oneKeyChunks(st callControl, lo, hi int) func(func(int, int) bool) {
	return func(yield func(int, int) bool) {
		for i0 := lo; i0 < hi && !st.stopped(); i0 += oneKeyChunk {
			i1 := min(hi, i0+oneKeyChunk)
			if !yield(i0, i1) {
				return
			}
			st.advance(i1 - i0)
		}
	}
}

// evalRange evaluates points lo .. hi-1.
func (k *oneKeyDcf) evalRange(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, lo, hi int) {
	n, ar := k.params.InBits, k.params.Group.arith()
	// The walk's fixed fields are set once: a literal per point is built on the
	// stack and then copied, which took 3% of a one-key Eval.
	w := aes128.EvalWalk{TrByte: dcfTrByte, Lanes: k.lanes}
	for j := lo; j < hi; j++ {
		key := cws[j/m*(n+1):][:n+1]
		w.Rows, w.Path = blockBytes(cwBlocks(key[:n])), oneKeyPath(xs[j], n)
		leaf, t := k.keys.Eval(&w, seedImage(&s0s[j/m]), uint8(party))
		dst[j] = dcfLeaf(ar, BlockFromBytes(leaf), t, BlockFromBytes(w.Sum), &key[n], party)
	}
}

func (k *oneKeyDpf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	k.genKeys(st, cws, s0s, alphas, betas, nil)
}

// genKeys is Dpf.genKeys a key at a time.
func (k *oneKeyDpf) genKeys(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block, tail keyTail) {
	if !aes128.HasWalk() {
		k.Dpf.genKeys(st, cws, s0s, alphas, betas, tail)
		return
	}
	if len(alphas) <= oneKeyChunk {
		k.genRange(cws, s0s, alphas, betas, 0, len(alphas), tail)
		st.advance(len(alphas))
		return
	}
	forChunks(len(alphas), genCostNs(k.params.InBits, 2), func(lo, hi int) {
		for i0, i1 := range oneKeyChunks(st, lo, hi) {
			k.genRange(cws, s0s, alphas, betas, i0, i1, tail)
		}
	})
}

// genRange makes keys lo .. hi-1.
func (k *oneKeyDpf) genRange(cws []Cw, s0s []Block, alphas []Uint128, betas []Block, lo, hi int, tail keyTail) {
	n, rows, ar := k.params.InBits, k.params.cwRows(), k.params.Group.arith()
	var w aes128.GenWalk // set once (see oneKeyDcf.evalRange)
	for i := lo; i < hi; i++ {
		key := cws[i*rows:][:rows]
		w.Rows, w.Path = blockBytes(cwBlocks(key[:n])), oneKeyPath(alphas[i], n)
		seeds := seedPairImage((*[2]Block)(s0s[2*i:]))
		t1 := k.keys.Gen(&w, &seeds)
		s0, s1 := BlockFromBytes(seeds[0]), BlockFromBytes(seeds[1])
		key[n] = Cw{dpfLastCw(ar, betas[i], s0, s1, t1)}
		if tail != nil {
			// Declared here: the slice given to the interface's method goes to the
			// heap, which DPF's Gen need not pay for.
			leaves := [2]Block{s0, s1}
			tail.tailRows(key, alphas[i:i+1], leaves[:])
		}
	}
}

// walkGen is oneKeyDpf's for DCF: the routine also writes the rows' value words
// and hands back the running value at alpha's leaf, from which the last row's
// word comes.
func (k *oneKeyDcf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	if !aes128.HasWalk() || k.lanes == nil {
		k.Dcf.walkGen(st, cws, s0s, alphas, betas)
		return
	}
	if len(alphas) <= oneKeyChunk {
		k.genRange(cws, s0s, alphas, betas, 0, len(alphas))
		st.advance(len(alphas))
		return
	}
	forChunks(len(alphas), genCostNs(k.params.InBits, 4), func(lo, hi int) {
		for i0, i1 := range oneKeyChunks(st, lo, hi) {
			k.genRange(cws, s0s, alphas, betas, i0, i1)
		}
	})
}

// genRange makes keys lo .. hi-1.
func (k *oneKeyDcf) genRange(cws []Cw, s0s []Block, alphas []Uint128, betas []Block, lo, hi int) {
	n, ar := k.params.InBits, k.params.Group.arith()
	betaSide := 1 - uint8(k.Pred())     // alpha's bit where beta enters: 0 for gt, 1 for lt (betaIf of Dcf.genTile)
	w := aes128.GenWalk{Lanes: k.lanes} // set once (see oneKeyDcf.evalRange); Beta[1-betaSide] stays zero
	for i := lo; i < hi; i++ {
		key := cws[i*(n+1):][:n+1]
		w.Rows, w.Path = blockBytes(cwBlocks(key[:n])), oneKeyPath(alphas[i], n)
		w.Beta[betaSide] = ar.from(betas[i]).Bytes()
		seeds := seedPairImage((*[2]Block)(s0s[2*i:]))
		t1 := k.keys.Gen(&w, &seeds)
		key[n] = Cw{Block{}, dcfLastCw(ar, BlockFromBytes(seeds[0]), BlockFromBytes(seeds[1]), t1, BlockFromBytes(w.Sum))}
	}
}
