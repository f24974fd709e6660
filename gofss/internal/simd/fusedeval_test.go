//go:build amd64 && !purego

package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fused Eval walks of every CPU class against a Go model of the walk (the PRG
// output by package aes128's portable backend), on random nodes, inputs and
// correction words, with several points per key, and with words a Gen cannot make.

// runnableEvals are the fused walks this CPU runs; the test skips without any.
func runnableEvals(t *testing.T) []*FusedEval {
	var fs []*FusedEval
	for _, f := range fusedEvals {
		if f.Available {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		t.Skip("no fused Eval walk runs on this CPU")
	}
	return fs
}

// evalCase is a tile of points and their keys' correction words.
type evalCase struct {
	u    []Block // the points' root nodes
	rows EvalRows
	pf   []int
}

// newEvalCase makes points for keys of levels levels, perKey points per key, with
// DPF-shaped (or with dcf, DCF-shaped) random correction words.
func newEvalCase(r *rand.Rand, points, perKey, levels, group int, dcf bool) evalCase {
	keys := (points+perKey-1)/perKey + 1
	cws := randBlocks(r, 2*keys*(levels+1))
	for k := range keys {
		for i := range levels + 1 {
			c := cws[2*(k*(levels+1)+i):]
			switch {
			case dcf && i == levels:
				c[0], c[1].Hi = Block{}, c[1].Hi&^lsbMask.Hi
			case !dcf && i == levels:
				c[0].Hi, c[1] = c[0].Hi&^lsbMask.Hi, Block{}
			case !dcf:
				c[1] = Block{Lo: c[1].Lo & 1}
			}
		}
	}
	xs, off := randBlocks(r, points), make([]int, points)
	for j := range points {
		off[j] = j / perKey * (levels + 1) * 32
		if levels < 128 {
			xs[j] = Block{xs[j].Lo & lowBits(levels), xs[j].Hi & lowBits(levels-64)}
		}
	}
	pf := make([]int, 2*points/group)
	for g := range points / group {
		pf[2*g], pf[2*g+1] = 0, min(len(cws)*16, off[min(points-1, group*(g+2)-1)]+(levels+1)*32)
	}
	return evalCase{randBlocks(r, points), NewEvalRows(xs, off, cws, levels), pf}
}

// lowBits is a qword's n low bits (none for n <= 0, all for n >= 64).
func lowBits(n int) uint64 {
	if n <= 0 {
		return 0
	}
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

func ctl(b Block) uint64 { return b.Hi >> 32 & 1 }

// side is point j's input bit at level i.
func (c evalCase) side(j, i int) uint64 {
	b := c.rows.levels - 1 - i
	if b >= 64 {
		return c.rows.xs[j].Hi >> (b - 64) & 1
	}
	return c.rows.xs[j].Lo >> b & 1
}

// cw is point j's key's correction word at level i.
func (c evalCase) cw(j, i int) (Block, Block) {
	k := c.rows.off[j]/16 + 2*i
	return c.rows.cws[k], c.rows.cws[k+1]
}

// Group arithmetic on qwords, as the walks do it.
func and(x, y Block) Block { return Block{x.Lo & y.Lo, x.Hi & y.Hi} }
func xor(x, y Block) Block { return Block{x.Lo ^ y.Lo, x.Hi ^ y.Hi} }
func gadd(g *Arith, x, y Block) Block {
	sum := Block{x.Lo + y.Lo, x.Hi + y.Hi}
	return xor(sum, and(xor(sum, xor(x, y)), g.Xor))
}
func output(g *Arith, x Block) Block {
	x = xor(x, g.Neg)
	return and(Block{x.Lo - g.Neg.Lo, x.Hi - g.Neg.Hi}, g.Mask)
}
func times(t uint64, b Block) Block { return and(b, Block{-t, -t}) }

// withSide is the seed correction of a level: c1, whose control bit is tl, with the
// control bit tr instead on side 1.
func withSide(c1 Block, tr, side uint64) Block {
	if side == 1 {
		c1.Hi = c1.Hi&^lsbMask.Hi | tr<<32
	}
	return c1
}

// model walks the case in Go, as the routines document it: the outputs (with g) or
// the leaves, and whether a word was refused.
func (c evalCase) model(t *testing.T, k testKeys, g *Arith, dcf bool) ([]Block, bool) {
	u, v := append([]Block{}, c.u...), make([]Block, len(c.u))
	bad, mul := false, len(k.keys)
	for i := range c.rows.levels {
		prg := k.prg(t, u)
		for j := range u {
			side, tb := c.side(j, i), ctl(u[j])
			c1, c2 := c.cw(j, i)
			if dcf {
				out := prg[mul*j+2*int(side)]
				v[j] = gadd(g, v[j], gadd(g, and(prg[mul*j+2*int(side)+1], g.From), times(tb, and(c2, g.From))))
				u[j] = xor(out, times(tb, withSide(c1, ctl(c2), side)))
				continue
			}
			bad = bad || c2.Lo>>1 != 0 || c2.Hi != 0
			u[j] = xor(prg[mul*j+int(side)], times(tb, withSide(c1, c2.Lo&1, side)))
		}
	}
	if g == nil {
		return u, bad
	}
	for j := range u {
		c1, c2 := c.cw(j, c.rows.levels)
		tb := ctl(u[j])
		if dcf {
			bad = bad || c1 != Block{} || ctl(c2) != 0
			u[j] = output(g, gadd(g, v[j], gadd(g, and(u[j], g.From), times(tb, and(c2, g.From)))))
			continue
		}
		bad = bad || ctl(c1) != 0 || c2 != Block{}
		u[j] = output(g, gadd(g, and(u[j], g.From), times(tb, and(c1, g.From))))
	}
	return u, bad
}

func TestFusedEvalWalks(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	k2, k4 := newTestKeys(r, 2), newTestKeys(r, 4)
	for _, f := range runnableEvals(t) {
		for _, dcf := range []bool{false, true} {
			group := f.DpfGroup
			if dcf {
				group = f.DcfGroup
			}
			for _, levels := range []int{1, 2, 7, 63, 64, 65, 128} {
				for _, groups := range []int{0, 1, 3} {
					for _, perKey := range []int{1, 3} {
						for gi, g := range append([]*Arith{nil}, &testAriths[0], &testAriths[1]) {
							if dcf && g == nil {
								continue
							}
							name := fmt.Sprintf("%s/dcf=%v/levels=%d/groups=%d/perKey=%d/group=%d", f.Name, dcf, levels, groups, perKey, gi)
							t.Run(name, func(t *testing.T) {
								testFusedCase(t, r, f, dcf, newEvalCase(r, groups*group, perKey, levels, group, dcf), k2, k4, g)
							})
						}
					}
				}
			}
		}
	}
}

// testFusedCase runs the walk on c against the model, then again with one word
// broken where a Gen leaves zeros: the walk must refuse it.
func testFusedCase(t *testing.T, r *rand.Rand, f *FusedEval, dcf bool, c evalCase, k2, k4 testKeys, g *Arith) {
	run := func() ([]Block, bool) {
		u, check := guarded(len(c.u))
		copy(u, c.u)
		var ok bool
		if dcf {
			ok = f.Dcf(u, &c.rows, (*[4]RoundKeys)(k4.rounds), g, c.pf)
		} else {
			ok = f.Dpf(u, &c.rows, (*[2]RoundKeys)(k2.rounds), g, c.pf)
		}
		check(t)
		return u, !ok
	}
	keys := k2
	if dcf {
		keys = k4
	}
	want, wantBad := c.model(t, keys, g, dcf)
	got, gotBad := run()
	require.Equal(t, want, got)
	require.False(t, wantBad, "the case's words are a Gen's")
	require.False(t, gotBad, "refused a Gen's words")
	if len(c.u) == 0 {
		return
	}
	// A word the walk reads, with a bit that a Gen leaves zero.
	j, n := r.IntN(len(c.u)), c.rows.levels
	i := r.IntN(n)
	if dcf || g != nil && r.IntN(2) == 0 {
		i = n // DCF checks only its last word
	}
	w := c.rows.off[j]/16 + 2*i
	prev := c.rows.cws[w+1]
	switch {
	case dcf:
		c.rows.cws[w+1].Hi |= lsbMask.Hi
	case i == n:
		c.rows.cws[w+1].Lo |= 1
	default:
		c.rows.cws[w+1].Hi |= 1 << r.IntN(64)
	}
	_, gotBad = run()
	c.rows.cws[w+1] = prev
	require.True(t, gotBad, "a broken word at level %d of point %d passed", i, j)
}

// The EvalAll routines of DPF with AES keys, on each class's walks, against the Go
// model: child c of parent p is MMO_c(clamp(p)) ^ t(p)*cw[c]; a leaf's output is
// from(child) + t(child)*v, negated and masked.
func TestFusedDpfLevels(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	k2 := newTestKeys(r, 2)
	lanes := NewLaneKeys(k2.rounds)
	for _, f := range runnableEvals(t) {
		for _, m := range fusedSizes {
			for gi := range testAriths {
				g := &testAriths[gi]
				t.Run(fmt.Sprintf("%s/parents=%d/group=%d", f.Name, m, gi), func(t *testing.T) {
					parents, cw, v := randBlocks(r, m), [2]Block(randBlocks(r, 2)), randBlocks(r, 1)[0]
					raw := k2.prg(t, parents)
					wantU, wantS, wantOut := make([]Block, 2*m), make([]Block, 2*m), make([]Block, 2*m)
					for j, p := range parents {
						for c := range 2 {
							child := xor(raw[2*j+c], times(ctl(p), cw[c]))
							wantU[2*j+c], wantS[2*j+c] = child, clamp(child)
							wantOut[2*j+c] = output(g, gadd(g, and(child, g.From), times(ctl(child), v)))
						}
					}
					u, checkU := guarded(2 * m)
					s, checkS := guarded(2 * m)
					f.DpfLevel(u, s, parents, &cw, lanes)
					require.Equal(t, wantU, u, "DpfLevel nodes")
					require.Equal(t, wantS, s, "DpfLevel seeds")
					checkU(t)
					checkS(t)
					out, check := guarded(2 * m)
					f.DpfLeaves(out, parents, &cw, v, g, lanes)
					require.Equal(t, wantOut, out, "DpfLeaves")
					check(t)
				})
			}
		}
	}
}

// DCF's EvalAll routines likewise: child c of parent p (value pv) has seed
// S_c ^ t(p)*cw[c] and value pv + from(V_c) + t(p)*vcw; a leaf's output is its value
// + from(child) + t(child)*last, negated and masked.
func TestFusedDcfLevels(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	k4 := newTestKeys(r, 4)
	lanes := NewLaneKeys(k4.rounds)
	for _, f := range runnableEvals(t) {
		for _, m := range fusedSizes {
			for gi := range testAriths {
				g := &testAriths[gi]
				t.Run(fmt.Sprintf("%s/parents=%d/group=%d", f.Name, m, gi), func(t *testing.T) {
					parents, pv, cw := randBlocks(r, m), randBlocks(r, m), [2]Block(randBlocks(r, 2))
					vcw, last := randBlocks(r, 1)[0], randBlocks(r, 1)[0]
					raw := k4.prg(t, parents)
					wantU, wantS, wantV, wantOut := make([]Block, 2*m), make([]Block, 2*m), make([]Block, 2*m), make([]Block, 2*m)
					for j, p := range parents {
						for c := range 2 {
							seed := xor(raw[4*j+2*c], times(ctl(p), cw[c]))
							value := gadd(g, pv[j], gadd(g, and(raw[4*j+2*c+1], g.From), times(ctl(p), vcw)))
							wantU[2*j+c], wantS[2*j+c], wantV[2*j+c] = seed, clamp(seed), value
							wantOut[2*j+c] = output(g, gadd(g, value, gadd(g, and(seed, g.From), times(ctl(seed), last))))
						}
					}
					u, checkU := guarded(2 * m)
					s, checkS := guarded(2 * m)
					v, checkV := guarded(2 * m)
					f.DcfLevel(u, s, v, parents, pv, &cw, vcw, g, lanes)
					require.Equal(t, wantU, u, "DcfLevel nodes")
					require.Equal(t, wantS, s, "DcfLevel seeds")
					require.Equal(t, wantV, v, "DcfLevel values")
					checkU(t)
					checkS(t)
					checkV(t)
					out, check := guarded(2 * m)
					f.DcfLeaves(out, parents, pv, &cw, vcw, last, g, lanes)
					require.Equal(t, wantOut, out, "DcfLeaves")
					check(t)
				})
			}
		}
	}
}

// DPF Gen's level routine with AES keys, on each class's walks, against the Go model
// of a level: the correction word from the side away from alpha, both parties moved
// to the child on alpha's side; padding keys write no row.
func TestFusedDpfGenLevels(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	k2 := newTestKeys(r, 2)
	for _, f := range runnableEvals(t) {
		for _, levels := range []int{1, 6, 70} {
			for _, keys := range []int{1, 3, 4, 5, 8, 9, 12, 128} {
				t.Run(fmt.Sprintf("%s/levels=%d/keys=%d", f.Name, levels, keys), func(t *testing.T) {
					want := newGenState(r, keys, levels)
					got := want.clone()
					rows := GenRows{Alphas: got.alphas, Cws: got.cws, Keys: keys, Levels: levels, Rows: levels + 1}
					for i := range levels {
						modelDpfGenLevel(t, k2, want, keys, levels, i)
						f.DpfGenLevel(got.u0, got.u1, got.s, &rows, i, (*[2]RoundKeys)(k2.rounds))
						require.Equal(t, want.u0, got.u0, "level %d: party 0's nodes", i)
						require.Equal(t, want.u1, got.u1, "level %d: party 1's nodes", i)
						require.Equal(t, want.cws, got.cws, "level %d: correction words", i)
					}
				})
			}
		}
	}
}

func modelDpfGenLevel(t *testing.T, k2 testKeys, st genState, keys, levels, i int) {
	p := len(st.u0)
	out := k2.prg(t, append(append([]Block{}, st.u0...), st.u1...)) // L, R per seed
	for j := range p {
		a := alphaBit(st, j, levels, i)
		scw, tl, tr := modelGenSeeds(st, j, a, out[2*j], out[2*j+1], out[2*(p+j)], out[2*(p+j)+1])
		if j < keys {
			row := 2 * (j*(levels+1) + i)
			st.cws[row], st.cws[row+1] = Block{scw.Lo, scw.Hi | tl<<32}, Block{Lo: tr}
		}
	}
}

// alphaBit is key j's bit of alpha at level i.
func alphaBit(st genState, j, levels, i int) uint64 {
	alpha, b := st.alphas[j], levels-1-i
	if b >= 64 {
		return alpha.Hi >> (b - 64) & 1
	}
	return alpha.Lo >> b & 1
}

// modelGenSeeds moves key j's nodes to the children on alpha's side (bit a), from
// the parties' left and right seed outputs, and returns the level's seed correction
// and control-bit corrections tl, tr.
func modelGenSeeds(st genState, j int, a uint64, l0, r0, l1, r1 Block) (Block, uint64, uint64) {
	// The seed correction from the side away from alpha, the nodes from alpha's.
	scw, keep0, keep1 := clamp(xor(r0, r1)), l0, l1
	if a == 1 {
		scw, keep0, keep1 = clamp(xor(l0, l1)), r0, r1
	}
	tl, tr := ctl(xor(l0, l1))^a^1, ctl(xor(r0, r1))^a
	tKeep := tl
	if a == 1 {
		tKeep = tr
	}
	corr := Block{scw.Lo, scw.Hi | tKeep<<32}
	st.u0[j] = xor(keep0, times(ctl(st.u0[j]), corr))
	st.u1[j] = xor(keep1, times(ctl(st.u1[j]), corr))
	return scw, tl, tr
}

// DCF Gen's level routine with AES keys, on each class's walks, against the Go model
// of a level (the seeds as DPF's, the value correction and running value as the
// routines document them), for both predicates and both test groups.
func TestFusedDcfGenLevels(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	k4 := newTestKeys(r, 4)
	for _, f := range runnableEvals(t) {
		for _, levels := range []int{1, 6, 70} {
			for _, keys := range []int{1, 2, 3, 4, 5, 8, 9, 12, 128} {
				for gi, g := range testAriths {
					for _, gt := range []bool{false, true} {
						t.Run(fmt.Sprintf("%s/levels=%d/keys=%d/group=%d/gt=%v", f.Name, levels, keys, gi, gt), func(t *testing.T) {
							want := newGenState(r, keys, levels)
							got := want.clone()
							rows := GenRows{Alphas: got.alphas, Cws: got.cws, Keys: keys, Levels: levels, Rows: levels + 1}
							for i := range levels {
								modelDcfGenLevel(t, k4, want, keys, levels, i, gt, &g)
								f.DcfGenLevel(got.u0, got.u1, got.s, got.vs, got.betas, &rows, i, gt, &g, (*[4]RoundKeys)(k4.rounds))
								require.Equal(t, want.u0, got.u0, "level %d: party 0's nodes", i)
								require.Equal(t, want.u1, got.u1, "level %d: party 1's nodes", i)
								require.Equal(t, want.vs, got.vs, "level %d: values", i)
								require.Equal(t, want.cws, got.cws, "level %d: correction words", i)
							}
						})
					}
				}
			}
		}
	}
}

// Buffers that do not fit the tile are refused before the routine runs.
func TestFusedDcfGenLevelChecksLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, f := range runnableEvals(t) {
		st := newGenState(r, 5, 3)
		rows := GenRows{Alphas: st.alphas, Cws: st.cws, Keys: 5, Levels: 3, Rows: 4}
		require.PanicsWithValue(t, "simd: FusedEval.DcfGenLevel: bad lengths", func() {
			f.DcfGenLevel(st.u0, st.u1, st.s, st.vs[:4], st.betas, &rows, 0, false, &testAriths[0], &[4]RoundKeys{})
		}, f.Name)
		require.PanicsWithValue(t, "simd: Gen: bad lengths", func() {
			f.DcfGenLevel(st.u0[:4], st.u1, st.s, st.vs, st.betas, &rows, 0, false, &testAriths[0], &[4]RoundKeys{})
		}, f.Name)
		require.PanicsWithValue(t, "simd: Gen: bad level or correction words", func() {
			f.DcfGenLevel(st.u0, st.u1, st.s, st.vs, st.betas, &rows, 3, false, &testAriths[0], &[4]RoundKeys{})
		}, f.Name)
	}
}

func gsub(g *Arith, x, y Block) Block {
	diff := Block{x.Lo - y.Lo, x.Hi - y.Hi}
	return xor(diff, and(xor(diff, xor(x, y)), g.Xor))
}

func modelDcfGenLevel(t *testing.T, k4 testKeys, st genState, keys, levels, i int, gt bool, g *Arith) {
	p := len(st.u0)
	out := k4.prg(t, append(append([]Block{}, st.u0...), st.u1...)) // SL, VL, SR, VR per seed
	for j := range p {
		a := alphaBit(st, j, levels, i)
		o0, o1 := out[4*j:4*j+4], out[4*(p+j):4*(p+j)+4]
		// The values on the side away from alpha must cancel, with beta where the
		// predicate holds there; those on alpha's side feed V.
		lose0, lose1, keep0, keep1 := and(o0[3], g.From), and(o1[3], g.From), and(o0[1], g.From), and(o1[1], g.From)
		if a == 1 {
			lose0, lose1, keep0, keep1 = keep0, keep1, lose0, lose1
		}
		var beta Block
		if (a == 1) != gt {
			beta = st.betas[j]
		}
		raw := gadd(g, gsub(g, gsub(g, lose1, lose0), st.vs[j]), beta)
		st.vs[j] = gadd(g, gadd(g, gsub(g, st.vs[j], keep1), keep0), raw)
		vcw := raw
		if ctl(st.u1[j]) == 1 {
			vcw = xor(vcw, g.Neg)
			vcw = Block{vcw.Lo - g.Neg.Lo, vcw.Hi - g.Neg.Hi}
		}
		scw, tl, tr := modelGenSeeds(st, j, a, o0[0], o0[2], o1[0], o1[2])
		if j < keys {
			row := 2 * (j*(levels+1) + i)
			v := and(vcw, g.Mask)
			st.cws[row], st.cws[row+1] = Block{scw.Lo, scw.Hi | tl<<32}, Block{v.Lo, v.Hi | tr<<32}
		}
	}
}
