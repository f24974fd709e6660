//go:build amd64 && !purego

package gofss

import (
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/simd"
)

// genTileKeys is the number of keys a fast Gen takes down the tree together.
const genTileKeys = 128

// fastGenMinKeys: a Gen of fewer keys whose PRG feeds the routines (ChaCha, or AES
// on the avx512 walks) takes the portable walks, on the same PRG backend. A tile
// pads its keys to 4 and expands all their seeds each level: one key took 2.4x
// the portable walk's time with ChaCha (4.2 against 1.7 us at in_bits 20) and 1.7x
// with AES; from 4 keys on the tiles take less.
const fastGenMinKeys = 4

// ntMinBytes: Gen output (correction words) at least this large is written with
// non-temporal stores, from a tile's staging area. An ordinary store reads each line
// before writing it, which doubles the memory traffic when the output cannot stay in
// cache; a smaller output does, and is better left there for its reader.
const ntMinBytes = 8 << 20

// fastGenState is the scratch of a fast Gen for a tile of keys, padded to a multiple
// of 4 with keys of zero seeds and alpha.
type fastGenState struct {
	u0, u1, s, ch, alphas, vs, betas []Block
	stage                            []Cw // the tile's correction words, for CopyNT
}

func newFastGenState(sc *scratch, mul int, cws []Cw, rows int) *fastGenState {
	st := &fastGenState{
		u0: sc.block(genTileKeys), u1: sc.block(genTileKeys), s: sc.block(2 * genTileKeys), ch: sc.block(2 * mul * genTileKeys),
		alphas: sc.block(genTileKeys), vs: sc.block(genTileKeys), betas: sc.block(genTileKeys),
	}
	if len(cws)*cwSize >= ntMinBytes {
		b := sc.block(2 * genTileKeys * rows)
		st.stage = unsafe.Slice((*Cw)(unsafe.Pointer(unsafe.SliceData(b))), genTileKeys*rows)
	}
	return st
}

// rows returns where a tile writes its correction words, out: out itself, or the
// staging area that done then copies to out.
func (st *fastGenState) rows(out []Cw) []Cw {
	if st.stage == nil {
		return out
	}
	return st.stage[:len(out)]
}

func (st *fastGenState) done(out []Cw) {
	if st.stage != nil {
		simd.CopyNT(kcws(out), kcws(st.stage[:len(out)]))
	}
}

// start loads a tile of keys: both parties' root nodes (control bits 0 and 1) and
// seeds, and the alphas.
func (st *fastGenState) start(s0s []Block, alphas []Uint128, mul int) fastGenState {
	c := len(alphas)
	p := (c + 3) &^ 3
	t := fastGenState{
		u0: st.u0[:p], u1: st.u1[:p], s: st.s[:2*p], ch: st.ch[:2*mul*p],
		alphas: st.alphas[:p], vs: st.vs[:p], betas: st.betas[:p], stage: st.stage,
	}
	for j := range p {
		var s0, s1 Block
		var a Uint128
		if j < c {
			s0, s1, a = s0s[2*j].Clamp(), s0s[2*j+1].Clamp(), alphas[j]
		}
		t.u0[j], t.u1[j], t.s[j], t.s[p+j], t.alphas[j] = s0, s1.WithLsb(1), s0, s1, Block(a)
	}
	return t
}

// forGenTiles runs fn on the tiles of a fast Gen (keys k0 to k1, at most
// genTileKeys) of keys of n levels and perKey rows, spread over goroutines, for a
// PRG of mul outputs: st holds the tile's keys at the root, rows describe them to
// the routines, and w receives their correction words.
func forGenTiles(stp callControl, n, perKey, mul int, cws []Cw, s0s []Block, alphas []Uint128, fn func(st *fastGenState, k0, k1 int, rows *simd.GenRows, w []Cw)) {
	forChunks(len(alphas), genCostNs(n, mul), func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		buf := newFastGenState(sc, mul, cws, perKey)
		// Declared once: fn's pointers move them to the heap, an allocation each.
		var st fastGenState
		var rows simd.GenRows
		for k0 := lo; k0 < hi && !stp.stopped(); k0 += genTileKeys {
			k1 := min(hi, k0+genTileKeys)
			st = buf.start(s0s[2*k0:2*k1], alphas[k0:k1], mul)
			out := cws[k0*perKey : k1*perKey]
			w := st.rows(out)
			rows = simd.GenRows{Alphas: kblocks(st.alphas), Cws: kcws(w), Keys: k1 - k0, Levels: n, Rows: perKey}
			fn(&st, k0, k1, &rows, w)
			stp.advance(k1 - k0)
			st.done(out)
		}
	})
}

