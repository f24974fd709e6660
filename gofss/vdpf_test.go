package gofss

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/hashes"
	"github.com/pyfss/pyfss/gofss/internal/kat"
)

// katVdpf makes the case's VDPF on the implementation named in opts, or nil where it
// does not serve the case's parameters on this CPU.
func katVdpf(t *testing.T, f *kat.VdpfFile, c *kat.VdpfCase, opts ...Option) *Vdpf {
	g, err := ParseGroup(c.Group)
	require.NoError(t, err)
	hash := VdpfHash{Kind: HashSha256}
	if f.Hash.Name == "sha256" {
		hash.XorKey[0], hash.Key[0] = katBlock(*f.Hash.XorHashKey), katBlock(*f.Hash.HashKey)
	} else {
		hash.Kind = HashBlake3
		for i := range 2 {
			hash.XorKey[i], hash.Key[i] = katBlock(f.Hash.XorHashIV[i]), katBlock(f.Hash.HashIV[i])
		}
	}
	require.Equal(t, DefaultVdpfHash(hash.Kind), hash, "the default hash keys are the vectors'")
	v, err := NewVdpf(c.InBits, g, katPrg(t, f.Prg), hash, opts...)
	if len(opts) > 0 && err != nil {
		return nil
	}
	require.NoError(t, err)
	return v
}

func katProof(p [4]kat.Block) []Block {
	out := make([]Block, ProofBlocks)
	for i, b := range p {
		out[i] = katBlock(b)
	}
	return out
}

func TestVdpfVectors(t *testing.T) {
	for _, name := range kat.VdpfFiles {
		f, err := kat.LoadVdpf(name)
		require.NoError(t, err, "the vectors are part of the repository")
		require.Len(t, f.Cases, 40)
		t.Run(name, func(t *testing.T) {
			forEachBackend(t, f.Prg.Name, func(t *testing.T) {
				for i := range f.Cases {
					checkVdpfCase(t, f, &f.Cases[i])
				}
			})
			// Every case through each implementation that serves it.
			for _, im := range Impls() {
				t.Run(im, func(t *testing.T) {
					ran := 0
					for i := range f.Cases {
						ran += checkVdpfCase(t, f, &f.Cases[i], WithImpl(im))
					}
					if ran == 0 {
						t.Skip("does not serve these parameters on this CPU")
					}
				})
			}
		})
		// The hashes' portable paths (crypto/sha256, BLAKE3 one message at a time)
		// under the default PRG backend.
		t.Run(name+"/portable-hashes", func(t *testing.T) {
			defer hashes.ForcePortable()()
			for i := range f.Cases {
				checkVdpfCase(t, f, &f.Cases[i])
			}
		})
	}
}

