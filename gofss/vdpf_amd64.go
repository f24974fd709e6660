//go:build amd64 && !purego

package gofss

import (
	"sync/atomic"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
)

// VDPF on the implementations whose DPF walks run AES-128 MMO themselves (the fused
// walks of "avx512-vaes", "avx2-vaes" and "avx2-aesni") or a key at a time
// ("aesni"): the walks of the same DPF implementation descend VDPF's keys (their
// row stride is the key's, n + 3 rows) and hand back each point's leaf, its seed
// with its control bit in the lsb, from which the hashes and vdpfPoints.leaves make
// the shares and proof pieces. Gen runs the same implementation's DPF Gen (one-key
// walks or fused tiles) over VDPF's rows, VDPF's own end of each key (its output
// correction word and cs) written from the leaves' seeds the walk ends on. The
// "avx512" walks, fed by the PRG, do not serve VDPF.

// archWalks returns VDPF's walks on implementation im, or nil where im's DPF walks
// are not ones VDPF takes.
func (v *Vdpf) archWalks(im impl) walks {
	switch w := im.dpf(v.dpf).(type) {
	case *fusedEvalDpf:
		return &vdpfFused{vdpfOneKey{v, w, w.keys}, w.fast}
	case *fastDpf:
		if keys := oneKeyKeys(v.prg); w.eval != nil && keys != nil {
			return &vdpfFused{vdpfOneKey{v, w, keys}, w}
		}
	case *oneKeyDpf:
		return &vdpfOneKey{v, w, w.keys}
	}
	return nil
}

// vdpfOneKey is VDPF on the "aesni" implementation: a short EvalProof batch goes a
// point at a time through the one-key walk, longer ones take the portable walk;
// Gen, and Eval and EvalAll of the shares, are DPF's on the same implementation.
type vdpfOneKey struct {
	*Vdpf
	dpf  dpfWalks // DPF's walks of the implementation, over this scheme's keys
	keys *aes128.WalkKeys
}

// dpfWalks are DPF walks whose Gen takes a keyTail.
type dpfWalks interface {
	walks
	genKeys(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block, tail keyTail)
}

// vdpfFused is VDPF on a fused implementation: EvalProof batches of minFastPoints
// or more take the fused DPF walk in its leaf mode (no group arithmetic).
type vdpfFused struct {
	vdpfOneKey
	fast *fastDpf
}

func (w *vdpfOneKey) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	w.dpf.genKeys(st, cws, s0s, alphas, betas, w.Vdpf)
}

func (w *vdpfOneKey) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	return w.dpf.walkEval(st, dst, party, s0s, cws, xs, m)
}

func (w *vdpfOneKey) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	return w.dpf.walkEvalAll(place, party, s0s, cws)
}

func (w *vdpfOneKey) walkEvalProof(st callControl, dst, pieces []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if !oneKeyServes(len(xs), oneKeyMaxDpfPoints) {
		return w.Vdpf.walkEvalProof(st, dst, pieces, party, s0s, cws, xs, m)
	}
	// The level rows are checked by the walk (see oneKeyDpf.walkEval).
	if err := w.Vdpf.dpf.checkLastRows(cws); err != nil {
		return err
	}
	n, rows := w.params.InBits, w.params.cwRows()
	var s [oneKeyMaxDpfPoints]Block
	var t [oneKeyMaxDpfPoints]uint8
	var base [oneKeyMaxDpfPoints]int
	ew := aes128.EvalWalk{TrByte: dpfTrByte} // set once (see oneKeyDcf.evalRange)
	for j, x := range xs {
		base[j] = j / m * rows
		ew.Rows, ew.Path = blockBytes(cwBlocks(cws[base[j]:][:n])), oneKeyPath(x, n)
		leaf, tj := w.keys.Eval(&ew, seedImage(&s0s[j/m]), uint8(party))
		if !isBit(BlockFromBytes(ew.Sum)) {
			return w.checkCws(cws) // which names the row
		}
		s[j], t[j] = BlockFromBytes(leaf), tj
	}
	k := len(xs)
	vdpfPoints{w.Vdpf, pieces}.leaves(dst, party, cws, xs, 0, s[:k], t[:k], base[:k])
	st.advance(k)
	return nil
}

// walkEvalProof runs the fused walk without the group's arithmetic, so that it
// leaves the leaves in the tile's nodes. The walk checks the level rows as it reads
// them and the tile's loop the output correction words, so dst and pieces may be
// partly written when the words are refused.
func (w *vdpfFused) walkEvalProof(stp callControl, dst, pieces []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if len(xs) < minFastPoints || !aes128.HasWalk() {
		return w.vdpfOneKey.walkEvalProof(stp, dst, pieces, party, s0s, cws, xs, m)
	}
	f, n := w.fast, w.params.InBits
	b := &pointBatch{dst, party, s0s, cws, xs, m, n, nil}
	keys, walk, size := f.aes.two(), f.eval, f.eval.DpfGroup
	var bad atomic.Bool
	forFastTiles(stp, b, 1, func(j0, j1 int, buf *fastEvalState) {
		st, rows := buf.start(b, j0, j1, 1, size, nil)
		if !walk.Dpf(kblocks(st.u), &rows, keys, nil, st.prefetch(size, j0, b)) {
			bad.Store(true)
		}
		// The state's s, next and off, which the walk does not use, become the
		// leaves' seeds, control bits and keys' first rows.
		k := j1 - j0
		s, t, base := st.s[:k], st.next[:k], st.off[:k]
		for j, u := range st.u[:k] {
			s[j], t[j], base[j] = u.Clamp(), u.Lsb(), base[j]/cwSize
			if !isDpfLastRow(&cws[base[j]+n]) {
				bad.Store(true)
			}
		}
		vdpfPoints{w.Vdpf, pieces}.leaves(dst[j0:j1], party, cws, xs, j0, s, t, base)
	})
	if bad.Load() {
		return w.checkCws(cws)
	}
	return nil
}
