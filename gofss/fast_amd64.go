//go:build amd64 && !purego

package gofss

import (
	"sync/atomic"
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/chacha"
	"github.com/pyfss/pyfss/gofss/internal/kernels"
)

// The fast walks: the same trees as the portable code, with the per-node steps done
// by package kernels (AVX-512) many nodes at a time. Nodes carry their control bit in
// the lsb of u instead of in a separate byte.

var kernelsAvailable = kernels.Available

func kblocks(b []Block) []kernels.Block {
	return unsafe.Slice((*kernels.Block)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

func kcws(cws []Cw) []kernels.Block {
	return unsafe.Slice((*kernels.Block)(unsafe.Pointer(unsafe.SliceData(cws))), 2*len(cws))
}

const cwSize = int(unsafe.Sizeof(Cw{}))

func kblock(b Block) kernels.Block { return kernels.Block(b) }

// kernelArith gives the group's masks for the kernels, for groups whose addition
// carries nothing from the low 64 bits into the high ones (all but uint127).
func kernelArith(g Group, party int) (kernels.Arith, bool) {
	a := g.arith()
	if a.fromShifted != 0 || a.addHi != 0 {
		return kernels.Arith{}, false
	}
	from := kernels.Block{Lo: a.valLo, Hi: a.fromHi}
	ka := kernels.Arith{From: from, Xor: kernels.Block{Lo: a.xorLo, Hi: a.xorHi}, Mask: from}
	if party == 1 {
		ka.Neg = kernels.Block{Lo: a.addLo, Hi: a.addHi}
	}
	return ka, true
}

func (d *Dpf) fastEvalAll(dst []Block, party int, s0s []Block, cws []Cw) (tree, bool) {
	ka, ok := kernelArith(d.group, party)
	if !ok || !useKernels(d.prg) {
		return tree{}, false
	}
	n, ar := d.inBits, d.group.arith()
	lanes := fusedAesKeys(d.prg).laneKeys()
	cwPair := func(k, i int) [2]kernels.Block {
		l, r := dpfChildCws(&cws[k*(n+1)+i])
		return [2]kernels.Block{kblock(l), kblock(r)}
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
			raw := prgRaw(d.prg, lanes != nil, out.u, in.s)
			cw := cwPair(k, i)
			kernels.DpfLevel(kblocks(out.u), kblocks(out.s), raw, kblocks(in.u), &cw, lanes)
		},
		leaves: func(k, x0 int, in nodes, _ []Block) {
			out := dst[k<<n+x0:][:2*len(in.s)]
			raw := prgRaw(d.prg, lanes != nil, out, in.s)
			cw, v := cwPair(k, n-1), ar.from(cws[k*(n+1)+n][0])
			kernels.DpfLeaves(kblocks(out), raw, kblocks(in.u), &cw, kblock(v), &ka, lanes)
		},
	}, true
}

func (d *Dcf) fastEvalAll(dst []Block, party int, s0s []Block, cws []Cw) (tree, bool) {
	ka, ok := kernelArith(d.group, party)
	if !ok || !useKernels(d.prg) {
		return tree{}, false
	}
	n, ar := d.inBits, d.group.arith()
	lanes := fusedAesKeys(d.prg).laneKeys()
	// level returns a level's corrections: seeds of the left and right child, and the
	// value correction in value form.
	level := func(k, i int) ([2]kernels.Block, kernels.Block) {
		cw := &cws[k*(n+1)+i]
		return [2]kernels.Block{kblock(dcfChildCw(cw, 0)), kblock(dcfChildCw(cw, 1))}, kblock(ar.from(cw[1]))
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
			kraw := prgRaw(d.prg, lanes != nil, raw, in.s)
			cw, vcw := level(k, i)
			kernels.DcfLevel(kblocks(out.u), kblocks(out.s), kblocks(out.v), kraw, kblocks(in.u), kblocks(in.v), &cw, vcw, &ka, lanes)
		},
		leaves: func(k, x0 int, in nodes, raw []Block) {
			kraw := prgRaw(d.prg, lanes != nil, raw, in.s)
			cw, vcw := level(k, n-1)
			last := kblock(ar.from(cws[k*(n+1)+n][1]))
			out := dst[k<<n+x0:][:2*len(in.s)]
			kernels.DcfLeaves(kblocks(out), kraw, kblocks(in.u), kblocks(in.v), &cw, vcw, last, &ka, lanes)
		},
	}, true
}

