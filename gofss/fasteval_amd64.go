//go:build amd64 && !purego

package gofss

import (
	"errors"
	"sync/atomic"
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/simd"
)

// minFastPoints: the routines work on groups of 4 to 32 points, padding short
// batches; below this many points the portable walk is faster (one DPF point at
// in_bits 20: 1.5 us portable, 2.3 us padded to a group), or, with ChaCha, the
// one-point walk (chachawalk_amd64.go).
const minFastPoints = 8

// pointBatch is an Eval's arguments as the fast tiles read them: dst[j] receives
// the output of key j/m at xs[j], for n-bit inputs.
type pointBatch struct {
	dst   []Block
	party int
	s0s   []Block
	cws   []Cw
	xs    []Uint128
	m, n  int
	// keyOf, where not nil, is each point's key, in any order (the multi-point
	// schemes' buckets): point j is under key keyOf[j], and m is unused.
	keyOf []int32
}

// keyBytes is the size of one key's correction words: n+1 rows for DPF and DCF,
// more for VDPF (whose walks read the first n+1 the same). The arguments' check made
// cws whole keys, one per seed.
func (b *pointBatch) keyBytes() int {
	if len(b.s0s) == 0 {
		return 0
	}
	return len(b.cws) / len(b.s0s) * cwSize
}

// fastEvalState is the scratch of a fast Eval for a tile of points, padded to the
// routines' step with points of key 0 at x = 0.
type fastEvalState struct {
	u, s, v, ch, xs []Block
	sides, next     []uint8
	off             []int
	pf              []int // the fused routines' prefetch ranges: two per group of points (4 or more)
}

func newFastEvalState(sc *scratch, half int) *fastEvalState {
	return &fastEvalState{
		u: sc.block(evalTilePoints), s: sc.block(evalTilePoints), v: sc.block(evalTilePoints), ch: sc.block(half * evalTilePoints),
		xs: sc.block(evalTilePoints), sides: sc.byte(evalTilePoints), next: sc.byte(evalTilePoints), off: sc.int(evalTilePoints),
		pf: sc.int(evalTilePoints / 2),
	}
}

// forFastTiles runs fn on tiles [j0, j1) of at most evalTilePoints of b's points,
// spread over goroutines, each with its own scratch for half PRG outputs per point.
func forFastTiles(stp callControl, b *pointBatch, half int, fn func(j0, j1 int, buf *fastEvalState)) {
	forChunks(len(b.xs), evalCostNs(b.n, half), func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		buf := newFastEvalState(sc, half)
		for j0 := lo; j0 < hi && !stp.stopped(); j0 += evalTilePoints {
			j1 := min(hi, j0+evalTilePoints)
			fn(j0, j1, buf)
			stp.advance(j1 - j0)
		}
	})
}

// checkedTiles is forFastTiles for walks that take any row values (they read only
// the seed words and control bits, and the leaves' last rows): fn walks a tile and
// then tells whether the tile's keys' rows are sound, checked while they are still
// in cache (a pass over all keys first read them from memory once more, 5% of a
// batched Eval at 2^16 keys). Once a tile's are refused the other tiles stop, and
// check of all keys names the first bad one, with dst partly written.
func (b *pointBatch) checkedTiles(stp callControl, half int, check func([]Cw) error, fn func(j0, j1 int, buf *fastEvalState) bool) error {
	var bad atomic.Bool
	forFastTiles(stp, b, half, func(j0, j1 int, buf *fastEvalState) {
		if bad.Load() {
			return
		}
		if !fn(j0, j1, buf) {
			bad.Store(true)
		}
	})
	if bad.Load() {
		return refusal(check, b.cws)
	}
	return nil
}

// refusal is the error of a call whose walk refused some keys' rows: check of all
// keys names the first bad one. Should check accept them all, the walk and check
// disagree, and the call fails rather than return with outputs left unwritten.
func refusal(check func([]Cw) error, cws []Cw) error {
	if err := check(cws); err != nil {
		return err
	}
	return errors.New("gofss: a walk refused correction words that the key check accepts")
}

