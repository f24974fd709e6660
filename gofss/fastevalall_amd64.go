//go:build amd64 && !purego

package gofss

import (
	"github.com/pyfss/pyfss/gofss/internal/chacha"
	"github.com/pyfss/pyfss/gofss/internal/simd"
)

// The EvalAll trees on the routines. With AES keys the levels run on the CPU
// class's fused routines (f.eval), AVX-512 or AVX2. With ChaCha, DPF and DCF take
// the chacha walks' children routines, which correct the children themselves (DPF
// 0.97x this tree's time, DCF 0.94x). Groups without lane masks (uint127) take the
// portable tree, but for DPF with ChaCha, whose leaves are then converted in Go.

func (f *fastDpf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	if f.chacha != nil && chacha.PointLanes() > 0 {
		return dpfChildrenTree(f.Dpf, f.chacha, place, party, s0s, cws)
	}
	if !f.kaOK {
		return f.Dpf.walkEvalAll(place, party, s0s, cws)
	}
	n, ar, prg, ka := f.params.InBits, f.params.Group.arith(), f.prg, &f.ka[party]
	rows, lanes := f.params.cwRows(), f.aes.laneKeys() // rows: n+1, or VDPF's n+3
	cwPair := func(k, i int) [2]simd.Block {
		l, r := dpfChildCws(&cws[k*rows+i])
		return [2]simd.Block{kblock(l), kblock(r)}
	}
	return tree{
		n:      n,
		shape:  rowShape{u: true},
		costNs: nodeCostNs(2),
		root: func(k int, r nodes) {
			r.s[0] = s0s[k].Clamp()
			r.u[0] = r.s[0].WithLsb(uint8(party))
		},
		level: func(k, i int, out, in nodes, _ []Block) {
			cw := cwPair(k, i)
			if lanes != nil {
				f.eval.DpfLevel(kblocks(out.u), kblocks(out.s), kblocks(in.u), &cw, lanes)
				return
			}
			raw := prgRaw(prg, out.u, in.s)
			simd.DpfLevel(kblocks(out.u), kblocks(out.s), raw, kblocks(in.u), &cw, nil)
		},
		leaves: func(k, x0 int, in nodes, _ []Block) {
			out := place(k, x0, 2*len(in.s))
			cw, v := cwPair(k, n-1), ar.from(cws[k*rows+n][0])
			if lanes != nil {
				f.eval.DpfLeaves(kblocks(out), kblocks(in.u), &cw, kblock(v), ka, lanes)
				return
			}
			raw := prgRaw(prg, out, in.s)
			simd.DpfLeaves(kblocks(out), raw, kblocks(in.u), &cw, kblock(v), ka, nil)
		},
	}
}

func (f *fastDcf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	if f.chacha != nil && chacha.PointLanes() > 0 {
		if tr, ok := dcfChildrenTree(f.Dcf, f.chacha, place, party, s0s, cws); ok {
			return tr
		}
	}
	if !f.kaOK {
		return f.Dcf.walkEvalAll(place, party, s0s, cws)
	}
	n, ar, prg, ka := f.params.InBits, f.params.Group.arith(), f.prg, &f.ka[party]
	lanes := f.aes.laneKeys()
	// level returns a level's corrections: seeds of the left and right child, and the
	// value correction in value form.
	level := func(k, i int) ([2]simd.Block, simd.Block) {
		cw := &cws[k*(n+1)+i]
		return [2]simd.Block{kblock(dcfChildCw(cw, 0)), kblock(dcfChildCw(cw, 1))}, kblock(ar.from(cw[1]))
	}
	return tree{
		n:      n,
		shape:  rowShape{u: true, v: true},
		rawMul: 4,
		costNs: nodeCostNs(4),
		root: func(k int, r nodes) {
			r.s[0] = s0s[k].Clamp()
			r.u[0], r.v[0] = r.s[0].WithLsb(uint8(party)), Block{}
		},
		level: func(k, i int, out, in nodes, raw []Block) {
			cw, vcw := level(k, i)
			if lanes != nil {
				f.eval.DcfLevel(kblocks(out.u), kblocks(out.s), kblocks(out.v), kblocks(in.u), kblocks(in.v), &cw, vcw, ka, lanes)
				return
			}
			kraw := prgRaw(prg, raw, in.s)
			simd.DcfLevel(kblocks(out.u), kblocks(out.s), kblocks(out.v), kraw, kblocks(in.u), kblocks(in.v), &cw, vcw, ka, nil)
		},
		leaves: func(k, x0 int, in nodes, raw []Block) {
			cw, vcw := level(k, n-1)
			last := kblock(ar.from(cws[k*(n+1)+n][1]))
			out := place(k, x0, 2*len(in.s))
			if lanes != nil {
				f.eval.DcfLeaves(kblocks(out), kblocks(in.u), kblocks(in.v), &cw, vcw, last, ka, lanes)
				return
			}
			kraw := prgRaw(prg, raw, in.s)
			simd.DcfLeaves(kblocks(out), kraw, kblocks(in.u), kblocks(in.v), &cw, vcw, last, ka, nil)
		},
	}
}
