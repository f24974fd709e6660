package gofss

// Full-domain evaluation walks the tree breadth-first, a level at a time, so that
// every PRG call expands many nodes. Breadth-first over the whole domain would stream
// each level through memory, so the walk goes breadth-first to a frontier and then
// expands tiles of consecutive frontier nodes, each tile's levels staying in cache.
// The last level of a tile expands straight into the caller's output.

const (
	// tileLeafBits: a tile ends in 2^11 leaves; their state and the level above fit
	// in L2.
	tileLeafBits = 11
	// tileRootBits: a tile starts from 2^4 frontier nodes, so that even its first
	// PRG call carries 16 seeds.
	tileRootBits = 4
)

// nodes is the state of a row of tree nodes. The portable walk keeps control bits in
// t; the routines keep each seed with its control bit in the lsb, in u. Either way s
// holds the clamped seeds, which the PRG reads, and for DCF v holds the value
// accumulated along each node's path.
type nodes struct {
	s []Block
	t []uint8
	u []Block
	v []Block
}

// rowShape says which of the optional node fields a walk uses.
type rowShape struct{ t, u, v bool }

func newNodes(sc *scratch, n int, sh rowShape) nodes {
	nd := nodes{s: sc.block(n)}
	if sh.t {
		nd.t = sc.byte(n)
	}
	if sh.u {
		nd.u = sc.block(n)
	}
	if sh.v {
		nd.v = sc.block(n)
	}
	return nd
}

func (nd nodes) slice(lo, hi int) nodes {
	out := nodes{s: nd.s[lo:hi]}
	if nd.t != nil {
		out.t = nd.t[lo:hi]
	}
	if nd.u != nil {
		out.u = nd.u[lo:hi]
	}
	if nd.v != nil {
		out.v = nd.v[lo:hi]
	}
	return out
}

// rows are the buffers of a walk: two rows of nodes to alternate between, and
// scratch for the PRG output of one row of parents.
type rows struct {
	row [2]nodes
	raw []Block
}

// tree describes one scheme's walk for a batch of keys of n-bit inputs.
type tree struct {
	n      int
	shape  rowShape
	rawMul int     // PRG output blocks per parent that level and leaves need as scratch
	costNs float64 // rough cost of one node expansion, for the parallel split
	root   func(k int, r nodes)
	// level writes the children of in (nodes at level i) into out, in order.
	level func(k, i int, out, in nodes, raw []Block)
	// leaves expands in (nodes at level n-1) into the outputs of key k at x0, x0+1, ...
	leaves func(k, x0 int, in nodes, raw []Block)
}

// outputs places the leaves of a walk: the outputs of key k at inputs x .. x+m-1 go
// to the m blocks it returns. The walks leave the layout of the caller's outputs to
// it, so that a walk below a subtree (EvalAllRange) writes where the range asks.
type outputs func(k, x, m int) []Block

func (tr *tree) rows(sc *scratch, size, parents int) rows {
	return rows{[2]nodes{newNodes(sc, size, tr.shape), newNodes(sc, size, tr.shape)}, sc.block(tr.rawMul * parents)}
}

// run walks the trees of keys keys, spread over goroutines, until done or stopped.
func (tr *tree) run(st callControl, keys int) {
	if keys == 0 {
		return // no scratch for trees that do not exist (2^n of it at in_bits n)
	}
	d, f, tileRows := tr.split()
	perKey := tr.costNs * float64(uint64(1)<<tr.n)
	if keys > 1 && perKey < 4*minParallelNs {
		// Many small trees: each goroutine takes whole keys and reuses its buffers.
		tr.runInOrder(st, keys)
		return
	}
	sc := getScratch()
	defer sc.release()
	top := tr.rows(sc, 1<<f, 1<<f/2)
	for k := 0; k < keys && !st.stopped(); k++ {
		front := tr.frontier(sc, k, f, top)
		forChunks(1<<f, tr.costNs*float64(uint64(1)<<d), func(lo, hi int) {
			sc := getScratch()
			defer sc.release()
			tr.tiles(st, k, d, front, tr.rows(sc, tileRows, tileRows), lo, hi)
		})
	}
}

