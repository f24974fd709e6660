//go:build amd64 && !purego

package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/guardmem"
)

// The routines that run AES-128 MMO themselves against the same routines fed the PRG
// output that package aes128's portable backend makes, on the same random inputs,
// for row lengths around the routines' steps (1, 2, 4 and 8 parents; 4 keys).

var fusedSizes = []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 1000}

func requireAES(t *testing.T) {
	if !HasAES {
		t.Skip("no VAES on this CPU")
	}
}

func randBlocks(r *rand.Rand, n int) []Block {
	b := make([]Block, n)
	for i := range b {
		b[i] = Block{r.Uint64(), r.Uint64()}
	}
	return b
}

func clamp(b Block) Block { return Block{b.Lo, b.Hi &^ lsbMask.Hi} }

// guarded returns n blocks followed by guard blocks, and a check that the routine left
// those untouched.
func guarded(n int) ([]Block, func(t *testing.T)) {
	buf := make([]Block, n+4)
	for i := n; i < len(buf); i++ {
		buf[i] = Block{0x5a5a, uint64(i)}
	}
	return buf[:n], func(t *testing.T) {
		for i := n; i < len(buf); i++ {
			require.Equal(t, Block{0x5a5a, uint64(i)}, buf[i], "write past the output")
		}
	}
}

// testKeys are mul AES keys in both forms: for aes128 and for the routines.
type testKeys struct {
	keys   []*aes128.Key
	rounds []RoundKeys
}

func newTestKeys(r *rand.Rand, mul int) testKeys {
	var k testKeys
	for range mul {
		var raw [16]byte
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		k.keys, k.rounds = append(k.keys, aes128.NewKey(raw)), append(k.rounds, aes128.RoundKeys(raw))
	}
	return k
}

// prg is the PRG output of the clamped seeds of nodes, by aes128's portable backend.
func (k testKeys) prg(t *testing.T, nodes []Block) []Block {
	prev, err := aes128.SetBackend("generic")
	require.NoError(t, err)
	defer aes128.SetBackend(prev)
	seeds := make([]Block, len(nodes))
	for i, n := range nodes {
		seeds[i] = clamp(n)
	}
	out := make([]Block, len(k.keys)*len(nodes))
	aes128.MMO(k.keys, blockBytes(out), blockBytes(seeds))
	return out
}

// testAriths are the masks of a byte-string group and of a 64-bit integer group,
// the latter negating (party 1).
var testAriths = []Arith{
	{From: Block{^uint64(0), ^uint64(0)}, Xor: Block{^uint64(0), ^uint64(0)}, Mask: Block{^uint64(0), ^uint64(0)}},
	{From: Block{Lo: ^uint64(0)}, Mask: Block{Lo: ^uint64(0)}, Neg: Block{Lo: ^uint64(0)}},
}

func TestEvalAllRoutinesRunAES(t *testing.T) {
	requireAES(t)
	r := rand.New(rand.NewPCG(5, 6))
	k2, k4 := newTestKeys(r, 2), newTestKeys(r, 4)
	lanes2, lanes4 := NewLaneKeys(k2.rounds), NewLaneKeys(k4.rounds)
	for _, m := range fusedSizes {
		for gi, g := range testAriths {
			t.Run(fmt.Sprintf("parents=%d/group=%d", m, gi), func(t *testing.T) {
				parents, pv := randBlocks(r, m), randBlocks(r, m)
				cw, vcw, last := [2]Block(randBlocks(r, 2)), randBlocks(r, 1)[0], randBlocks(r, 1)[0]
				raw2, raw4 := k2.prg(t, parents), k4.prg(t, parents)

				u, s := make([]Block, 2*m), make([]Block, 2*m)
				DpfLevel(u, s, raw2, parents, &cw, nil)
				gu, checkU := guarded(2 * m)
				gs, checkS := guarded(2 * m)
				DpfLevel(gu, gs, nil, parents, &cw, lanes2)
				require.Equal(t, u, gu, "DpfLevel nodes")
				require.Equal(t, s, gs, "DpfLevel seeds")
				checkU(t)
				checkS(t)

				out := make([]Block, 2*m)
				DpfLeaves(out, append([]Block(nil), raw2...), parents, &cw, vcw, &g, nil)
				got, check := guarded(2 * m)
				DpfLeaves(got, nil, parents, &cw, vcw, &g, lanes2)
				require.Equal(t, out, got, "DpfLeaves")
				check(t)

				v := make([]Block, 2*m)
				DcfLevel(u, s, v, raw4, parents, pv, &cw, vcw, &g, nil)
				gv, checkV := guarded(2 * m)
				DcfLevel(gu, gs, gv, nil, parents, pv, &cw, vcw, &g, lanes4)
				require.Equal(t, u, gu, "DcfLevel nodes")
				require.Equal(t, s, gs, "DcfLevel seeds")
				require.Equal(t, v, gv, "DcfLevel values")
				checkU(t)
				checkS(t)
				checkV(t)

				DcfLeaves(out, raw4, parents, pv, &cw, vcw, last, &g, nil)
				DcfLeaves(got, nil, parents, pv, &cw, vcw, last, &g, lanes4)
				require.Equal(t, out, got, "DcfLeaves")
				check(t)
			})
		}
	}
}