// tileSound tells whether check accepts the keys of points j0 .. j1-1 (j1 > j0). A
// keyOf batch's caller checked its keys.
func (b *pointBatch) tileSound(j0, j1 int, check func([]Cw) error) bool {
	return b.keyOf != nil || check(b.tileCws(j0, j1)) == nil
}

// tileCws is the correction words of the keys of points j0 .. j1-1 (j1 > j0).
func (b *pointBatch) tileCws(j0, j1 int) []Cw {
	rows := len(b.cws) / len(b.s0s)
	return b.cws[j0/b.m*rows : ((j1-1)/b.m+1)*rows]
}

// start loads points j0 .. j1-1 of b, padded to a multiple of step with points of
// key 0 at x = 0: root nodes, inputs and where each point's key's correction words
// start. A full tile's inputs are read in place, and its nodes kept in into[j0:]
// (the batch's outputs, or nil: never) for routines that turn nodes into outputs in
// place: the tile's outputs are then where the caller wants them (see leavesTo and
// nodeOutputs).
func (st *fastEvalState) start(b *pointBatch, j0, j1, half, step int, into []Block) (fastEvalState, simd.EvalRows) {
	xs := b.xs[j0:j1]
	w := len(xs)
	p := (w + step - 1) / step * step
	t := fastEvalState{
		u: st.u[:p], s: st.s[:p], v: st.v[:p], ch: st.ch[:half*p], xs: st.xs[:p],
		sides: st.sides[:p], next: st.next[:p], off: st.off[:p], pf: st.pf,
	}
	if into != nil && w == p {
		t.u = into[j0 : j0+p]
	}
	stride, lsb := b.keyBytes(), uint8(b.party)
	switch {
	case b.keyOf != nil:
		for j, k := range b.keyOf[j0 : j0+w] {
			t.u[j], t.off[j] = b.s0s[k].WithLsb(lsb), int(k)*stride
		}
	case b.m == 1: // one point per key, the common case: no key counter to keep
		for j, s0 := range b.s0s[j0 : j0+w] {
			t.u[j], t.off[j] = s0.WithLsb(lsb), (j0+j)*stride
		}
	default:
		k, r := j0/b.m, j0%b.m
		for j := range w {
			t.u[j], t.off[j] = b.s0s[k].WithLsb(lsb), k*stride
			if r++; r == b.m {
				k, r = k+1, 0
			}
		}
	}
	root := b.s0s[0].Clamp().WithLsb(lsb)
	for j := w; j < p; j++ {
		t.u[j], t.off[j] = root, 0
	}
	if w == p {
		t.xs = unsafe.Slice((*Block)(unsafe.Pointer(unsafe.SliceData(xs))), w)
	} else {
		copy(t.xs, unsafe.Slice((*Block)(unsafe.Pointer(unsafe.SliceData(xs))), w))
		clear(t.xs[w:])
	}
	return t, simd.NewEvalRows(kblocks(t.xs), t.off, kcws(b.cws), b.n)
}

// prefetch sets, for each group of size points of a tile starting at point j0 of b,
// the bytes of cws that hold the next group's keys.
func (st *fastEvalState) prefetch(size, j0 int, b *pointBatch) []int {
	pf := st.pf[:2*len(st.u)/size]
	total, stride := len(b.xs), b.keyBytes()
	for g := range len(pf) / 2 {
		lo, hi := j0+size*(g+1), min(total, j0+size*(g+2))
		pf[2*g], pf[2*g+1] = 0, 0
		// Keys in any order (keyOf) have no range to fetch: a multi-point key's
		// buckets are about a MiB of rows, in L2; fetching them in bucket order saved
		// nothing.
		if lo < hi && b.keyOf == nil {
			pf[2*g], pf[2*g+1] = lo/b.m*stride, ((hi-1)/b.m+1)*stride
		}
	}
	return pf
}

// nodeOutputs is the into argument of fastEvalState.start: dst, or nil where dst
// shares memory with xs, which a full tile reads in place while the routine runs.
func nodeOutputs(dst []Block, xs []Uint128) []Block {
	if len(dst) == 0 || len(xs) == 0 {
		return dst
	}
	d0, x0 := uintptr(unsafe.Pointer(&dst[0])), uintptr(unsafe.Pointer(&xs[0]))
	if d0 < x0+uintptr(len(xs))*16 && x0 < d0+uintptr(len(dst))*16 {
		return nil
	}
	return dst
}

