package gofss

// Full-domain evaluation walks the tree breadth-first, a level at a time, so that
// every PRG call expands many nodes. Breadth-first over the whole domain would stream
// each level through memory, so the walk goes breadth-first to a frontier and then
// expands tiles of consecutive frontier nodes, each tile's levels staying in cache.

const (
	// tileLeafBits: a tile ends in 2^11 leaves; their state and the level above fit
	// in L2.
	tileLeafBits = 11
	// tileRootBits: a tile starts from 2^4 frontier nodes, so that even its first
	// PRG call carries 16 seeds.
	tileRootBits = 4
)

// nodes is the state of a row of tree nodes: clamped seeds s, control bits t and, for
// DCF, the value v accumulated along the path. raw is scratch for PRG output.
type nodes struct {
	s   []Block
	t   []uint8
	v   []Block
	raw []Block
}

func newNodes(n int, withV bool, raw int) nodes {
	nd := nodes{s: make([]Block, n), t: make([]uint8, n), raw: make([]Block, raw)}
	if withV {
		nd.v = make([]Block, n)
	}
	return nd
}

func (nd nodes) slice(lo, hi int) nodes {
	out := nodes{s: nd.s[lo:hi], t: nd.t[lo:hi], raw: nd.raw}
	if nd.v != nil {
		out.v = nd.v[lo:hi]
	}
	return out
}

// tree describes one scheme's walk for a batch of keys of n-bit inputs.
type tree struct {
	n      int
	withV  bool
	rawMul int     // PRG output blocks per expanded node that level needs as scratch
	costNs float64 // rough cost of one node expansion, for the parallel split
	root   func(k int, r nodes)
	level  func(k, i int, out, in nodes) // children of in (at level i) into out, in order
	leaves func(k, x0 int, l nodes)      // the leaves x0, x0+1, ... of key k
}

func (tr *tree) run(keys int) {
	d := tr.n
	if tr.n > tileLeafBits {
		d = tileLeafBits - tileRootBits
	}
	f := tr.n - d
	width := min(1<<tileRootBits, 1<<f)
	newTop := func() [2]nodes {
		if f == 0 {
			return [2]nodes{}
		}
		return [2]nodes{newNodes(1<<f, tr.withV, tr.rawMul<<(f-1)), newNodes(1<<f, tr.withV, 0)}
	}
	newTile := func() [2]nodes {
		return [2]nodes{newNodes(width<<d, tr.withV, tr.rawMul*width<<d/2), newNodes(width<<d, tr.withV, 0)}
	}
	perKey := tr.costNs * float64(uint64(1)<<tr.n)
	if keys > 1 && perKey < 4*minParallelNs {
		// Many small trees: each goroutine takes whole keys and reuses its buffers.
		forChunks(keys, perKey, func(lo, hi int) {
			top, tile := newTop(), newTile()
			for k := lo; k < hi; k++ {
				tr.tiles(k, d, tr.frontier(k, f, top), tile, 0, 1<<f)
			}
		})
		return
	}
	top := newTop()
	for k := range keys {
		front := tr.frontier(k, f, top)
		forChunks(1<<f, tr.costNs*float64(uint64(1)<<d), func(lo, hi int) {
			tr.tiles(k, d, front, newTile(), lo, hi)
		})
	}
}

// frontier expands key k breadth-first from its root down f levels.
func (tr *tree) frontier(k, f int, buf [2]nodes) nodes {
	root := newNodes(1, tr.withV, 0)
	tr.root(k, root)
	return tr.grow(k, 0, f, root, buf)
}

// tiles expands frontier nodes lo .. hi-1 of key k (at level n-d) d levels down to
// their leaves, 2^tileRootBits frontier nodes at a time.
func (tr *tree) tiles(k, d int, front nodes, buf [2]nodes, lo, hi int) {
	for j0 := lo; j0 < hi; j0 += 1 << tileRootBits {
		j1 := min(hi, j0+1<<tileRootBits)
		tr.leaves(k, j0<<d, tr.grow(k, tr.n-d, d, front.slice(j0, j1), buf))
	}
}

// grow expands cur, at level i, down the given number of levels, alternating
// between the two buffers (the first holds the PRG scratch), and returns the last row.
func (tr *tree) grow(k, i, levels int, cur nodes, buf [2]nodes) nodes {
	for l := range levels {
		out := buf[l%2].slice(0, 2*len(cur.s))
		out.raw = buf[0].raw
		tr.level(k, i+l, out, cur)
		cur = out
	}
	return cur
}
