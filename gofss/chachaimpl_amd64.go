//go:build amd64 && !purego

package gofss

import (
	"sync/atomic"
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/chacha"
)

// The "chacha" implementation: DPF and DCF Eval with the ChaCha PRG on a backend with
// the walk routines (AVX2 or AVX-512). A chunk of 8 (AVX2) or 16 (AVX-512) points
// walks down all its levels in one routine call (chacha.WalkPoints; AVX-512 takes
// two chunks a call, their rounds interleaved), the state transposed, a point per
// lane, which is bound by the PRG's throughput; the AVX-512 walks take these
// batches the same way (dpfPointWalks, dcfPointWalks). One point
// walks alone (chacha.WalkOne), bound by the latency of its chain of rounds. Between
// the two, the next walks' level-at-a-time Eval is faster: the PRG's rows routine
// runs up to 4 seeds in the latency of one, and a chunk would mostly compute
// padding (AVX2, in_bits 20: 1 point 2.2 us alone, 2.5 us on the next walks; 3
// points 3.5 us there, 4.5 us as a chunk; 8 points 4.8 us as a chunk, 5.2 us there).
// EvalAll's levels have the PRG routine correct the children itself
// (chacha.ExpandChildren, ExpandDcfChildren). Gen takes the next walks: the AVX-512
// ones where they serve, else the portable ones.

// ChachaImpl names the implementation (amd64 only).
const ChachaImpl = "chacha"

// chachaDpf and chachaDcf embed the next walks, for what they do not serve.
type chachaDpf struct {
	walks
	d   *Dpf
	prg *ChaCha
}

type chachaDcf struct {
	walks
	d   *Dcf
	prg *ChaCha
}

// chachaPrg returns prg if the implementation serves it: ChaCha on a backend with
// the walk routines (not the portable one, which tests and PYFSS_CHACHA_BACKEND
// may select).
func chachaPrg(prg Prg) *ChaCha {
	p, ok := prg.(*ChaCha)
	if !ok || chacha.PointLanes() == 0 {
		return nil
	}
	return p
}

func newChachaDpf(d *Dpf) walks {
	p := chachaPrg(d.prg)
	if p == nil {
		return nil
	}
	var rest walks = d
	if f := newFastDpf(d, false); f != nil {
		rest = f
	}
	return &chachaDpf{rest, d, p}
}

func newChachaDcf(d *Dcf) walks {
	p := chachaPrg(d.prg)
	if p == nil {
		return nil
	}
	var rest walks = d
	if f := newFastDcf(d, false); f != nil {
		rest = f
	}
	return &chachaDcf{rest, d, p}
}

// chachaWalksServe tells whether an Eval of this many points takes the point walks:
// one point, or at least a chunk's worth, and the routines run now (a test may have
// selected the portable backend since the walks were made).
func chachaWalksServe(points int) bool {
	lanes := chacha.PointLanes()
	return lanes > 0 && (points <= 1 || points >= lanes)
}

func (c *chachaDpf) walkEval(stp callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if !chachaWalksServe(len(xs)) {
		return c.walks.walkEval(stp, dst, party, s0s, cws, xs, m)
	}
	if len(xs) == 1 {
		if err := c.d.checkCws(cws); err != nil {
			return err
		}
		dpfOnePoints(c.prg, c.d.params, dst, party, s0s, cws, xs, m)
		stp.advance(1)
		return nil
	}
	return dpfPointWalks(c.d, c.prg, stp, dst, party, s0s, cws, xs, m)
}

// dpfPointWalks is a DPF Eval with prg on the point walks, at least a chunk's worth
// of points (the avx512 walks take this way too).
func dpfPointWalks(d *Dpf, prg *ChaCha, stp callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	n, ar := d.params.InBits, d.params.Group.arith()
	rows := d.params.cwRows()
	b := chachaBatch{stp, prg, n, party, s0s, cws, xs, m, rows, d.checkCws, d.checkLastRows}
	return b.walk(2, dpfTrByte, nil, func(j0 int, ch *chachaChunk) {
		for j := range ch.points {
			node, last := ch.nodes[j], &cws[ch.key[j]*rows+n]
			dst[j0+j] = dpfLeaf(ar, node.Clamp(), node.Lsb(), ar.from(last[0]), party)
		}
	})
}