// checkVdpfCase checks one case: Gen's key against the vectors' (the reference's n
// rows, then ocw and cs), both parties' shares and proof pieces at the points, their
// proofs, the tampered key's proof, and the full domain with its proofs. It returns
// 1 where it checked the case, 0 where the implementation named in opts does not
// serve it.
func checkVdpfCase(t *testing.T, f *kat.VdpfFile, c *kat.VdpfCase, opts ...Option) int {
	v := katVdpf(t, f, c, opts...)
	if v == nil {
		return 0
	}
	n := c.InBits
	require.Zero(t, c.GenRet, c.ID)
	seeds := []Block{katBlock(c.Seeds[0]), katBlock(c.Seeds[1])}
	cws := make([]Cw, v.Params().CwRows())
	require.Len(t, cws, n+3)
	require.NoError(t, v.Gen(cws, seeds, []Uint128{katUint(c.Alpha)}, []Block{katBlock(c.Beta)}))
	require.Len(t, c.Cws, n, c.ID)
	want := make([]Cw, 0, n+3)
	for _, row := range c.Cws {
		want = append(want, katCw(row))
	}
	cs := katProof(c.Cs)
	want = append(want, Cw{katBlock(c.Ocw)}, Cw{cs[0], cs[1]}, Cw{cs[2], cs[3]})
	require.Equal(t, want, cws, "%s: key", c.ID)

	xs := make([]Uint128, len(c.Evals))
	for i, e := range c.Evals {
		xs[i] = katUint(e.X)
	}
	var pis [2][]Block
	for party := range 2 {
		ys, pieces := make([]Block, len(xs)), make([]Block, ProofBlocks*len(xs))
		require.NoError(t, v.EvalProof(ys, pieces, party, seeds[party:party+1], cws, xs))
		shares := make([]Block, len(xs))
		require.NoError(t, v.Eval(shares, party, seeds[party:party+1], cws, xs))
		require.Equal(t, ys, shares, "%s: Eval and EvalProof agree", c.ID)
		for i, e := range c.Evals {
			y, pt := [2]kat.Block{e.Y0, e.Y1}[party], [2][4]kat.Block{e.PiTilde0, e.PiTilde1}[party]
			require.Equal(t, katBlock(y), ys[i], "%s: party %d share at x=%v", c.ID, party, e.X)
			require.Equal(t, katProof(pt), pieces[ProofBlocks*i:ProofBlocks*(i+1)], "%s: party %d proof piece at x=%v", c.ID, party, e.X)
			if party == 1 {
				require.Equal(t, katBlock(e.Sum), v.Params().Group.Add(shares[i], pisShare(t, v, seeds[0], cws, xs[i])), c.ID)
			}
		}
		// The points three times over, a batch spanning groups of the fast walks.
		xs3 := append(append(append([]Uint128(nil), xs...), xs...), xs...)
		ys3, pieces3 := make([]Block, len(xs3)), make([]Block, ProofBlocks*len(xs3))
		require.NoError(t, v.EvalProof(ys3, pieces3, party, seeds[party:party+1], cws, xs3))
		for r := range 3 {
			require.Equal(t, ys, ys3[r*len(xs):(r+1)*len(xs)], "%s: party %d, repeated points", c.ID, party)
			require.Equal(t, pieces, pieces3[r*len(pieces):(r+1)*len(pieces)], "%s: party %d, repeated points", c.ID, party)
		}
		pis[party] = make([]Block, ProofBlocks)
		require.NoError(t, v.Prove(pis[party], pieces, cws))
	}
	require.Equal(t, katProof(c.Prove.Pi0), pis[0], "%s: proof of party 0", c.ID)
	require.Equal(t, katProof(c.Prove.Pi1), pis[1], "%s: proof of party 1", c.ID)
	require.Equal(t, c.Prove.Verify, verifyOne(t, pis[0], pis[1]), c.ID)

	// The tampered key: party 1 evaluates the same points with one word changed
	// (in the vectors always a seed correction, which no check can refuse).
	tm := c.Tampered
	require.Equal(t, 1, tm.Party, c.ID)
	bad := append([]Cw(nil), want...)
	words := cwBlocks(bad[tm.CwIndex : tm.CwIndex+1])
	shift := 32 * uint(tm.Word%2)
	if w := &words[tm.Word/4]; tm.Word%4 < 2 {
		w.Lo ^= uint64(uint32(tm.Xor)) << shift
	} else {
		w.Hi ^= uint64(uint32(tm.Xor)) << shift
	}
	ys, pieces := make([]Block, len(xs)), make([]Block, ProofBlocks*len(xs))
	pi1 := make([]Block, ProofBlocks)
	require.NoError(t, v.EvalProof(ys, pieces, 1, seeds[1:], bad, xs), c.ID)
	require.NoError(t, v.Prove(pi1, pieces, bad))
	require.Equal(t, katProof(tm.Pi1), pi1, "%s: tampered proof", c.ID)
	require.Equal(t, tm.Verify, verifyOne(t, pis[0], pi1), c.ID)

	if c.EvalAll == nil {
		return 1
	}
	var all [2][]Block
	for party := range 2 {
		out, pi := make([]Block, c.EvalAll.N), make([]Block, ProofBlocks)
		require.NoError(t, v.EvalAllProof(out, pi, party, seeds[party:party+1], cws))
		h := sha256.New()
		for _, b := range out {
			img := b.Bytes()
			h.Write(img[:])
		}
		require.Equal(t, c.EvalAll.Sha256[party], hex.EncodeToString(h.Sum(nil)), "%s: EvalAll party %d", c.ID, party)
		require.Equal(t, katProof(c.EvalAll.Pi[party]), pi, "%s: EvalAll proof of party %d", c.ID, party)
		plain := make([]Block, c.EvalAll.N)
		require.NoError(t, v.EvalAll(plain, party, seeds[party:party+1], cws))
		require.Equal(t, out, plain, c.ID)
		all[party] = pi
	}
	require.Equal(t, c.EvalAll.Verify, verifyOne(t, all[0], all[1]), c.ID)
	return 1
}