// aesKernelKeys are an aes128_mmo PRG's keys in the forms that the kernels running
// AES themselves take, made once with the PRG.
type aesKernelKeys struct {
	rounds []kernels.RoundKeys // the expanded keys, one per output
	lanes  *kernels.LaneKeys   // the same, laid out for the EvalAll kernels' lanes
}

// expandAesKeys makes the kernels' form of an aes128_mmo PRG's keys; nil where the
// CPU cannot run those kernels.
func expandAesKeys(keys [][16]byte) *aesKernelKeys {
	if !kernels.HasAES {
		return nil
	}
	k := &aesKernelKeys{rounds: make([]kernels.RoundKeys, len(keys))}
	for i, raw := range keys {
		k.rounds[i] = aes128.RoundKeys(raw)
	}
	k.lanes = kernels.NewLaneKeys(k.rounds)
	return k
}

// two and four are the expanded keys of a 2- or 4-output PRG (DPF's, DCF's); lanes
// the EvalAll kernels' form. All are nil on a nil receiver, where the kernels take
// the PRG output from the PRG instead.
func (k *aesKernelKeys) two() *[2]kernels.RoundKeys {
	if k == nil {
		return nil
	}
	return (*[2]kernels.RoundKeys)(k.rounds)
}

func (k *aesKernelKeys) four() *[4]kernels.RoundKeys {
	if k == nil {
		return nil
	}
	return (*[4]kernels.RoundKeys)(k.rounds)
}

func (k *aesKernelKeys) laneKeys() *kernels.LaneKeys {
	if k == nil {
		return nil
	}
	return k.lanes
}

// fusedAesKeys returns the kernels' form of prg's keys when prg is AES-128 MMO and the
// walk may run AES in the kernels: with the VAES backend selected, so that selecting
// another (as tests and benchmarks do) takes the walks off VAES too.
func fusedAesKeys(prg Prg) *aesKernelKeys {
	if p, ok := prg.(*AesMmo); ok && aes128.Backend() == aes128.VAES {
		return p.fused
	}
	return nil
}

// walkPath names the tree walks' implementation for a PRG whose backend is active:
// the AVX-512 kernels, running AES themselves for aes128_mmo on the VAES backend,
// or the portable code.
func walkPath(active string, aes bool) string {
	switch {
	case !useKernelsFlag || active == "generic":
		return "portable"
	case aes && active == aes128.VAES && kernels.HasAES:
		return "avx512-vaes"
	}
	return "avx512"
}

// prgRaw runs the PRG on the seeds in into raw for the kernels, or returns nil when
// they run it themselves (fused).
func prgRaw(prg Prg, fused bool, raw, in []Block) []kernels.Block {
	if fused {
		return nil
	}
	prg.Expand(raw, in)
	return kblocks(raw)
}

// fastEvalState is the scratch of a fast Eval for a tile of points, padded to the
// kernels' step with points of key 0 at x = 0.
type fastEvalState struct {
	u, s, v, ch, xs []Block
	sides, next     []uint8
	off             []int
	pf              []int // the fused kernels' prefetch ranges: two per group of points
}

func newFastEvalState(sc *scratch, half int) *fastEvalState {
	return &fastEvalState{
		u: sc.block(evalTile), s: sc.block(evalTile), v: sc.block(evalTile), ch: sc.block(half * evalTile),
		xs: sc.block(evalTile), sides: sc.byte(evalTile), next: sc.byte(evalTile), off: sc.int(evalTile),
		pf: sc.int(evalTile / 8),
	}
}