// runInOrder walks the trees of keys keys, spread over goroutines a key at a time:
// each key's leaves are expanded on one goroutine, in order.
func (tr *tree) runInOrder(st callControl, keys int) {
	d, f, tileRows := tr.split()
	forChunks(keys, tr.costNs*float64(uint64(1)<<tr.n), func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		top, tile := tr.rows(sc, 1<<f, 1<<f/2), tr.rows(sc, tileRows, tileRows)
		for k := lo; k < hi && !st.stopped(); k++ {
			tr.tiles(st, k, d, tr.frontier(sc, k, f, top), tile, 0, 1<<f)
		}
	})
}

// runGroups walks the trees of keys keys in groups of up to size keys, spread over
// goroutines a group at a time, the keys of a group tile by tile in step: once the
// tile of inputs x0 .. of each key k0+i has grown to the level above its leaves
// (lasts[i]), fold(k0, x0, lasts, raw) expands them. So the caller sees the leaves
// of a group's keys side by side, in input order. newFold makes each goroutine's
// fold, its buffers carved from sc, for tiles of up to leaves leaves.
func (tr *tree) runGroups(st callControl, keys, size int, newFold func(sc *scratch, leaves int) func(k0, x0 int, lasts []nodes, raw []Block)) {
	d, f, tileRows := tr.split()
	groups := (keys + size - 1) / size
	forChunks(groups, tr.costNs*float64(size)*float64(uint64(1)<<tr.n), func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		fold := newFold(sc, 2*tileRows)
		tops, tiles := make([]rows, size), make([]rows, size)
		fronts, lasts := make([]nodes, size), make([]nodes, size)
		// A frontier's last level goes to row (f-1)%2 of its rows, each key's own;
		// the levels above it alternate with a row the group's keys share.
		shared := tr.rows(sc, 1<<f, 1<<f/2)
		for i := range size {
			tops[i], tiles[i] = shared, tr.rows(sc, tileRows, tileRows)
			if f > 0 {
				tops[i].row[(f-1)%2] = newNodes(sc, 1<<f, tr.shape)
			}
		}
		for g := lo; g < hi && !st.stopped(); g++ {
			k0, k1 := g*size, min(keys, (g+1)*size)
			for i := range k1 - k0 {
				fronts[i] = tr.frontier(sc, k0+i, f, tops[i])
			}
			for j0 := 0; j0 < 1<<f && !st.stopped(); j0 += 1 << tileRootBits {
				j1 := min(1<<f, j0+1<<tileRootBits)
				for i := range k1 - k0 {
					lasts[i] = tr.grow(k0+i, tr.n-d, d-1, fronts[i].slice(j0, j1), tiles[i])
				}
				fold(k0, j0<<d, lasts[:k1-k0], tiles[0].raw)
				st.advance((k1 - k0) * (j1 - j0) << d)
			}
		}
	})
}

// split returns the levels d of a tile (n - d frontier levels above them, f) and the
// parents of a tile's leaves.
func (tr *tree) split() (d, f, tileRows int) {
	d = tr.n
	if tr.n > tileLeafBits {
		d = tileLeafBits - tileRootBits
	}
	f = tr.n - d
	width := min(1<<tileRootBits, 1<<f)
	return d, f, width << (d - 1)
}

// frontier expands key k breadth-first from its root down f levels.
func (tr *tree) frontier(sc *scratch, k, f int, buf rows) nodes {
	root := newNodes(sc, 1, tr.shape)
	tr.root(k, root)
	return tr.grow(k, 0, f, root, buf)
}

// tiles expands frontier nodes lo .. hi-1 of key k (at level n-d) d levels down to
// their leaves, 2^tileRootBits frontier nodes at a time.
func (tr *tree) tiles(st callControl, k, d int, front nodes, buf rows, lo, hi int) {
	for j0 := lo; j0 < hi && !st.stopped(); j0 += 1 << tileRootBits {
		j1 := min(hi, j0+1<<tileRootBits)
		last := tr.grow(k, tr.n-d, d-1, front.slice(j0, j1), buf)
		tr.leaves(k, j0<<d, last, buf.raw[:tr.rawMul*len(last.s)])
		st.advance(2 * len(last.s))
	}
}

// grow expands cur, at level i, down the given number of levels, alternating
// between the two rows of buf, and returns the last row.
func (tr *tree) grow(k, i, levels int, cur nodes, buf rows) nodes {
	for l := range levels {
		out := buf.row[l%2].slice(0, 2*len(cur.s))
		tr.level(k, i+l, out, cur, buf.raw[:tr.rawMul*len(cur.s)])
		cur = out
	}
	return cur
}