// pisShare is party 0's share at x, for checking the vectors' sums.
func pisShare(t *testing.T, v *Vdpf, seed Block, cws []Cw, x Uint128) Block {
	y, _, err := v.EvalPoint(0, seed, cws, x)
	require.NoError(t, err)
	return y
}

func verifyOne(t *testing.T, pi0, pi1 []Block) bool {
	ok := make([]uint8, 1)
	require.NoError(t, VerifyProofs(ok, pi0, pi1))
	return ok[0] == 1
}

func randBlocks(r *rand.Rand, n int) []Block {
	out := make([]Block, n)
	for i := range out {
		out[i] = Block{r.Uint64(), r.Uint64()}
	}
	return out
}

// TestVdpfBatches checks batched calls against one key and one point at a time, and
// that honest keys' proofs verify while a changed correction word's do not.
func TestVdpfBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, hk := range []HashKind{HashSha256, HashBlake3} {
		for _, n := range []int{1, 7, 70} {
			p := DefaultParams(KindVdpf, n, Uint64, PrgAesMmo)
			p.Hash = DefaultVdpfHash(hk)
			s, err := New(p)
			require.NoError(t, err)
			v := s.(*Vdpf)
			const keys, m = 3, 5
			rows := p.CwRows()
			cws, seeds := make([]Cw, keys*rows), randBlocks(r, 2*keys)
			alphas := make([]Uint128, keys)
			for k := range alphas {
				alphas[k] = Uint128{r.Uint64() & (1<<min(n, 64) - 1), 0}
			}
			require.NoError(t, v.Gen(cws, seeds, alphas, randBlocks(r, keys)))
			xs := make([]Uint128, keys*m)
			for j := range xs {
				xs[j] = Uint128{r.Uint64() & (1<<min(n, 64) - 1), 0}
			}
			xs[0] = alphas[0]
			var pis [2][]Block
			for party := range 2 {
				s0s := []Block{seeds[party], seeds[2+party], seeds[4+party]}
				ys, pieces := make([]Block, len(xs)), make([]Block, ProofBlocks*len(xs))
				require.NoError(t, v.EvalProof(ys, pieces, party, s0s, cws, xs))
				for j, x := range xs {
					k := j / m
					y, pt, err := v.EvalPoint(party, s0s[k], cws[k*rows:(k+1)*rows], x)
					require.NoError(t, err)
					require.Equal(t, y, ys[j])
					require.Equal(t, pt[:], pieces[ProofBlocks*j:ProofBlocks*(j+1)])
				}
				pis[party] = make([]Block, ProofBlocks*keys)
				require.NoError(t, v.Prove(pis[party], pieces, cws))
				// Key by key: the same proof, built with ProofStep.
				for k := range keys {
					pi := keyCs(cws[k*rows:], n)
					for j := range m {
						v.ProofStep(&pi, (*[ProofBlocks]Block)(pieces[ProofBlocks*(k*m+j):]))
					}
					require.Equal(t, pi[:], pis[party][ProofBlocks*k:ProofBlocks*(k+1)])
				}
			}
			ok := make([]uint8, keys)
			require.NoError(t, VerifyProofs(ok, pis[0], pis[1]))
			require.Equal(t, []uint8{1, 1, 1}, ok, "honest keys verify (%s, n=%d)", hk, n)
			// Party 1 with a changed seed correction on the path of every point of
			// key 1 (the root level): its proof no longer matches.
			bad := append([]Cw(nil), cws...)
			bad[rows][0].Lo ^= 1 << 40
			s0s := []Block{seeds[1], seeds[3], seeds[5]}
			ys, pieces := make([]Block, len(xs)), make([]Block, ProofBlocks*len(xs))
			require.NoError(t, v.EvalProof(ys, pieces, 1, s0s, bad, xs))
			pi1 := make([]Block, ProofBlocks*keys)
			require.NoError(t, v.Prove(pi1, pieces, bad))
			require.NoError(t, VerifyProofs(ok, pis[0], pi1))
			require.Equal(t, []uint8{1, 0, 1}, ok, "only the changed key fails (%s, n=%d)", hk, n)
		}
	}
}