// leavesTo copies the tile's first len(dst) nodes to dst, unless start kept them there.
func (st *fastEvalState) leavesTo(dst []Block) {
	if len(dst) > 0 && &dst[0] != &st.u[0] {
		copy(dst, st.u)
	}
}

// levels walks the tile down its trees one level at a time, the PRG expanding the
// chosen side of every node and step advancing the nodes.
func (st *fastEvalState) levels(n int, prg Prg, step func(i int)) {
	for j, u := range st.u {
		st.s[j], st.v[j], st.sides[j] = u.Clamp(), Block{}, Uint128(st.xs[j]).Bit(n, 0)
	}
	for i := range n {
		prg.ExpandSide(st.ch, st.s, st.sides)
		step(i)
		st.sides, st.next = st.next, st.sides
	}
}

// lastRow is the output correction word of point j's key.
func (st *fastEvalState) lastRow(cws []Cw, j, n int) *Cw { return &cws[st.off[j]/cwSize+n] }

// walkEval runs DPF Eval on the routines. With AES run by the routine, it checks the
// correction words as it reads them (see simd.FusedEval.Dpf), so dst may be partly
// written when they are refused. ChaCha batches of a chunk or more take the point
// walks, which keep each point's seed in a lane from level to level (DPF, 2^16
// keys: 196 against 216 ns a key level by level on the Intel Xeon VM).
func (f *fastDpf) walkEval(stp callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if f.chacha != nil && len(xs) > 1 && chachaWalksServe(len(xs)) {
		return dpfPointWalks(f.Dpf, f.chacha, stp, dst, party, s0s, cws, xs, m)
	}
	if len(xs) < minFastPoints {
		// One ChaCha point walks alone, in one routine call; a few go level by level,
		// whose PRG calls run up to four seeds in the latency of one.
		if f.chacha != nil && len(xs) == 1 {
			return f.evalOnePoints(stp, dst, party, s0s, cws, xs, m)
		}
		return f.Dpf.walkEval(stp, dst, party, s0s, cws, xs, m)
	}
	b := &pointBatch{dst, party, s0s, cws, xs, m, f.params.InBits, nil}
	if f.aes == nil {
		return f.evalLevels(stp, b)
	}
	return f.evalAes(stp, b)
}

// walkEvalKeyed is keyedWalks': the routines take points of several keys in one
// batch as they take one key's.
func (f *fastDpf) walkEvalKeyed(stp callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, keyOf []int32) (bool, error) {
	if len(xs) < minFastPoints {
		return false, nil
	}
	b := &pointBatch{dst, party, s0s, cws, xs, 0, f.params.InBits, keyOf}
	if f.aes == nil {
		return true, f.evalLevels(stp, b)
	}
	return true, f.evalAes(stp, b)
}

// evalAes is the DPF Eval whose routine (f.eval's) walks all levels and runs AES
// itself.
func (f *fastDpf) evalAes(stp callControl, b *pointBatch) error {
	keys, walk, size := f.aes.two(), f.eval, f.eval.DpfGroup
	if !f.kaOK {
		// The routine reads the output correction words only when it converts leaves.
		if err := f.checkLastRows(b.cws); err != nil {
			return err
		}
	}
	into := nodeOutputs(b.dst, b.xs)
	var bad atomic.Bool
	forFastTiles(stp, b, 1, func(j0, j1 int, buf *fastEvalState) {
		if f.kaOK {
			st, rows := buf.start(b, j0, j1, 1, size, into)
			if !walk.Dpf(kblocks(st.u), &rows, keys, &f.ka[b.party], st.prefetch(size, j0, b)) {
				bad.Store(true)
			}
			st.leavesTo(b.dst[j0:j1])
			return
		}
		st, rows := buf.start(b, j0, j1, 1, size, nil)
		if !walk.Dpf(kblocks(st.u), &rows, keys, nil, st.prefetch(size, j0, b)) {
			bad.Store(true)
		}
		f.leaves(b.dst[j0:j1], &st, b)
	})
	if bad.Load() {
		return refusal(f.checkCws, b.cws)
	}
	return nil
}