// prefetch sets, for each group of size points of a tile starting at point j0 of a
// batch of total points (m per key), the bytes of cws that hold the next group's keys.
func (st *fastEvalState) prefetch(size, j0, total, m, n int) []int {
	pf := st.pf[:2*len(st.u)/size]
	for g := range len(pf) / 2 {
		lo, hi := j0+size*(g+1), min(total, j0+size*(g+2))
		pf[2*g], pf[2*g+1] = 0, 0
		if lo < hi {
			pf[2*g], pf[2*g+1] = lo/m*(n+1)*cwSize, ((hi-1)/m+1)*(n+1)*cwSize
		}
	}
	return pf
}

// start loads points j0 .. j0+len(xs)-1 of a batch with m points per key, padded to
// a multiple of step with points of key 0 at x = 0: root nodes, inputs and where
// each point's key's correction words start. A full tile's inputs are read in place,
// and its nodes kept in into[j0:] (the batch's outputs, or nil: never) for kernels
// that turn nodes into outputs in place: the tile's outputs are then where the
// caller wants them (see leavesTo and nodeOutputs).
func (st *fastEvalState) start(n, party int, s0s []Block, xs []Uint128, m, j0 int, cws []Cw, half, step int, into []Block) (fastEvalState, kernels.EvalRows) {
	w := len(xs)
	p := (w + step - 1) / step * step
	t := fastEvalState{
		u: st.u[:p], s: st.s[:p], v: st.v[:p], ch: st.ch[:half*p], xs: st.xs[:p],
		sides: st.sides[:p], next: st.next[:p], off: st.off[:p], pf: st.pf,
	}
	if into != nil && w == p {
		t.u = into[j0 : j0+p]
	}
	stride, lsb := (n+1)*cwSize, uint8(party)
	if m == 1 { // one point per key, the common case: no key counter to keep
		for j, s0 := range s0s[j0 : j0+w] {
			t.u[j], t.off[j] = s0.WithLsb(lsb), (j0+j)*stride
		}
	} else {
		k, r := j0/m, j0%m
		for j := range w {
			t.u[j], t.off[j] = s0s[k].WithLsb(lsb), k*stride
			if r++; r == m {
				k, r = k+1, 0
			}
		}
	}
	root := s0s[0].Clamp().WithLsb(lsb)
	for j := w; j < p; j++ {
		t.u[j], t.off[j] = root, 0
	}
	if w == p {
		t.xs = unsafe.Slice((*Block)(unsafe.Pointer(unsafe.SliceData(xs))), w)
	} else {
		copy(t.xs, unsafe.Slice((*Block)(unsafe.Pointer(unsafe.SliceData(xs))), w))
		clear(t.xs[w:])
	}
	return t, kernels.NewEvalRows(kblocks(t.xs), t.off, kcws(cws), n)
}

// nodeOutputs is the into argument of fastEvalState.start: dst, or nil where dst
// shares memory with xs, which a full tile reads in place while the kernel runs.
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

// fastEval runs Eval with the kernels if they apply and reports whether it did,
// with Eval's result. With AES the kernel checks the correction words as it reads
// them (see kernels.DpfEvalAes), so dst may be partly written when they are refused.
// minFastPoints: the kernels work on groups of 16 or 32 points, padding short
// batches; below this many points the portable walk is faster (one DPF point at
// in_bits 20: 1.5 us portable, 2.3 us padded to a group).
const minFastPoints = 8

