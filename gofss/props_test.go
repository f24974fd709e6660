package gofss

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Properties checked on random inputs, for every group, PRG and predicate: the
// shares reconstruct f, batches equal single calls, EvalAll equals Eval.

var allGroups = []Group{Bytes, Uint32, Uint64, Uint127}

func randBlock(r *rand.Rand) Block { return Block{r.Uint64(), r.Uint64()} }

func randInput(r *rand.Rand, bits int) Uint128 {
	x := Uint128{r.Uint64(), r.Uint64()}
	if bits < 128 {
		x = shiftMask(x, bits)
	}
	return x
}

// shiftMask keeps the low bits bits of x.
func shiftMask(x Uint128, bits int) Uint128 {
	if bits >= 64 {
		x.Hi &= 1<<(bits-64) - 1
	} else {
		x.Hi, x.Lo = 0, x.Lo&(1<<bits-1)
	}
	return x
}

func less(a, b Uint128) bool { return a.Hi < b.Hi || a.Hi == b.Hi && a.Lo < b.Lo }

// testCase is one scheme instance: a DPF or Half-Tree DPF (pred < 0) or a DCF.
type testCase struct {
	name   string
	scheme scheme
	g      Group
	pred   int // -1 for DPF, else Lt or Gt
	n      int
}

// rows is the number of correction words of one key.
func (c testCase) rows() int { return c.scheme.Params().CwRows() }

// want is f(x) for the function keyed by alpha and beta.
func (c testCase) want(alpha, x Uint128, beta Block) Block {
	var hit bool
	switch c.pred {
	case -1:
		hit = alpha == x
	case int(Lt):
		hit = less(x, alpha)
	default:
		hit = less(alpha, x)
	}
	if hit {
		return c.g.Canon(beta)
	}
	return Block{}
}

func testPrgs(t testing.TB, mul int) []Prg {
	cc, err := NewChaCha(mul, [2]uint32{7, 0xdeadbeef})
	require.NoError(t, err)
	aes, err := NewAesMmo(DefaultAesKeys[:mul])
	require.NoError(t, err)
	return []Prg{cc, aes}
}

func testCases(t testing.TB, bitsList []int) []testCase {
	var out []testCase
	for _, n := range bitsList {
		for _, g := range allGroups {
			for _, prg := range testPrgs(t, 2) {
				d, err := NewDpf(n, g, prg)
				require.NoError(t, err)
				out = append(out, testCase{fmt.Sprintf("dpf-%s-%s-n%d", prg.Name(), g, n), d, g, -1, n})
			}
			for _, prg := range testPrgs(t, 4) {
				for _, p := range []Pred{Lt, Gt} {
					d, err := NewDcf(n, g, prg, p)
					require.NoError(t, err)
					out = append(out, testCase{fmt.Sprintf("dcf_%s-%s-%s-n%d", p, prg.Name(), g, n), d, g, int(p), n})
				}
			}
			for _, prg := range testPrgs(t, 1) {
				h, err := NewHalfTreeDpf(n, g, prg, Block{Lo: 0x0123456789abcdef, Hi: 0x1_00000005}) // lsb set
				require.NoError(t, err)
				out = append(out, testCase{fmt.Sprintf("half_tree_dpf-%s-%s-n%d", prg.Name(), g, n), h, g, -1, n})
			}
		}
	}
	return out
}

// randKeys draws the inputs of a Gen of keys keys: seed pairs, n-bit alphas, betas.
func randKeys(r *rand.Rand, n, keys int) ([]Block, []Uint128, []Block) {
	seeds, alphas, betas := make([]Block, 2*keys), make([]Uint128, keys), make([]Block, keys)
	for k := range keys {
		seeds[2*k], seeds[2*k+1], alphas[k], betas[k] = randBlock(r), randBlock(r), randInput(r, n), randBlock(r)
	}
	return seeds, alphas, betas
}

func genOne(t testing.TB, s scheme, n int, r *rand.Rand, alpha Uint128, beta Block) ([]Block, []Cw) {
	seeds := []Block{randBlock(r), randBlock(r)}
	cws := make([]Cw, s.Params().CwRows())
	require.NoError(t, s.Gen(cws, seeds, []Uint128{alpha}, []Block{beta}))
	return seeds, cws
}

func TestReconstructAllPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range testCases(t, []int{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Run(c.name, func(t *testing.T) {
			for range 3 {
				alpha, beta := randInput(r, c.n), randBlock(r)
				seeds, cws := genOne(t, c.scheme, c.n, r, alpha, beta)
				y := [2][]Block{make([]Block, 1<<c.n), make([]Block, 1<<c.n)}
				for p := range 2 {
					require.NoError(t, c.scheme.EvalAll(y[p], p, seeds[p:p+1], cws))
				}
				for x := range 1 << c.n {
					xv := Uint128{Lo: uint64(x)}
					require.Equal(t, c.want(alpha, xv, beta), c.g.Add(y[0][x], y[1][x]), "x=%d alpha=%v", x, alpha)
				}
			}
		})
	}
}

func TestReconstructWideInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range testCases(t, []int{33, 64, 100, 128}) {
		t.Run(c.name, func(t *testing.T) {
			alpha, beta := randInput(r, c.n), randBlock(r)
			seeds, cws := genOne(t, c.scheme, c.n, r, alpha, beta)
			one := Uint128{Lo: 1}
			xs := []Uint128{alpha, alpha.Add(one), alpha.Add(Uint128{^uint64(0), ^uint64(0)}), randInput(r, c.n), {}}
			for i := range xs {
				xs[i] = shiftMask(xs[i], c.n)
			}
			y := [2][]Block{make([]Block, len(xs)), make([]Block, len(xs))}
			for p := range 2 {
				require.NoError(t, c.scheme.Eval(y[p], p, seeds[p:p+1], cws, xs))
			}
			for i, x := range xs {
				require.Equal(t, c.want(alpha, x, beta), c.g.Add(y[0][i], y[1][i]), "x=%v alpha=%v", x, alpha)
			}
		})
	}
}

func TestBatchEqualsSingle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const keys, points = 37, 5
	for _, c := range testCases(t, []int{7, 20}) {
		t.Run(c.name, func(t *testing.T) {
			seeds, alphas, betas := randKeys(r, c.n, keys)
			rows := c.rows()
			cws := make([]Cw, keys*rows)
			require.NoError(t, c.scheme.Gen(cws, seeds, alphas, betas))
			xs := make([]Uint128, keys*points)
			for i := range xs {
				xs[i] = randInput(r, c.n)
			}
			for p := range 2 {
				partySeeds := make([]Block, keys)
				for k := range keys {
					partySeeds[k] = seeds[2*k+p]
				}
				batch := make([]Block, len(xs))
				require.NoError(t, c.scheme.Eval(batch, p, partySeeds, cws, xs))
				for k := range keys {
					kc := cws[k*rows : (k+1)*rows]
					one := make([]Cw, rows)
					require.NoError(t, c.scheme.Gen(one, seeds[2*k:2*k+2], alphas[k:k+1], betas[k:k+1]))
					require.Equal(t, one, kc, "key %d: batched Gen", k)
					for j := range points {
						y := make([]Block, 1)
						require.NoError(t, c.scheme.Eval(y, p, partySeeds[k:k+1], kc, xs[k*points+j:k*points+j+1]))
						require.Equal(t, y[0], batch[k*points+j], "key %d point %d", k, j)
					}
				}
				if c.n <= 8 {
					all := make([]Block, keys<<c.n)
					require.NoError(t, c.scheme.EvalAll(all, p, partySeeds, cws))
					for k := range keys {
						one := make([]Block, 1<<c.n)
						require.NoError(t, c.scheme.EvalAll(one, p, partySeeds[k:k+1], cws[k*rows:(k+1)*rows]))
						require.Equal(t, one, all[k<<c.n:(k+1)<<c.n], "key %d: batched EvalAll", k)
					}
				}
			}
		})
	}
}

// TestEvalAllEqualsEval covers the frontier/tile split of EvalAll: every point for
// n <= 12, sampled points for n = 20.
func TestEvalAllEqualsEval(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range testCases(t, []int{11, 12, 20}) {
		if c.n == 20 && c.g != Uint64 && c.g != Bytes {
			continue // the tree walk does not depend on the group; two suffice at n = 20
		}
		t.Run(c.name, func(t *testing.T) {
			alpha, beta := randInput(r, c.n), randBlock(r)
			seeds, cws := genOne(t, c.scheme, c.n, r, alpha, beta)
			p := r.IntN(2)
			all := make([]Block, 1<<c.n)
			require.NoError(t, c.scheme.EvalAll(all, p, seeds[p:p+1], cws))
			xs := make([]Uint128, 0, 1<<c.n)
			if c.n <= 12 {
				for x := range 1 << c.n {
					xs = append(xs, Uint128{Lo: uint64(x)})
				}
			} else {
				xs = append(xs, alpha, Uint128{}, Uint128{Lo: 1<<c.n - 1})
				for range 2000 {
					xs = append(xs, randInput(r, c.n))
				}
			}
			y := make([]Block, len(xs))
			require.NoError(t, c.scheme.Eval(y, p, seeds[p:p+1], cws, xs))
			for i, x := range xs {
				require.Equal(t, all[x.Lo], y[i], "x=%d", x.Lo)
			}
		})
	}
}