// TestVdpfProveLanes checks Prove, whose keys' chains step together (eight or two
// at a time), against ProofStep key by key, for 1 to 17 keys (groups partly
// filled) of random pieces and correction words, through each hash path.
func TestVdpfProveLanes(t *testing.T) {
	check := func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, hk := range []HashKind{HashSha256, HashBlake3} {
			p := DefaultParams(KindVdpf, 5, Uint64, PrgAesMmo)
			p.Hash = DefaultVdpfHash(hk)
			s, err := New(p)
			require.NoError(t, err)
			v := s.(*Vdpf)
			rows := p.CwRows()
			// Chains of 3 pieces, lanes of 1 to 17 keys; and chains that Prove takes
			// in several spans.
			type shape struct{ keys, m int }
			var shapes []shape
			for keys := 1; keys <= 17; keys++ {
				shapes = append(shapes, shape{keys, 3})
			}
			shapes = append(shapes, shape{1, 2*proveSpan + 5}, shape{9, proveSpan + 1})
			for _, sh := range shapes {
				keys, m := sh.keys, sh.m
				cws := make([]Cw, keys*rows)
				for i := range cws {
					cws[i] = Cw{Block{r.Uint64(), r.Uint64()}, Block{r.Uint64(), r.Uint64()}}
				}
				pieces := randBlocks(r, ProofBlocks*keys*m)
				pis := make([]Block, ProofBlocks*keys)
				require.NoError(t, v.Prove(pis, pieces, cws))
				for k := range keys {
					pi := keyCs(cws[k*rows:], p.InBits)
					for j := range m {
						v.ProofStep(&pi, (*[ProofBlocks]Block)(pieces[ProofBlocks*(k*m+j):]))
					}
					require.Equal(t, pi[:], pis[ProofBlocks*k:ProofBlocks*(k+1)], "%s, key %d of %d", hk, k, keys)
				}
			}
		}
	}
	t.Run("default", check)
	t.Run("portable-hashes", func(t *testing.T) {
		defer hashes.ForcePortable()()
		check(t)
	})
}

// TestVdpfEvalAllBatches checks EvalAllProof over a batch of keys against the keys one
// at a time and against Prove over EvalProof's pieces at every input.
func TestVdpfEvalAllBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 3, 12} {
		p := DefaultParams(KindVdpf, n, Bytes, PrgChaCha)
		s, err := New(p)
		require.NoError(t, err)
		v := s.(*Vdpf)
		const keys = 3
		rows := p.CwRows()
		cws, seeds := make([]Cw, keys*rows), randBlocks(r, 2*keys)
		alphas := []Uint128{{}, {Lo: 1<<n - 1}, {Lo: r.Uint64() & (1<<n - 1)}}
		betas := randBlocks(r, keys)
		for i := range betas {
			betas[i] = betas[i].Clamp()
		}
		require.NoError(t, v.Gen(cws, seeds, alphas, betas))
		s0s := []Block{seeds[0], seeds[2], seeds[4]}
		out, pis := make([]Block, keys<<n), make([]Block, ProofBlocks*keys)
		require.NoError(t, v.EvalAllProof(out, pis, 0, s0s, cws))
		xs := make([]Uint128, keys<<n)
		for j := range xs {
			xs[j] = Uint128{Lo: uint64(j % (1 << n))}
		}
		ys, pieces := make([]Block, len(xs)), make([]Block, ProofBlocks*len(xs))
		require.NoError(t, v.EvalProof(ys, pieces, 0, s0s, cws, xs))
		require.Equal(t, ys, out)
		want := make([]Block, ProofBlocks*keys)
		require.NoError(t, v.Prove(want, pieces, cws))
		require.Equal(t, want, pis, "n=%d", n)
	}
}