func (d *Dpf) fastEval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) (bool, error) {
	if !useKernels(d.prg) {
		return false, nil
	}
	if len(xs) < minFastPoints {
		return d.walkPoints(dst, party, s0s, cws, xs, m)
	}
	keys := fusedAesKeys(d.prg).two()
	if keys == nil {
		if err := d.checkCws(cws); err != nil {
			return true, err
		}
		d.evalLevels(dst, party, s0s, cws, xs, m)
		return true, nil
	}
	n, ar := d.inBits, d.group.arith()
	ka, leafKernel := kernelArith(d.group, party)
	if !leafKernel {
		// The kernel reads the output correction words only when it converts leaves.
		if err := d.checkLastRows(cws); err != nil {
			return true, err
		}
	}
	into := nodeOutputs(dst, xs)
	var bad atomic.Bool
	forFastTiles(len(xs), evalCostNs(n, 1), 1, func(j0, j1 int, buf *fastEvalState) {
		if leafKernel {
			st, rows := buf.start(n, party, s0s, xs[j0:j1], m, j0, cws, 1, 32, into)
			if !kernels.DpfEvalAes(kblocks(st.u), &rows, keys, &ka, st.prefetch(32, j0, len(xs), m, n)) {
				bad.Store(true)
			}
			st.leavesTo(dst[j0:j1])
			return
		}
		st, rows := buf.start(n, party, s0s, xs[j0:j1], m, j0, cws, 1, 32, nil)
		pf := st.prefetch(32, j0, len(xs), m, n)
		if !kernels.DpfEvalAes(kblocks(st.u), &rows, keys, nil, pf) {
			bad.Store(true)
		}
		d.fastLeaves(dst[j0:j1], &st, cws, ar, party)
	})
	if bad.Load() {
		return true, d.checkCws(cws)
	}
	return true, nil
}

// Where a row keeps the right child's control-bit correction (bit 0 of this byte):
// DPF word 4, DCF word 7.
const (
	dpfTrByte = 16
	dcfTrByte = 28
)

// walkPoints evaluates a short batch with ChaCha a point at a time, each point's
// levels in one kernel call: a point's levels are a chain of one-seed PRG calls, and
// the Go around each call costs about a quarter of it. Other PRGs take the portable
// walk.
func (d *Dpf) walkPoints(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) (bool, error) {
	n, ar := d.inBits, d.group.arith()
	return walkPoints(d.prg, d, n, dst, party, s0s, cws, xs, m, dpfTrByte, nil, nil,
		func(key []Cw, s Block, t uint8) Block { return dpfLeaf(ar, s, t, ar.from(key[n][0]), party) })
}

// walkPoints is Dpf.walkPoints for DCF: the kernel hands back each level's value
// output and control bit, from which the path's value is summed here.
func (d *Dcf) walkPoints(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) (bool, error) {
	n, ar := d.inBits, d.group.arith()
	var raws [MaxInBits]Block
	var ts [MaxInBits]uint8
	return walkPoints(d.prg, d, n, dst, party, s0s, cws, xs, m, dcfTrByte, raws[:n], ts[:n],
		func(key []Cw, s Block, t uint8) Block {
			var v Block
			for i := range n {
				v = dcfValue(ar, v, raws[i], &key[i], ts[i])
			}
			return dcfLeaf(ar, s, t, v, &key[n], party)
		})
}

// walkPoints is the driver of both: after the key check, each point's walk (with
// raws and ts receiving DCF's per-level outputs) and its leaf's output.
func walkPoints(prg Prg, w pointWalker, n int, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, trByte int,
	raws []Block, ts []uint8, leaf func(key []Cw, s Block, t uint8) Block) (bool, error) {
	p, ok := prg.(*ChaCha)
	if !ok {
		return false, nil
	}
	if err := w.checkCws(cws); err != nil {
		return true, err
	}
	for j, x := range xs {
		key := cws[j/m*(n+1):][:n+1]
		s, t := p.walk(key[:n], x, s0s[j/m].Clamp(), uint8(party), trByte, raws, ts)
		dst[j] = leaf(key, s, t)
	}
	return true, nil
}

// walk runs one point's levels (rows: its key's first n correction words; path: the
// n bits of x) in one kernel call, from seed s with control bit t; see
// chacha.WalkOne. values and bits receive DCF's per-level outputs (nil for DPF).
// Callers come through useKernels, which passes ChaCha only on a backend with
// kernels; without one this panics rather than fall back unseen.
func (p *ChaCha) walk(rows []Cw, x Uint128, s Block, t uint8, trByte int, values []Block, bits []uint8) (Block, uint8) {
	n := len(rows)
	var sides [MaxInBits]uint8
	for i := range n {
		sides[i] = x.Bit(n, i)
	}
	w := chacha.Walk{
		Rows: blockBytes(unsafe.Slice(&rows[0][0], 2*n)), Sides: sides[:n], Mul: p.mul, TrByte: trByte,
		Values: blockBytes(values), Bits: bits,
	}
	leaf, tOut, ok := chacha.WalkOne(&w, p.nonce, s.Bytes(), t)
	if !ok {
		panic("gofss: the ChaCha backend " + chacha.Backend() + " has no walk kernel")
	}
	return BlockFromBytes(leaf), tOut
}