// walkEval is chachaDpf's for DCF: the routine sums each point's value shares in
// the group's arithmetic, where the group has lane masks (all but uint127, which
// takes the next walks).
func (c *chachaDcf) walkEval(stp callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if !chachaWalksServe(len(xs)) {
		return c.walks.walkEval(stp, dst, party, s0s, cws, xs, m)
	}
	if len(xs) == 1 {
		if err := c.d.checkCws(cws); err != nil {
			return err
		}
		dcfOnePoints(c.prg, c.d.params, dst, party, s0s, cws, xs, m)
		stp.advance(1)
		return nil
	}
	if served, err := dcfPointWalks(c.d, c.prg, stp, dst, party, s0s, cws, xs, m); served {
		return err
	}
	return c.walks.walkEval(stp, dst, party, s0s, cws, xs, m)
}

// dcfPointWalks is dpfPointWalks for DCF, where the group has lane masks (all but
// uint127): served is false, with nothing done, for uint127.
func dcfPointWalks(d *Dcf, prg *ChaCha, stp callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) (served bool, err error) {
	lm, ok := d.params.Group.laneMasks()
	if !ok {
		return false, nil
	}
	arith := chachaArith(lm)
	n, ar := d.params.InBits, d.params.Group.arith()
	rows := d.params.cwRows()
	// A DCF key's check is of its last row alone: the walk checks nothing of its own.
	b := chachaBatch{stp, prg, n, party, s0s, cws, xs, m, rows, d.checkCws, d.checkCws}
	return true, b.walk(4, dcfTrByte, &arith, func(j0 int, ch *chachaChunk) {
		for j := range ch.points {
			node := ch.nodes[j]
			dst[j0+j] = dcfLeaf(ar, node.Clamp(), node.Lsb(), ch.sums[j], &cws[ch.key[j]*rows+n], party)
		}
	})
}

// chachaArith is a group's lane masks as the routines take them.
func chachaArith(lm laneMasks) chacha.Arith {
	return chacha.Arith{From: lm.from.Bytes(), Xor: lm.xor.Bytes(), Add: lm.add.Bytes()}
}

// chachaBatch is an Eval's arguments: len(xs)/m keys at m points each, n-bit inputs.
type chachaBatch struct {
	stp   callControl
	prg   *ChaCha
	n     int
	party int
	s0s   []Block
	cws   []Cw
	xs    []Uint128
	m     int
	rows  int                  // correction words per key
	check func(cws []Cw) error // the scheme's check of whole keys' correction words
	// checkLast is check without what the walk checks itself: the DPF level rows'
	// words 4-7, which the routine ORs into Points.RowsOr.
	checkLast func(cws []Cw) error
}

// chachaChunk is the points of one routine call of a batch (1 or 2 chunks, as
// chacha.Points has them).
type chachaChunk struct {
	w      chacha.Points
	points int       // the call's points; the lanes past them repeat its last one
	nodes  []Block   // w.Nodes: the roots, then the leaves
	paths  []Block   // w.Paths
	sums   []Block   // w.Sums (DCF): each point's path value
	key    [32]int   // the key of each lane's point (32: the most lanes, AVX-512's two chunks)
	offs   [32]int32 // w.Offs
	next   [32]int32 // w.Next
}

