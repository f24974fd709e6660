//go:build amd64 && !purego

package gofss

import (
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/chacha"
)

// Short batches with ChaCha go a point at a time, each point's levels in one routine
// call: a point's levels are a chain of one-seed PRG calls, and the Go around each
// call costs about a quarter of it.

// Where a row keeps the right child's control-bit correction (bit 0 of this byte):
// DPF word 4, DCF word 7.
const (
	dpfTrByte = 16
	dcfTrByte = 28
)

func (f *fastDpf) evalOnePoints(stp callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if err := f.checkCws(cws); err != nil {
		return err
	}
	dpfOnePoints(f.chacha, f.params, dst, party, s0s, cws, xs, m)
	stp.advance(len(xs))
	return nil
}

func (f *fastDcf) evalOnePoints(stp callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if err := f.checkCws(cws); err != nil {
		return err
	}
	dcfOnePoints(f.chacha, f.params, dst, party, s0s, cws, xs, m)
	stp.advance(len(xs))
	return nil
}

// dpfOnePoints is a DPF Eval with prg a point at a time (of checked correction
// words; dst[j] is key j/m at xs[j]).
func dpfOnePoints(prg *ChaCha, p Params, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) {
	n, ar := p.InBits, p.Group.arith()
	for j, x := range xs {
		key := cws[j/m*(n+1):][:n+1]
		s, t := chachaWalk(prg, key[:n], x, s0s[j/m].Clamp(), uint8(party), dpfTrByte, nil, nil)
		dst[j] = dpfLeaf(ar, s, t, ar.from(key[n][0]), party)
	}
}

// dcfOnePoints is dpfOnePoints for DCF: the routine hands back each level's value
// output and control bit, from which the path's value is summed here.
func dcfOnePoints(prg *ChaCha, p Params, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) {
	n, ar := p.InBits, p.Group.arith()
	var raws [MaxInBits]Block
	var ts [MaxInBits]uint8
	for j, x := range xs {
		key := cws[j/m*(n+1):][:n+1]
		s, t := chachaWalk(prg, key[:n], x, s0s[j/m].Clamp(), uint8(party), dcfTrByte, raws[:n], ts[:n])
		var v Block
		for i := range n {
			v = dcfValue(ar, v, raws[i], &key[i], ts[i])
		}
		dst[j] = dcfLeaf(ar, s, t, v, &key[n], party)
	}
}

// chachaWalk runs one point's levels (rows: its key's first n correction words) in
// one routine call, from seed s with control bit t along x's bits; see
// chacha.WalkOne. values and bits receive DCF's per-level outputs (nil for DPF).
// The walks are made with ChaCha only on a backend with the routine; without one
// this panics rather than fall back unseen.
func chachaWalk(p *ChaCha, rows []Cw, x Uint128, s Block, t uint8, trByte int, values []Block, bits []uint8) (Block, uint8) {
	n := len(rows)
	var sides [MaxInBits]uint8
	for i := range n {
		sides[i] = x.Bit(n, i)
	}
	w := chacha.Walk{
		Rows: blockBytes(unsafe.Slice(&rows[0][0], 2*n)), Sides: sides[:n], Mul: p.Mul(), TrByte: trByte,
		Values: blockBytes(values), Bits: bits,
	}
	leaf, tOut, ok := chacha.WalkOne(&w, p.Nonce(), s.Bytes(), t)
	if !ok {
		panic("gofss: the ChaCha backend " + chacha.Backend() + " has no walk routine")
	}
	return BlockFromBytes(leaf), tOut
}
