package gofss

import "math/bits"

// Full-domain evaluation over part of the domain, the inputs [start, stop)
// (docs/spec.md section 13, "Sub-range evaluation"). The range splits into aligned
// runs of 2^d inputs, each the leaves of one subtree of depth d. A run is walked by
// the scheme's own full-domain walk, started from the subtree's root, which a
// descent along the root's path reaches one level at a time with that walk's own
// level step: every implementation of the walks serves a run as it is, only the
// root, the level numbers and where the leaves go differ. A run of one input, at an
// odd start or before an odd stop, is a point: it goes through Eval.

// RangeScheme is a Scheme whose full-domain evaluation also runs over part of the
// domain: Dpf, Dcf and HalfTreeDpf are. (Grotto DCF is not: a share at x needs the
// leaves at every input up to x.)
type RangeScheme interface {
	Scheme
	EvalAllRange(dst []Block, party int, s0s []Block, cws []Cw, start, stop uint64) error
}

// EvalAllRange evaluates K = len(s0s) keys of one party at the inputs start ..
// stop-1: key k at x into dst[k*(stop-start) + x-start], the blocks EvalAll writes
// at x, for in_bits n up to MaxEvalAllBits. Any 0 <= start <= stop <= 2^n will do;
// start == stop evaluates nothing. A range of 2^d inputs from a multiple of 2^d
// costs about what EvalAll of in_bits d does, plus n-d PRG expansions per key to
// reach its subtree; any other range costs at most about that of the aligned ones
// around it. The Control counts outputs, as
// for EvalAll.
func (s *treeScheme) EvalAllRange(dst []Block, party int, s0s []Block, cws []Cw, start, stop uint64) error {
	if err := checkRangeArgs(&s.params, dst, party, s0s, cws, start, stop); err != nil {
		return err
	}
	if err := s.walks.checkCws(cws); err != nil {
		return err
	}
	if err := s.evalRuns(dst, party, s0s, cws, start, stop); err != nil {
		return err
	}
	return s.ctl.err()
}

// evalRuns evaluates the range [start, stop), which the caller checked, run by run,
// until done or stopped.
func (s *treeScheme) evalRuns(dst []Block, party int, s0s []Block, cws []Cw, start, stop uint64) error {
	n, width := s.params.InBits, int(stop-start)
	adviseHugePages(dst) // a fresh dst faults once per huge page, not per 4 KiB
	place := func(k, x, m int) []Block { return dst[k*width+x-int(start):][:m] }
	tr := s.walks.walkEvalAll(place, party, s0s, cws)
	var points []uint64
	for _, r := range alignedRuns(start, stop, n) {
		if r.depth == 0 {
			points = append(points, r.start)
			continue
		}
		if s.ctl.stopped() {
			return nil
		}
		sub := tr.below(n-r.depth, r.start>>r.depth)
		sub.run(s.ctl, len(s0s))
	}
	if len(points) == 0 || s.ctl.stopped() {
		return nil
	}
	// The runs of one input, of every key, in one Eval: key k's at ys[k*m:].
	m := len(points)
	xs, ys := make([]Uint128, len(s0s)*m), make([]Block, len(s0s)*m)
	for k := range s0s {
		for j, x := range points {
			xs[k*m+j] = Uint128{Lo: x}
		}
	}
	if err := s.walks.walkEval(s.ctl, ys, party, s0s, cws, xs, m); err != nil {
		return err
	}
	for k := range s0s {
		for j, x := range points {
			place(k, int(x), 1)[0] = ys[k*m+j]
		}
	}
	return nil
}

// alignedRun is the run of 2^depth inputs from start, a multiple of 2^depth: the
// leaves of the subtree at level n-depth on the path start>>depth.
type alignedRun struct {
	start uint64
	depth int
}

// alignedRuns splits [start, stop) into the fewest aligned runs, in order, each as
// long as its start's alignment and what is left of the range allow: at most 2n
// runs, and a single one for an aligned range.
func alignedRuns(start, stop uint64, n int) []alignedRun {
	var runs []alignedRun
	for x := start; x < stop; {
		d := min(bits.TrailingZeros64(x), bits.Len64(stop-x)-1, n)
		runs = append(runs, alignedRun{x, d})
		x += 1 << d
	}
	return runs
}

// below is the walk of the subtree of tr whose root is the node at level p on the
// path prefix (p bits): a tree of depth n-p whose leaves are the inputs
// prefix<<(n-p) onwards. tr must be at least p+1 levels deep.
func (tr tree) below(p int, prefix uint64) tree {
	if p == 0 {
		return tr
	}
	sub := tr
	sub.n = tr.n - p
	x0 := int(prefix << sub.n)
	sub.root = func(k int, r nodes) { tr.descend(k, p, prefix, r) }
	sub.level = func(k, i int, out, in nodes, raw []Block) { tr.level(k, p+i, out, in, raw) }
	sub.leaves = func(k, x int, in nodes, raw []Block) { tr.leaves(k, x0+x, in, raw) }
	return sub
}

// descend writes to r, a row of one node, key k's node at level p on the path
// prefix: from the root, each level expands the one node of the path and keeps the
// child the path takes. For DCF the node carries the value accumulated on the way.
func (tr tree) descend(k, p int, prefix uint64, r nodes) {
	sc := getScratch()
	defer sc.release()
	cur, children := newNodes(sc, 1, tr.shape), newNodes(sc, 2, tr.shape)
	raw := sc.block(tr.rawMul) // the level step's scratch for one parent
	tr.root(k, cur)
	for i := range p {
		tr.level(k, i, children, cur, raw)
		cur.set(0, children, int(prefix>>(p-1-i)&1))
	}
	r.set(0, cur, 0)
}

// set copies node j of src into node i of nd, both rows of the same shape.
func (nd nodes) set(i int, src nodes, j int) {
	nd.s[i] = src.s[j]
	if nd.t != nil {
		nd.t[i] = src.t[j]
	}
	if nd.u != nil {
		nd.u[i] = src.u[j]
	}
	if nd.v != nil {
		nd.v[i] = src.v[j]
	}
}

// checkRangeArgs checks EvalAllRange's arguments.
func checkRangeArgs(p *Params, dst []Block, party int, s0s []Block, cws []Cw, start, stop uint64) error {
	if err := checkParty(party); err != nil {
		return err
	}
	n := p.InBits
	if n > MaxEvalAllBits {
		return ArgErrorf("in_bits %d is too large for full-domain evaluation (at most %d)", n, MaxEvalAllBits)
	}
	if start > stop {
		return ArgErrorf("start must be at most stop, not %d > %d", start, stop)
	}
	if stop > 1<<n {
		return ArgErrorf("stop must be at most 2**%d (the domain's size), not %d", n, stop)
	}
	width, keys := stop-start, uint64(len(s0s))
	if hi, lo := bits.Mul64(width, keys); hi != 0 || lo != uint64(len(dst)) {
		return ArgErrorf("dst must hold stop-start = %d blocks per key (%d keys), not %d", width, keys, len(dst))
	}
	return checkCwsLen(p, len(s0s), len(cws))
}