// walk runs the batch's points a chunk at a time, spread over goroutines, with mul
// PRG outputs per seed, the right child's control-bit correction at trByte and, for
// DCF, the group's arith, and hands each walked chunk, starting at point j0, to
// leaves. The routine reads only the rows' seed words and control bits (and DPF's
// words 4-7, into RowsOr), so any row values are safe to walk: each chunk's keys
// are checked right after its walk, their rows still in cache (checking all keys
// first read them from memory once more). Once a chunk's are refused the walk stops
// and returns the check of all keys, which names the first bad one, with dst partly
// written.
func (b *chachaBatch) walk(mul, trByte int, arith *chacha.Arith, leaves func(j0 int, ch *chachaChunk)) error {
	lanes, n, rows := chacha.PointLanes(), b.n, b.rows
	most := lanes * chacha.PointChunks() // points per call
	calls := (len(b.xs) + most - 1) / most
	var bad atomic.Bool
	forChunks(calls, float64(most)*evalCostNs(n, mul/2), func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		nodes, paths, sums := sc.block(most), sc.block(most), sc.block(most*(mul/4))
		ch := &chachaChunk{}
		for c := lo; c < hi && !b.stp.stopped() && !bad.Load(); c++ {
			j0 := c * most
			points := min(most, len(b.xs)-j0)
			// Whole chunks: the last call's points padded to one chunk where they fit.
			walked := (points + lanes - 1) / lanes * lanes
			ch.nodes, ch.paths = nodes[:walked], paths[:walked]
			ch.w = chacha.Points{
				Nodes: blockBytes(ch.nodes), Paths: blockBytes(ch.paths), Levels: n, Offs: ch.offs[:walked],
				Mul: mul, TrByte: trByte,
			}
			if mul == 4 {
				ch.sums = sums[:walked]
				ch.w.Sums, ch.w.Arith = blockBytes(ch.sums), arith
			}
			next := 0 // the next call's points in this goroutine's range, whose rows the walk fetches
			if c+1 < hi {
				next = min(most, len(b.xs)-j0-most)
			}
			b.load(ch, j0, points, next)
			ch.w.RowsOr = 0
			chacha.WalkPoints(&ch.w, b.prg.Nonce())
			if ch.w.RowsOr != 0 || b.checkLast(b.cws[j0/b.m*rows:((j0+points-1)/b.m+1)*rows]) != nil {
				bad.Store(true)
				return
			}
			leaves(j0, ch)
			b.stp.advance(ch.points)
		}
	})
	if bad.Load() {
		return refusal(b.check, b.cws)
	}
	return nil
}

// load sets ch up for the points j0 .. j0+points-1: each lane's root, path and rows,
// and the rows of the next call's next points (none for 0), which follow them.
func (b *chachaBatch) load(ch *chachaChunk, j0, points, next int) {
	n, lanes, rows := b.n, len(ch.w.Offs), b.rows
	ch.points = points
	k0 := j0 / b.m
	keys := b.keysFrom(j0, points)
	for j := range lanes {
		k := keys()
		ch.key[j] = k
		ch.nodes[j] = b.s0s[k].WithLsb(uint8(b.party))
		ch.offs[j] = int32((k - k0) * rows * cwSize)
		// The path's first level at the top.
		ch.paths[j] = Block(b.xs[j0+min(j, points-1)].shl(uint(128 - n)))
	}
	kEnd := ch.key[lanes-1] + 1
	ch.w.Next, ch.w.Ahead = nil, nil
	if next > 0 {
		keys := b.keysFrom(j0+points, next)
		for j := range lanes {
			k := keys()
			ch.next[j] = int32((k - k0) * rows * cwSize)
			kEnd = max(kEnd, k+1)
		}
		ch.w.Next = ch.next[:lanes]
	}
	ch.w.Rows = unsafe.Slice((*byte)(unsafe.Pointer(&b.cws[k0*rows])), (kEnd-k0)*rows*cwSize)
	if next > 0 {
		ch.w.Ahead = ch.w.Rows[ch.next[0]:]
	}
}

// keysFrom returns a function whose successive calls give the keys of points p0,
// p0+1, ..., p0+points-1 and then that last one's again: a division a call rather
// than one a lane (load's share of the Eval profile went from 6.5% to 4.4%).
func (b *chachaBatch) keysFrom(p0, points int) func() int {
	k, i := p0/b.m, p0%b.m // the key and the point's index among its m
	left := points
	return func() int {
		key := k
		if left--; left > 0 {
			if i++; i == b.m {
				k, i = k+1, 0
			}
		}
		return key
	}
}

// walkEvalAll is the EvalAll tree whose levels write each node's children corrected
// by the PRG routine itself (chacha.ExpandChildren), control bits in their lsb: no
// Go pass over the nodes. The leaves come out as outputs too where the group has
// lane masks; uint127's are converted here.
func (c *chachaDpf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	if chacha.PointLanes() == 0 {
		return c.walks.walkEvalAll(place, party, s0s, cws)
	}
	return dpfChildrenTree(c.d, c.prg, place, party, s0s, cws)
}