func TestVdpfParams(t *testing.T) {
	for _, hk := range []HashKind{HashSha256, HashBlake3} {
		p := DefaultParams(KindVdpf, 20, Uint32, PrgAesMmo)
		p.Hash = DefaultVdpfHash(hk)
		p.Hash.Key[0].Lo ^= 5
		b, err := json.Marshal(p)
		require.NoError(t, err)
		back, err := ParseParams(b)
		require.NoError(t, err)
		require.Equal(t, p, back, string(b))
		require.Equal(t, 23, back.CwRows())
	}
	// The hash's keys default to the vectors'; a missing hash is sha256.
	p, err := ParseParams([]byte(`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "blake3"}}`))
	require.NoError(t, err)
	require.Equal(t, DefaultVdpfHash(HashBlake3), p.Hash)
	p, err = ParseParams([]byte(`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha"}`))
	require.NoError(t, err)
	require.Equal(t, DefaultVdpfHash(HashSha256), p.Hash)

	for _, c := range []struct{ json, err string }{
		{`{"scheme": "dpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "sha256"}}`, "hash is a parameter of vdpf, not of dpf"},
		{`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "md5"}}`, `hash must be one of sha256, blake3, not "md5"`},
		{`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "sha256", "hash_iv": [[1,2,3,4],[5,6,7,8]]}}`, "sha256 takes xor_hash_key"},
		{`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "blake3", "hash_key": [1,2,3,4]}}`, "blake3 xor_hash_iv"},
		{`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "sha256", "hash_key": [1,2,3,4294967296]}}`, "hash: hash_key words must fit in 32 bits"},
		{`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "sha256", "hash_key": [1,2,3]}}`, "hash: hash_key must be a block of 4 words, not 3"},
		{`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "blake3", "hash_iv": [[1,2,3,4]]}}`, "hash: hash_iv must be two blocks, not 1"},
		{`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "blake3", "hash_iv": [[1,2,3,4], [1]]}}`, "hash: hash_iv must be a block of 4 words, not 1"},
		{`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "sha256", "hashkey": [1,2,3,4]}}`, `unknown field "hashkey"`},
		{`{"scheme": "vdpf", "in_bits": 129, "group": "bytes", "prg": "chacha"}`, "in_bits must be between 1 and 128"},
	} {
		_, err := ParseParams([]byte(c.json))
		require.ErrorContains(t, err, c.err, c.json)
		var ae *ArgError
		require.ErrorAs(t, err, &ae)
	}
	// Params made in Go: sha256 keys have one block.
	bad := DefaultParams(KindVdpf, 5, Bytes, PrgChaCha)
	bad.Hash.Key[1].Lo = 1
	require.ErrorContains(t, bad.Check(), "second must be zero")
	bad = DefaultParams(KindDpf, 5, Bytes, PrgChaCha)
	bad.Hash = DefaultVdpfHash(HashSha256)
	require.ErrorContains(t, bad.Check(), "hash is a parameter of vdpf")
	_, err = New(DefaultParams(KindVdpf, 5, Bytes, PrgChaCha), WithImpl("avx512"))
	require.Error(t, err)
	cat := Catalogue()["schemes"].(map[string]any)["vdpf"].(map[string]any)
	require.Equal(t, 2, cat["mul"])
	require.Contains(t, cat["default_hashes"], "blake3")
}

