package chacha

// Walk describes one point's walk down a DPF or DCF tree with this PRG.
type Walk struct {
	Rows   []byte // n correction-word rows, 32 bytes each
	Sides  []byte // n bytes, 0 or 1: the child taken at each level
	Mul    int    // 2 (DPF) or 4 (DCF)
	TrByte int    // byte offset within a row whose bit 0 is the right child's control-bit correction: 16 for DPF, 28 for DCF
	Values []byte // DCF only: receives n 16-byte blocks, the chosen side's value output at each level; nil for DPF
	Bits   []byte // DCF only: receives the n parent control bits (the t in effect when level i was expanded); nil for DPF
}

// WalkOne walks from seed (16 bytes, control bit clear) with control bit t down
// len(w.Sides) levels and returns the leaf's seed (control bit clear) and control
// bit. ok is false when the active backend has no walk routine (the portable
// "generic" one); the caller then walks portably.
//
// A block's control bit is bit 0 of its byte 12. Level i expands the seed with mul
// w.Mul and keeps the outputs of side s = w.Sides[i] as ExpandSelect does: the seed
// output S, and for mul 4 the value output V, which goes to w.Values raw, with the
// level's t to w.Bits. The child is S, XORed when t is 1 with the first 16 bytes
// of row i whose control bit, for s = 1, is replaced by bit 0 of row byte w.TrByte.
// The child's control bit is the next t, and the child with it cleared the next
// seed. One call runs the whole path, with seed and t in registers: a call per
// level adds about a third to the PRG's own time.
func WalkOne(w *Walk, nonce [2]uint32, seed [16]byte, t uint8) (leaf [16]byte, tOut uint8, ok bool) {
	n := len(w.Sides)
	out := n
	if w.Mul == 2 {
		out = 0
	} else if w.Mul != 4 {
		panic("chacha: Walk.Mul must be 2 or 4")
	}
	if len(w.Rows) != 2*BlockSize*n || len(w.Values) != BlockSize*out || len(w.Bits) != out ||
		w.TrByte < 0 || w.TrByte >= 2*BlockSize {
		panic("chacha: bad Walk lengths or TrByte")
	}
	routine := impls.Ops().walk
	if routine.lanes == 0 {
		return leaf, 0, false
	}
	tOut = routine.walk(w, nonce, &seed, t)
	return seed, tOut, true
}

// Points describes chunks of PointLanes() points (1 to PointChunks() chunks, p points
// in all) walked down their DPF or DCF trees together, each from its own root along
// its own path with its own key's rows.
type Points struct {
	Nodes  []byte  // p blocks: the roots, control bit set to t; receives the leaves, control bit set
	Paths  []byte  // p blocks, little-endian 128-bit numbers: point j's side at level i is bit 127-i of path j
	Levels int     // n, the levels walked: 0 to 128
	Rows   []byte  // the correction words: point j's row of level i is the 32 bytes at Offs[j]+32i
	Offs   []int32 // p offsets into Rows
	// Next, nil or p offsets into Rows, are the next call's points' rows: the walk
	// fetches their first two into the cache during its last two levels, which
	// otherwise start the next call with misses.
	Next []int32
	// Ahead, nil or rows of the next call's keys (within Rows or not), is fetched
	// into the L2 cache over the walk's levels, 20 cache lines a level: its per-lane
	// fetches, two levels ahead, then find the rows there instead of in memory.
	Ahead  []byte
	Mul    int // 2 (DPF) or 4 (DCF)
	TrByte int // as in Walk; a multiple of 4
	// DPF only (Mul 2): the walk ORs into RowsOr the 64-bit halves of the second
	// blocks of the rows it reads, bit 0 (the right child's control-bit correction)
	// left out. A DPF key's level rows hold (0 or 1, 0, 0, 0) there, so RowsOr
	// stays zero unless a row read is malformed.
	RowsOr uint64
	// DCF only (Mul 4): Sums receives p blocks, point j's sum over the
	// levels of its value output (as Walk.Values has it) and, where the level's t is
	// set, its row's second block; each term ANDed with Arith.From and added as
	// Arith says. nil for DPF.
	Sums  []byte
	Arith *Arith
}

// Arith is a group's arithmetic as masks on a block's bytes: a value is a block
// ANDed with From; + is XOR in the bits of Xor and 64-bit addition, within each
// 8-byte half, in those of Add.
type Arith struct{ From, Xor, Add [16]byte }

// PointLanes is the number of points in a chunk of WalkPoints on the active backend:
// 0 where it has no routine for it (the portable backend).
func PointLanes() int { return impls.Ops().walk.lanes }

// PointChunks is the most chunks WalkPoints walks in one call: 2 on AVX-512, whose
// routine interleaves two chunks' rounds, 1 on AVX2, 0 where PointLanes() is 0.
func PointChunks() int { return impls.Ops().walk.pointChunks() }

// WalkPoints walks the points of w, each as WalkOne walks one, with the nodes' own
// control bits as t. It panics if PointLanes() is 0 or w is inconsistent: every
// point's rows must lie within w.Rows.
func WalkPoints(w *Points, nonce [2]uint32) {
	lanes := PointLanes()
	if lanes == 0 {
		panic("chacha: the " + Backend() + " backend has no point walk")
	}
	if len(w.Offs) == 0 || len(w.Offs)%lanes != 0 || len(w.Offs)/lanes > PointChunks() {
		panic("chacha: Points must have 1 to PointChunks() chunks of PointLanes() points")
	}
	lanes = len(w.Offs)
	n := w.Levels
	sums := 0
	if w.Mul == 4 {
		sums = lanes * BlockSize
		if w.Arith == nil {
			panic("chacha: Points.Arith is nil")
		}
	} else if w.Mul != 2 {
		panic("chacha: Points.Mul must be 2 or 4")
	}
	if len(w.Nodes) != lanes*BlockSize || len(w.Paths) != lanes*BlockSize || n < 0 || n > 8*BlockSize ||
		len(w.Sums) != sums || w.TrByte < 0 || w.TrByte >= 2*BlockSize || w.TrByte%4 != 0 {
		panic("chacha: bad Points lengths, Levels or TrByte")
	}
	for _, off := range w.Offs {
		if off < 0 || int(off)+2*BlockSize*n > len(w.Rows) {
			panic("chacha: Points.Offs out of Rows")
		}
	}
	if w.Next != nil {
		if len(w.Next) != lanes {
			panic("chacha: Points.Next must be nil or as long as Offs")
		}
		for _, off := range w.Next {
			if off < 0 || int(off)+4*BlockSize > len(w.Rows) {
				panic("chacha: Points.Next out of Rows (two rows each)")
			}
		}
	}
	impls.Ops().walk.points(w, nonce, n)
}