// forFastTiles runs fn on tiles [j0, j1) of at most evalTile of n points, spread over
// goroutines, each with its own scratch for half PRG outputs per point.
func forFastTiles(n int, costNs float64, half int, fn func(j0, j1 int, buf *fastEvalState)) {
	forChunks(n, costNs, func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		buf := newFastEvalState(sc, half)
		for j0 := lo; j0 < hi; j0 += evalTile {
			fn(j0, min(hi, j0+evalTile), buf)
		}
	})
}

// evalLevels is the fast Eval for PRGs other than AES: the PRG expands a tile's
// nodes a level at a time and a kernel applies the corrections.
func (d *Dpf) evalLevels(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) {
	n, ar := d.inBits, d.group.arith()
	forFastTiles(len(xs), evalCostNs(n, 1), 1, func(j0, j1 int, buf *fastEvalState) {
		st, rows := buf.start(n, party, s0s, xs[j0:j1], m, j0, cws, 1, 4, nil)
		st.levels(n, d.prg, func(i int) {
			kernels.DpfEvalLevel(kblocks(st.u), kblocks(st.s), st.sides, kblocks(st.ch), st.next, &rows, i, n-2-i)
		})
		d.fastLeaves(dst[j0:j1], &st, cws, ar, party)
	})
}

func (d *Dpf) fastLeaves(dst []Block, st *fastEvalState, cws []Cw, ar *arith, party int) {
	for j := range dst {
		x := st.u[j]
		dst[j] = dpfLeaf(ar, x.Clamp(), x.Lsb(), ar.from(st.lastRow(cws, j, d.inBits)[0]), party)
	}
}

// fastEval is Dpf.fastEval for DCF; its AES kernel checks the last correction words.
func (d *Dcf) fastEval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) (bool, error) {
	if !useKernels(d.prg) {
		return false, nil
	}
	if len(xs) < minFastPoints {
		return d.walkPoints(dst, party, s0s, cws, xs, m)
	}
	// ka is declared after the cheap checks: it lives on the heap, and short
	// batches should not pay for it.
	ka, ok := kernelArith(d.group, party)
	if !ok {
		return false, nil
	}
	n, ar := d.inBits, d.group.arith()
	keys := fusedAesKeys(d.prg).four()
	if keys == nil {
		if err := d.checkCws(cws); err != nil {
			return true, err
		}
	}
	into := nodeOutputs(dst, xs)
	var bad atomic.Bool
	forFastTiles(len(xs), evalCostNs(n, 2), 2, func(j0, j1 int, buf *fastEvalState) {
		if keys != nil {
			st, rows := buf.start(n, party, s0s, xs[j0:j1], m, j0, cws, 2, 16, into)
			if !kernels.DcfEvalAes(kblocks(st.u), &rows, keys, &ka, st.prefetch(16, j0, len(xs), m, n)) {
				bad.Store(true)
			}
			st.leavesTo(dst[j0:j1])
			return
		}
		st, rows := buf.start(n, party, s0s, xs[j0:j1], m, j0, cws, 2, 4, nil)
		st.levels(n, d.prg, func(i int) {
			kernels.DcfEvalLevel(kblocks(st.u), kblocks(st.s), kblocks(st.v), st.sides, kblocks(st.ch), st.next, &rows, i, n-2-i, &ka)
		})
		for j := range j1 - j0 {
			x := st.u[j]
			dst[j0+j] = dcfLeaf(ar, x.Clamp(), x.Lsb(), st.v[j], st.lastRow(cws, j, n), party)
		}
	})
	if bad.Load() {
		return true, d.checkCws(cws)
	}
	return true, nil
}

// genTile is the number of keys a fast Gen takes down the tree together.
const genTile = 128

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

