//go:build amd64 && !purego

package gofss

import (
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
)

// The "aesni" implementation: DPF and DCF with aes128_mmo on a CPU with AES-NI,
// where the AVX-512 walks do not run. Short Evals and Gens go a key at a time, each
// key's levels in one routine call (aes128.WalkKeys): a point's levels are a chain
// of one-seed PRG calls, so the batched walks, which expand a level of many seeds at
// once, spend most of a single point's time around the PRG. Longer batches take
// the portable walks, whose PRG calls keep 8 blocks in flight.

// Batches up to these sizes go a key at a time; beyond, the portable walks' 8 AES
// blocks in flight win (measured per key at in_bits 20). A DPF Eval point is
// one block a level, so from 8 points the portable level of 8 blocks is faster; a
// DCF Eval point (2 blocks a level) and a Gen key (4 or 8) keep more in flight
// themselves and still win at 16.
const (
	oneKeyMaxDpfPoints = 7
	oneKeyMaxDcfPoints = 16
	oneKeyMaxKeys      = 16
)

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
	if err := k.checkCws(cws); err != nil {
		return err
	}
	n, rows, ar := k.params.InBits, k.params.CwRows(), k.params.Group.arith() // rows: n+1, or VDPF's n+3
	for j, x := range xs {
		key := cws[j/m*rows:][:n+1]
		w := aes128.EvalWalk{Rows: blockBytes(cwBlocks(key[:n])), Path: oneKeyPath(x, n), TrByte: dpfTrByte}
		leaf, t := k.keys.Eval(&w, seedImage(&s0s[j/m]), uint8(party))
		dst[j] = dpfLeaf(ar, BlockFromBytes(leaf), t, ar.from(key[n][0]), party)
	}
	st.advance(len(xs))
	return nil
}

func (k *oneKeyDcf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if !oneKeyServes(len(xs), oneKeyMaxDcfPoints) || k.lanes == nil {
		return k.Dcf.walkEval(st, dst, party, s0s, cws, xs, m)
	}
	if err := k.checkCws(cws); err != nil {
		return err
	}
	n, ar := k.params.InBits, k.params.Group.arith()
	for j, x := range xs {
		key := cws[j/m*(n+1):][:n+1]
		w := aes128.EvalWalk{Rows: blockBytes(cwBlocks(key[:n])), Path: oneKeyPath(x, n), TrByte: dcfTrByte, Lanes: k.lanes}
		leaf, t := k.keys.Eval(&w, seedImage(&s0s[j/m]), uint8(party))
		dst[j] = dcfLeaf(ar, BlockFromBytes(leaf), t, BlockFromBytes(w.Sum), &key[n], party)
	}
	st.advance(len(xs))
	return nil
}

func (k *oneKeyDpf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	if !oneKeyServes(len(alphas), oneKeyMaxKeys) {
		k.Dpf.walkGen(st, cws, s0s, alphas, betas)
		return
	}
	n, rows := k.params.InBits, k.params.CwRows()
	for i, alpha := range alphas {
		if st.stopped() {
			return
		}
		key := cws[i*rows:][:rows]
		w := aes128.GenWalk{Rows: blockBytes(cwBlocks(key[:n])), Path: oneKeyPath(alpha, n)}
		seeds := seedPairImage((*[2]Block)(s0s[2*i:]))
		t1 := k.keys.Gen(&w, &seeds)
		k.lastRow(key[n:], alpha, betas[i], BlockFromBytes(seeds[0]), BlockFromBytes(seeds[1]), t1)
		st.advance(1)
	}
}

// walkGen is oneKeyDpf's for DCF: the routine also writes the rows' value words
// and hands back the running value at alpha's leaf, from which the last row's
// word comes.
func (k *oneKeyDcf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	if !oneKeyServes(len(alphas), oneKeyMaxKeys) || k.lanes == nil {
		k.Dcf.walkGen(st, cws, s0s, alphas, betas)
		return
	}
	n, ar := k.params.InBits, k.params.Group.arith()
	for i, alpha := range alphas {
		if st.stopped() {
			return
		}
		key := cws[i*(n+1):][:n+1]
		w := aes128.GenWalk{Rows: blockBytes(cwBlocks(key[:n])), Path: oneKeyPath(alpha, n), Lanes: k.lanes}
		// beta enters where alpha's bit is 0 for gt, 1 for lt (betaIf of Dcf.genTile).
		w.Beta[1-uint8(k.Pred())] = ar.from(betas[i]).Bytes()
		seeds := seedPairImage((*[2]Block)(s0s[2*i:]))
		t1 := k.keys.Gen(&w, &seeds)
		key[n] = Cw{Block{}, dcfLastCw(ar, BlockFromBytes(seeds[0]), BlockFromBytes(seeds[1]), t1, BlockFromBytes(w.Sum))}
		st.advance(1)
	}
}