// atEnd copies b to blocks that end where unreadable memory begins.
func atEnd(t *testing.T, b []Block) []Block {
	if len(b) == 0 {
		return nil
	}
	mem := guardmem.EndOfMapping(t, 16*len(b))
	g := unsafe.Slice((*Block)(unsafe.Pointer(&mem[0])), len(b))
	copy(g, b)
	return g
}

// TestLevelRoutinesReadInBounds runs the EvalAll level routines, the package's (with
// the PRG output given and with AES keys) and each CPU class's, on inputs that end
// where unreadable memory begins: a routine that reads past them (a last parent
// loaded as part of a wider vector, say) crashes the test. The outputs are
// checked for writes past them by guarded.
func TestLevelRoutinesReadInBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	k2, k4 := newTestKeys(r, 2), newTestKeys(r, 4)
	lanes2, lanes4 := NewLaneKeys(k2.rounds), NewLaneKeys(k4.rounds)
	g := &testAriths[1]
	for _, m := range fusedSizes {
		t.Run(fmt.Sprintf("parents=%d", m), func(t *testing.T) {
			parents, pv := atEnd(t, randBlocks(r, m)), atEnd(t, randBlocks(r, m))
			raw2, raw4 := atEnd(t, k2.prg(t, parents)), atEnd(t, k4.prg(t, parents))
			cw, vcw, last := [2]Block(randBlocks(r, 2)), randBlocks(r, 1)[0], randBlocks(r, 1)[0]
			u, checkU := guarded(2 * m)
			s, checkS := guarded(2 * m)
			v, checkV := guarded(2 * m)
			checks := func() {
				checkU(t)
				checkS(t)
				checkV(t)
			}
			if Available {
				DpfLevel(u, s, raw2, parents, &cw, nil)
				DpfLeaves(v, raw2, parents, &cw, vcw, g, nil)
				DcfLevel(u, s, v, raw4, parents, pv, &cw, vcw, g, nil)
				DcfLeaves(v, raw4, parents, pv, &cw, vcw, last, g, nil)
				checks()
			}
			if HasAES {
				DpfLevel(u, s, nil, parents, &cw, lanes2)
				DpfLeaves(v, nil, parents, &cw, vcw, g, lanes2)
				DcfLevel(u, s, v, nil, parents, pv, &cw, vcw, g, lanes4)
				DcfLeaves(v, nil, parents, pv, &cw, vcw, last, g, lanes4)
				checks()
			}
			for _, f := range fusedEvals {
				if !f.Available {
					continue
				}
				f.DpfLevel(u, s, parents, &cw, lanes2)
				f.DpfLeaves(v, parents, &cw, vcw, g, lanes2)
				f.DcfLevel(u, s, v, parents, pv, &cw, vcw, g, lanes4)
				f.DcfLeaves(v, parents, pv, &cw, vcw, last, g, lanes4)
				checks()
			}
		})
	}
}

