//go:build amd64 && !purego

package gofss

import "github.com/pyfss/pyfss/gofss/internal/aes128"

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
// longer batches and EvalAll.
type oneKeyDpf struct {
	*Dpf
	keys *aes128.WalkKeys
}

type oneKeyDcf struct {
	*Dcf
	keys *aes128.WalkKeys
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
	return &oneKeyDcf{d, k}
}

// oneKeyPath is one point's walk: its sides (x's bits, first level first) and its
// key's level rows as the routines read them.
func oneKeyPath(sides *[MaxInBits]uint8, rows []Cw, x Uint128) ([]byte, []byte) {
	n := len(rows)
	for i := range n {
		sides[i] = x.Bit(n, i)
	}
	return blockBytes(cwBlocks(rows)), sides[:n]
}

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
	var sides [MaxInBits]uint8
	for j, x := range xs {
		key := cws[j/m*rows:][:n+1]
		w := aes128.EvalWalk{TrByte: dpfTrByte}
		w.Rows, w.Sides = oneKeyPath(&sides, key[:n], x)
		leaf, t := k.keys.Eval(&w, s0s[j/m].Clamp().Bytes(), uint8(party))
		dst[j] = dpfLeaf(ar, BlockFromBytes(leaf), t, ar.from(key[n][0]), party)
	}
	st.advance(len(xs))
	return nil
}

func (k *oneKeyDcf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if !oneKeyServes(len(xs), oneKeyMaxDcfPoints) {
		return k.Dcf.walkEval(st, dst, party, s0s, cws, xs, m)
	}
	if err := k.checkCws(cws); err != nil {
		return err
	}
	n, ar := k.params.InBits, k.params.Group.arith()
	var sides, bits [MaxInBits]uint8
	var values [MaxInBits]Block
	for j, x := range xs {
		key := cws[j/m*(n+1):][:n+1]
		w := aes128.EvalWalk{TrByte: dcfTrByte, Values: blockBytes(values[:n]), Bits: bits[:n]}
		w.Rows, w.Sides = oneKeyPath(&sides, key[:n], x)
		leaf, t := k.keys.Eval(&w, s0s[j/m].Clamp().Bytes(), uint8(party))
		var v Block
		for i := range n {
			v = dcfValue(ar, v, values[i], &key[i], bits[i])
		}
		dst[j] = dcfLeaf(ar, BlockFromBytes(leaf), t, v, &key[n], party)
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
	var sides [MaxInBits]uint8
	for i, alpha := range alphas {
		if st.stopped() {
			return
		}
		key := cws[i*rows:][:rows]
		w := aes128.GenWalk{}
		w.Rows, w.Sides = oneKeyPath(&sides, key[:n], alpha)
		seeds := [2][16]byte{s0s[2*i].Clamp().Bytes(), s0s[2*i+1].Clamp().Bytes()}
		t1 := k.keys.Gen(&w, &seeds)
		k.lastRow(key[n:], alpha, betas[i], BlockFromBytes(seeds[0]), BlockFromBytes(seeds[1]), t1)
		st.advance(1)
	}
}

// walkGen is oneKeyDpf's for DCF: the routine hands back each level's value outputs
// and party 1's control bit, from which the value corrections, a chain of group
// operations, are computed here; the routine left tr in the row's value word.
func (k *oneKeyDcf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	if !oneKeyServes(len(alphas), oneKeyMaxKeys) {
		k.Dcf.walkGen(st, cws, s0s, alphas, betas)
		return
	}
	n, ar := k.params.InBits, k.params.Group.arith()
	betaIf := [2]uint8{uint8(k.Pred()), 1 - uint8(k.Pred())} // as in Dcf.genTile
	var sides, bits [MaxInBits]uint8
	sc := getScratch() // not a stack array: zeroing 4*MaxInBits blocks costs a tenth of a key
	defer sc.release()
	values := sc.block(4 * n)
	for i, alpha := range alphas {
		if st.stopped() {
			return
		}
		key := cws[i*(n+1):][:n+1]
		w := aes128.GenWalk{Values: blockBytes(values), Bits: bits[:n]}
		w.Rows, w.Sides = oneKeyPath(&sides, key[:n], alpha)
		seeds := [2][16]byte{s0s[2*i].Clamp().Bytes(), s0s[2*i+1].Clamp().Bytes()}
		t1 := k.keys.Gen(&w, &seeds)
		beta := ar.from(betas[i])
		var v Block
		for l, a := range w.Sides {
			vs := values[4*l:][:4] // VL0, VR0, VL1, VR1
			lose0, lose1 := ar.from(vs[1-a]), ar.from(vs[3-a])
			keep0, keep1 := ar.from(vs[a]), ar.from(vs[2+a])
			var vCw Block
			vCw, v = dcfValueCw(ar, v, lose0, lose1, keep0, keep1, mask(beta, betaIf[a]), bits[l])
			key[l][1] = ar.into(vCw).WithLsb(uint8(key[l][1].Lo))
		}
		key[n] = Cw{Block{}, dcfLastCw(ar, BlockFromBytes(seeds[0]), BlockFromBytes(seeds[1]), t1, v)}
		st.advance(1)
	}
}