// TestVdpfCallErrors tries the proof calls with bad arguments: each gets an ArgError,
// never a panic or a result.
func TestVdpfCallErrors(t *testing.T) {
	s, err := New(DefaultParams(KindVdpf, 8, Uint32, PrgChaCha))
	require.NoError(t, err)
	v := s.(*Vdpf)
	rows := v.Params().CwRows()
	cws := make([]Cw, rows)
	seeds := []Block{{Lo: 1}, {Lo: 2}}
	require.NoError(t, v.Gen(cws, seeds, []Uint128{{Lo: 3}}, []Block{{Lo: 9}}))
	one := []Block{seeds[0]}
	xs := []Uint128{{Lo: 1}, {Lo: 2}}
	badLast := append([]Cw(nil), cws...)
	badLast[8][1].Lo = 1
	for name, err := range map[string]error{
		"pieces short":   v.EvalProof(make([]Block, 2), make([]Block, 7), 0, one, cws, xs),
		"party":          v.EvalProof(make([]Block, 2), make([]Block, 8), 2, one, cws, xs),
		"x range":        v.EvalProof(make([]Block, 2), make([]Block, 8), 0, one, cws, []Uint128{{Lo: 256}, {}}),
		"cws rows":       v.EvalProof(make([]Block, 2), make([]Block, 8), 0, one, cws[:rows-1], xs),
		"bad ocw row":    v.EvalProof(make([]Block, 2), make([]Block, 8), 0, one, badLast, xs),
		"prove pis":      v.Prove(make([]Block, 3), make([]Block, 8), cws),
		"prove pieces":   v.Prove(make([]Block, 4), make([]Block, 6), cws),
		"prove cws":      v.Prove(make([]Block, 4), make([]Block, 8), cws[:rows-1]),
		"prove no keys":  v.Prove(nil, make([]Block, 4), nil),
		"evalall pis":    v.EvalAllProof(make([]Block, 256), make([]Block, 3), 0, one, cws),
		"evalall dst":    v.EvalAllProof(make([]Block, 255), make([]Block, 4), 0, one, cws),
		"verify lengths": VerifyProofs(make([]uint8, 1), make([]Block, 4), make([]Block, 3)),
	} {
		var ae *ArgError
		require.ErrorAs(t, err, &ae, name)
	}
	// Empty batches are fine.
	require.NoError(t, v.Prove(nil, nil, nil))
	require.NoError(t, v.EvalProof(nil, nil, 0, nil, nil, nil))
	require.NoError(t, VerifyProofs(nil, nil, nil))
}

func FuzzVdpfEval(f *testing.F) {
	f.Add([]byte{}, uint8(7), uint8(1), true, false, 0, uint64(3), uint64(0), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, raw []byte, inBits, group uint8, blake, useAes bool, party int, xLo, xHi uint64, seed []byte) {
		p := DefaultParams(KindVdpf, 1+int(inBits)%MaxInBits, Group(group%4), map[bool]PrgKind{false: PrgChaCha, true: PrgAesMmo}[useAes])
		if blake {
			p.Hash = DefaultVdpfHash(HashBlake3)
		}
		s, err := New(p)
		require.NoError(t, err)
		v := s.(*Vdpf)
		cws := cwsFromBytes(raw)
		y, pieces, pi := make([]Block, 1), make([]Block, ProofBlocks), make([]Block, ProofBlocks)
		if v.EvalProof(y, pieces, party, []Block{blockFrom(seed)}, cws, []Uint128{{xLo, xHi}}) == nil {
			require.NoError(t, v.Prove(pi, pieces, cws))
		}
	})
}