// genState is a tile of keys at the root: the parties' nodes (party 1's control bit
// set) and seeds, alphas, and for DCF running values and betas.
type genState struct {
	u0, u1, s, alphas, vs, betas, cws []Block
}

func newGenState(r *rand.Rand, keys, levels int) genState {
	p := (keys + 3) &^ 3
	st := genState{
		u0: randBlocks(r, p), u1: randBlocks(r, p), s: make([]Block, 2*p), alphas: randBlocks(r, p),
		vs: make([]Block, p), betas: randBlocks(r, p), cws: make([]Block, 2*keys*(levels+1)),
	}
	for j := range p {
		st.u0[j] = clamp(st.u0[j])
		st.u1[j] = Block{st.u1[j].Lo, st.u1[j].Hi | lsbMask.Hi}
		st.s[j], st.s[p+j] = st.u0[j], clamp(st.u1[j])
	}
	return st
}

func (st genState) clone() genState {
	c := func(b []Block) []Block { return append([]Block(nil), b...) }
	return genState{c(st.u0), c(st.u1), c(st.s), c(st.alphas), c(st.vs), c(st.betas), c(st.cws)}
}

func TestGenRoutinesRunAES(t *testing.T) {
	requireAES(t)
	r := rand.New(rand.NewPCG(7, 8))
	k2, k4 := newTestKeys(r, 2), newTestKeys(r, 4)
	const levels = 6
	for _, keys := range []int{1, 3, 4, 5, 8, 9, 12, 128} {
		for gi, g := range testAriths {
			t.Run(fmt.Sprintf("keys=%d/group=%d", keys, gi), func(t *testing.T) {
				for _, dcf := range []bool{false, true} {
					want := newGenState(r, keys, levels)
					got := want.clone()
					rows := func(st genState) GenRows {
						return GenRows{Alphas: st.alphas, Cws: st.cws, Keys: keys, Levels: levels, Rows: levels + 1}
					}
					wr, gr := rows(want), rows(got)
					for i := range levels {
						if dcf {
							level := func(st genState, r *GenRows, ch []Block, keys *[4]RoundKeys) {
								DcfGenLevel(st.u0, st.u1, st.s, ch, st.vs, st.betas, r, i, i%2 == 1, &g, keys)
							}
							level(want, &wr, k4.prg(t, want.s), nil)
							level(got, &gr, nil, (*[4]RoundKeys)(k4.rounds))
						} else {
							DpfGenLevel(want.u0, want.u1, want.s, k2.prg(t, want.s), &wr, i, nil)
							DpfGenLevel(got.u0, got.u1, got.s, nil, &gr, i, (*[2]RoundKeys)(k2.rounds))
						}
						require.Equal(t, want.u0, got.u0, "dcf %v, level %d: party 0's nodes", dcf, i)
						require.Equal(t, want.u1, got.u1, "dcf %v, level %d: party 1's nodes", dcf, i)
						require.Equal(t, want.vs, got.vs, "dcf %v, level %d: values", dcf, i)
						require.Equal(t, want.cws, got.cws, "dcf %v, level %d: correction words", dcf, i)
					}
				}
			})
		}
	}
}

// The fused Eval walks keep a byte of side pattern per level for at most 128 levels
// (an input is 128 bits): more, or none, must be refused before the routine runs.
func TestEvalWalksCheckLevels(t *testing.T) {
	for _, f := range runnableEvals(t) {
		for _, levels := range []int{0, 129} {
			xs, off := make([]Block, 32), make([]int, 32)
			rows := NewEvalRows(xs, off, make([]Block, 2*(levels+1)), levels)
			const refused = "simd: fused walk: levels out of 1..128"
			require.PanicsWithValue(t, refused, func() {
				f.Dpf(make([]Block, 32), &rows, &[2]RoundKeys{}, nil, make([]int, 64/f.DpfGroup))
			}, "%s: levels %d", f.Name, levels)
			require.PanicsWithValue(t, refused, func() {
				f.Dcf(make([]Block, 32), &rows, &[4]RoundKeys{}, nil, make([]int, 64/f.DcfGroup))
			}, "%s: levels %d", f.Name, levels)
		}
	}
}