func (f *fastDpf) walkGen(stp callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	f.genKeys(stp, cws, s0s, alphas, betas, nil)
}

// genKeys is Dpf.genKeys on the tiles.
func (f *fastDpf) genKeys(stp callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block, tail keyTail) {
	n, rows, ar, prg := f.params.InBits, f.params.cwRows(), f.params.Group.arith(), f.prg
	keys := f.aes.two()
	if keys == nil && len(alphas) < fastGenMinKeys {
		f.Dpf.genKeys(stp, cws, s0s, alphas, betas, tail)
		return
	}
	forGenTiles(stp, n, rows, 2, cws, s0s, alphas, func(st *fastGenState, k0, k1 int, gr *simd.GenRows, w []Cw) {
		for i := range n {
			if keys != nil {
				f.eval.DpfGenLevel(kblocks(st.u0), kblocks(st.u1), kblocks(st.s), gr, i, keys)
				continue
			}
			ch := prgRaw(prg, st.ch, st.s)
			simd.DpfGenLevel(kblocks(st.u0), kblocks(st.u1), kblocks(st.s), ch, gr, i, nil)
		}
		leaves := st.ch[:2*(k1-k0)] // the PRG's room, free after the levels
		for j := range k1 - k0 {
			u1 := st.u1[j]
			leaves[2*j], leaves[2*j+1] = st.u0[j].Clamp(), u1.Clamp()
			w[j*rows+n] = Cw{dpfLastCw(ar, betas[k0+j], leaves[2*j], leaves[2*j+1], u1.Lsb())}
		}
		if tail != nil {
			tail.tailRows(w, alphas[k0:k1], leaves)
		}
	})
}

func (f *fastDcf) walkGen(stp callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	if !f.kaOK {
		f.Dcf.walkGen(stp, cws, s0s, alphas, betas)
		return
	}
	n, perKey, ar, prg, gt := f.params.InBits, f.params.cwRows(), f.params.Group.arith(), f.prg, f.Pred() == Gt
	keys := f.aes.four()
	if keys == nil && len(alphas) < fastGenMinKeys {
		f.Dcf.walkGen(stp, cws, s0s, alphas, betas)
		return
	}
	forGenTiles(stp, n, perKey, 4, cws, s0s, alphas, func(st *fastGenState, k0, k1 int, rows *simd.GenRows, w []Cw) {
		for j := range st.betas {
			st.vs[j], st.betas[j] = Block{}, Block{}
			if j < k1-k0 {
				st.betas[j] = ar.from(betas[k0+j])
			}
		}
		for i := range n {
			if keys != nil {
				f.eval.DcfGenLevel(kblocks(st.u0), kblocks(st.u1), kblocks(st.s), kblocks(st.vs), kblocks(st.betas), rows, i, gt, &f.ka[1], keys)
				continue
			}
			ch := prgRaw(prg, st.ch, st.s)
			simd.DcfGenLevel(kblocks(st.u0), kblocks(st.u1), kblocks(st.s), ch, kblocks(st.vs), kblocks(st.betas), rows, i, gt, &f.ka[1], nil)
		}
		for j := range k1 - k0 {
			u0, u1 := st.u0[j], st.u1[j]
			w[j*perKey+n] = Cw{Block{}, dcfLastCw(ar, u0.Clamp(), u1.Clamp(), u1.Lsb(), st.vs[j])}
		}
	})
}