// dpfChildrenTree is a DPF EvalAll with prg on the children routines (the avx512
// walks take this way too: 0.97x their own tree's time, same runs).
func dpfChildrenTree(d *Dpf, prg *ChaCha, place outputs, party int, s0s []Block, cws []Cw) tree {
	n, rows, g, nonce := d.params.InBits, d.params.cwRows(), d.params.Group, prg.Nonce()
	ar := g.arith()
	lm, masks := g.laneMasks()
	// Every key's levels' child corrections and leaf masks, made once: the routines
	// take them through the backend's func values, so a value made per call would be
	// an allocation per tile and level.
	pairs := make([][2][16]byte, len(s0s)*n)
	for k := range s0s {
		for i := range n {
			l, r := dpfChildCws(&cws[k*rows+i])
			pairs[k*n+i] = [2][16]byte{l.Bytes(), r.Bytes()}
		}
	}
	var leafMasks []chacha.Leaf
	if masks {
		leafMasks = make([]chacha.Leaf, len(s0s))
		for k := range leafMasks {
			leafMasks[k] = chacha.Leaf{Arith: chachaArith(lm), Value: ar.from(cws[k*rows+n][0]).Bytes()}
			if party == 1 {
				leafMasks[k].Neg = lm.add.Bytes()
			}
		}
	}
	children := func(out, in []Block, k, i int, leaf *chacha.Leaf) {
		chacha.ExpandChildren(blockBytes(out), blockBytes(in), nonce, &pairs[k*n+i], leaf)
	}
	return tree{
		n:      n,
		shape:  rowShape{u: true},
		costNs: nodeCostNs(2),
		root: func(k int, r nodes) {
			r.u[0] = s0s[k].WithLsb(uint8(party))
		},
		level: func(k, i int, out, in nodes, _ []Block) {
			children(out.u, in.u, k, i, nil)
		},
		leaves: func(k, x0 int, in nodes, _ []Block) {
			out := place(k, x0, 2*len(in.u))
			if masks {
				children(out, in.u, k, n-1, &leafMasks[k])
				return
			}
			children(out, in.u, k, n-1, nil)
			v := ar.from(cws[k*rows+n][0])
			for j, x := range out {
				out[j] = dpfLeaf(ar, x.Clamp(), x.Lsb(), v, party)
			}
		},
	}
}

// walkEvalAll is chachaDpf's for DCF (chacha.ExpandDcfChildren): the routine also
// carries each node's path value, where the group has lane masks (uint127 takes the
// next walks).
func (c *chachaDcf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	if chacha.PointLanes() > 0 {
		if tr, ok := dcfChildrenTree(c.d, c.prg, place, party, s0s, cws); ok {
			return tr
		}
	}
	return c.walks.walkEvalAll(place, party, s0s, cws)
}

// dcfChildrenTree is dpfChildrenTree for DCF (the chacha walks' alone), where the
// group has lane masks (all but uint127): ok is false for uint127.
func dcfChildrenTree(d *Dcf, prg *ChaCha, place outputs, party int, s0s []Block, cws []Cw) (tr tree, ok bool) {
	lm, masks := d.params.Group.laneMasks()
	if !masks {
		return tr, false
	}
	n, rows, ar, nonce := d.params.InBits, d.params.cwRows(), d.params.Group.arith(), prg.Nonce()
	// Every key's levels, made once, as chachaDpf's pairs are (level i < n-1 for the
	// tree's level, which takes nodes at level i, n-1 for its leaves).
	levels := make([]chacha.DcfLevel, len(s0s)*n)
	for k := range s0s {
		for i := range n {
			cw, l := &cws[k*rows+i], &levels[k*n+i]
			*l = chacha.DcfLevel{Arith: chachaArith(lm), Leaf: i == n-1}
			l.Cws = [3][16]byte{dcfChildCw(cw, 0).Bytes(), dcfChildCw(cw, 1).Bytes(), ar.from(cw[1]).Bytes()}
			if l.Leaf {
				l.Last = ar.from(cws[k*rows+n][1]).Bytes()
				if party == 1 {
					l.Neg = lm.add.Bytes()
				}
			}
		}
	}
	return tree{
		n:      n,
		shape:  rowShape{u: true, v: true},
		costNs: nodeCostNs(4),
		root: func(k int, r nodes) {
			r.u[0], r.v[0] = s0s[k].WithLsb(uint8(party)), Block{} // v: the group's zero
		},
		level: func(k, i int, out, in nodes, _ []Block) {
			chacha.ExpandDcfChildren(blockBytes(out.u), blockBytes(out.v), blockBytes(in.u), blockBytes(in.v), nonce, &levels[k*n+i])
		},
		leaves: func(k, x0 int, in nodes, _ []Block) {
			out := place(k, x0, 2*len(in.u))
			chacha.ExpandDcfChildren(blockBytes(out), nil, blockBytes(in.u), blockBytes(in.v), nonce, &levels[k*n+n-1])
		},
	}, true
}
