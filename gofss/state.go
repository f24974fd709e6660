package gofss

// genState is the per-goroutine scratch of Gen: the two parties' seeds and control
// bits for a tile of keys, and the PRG output of one level.
type genState struct {
	s  []Block
	t  []uint8
	ch []Block
}

func newGenState(sc *scratch, tile, mul int) *genState {
	return &genState{s: sc.block(2 * tile), t: sc.byte(2 * tile), ch: sc.block(2 * tile * mul)}
}

// init loads the clamped seeds of a tile (2 per key) and the initial control bits
// t = (0, 1), and returns the tile's views of s, t and the PRG output.
func (st *genState) init(s0s []Block) ([]Block, []uint8, []Block) {
	m := len(s0s)
	s, t := st.s[:m], st.t[:m]
	for i, seed := range s0s {
		s[i], t[i] = seed.Clamp(), uint8(i&1)
	}
	return s, t, st.ch[:m*len(st.ch)/len(st.s)]
}

// evalTilePoints is the number of points an Eval walks down the tree together.
const evalTilePoints = 256

// evalState is the per-goroutine scratch of Eval for a tile of points.
type evalState struct {
	s     []Block
	t     []uint8
	base  []int // index of the point's key's first correction word
	v     []Block
	sides []uint8
	ch    []Block
}

func newEvalState(sc *scratch, half int) *evalState {
	sc.eval = evalState{
		s: sc.block(evalTilePoints), t: sc.byte(evalTilePoints), base: sc.int(evalTilePoints), v: sc.block(evalTilePoints),
		sides: sc.byte(evalTilePoints), ch: sc.block(evalTilePoints * half),
	}
	return &sc.eval
}

// start sets up w points starting at point j0 of a batch of m points per key: each
// point's root seed and control bit, and where its key's rows cws start. It returns
// the views of s, t and base for these points.
func (st *evalState) start(w int, s0s []Block, party, j0, m, rows int) ([]Block, []uint8, []int) {
	s, t, base := st.s[:w], st.t[:w], st.base[:w]
	k, r := j0/m, j0%m
	for j := range w {
		s[j], t[j], base[j] = s0s[k].Clamp(), uint8(party), k*rows
		if r++; r == m {
			k, r = k+1, 0
		}
	}
	return s, t, base
}

// tileWalker walks a tile of points of a batch down the portable tree: points j0 ..
// j0+len(dst)-1 of the flattened K x M batch.
type tileWalker interface {
	evalTile(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, j0 int, st *evalState)
}

// evalPoints is the portable Eval of both schemes: tiles of points, spread over
// goroutines. half is the PRG outputs per chosen child (1 for DPF, 2 for DCF).
func evalPoints(w tileWalker, st callControl, inBits, half int, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) {
	if len(xs) <= evalTilePoints {
		// Not through forChunks: its closure would be the one allocation of a
		// single-point call.
		evalRange(w, st, half, dst, party, s0s, cws, xs, m, 0, len(xs))
		return
	}
	forChunks(len(xs), evalCostNs(inBits, half), func(lo, hi int) {
		evalRange(w, st, half, dst, party, s0s, cws, xs, m, lo, hi)
	})
}

// evalRange is the portable walk of points lo .. hi-1 of a batch, a tile at a time.
func evalRange(w tileWalker, st callControl, half int, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, lo, hi int) {
	sc := getScratch()
	defer sc.release()
	es := newEvalState(sc, half)
	for j0 := lo; j0 < hi && !st.stopped(); j0 += evalTilePoints {
		j1 := min(hi, j0+evalTilePoints)
		w.evalTile(dst[j0:j1], party, s0s, cws, xs, m, j0, es)
		st.advance(j1 - j0)
	}
}