// FuzzVdpfParams feeds parameter JSON, as keys carry it, to the loader.
func FuzzVdpfParams(f *testing.F) {
	f.Add([]byte(`{"scheme": "vdpf", "in_bits": 5, "group": "bytes", "prg": "chacha", "hash": {"name": "blake3", "hash_iv": [[1,2,3,4],[5,6,7,8]]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := ParseParams(raw)
		if err != nil {
			return
		}
		b, err := json.Marshal(p)
		require.NoError(t, err)
		back, err := ParseParams(b)
		require.NoError(t, err)
		require.Equal(t, p, back)
	})
}

// TestVerifyProofs changes each bit of a proof in turn: every change is caught, in
// the pair it was made in only.
func TestVerifyProofs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pi0 := randBlocks(r, 2*ProofBlocks)
	ok := make([]uint8, 2)
	for bit := range 2 * ProofBlocks * 128 {
		pi1 := append([]Block(nil), pi0...)
		b := &pi1[bit/128]
		if bit%128 < 64 {
			b.Lo ^= 1 << (bit % 64)
		} else {
			b.Hi ^= 1 << (bit % 64)
		}
		require.NoError(t, VerifyProofs(ok, pi0, pi1))
		want := []uint8{0, 1}
		if bit >= ProofBlocks*128 {
			want = []uint8{1, 0}
		}
		require.Equal(t, want, ok, "bit %d", bit)
	}
	require.NoError(t, VerifyProofs(ok, pi0, pi0))
	require.Equal(t, []uint8{1, 1}, ok)
}

// TestVdpfHash checks Vdpf.Hash, H' with the scheme's hash key, against
// primitives.json for both hashes.
func TestVdpfHash(t *testing.T) {
	all, err := kat.LoadHashVectors()
	require.NoError(t, err)
	for _, hv := range all {
		kind := map[string]HashKind{"sha256": HashSha256, "blake3": HashBlake3}[hv.Hash.Name]
		p := DefaultParams(KindVdpf, 4, Bytes, PrgChaCha)
		p.Hash = DefaultVdpfHash(kind)
		s, err := New(p)
		require.NoError(t, err)
		require.NotEmpty(t, hv.Hash64)
		for i, v := range hv.Hash64 {
			var m [ProofBlocks]Block
			for j, b := range v.Msg {
				m[j] = katBlock(b)
			}
			want := [2]Block{katBlock(v.WithHashKey[0]), katBlock(v.WithHashKey[1])}
			require.Equal(t, want, s.(*Vdpf).Hash(m), "%s #%d", hv.Hash.Name, i)
		}
	}
}

// TestVdpfControl: a stopped Control ends the proof calls with ErrStopped, and a
// running one counts EvalAllProof's outputs.
func TestVdpfControl(t *testing.T) {
	s, err := New(DefaultParams(KindVdpf, 10, Bytes, PrgChaCha))
	require.NoError(t, err)
	cws := make([]Cw, s.Params().CwRows())
	seeds := []Block{{Lo: 1}, {Lo: 2}}
	require.NoError(t, s.Gen(cws, seeds, []Uint128{{Lo: 3}}, []Block{{Lo: 4}}))
	var c Control
	v := s.WithControl(&c).(*Vdpf)
	out, pi := make([]Block, 1024), make([]Block, ProofBlocks)
	require.NoError(t, v.EvalAllProof(out, pi, 0, seeds[:1], cws))
	require.Equal(t, int64(1024), c.Done.Load())
	c.Stop.Store(1)
	require.ErrorIs(t, v.EvalAllProof(out, pi, 0, seeds[:1], cws), ErrStopped)
	require.ErrorIs(t, v.EvalProof(out[:1], pi, 0, seeds[:1], cws, []Uint128{{}}), ErrStopped)
	require.ErrorIs(t, v.Prove(pi, pi, cws), ErrStopped)
}

// Prove with pis in the memory of pieces (one point per key: the same length) gives
// the proofs of separate memory: cs is written into pis before the pieces are read.
func TestVdpfProveInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	p := DefaultParams(KindVdpf, 5, Uint64, PrgAesMmo)
	s, err := New(p)
	require.NoError(t, err)
	v := s.(*Vdpf)
	for _, keys := range []int{1, 3, 9} {
		cws := make([]Cw, keys*p.CwRows())
		for i := range cws {
			cws[i] = Cw{Block{r.Uint64(), r.Uint64()}, Block{r.Uint64(), r.Uint64()}}
		}
		pieces := randBlocks(r, ProofBlocks*keys)
		want := make([]Block, ProofBlocks*keys)
		require.NoError(t, v.Prove(want, pieces, cws))
		require.NoError(t, v.Prove(pieces, pieces, cws))
		require.Equal(t, want, pieces, "%d keys", keys)
	}
}
