//go:build amd64 && !purego

package gofss

import "github.com/pyfss/pyfss/gofss/internal/aes128"

// vdpfArch holds the one-key AES-NI walk keys of a VDPF over aes128_mmo, nil for
// other PRGs or without AES-NI: a short EvalProof goes a point at a time through
// them, as DPF's "aesni" implementation does (onekey_amd64.go), and the hashes
// take the leaves it reaches.
type vdpfArch struct{ walkKeys *aes128.WalkKeys }

func newVdpfArch(prg Prg) vdpfArch { return vdpfArch{oneKeyKeys(prg)} }

// evalProofOneKey is EvalProof of a batch of at most oneKeyMaxDpfPoints points, a
// point at a time; false (and nothing done) where the one-key walks do not serve.
func (v *Vdpf) evalProofOneKey(dst, pieces []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) bool {
	if v.arch.walkKeys == nil || !oneKeyServes(len(xs), oneKeyMaxDpfPoints) {
		return false
	}
	n, rows := v.params.InBits, v.params.CwRows()
	var s [oneKeyMaxDpfPoints]Block
	var t [oneKeyMaxDpfPoints]uint8
	var base [oneKeyMaxDpfPoints]int
	var sides [MaxInBits]uint8
	for j, x := range xs {
		base[j] = j / m * rows
		w := aes128.EvalWalk{TrByte: dpfTrByte}
		w.Rows, w.Sides = oneKeyPath(&sides, cws[base[j]:][:n], x)
		leaf, tj := v.arch.walkKeys.Eval(&w, s0s[j/m].Clamp().Bytes(), uint8(party))
		s[j], t[j] = BlockFromBytes(leaf), tj
	}
	k := len(xs)
	vdpfPoints{v, pieces}.leaves(dst, party, cws, xs, 0, s[:k], t[:k], base[:k])
	v.ctl.advance(k)
	return true
}