// evalLevels is the DPF Eval for PRGs the routines do not run: the PRG expands a
// tile's nodes a level at a time and a routine applies the corrections.
func (f *fastDpf) evalLevels(stp callControl, b *pointBatch) error {
	n, prg := b.n, f.prg
	return b.checkedTiles(stp, 1, f.checkCws, func(j0, j1 int, buf *fastEvalState) bool {
		st, rows := buf.start(b, j0, j1, 1, 4, nil)
		st.levels(n, prg, func(i int) {
			simd.DpfEvalLevel(kblocks(st.u), kblocks(st.s), st.sides, kblocks(st.ch), st.next, &rows, i, n-2-i)
		})
		f.leaves(b.dst[j0:j1], &st, b)
		// The levels read every level row of the tile's keys (and of key 0, whose
		// points pad the tile), so the OR of their words 4-7 checks them all.
		return isBit(Block(rows.DpfRowsOr())) && b.tileSound(j0, j1, f.checkLastRows)
	})
}

// leaves turns the tile's leaf nodes into outputs in Go.
func (f *fastDpf) leaves(dst []Block, st *fastEvalState, b *pointBatch) {
	ar := f.params.Group.arith()
	for j := range dst {
		x := st.u[j]
		dst[j] = dpfLeaf(ar, x.Clamp(), x.Lsb(), ar.from(st.lastRow(b.cws, j, b.n)[0]), b.party)
	}
}

// walkEval is fastDpf.walkEval for DCF; its AES routine checks the last correction
// words as it reads them.
func (f *fastDcf) walkEval(stp callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if f.chacha != nil && len(xs) > 1 && chachaWalksServe(len(xs)) {
		if served, err := dcfPointWalks(f.Dcf, f.chacha, stp, dst, party, s0s, cws, xs, m); served {
			return err
		}
	}
	switch {
	case len(xs) == 1 && f.chacha != nil:
		return f.evalOnePoints(stp, dst, party, s0s, cws, xs, m)
	case len(xs) < minFastPoints || !f.kaOK:
		return f.Dcf.walkEval(stp, dst, party, s0s, cws, xs, m)
	}
	b := &pointBatch{dst, party, s0s, cws, xs, m, f.params.InBits, nil}
	if f.aes != nil {
		return f.evalAes(stp, b)
	}
	n, ar, ka, prg := b.n, f.params.Group.arith(), &f.ka[party], f.prg
	return b.checkedTiles(stp, 2, f.checkCws, func(j0, j1 int, buf *fastEvalState) bool {
		st, rows := buf.start(b, j0, j1, 2, 4, nil)
		st.levels(n, prg, func(i int) {
			simd.DcfEvalLevel(kblocks(st.u), kblocks(st.s), kblocks(st.v), st.sides, kblocks(st.ch), st.next, &rows, i, n-2-i, ka)
		})
		for j := range j1 - j0 {
			x := st.u[j]
			dst[j0+j] = dcfLeaf(ar, x.Clamp(), x.Lsb(), st.v[j], st.lastRow(cws, j, n), party)
		}
		return b.tileSound(j0, j1, f.checkCws)
	})
}

// evalAes is the DCF Eval whose routine (f.eval's) walks all levels and runs AES
// itself; the group has lane masks (kaOK).
func (f *fastDcf) evalAes(stp callControl, b *pointBatch) error {
	keys, walk, size, ka := f.aes.four(), f.eval, f.eval.DcfGroup, &f.ka[b.party]
	into := nodeOutputs(b.dst, b.xs)
	var bad atomic.Bool
	forFastTiles(stp, b, 2, func(j0, j1 int, buf *fastEvalState) {
		st, rows := buf.start(b, j0, j1, 2, size, into)
		if !walk.Dcf(kblocks(st.u), &rows, keys, ka, st.prefetch(size, j0, b)) {
			bad.Store(true)
		}
		st.leavesTo(b.dst[j0:j1])
	})
	if bad.Load() {
		return refusal(f.checkCws, b.cws)
	}
	return nil
}