func newFastGenState(sc *scratch, mul int, cws []Cw, n int) *fastGenState {
	st := &fastGenState{
		u0: sc.block(genTile), u1: sc.block(genTile), s: sc.block(2 * genTile), ch: sc.block(2 * mul * genTile),
		alphas: sc.block(genTile), vs: sc.block(genTile), betas: sc.block(genTile),
	}
	if len(cws)*cwSize >= ntMinBytes {
		b := sc.block(2 * genTile * (n + 1))
		st.stage = unsafe.Slice((*Cw)(unsafe.Pointer(unsafe.SliceData(b))), genTile*(n+1))
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
		kernels.CopyNT(kcws(out), kcws(st.stage[:len(out)]))
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

// forGenTiles runs fn on the tiles of a fast Gen (keys k0 to k1, at most genTile),
// spread over goroutines, for a PRG of mul outputs: st holds the tile's keys at the
// root, rows describe them to the kernels, and w receives their correction words.
func forGenTiles(n, mul int, cws []Cw, s0s []Block, alphas []Uint128, fn func(st *fastGenState, k0, k1 int, rows *kernels.GenRows, w []Cw)) {
	forChunks(len(alphas), genCostNs(n, mul), func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		buf := newFastGenState(sc, mul, cws, n)
		for k0 := lo; k0 < hi; k0 += genTile {
			k1 := min(hi, k0+genTile)
			st := buf.start(s0s[2*k0:2*k1], alphas[k0:k1], mul)
			out := cws[k0*(n+1) : k1*(n+1)]
			w := st.rows(out)
			rows := kernels.GenRows{Alphas: kblocks(st.alphas), Cws: kcws(w), Keys: k1 - k0, Levels: n}
			fn(&st, k0, k1, &rows, w)
			st.done(out)
		}
	})
}

func (d *Dpf) fastGen(cws []Cw, s0s []Block, alphas []Uint128, betas []Block) bool {
	if !useKernels(d.prg) {
		return false
	}
	n, ar := d.inBits, d.group.arith()
	keys := fusedAesKeys(d.prg).two()
	forGenTiles(n, 2, cws, s0s, alphas, func(st *fastGenState, k0, k1 int, rows *kernels.GenRows, w []Cw) {
		for i := range n {
			ch := prgRaw(d.prg, keys != nil, st.ch, st.s)
			kernels.DpfGenLevel(kblocks(st.u0), kblocks(st.u1), kblocks(st.s), ch, rows, i, keys)
		}
		for j := range k1 - k0 {
			u0, u1 := st.u0[j], st.u1[j]
			w[j*(n+1)+n] = Cw{dpfLastCw(ar, betas[k0+j], u0.Clamp(), u1.Clamp(), u1.Lsb())}
		}
	})
	return true
}

func (d *Dcf) fastGen(cws []Cw, s0s []Block, alphas []Uint128, betas []Block) bool {
	ka, ok := kernelArith(d.group, 1)
	if !ok || !useKernels(d.prg) {
		return false
	}
	n, ar := d.inBits, d.group.arith()
	keys := fusedAesKeys(d.prg).four()
	forGenTiles(n, 4, cws, s0s, alphas, func(st *fastGenState, k0, k1 int, rows *kernels.GenRows, w []Cw) {
		for j := range st.betas {
			st.vs[j], st.betas[j] = Block{}, Block{}
			if j < k1-k0 {
				st.betas[j] = ar.from(betas[k0+j])
			}
		}
		for i := range n {
			ch := prgRaw(d.prg, keys != nil, st.ch, st.s)
			kernels.DcfGenLevel(kblocks(st.u0), kblocks(st.u1), kblocks(st.s), ch, kblocks(st.vs), kblocks(st.betas), rows, i, d.pred == Gt, &ka, keys)
		}
		for j := range k1 - k0 {
			u0, u1 := st.u0[j], st.u1[j]
			w[j*(n+1)+n] = Cw{Block{}, dcfLastCw(ar, u0.Clamp(), u1.Clamp(), u1.Lsb(), st.vs[j])}
		}
	})
	return true
}
