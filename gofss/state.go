package gofss

// genState is the per-goroutine scratch of Gen: the two parties' seeds and control
// bits for a tile of keys, and the PRG output of one level.
type genState struct {
	s  []Block
	t  []uint8
	ch []Block
}

func newGenState(tile, mul int) *genState {
	return &genState{s: make([]Block, 2*tile), t: make([]uint8, 2*tile), ch: make([]Block, 2*tile*mul)}
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

// evalState is the per-goroutine scratch of Eval for a tile of points.
type evalState struct {
	s     []Block
	t     []uint8
	v     []Block
	sides []uint8
	ch    []Block
}

func newEvalState(tile, half int) *evalState {
	return &evalState{
		s: make([]Block, tile), t: make([]uint8, tile), v: make([]Block, tile),
		sides: make([]uint8, tile), ch: make([]Block, tile*half),
	}
}
