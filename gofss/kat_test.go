package gofss

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/chacha"
	"github.com/pyfss/pyfss/gofss/internal/kat"
	"github.com/pyfss/pyfss/gofss/internal/pathtest"
)

// prgPaths names the implementations of the named PRG that this CPU runs, and
// how to select one.
func prgPaths(prg string) ([]string, func(string) (string, error)) {
	if prg == "aes128_mmo" {
		return aes128.Backends(), aes128.SetBackend
	}
	return chacha.Backends(), chacha.SetBackend
}

// forEachBackend runs fn once per implementation of the named PRG, so the vectors
// check every fast path and the portable one.
func forEachBackend(t *testing.T, prg string, fn func(t *testing.T)) {
	names, set := prgPaths(prg)
	pathtest.Each(t, names, set, fn)
}

func katPrg(t *testing.T, p kat.Prg) Prg {
	if p.Name == "chacha" {
		prg, err := NewChaCha(p.Mul, p.NonceU32())
		require.NoError(t, err)
		return prg
	}
	keys, err := p.AesKeys()
	require.NoError(t, err)
	prg, err := NewAesMmo(keys)
	require.NoError(t, err)
	return prg
}

func katBlock(b kat.Block) Block { return BlockFromBytes(b.Bytes()) }

func katUint(u kat.Uint) Uint128 { return Uint128{u.Lo, u.Hi} }

func katCw(row [8]int32) Cw {
	return Cw{katBlock(kat.Block(row[:4])), katBlock(kat.Block(row[4:]))}
}

// scheme is what the vector tests need of Dpf and Dcf.
type scheme interface {
	Params() Params
	Gen(cws []Cw, s0s []Block, alphas []Uint128, betas []Block) error
	Eval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128) error
	EvalAll(dst []Block, party int, s0s []Block, cws []Cw) error
}

func katScheme(t *testing.T, f *kat.TreeFile, c *kat.TreeCase) scheme {
	g, err := ParseGroup(c.Group)
	require.NoError(t, err)
	prg := katPrg(t, f.Prg)
	switch f.Scheme {
	case "dpf":
		d, err := NewDpf(c.InBits, g, prg)
		require.NoError(t, err)
		return d
	case "half_tree_dpf":
		h, err := NewHalfTreeDpf(c.InBits, g, prg, katBlock(f.HashKey))
		require.NoError(t, err)
		return h
	}
	pred, err := ParsePred(f.Pred)
	require.NoError(t, err)
	d, err := NewDcf(c.InBits, g, prg, pred)
	require.NoError(t, err)
	return d
}

func TestVectors(t *testing.T) {
	ran := 0
	for _, name := range kat.TreeFiles {
		f, err := kat.LoadTree(name)
		require.NoError(t, err, "the vectors are part of the repository")
		require.NotEmpty(t, f.Cases)
		t.Run(name, func(t *testing.T) {
			forEachBackend(t, f.Prg.Name, func(t *testing.T) {
				for i := range f.Cases {
					checkCase(t, f, &f.Cases[i])
				}
			})
		})
		ran += len(f.Cases)
	}
	t.Logf("checked %d DPF/DCF cases per backend", ran)
}

// TestHalfTreeVectors checks the Half-Tree DPF files as TestVectors does the others,
// its keys through their conversion to and from the reference's layout.
func TestHalfTreeVectors(t *testing.T) {
	for _, name := range kat.HalfTreeFiles {
		f, err := kat.LoadTree(name)
		require.NoError(t, err, "the vectors are part of the repository")
		require.Len(t, f.Cases, 80)
		require.Equal(t, DefaultHashKey, katBlock(f.HashKey), "the default hash key is the vectors'")
		t.Run(name, func(t *testing.T) {
			forEachBackend(t, f.Prg.Name, func(t *testing.T) {
				for i := range f.Cases {
					checkCase(t, f, &f.Cases[i])
				}
			})
		})
	}
}

func checkCase(t *testing.T, f *kat.TreeFile, c *kat.TreeCase) {
	s := katScheme(t, f, c)
	seeds := []Block{katBlock(c.Seeds[0]), katBlock(c.Seeds[1])}

	cws := make([]Cw, s.Params().CwRows())
	require.NoError(t, s.Gen(cws, seeds, []Uint128{katUint(c.Alpha)}, []Block{katBlock(c.Beta)}))
	want := make([]Cw, len(c.Cws))
	for i, row := range c.Cws {
		want[i] = katCw(row)
	}
	if h, ok := s.(*HalfTreeDpf); ok {
		require.Len(t, want, c.InBits, c.ID)
		rows := make([]Cw, c.InBits)
		ocw, err := h.ReferenceKey(rows, cws)
		require.NoError(t, err, c.ID)
		require.Equal(t, want, rows, "%s: cws in the reference layout", c.ID)
		require.Equal(t, katBlock(*c.Ocw), ocw, "%s: ocw", c.ID)
		back := make([]Cw, len(cws))
		require.NoError(t, h.FromReferenceKey(back, want, katBlock(*c.Ocw)), c.ID)
		require.Equal(t, cws, back, "%s: the key from the reference layout", c.ID)
	} else {
		require.Equal(t, want, cws, "%s: cws", c.ID)
		checkBatchedGen(t, s, seeds, c, cws)
	}

	for _, e := range c.Evals {
		for party, want := range []kat.Block{e.Y0, e.Y1} {
			got := make([]Block, 1)
			require.NoError(t, s.Eval(got, party, seeds[party:party+1], cws, []Uint128{katUint(e.X)}))
			require.Equal(t, katBlock(want), got[0], "%s: Eval party %d at x=%v", c.ID, party, e.X)
		}
	}

	checkBatchedEvals(t, s, seeds, cws, c)

	if c.EvalAll == nil {
		return
	}
	for party := range 2 {
		out := make([]Block, c.EvalAll.N)
		require.NoError(t, s.EvalAll(out, party, seeds[party:party+1], cws))
		h := sha256.New()
		for _, b := range out {
			img := b.Bytes()
			h.Write(img[:])
		}
		require.Equal(t, c.EvalAll.Sha256[party], hex.EncodeToString(h.Sum(nil)), "%s: EvalAll party %d", c.ID, party)
		first, last := c.EvalAll.First[party], c.EvalAll.Last[party]
		for i, b := range first {
			require.Equal(t, katBlock(b), out[i], "%s: EvalAll first %d", c.ID, i)
		}
		for i, b := range last {
			require.Equal(t, katBlock(b), out[len(out)-len(last)+i], "%s: EvalAll last %d", c.ID, i)
		}
	}
}

// checkBatchedGen runs Gen on the case's key repeated to 40 keys (past the one-key
// walks' batches, more than one group of the batched Gen routines), so that the
// vectors check the batched Gen walks too.
func checkBatchedGen(t *testing.T, s scheme, seeds []Block, c *kat.TreeCase, want []Cw) {
	const keys = 40
	var s0s []Block
	var alphas []Uint128
	var betas []Block
	for range keys {
		s0s, alphas, betas = append(s0s, seeds...), append(alphas, katUint(c.Alpha)), append(betas, katBlock(c.Beta))
	}
	got := make([]Cw, keys*len(want))
	require.NoError(t, s.Gen(got, s0s, alphas, betas))
	for k := range keys {
		require.Equal(t, want, got[k*len(want):(k+1)*len(want)], "%s: cws of key %d of %d", c.ID, k, keys)
	}
}

// checkBatchedEvals evaluates the case's points in one batch of the key, repeated to
// 40 points (past the fast walks' shortest batch and more than one group of theirs),
// so that the vectors check the batched walks too.
func checkBatchedEvals(t *testing.T, s scheme, seeds []Block, cws []Cw, c *kat.TreeCase) {
	if len(c.Evals) == 0 {
		return
	}
	var xs []Uint128
	var want [2][]Block
	for len(xs) < 40 {
		for _, e := range c.Evals {
			xs = append(xs, katUint(e.X))
			want[0], want[1] = append(want[0], katBlock(e.Y0)), append(want[1], katBlock(e.Y1))
		}
	}
	for party := range 2 {
		got := make([]Block, len(xs))
		require.NoError(t, s.Eval(got, party, seeds[party:party+1], cws, xs))
		require.Equal(t, want[party], got, "%s: Eval party %d of %d points", c.ID, party, len(xs))
	}
}

func TestPrgVectors(t *testing.T) {
	p, err := kat.LoadPrimitives()
	require.NoError(t, err)
	require.NotEmpty(t, p.Prg)
	for _, pv := range p.Prg {
		t.Run(fmt.Sprintf("%s-mul%d", pv.Prg.Name, pv.Prg.Mul), func(t *testing.T) {
			forEachBackend(t, pv.Prg.Name, func(t *testing.T) {
				prg := katPrg(t, pv.Prg)
				var seeds, want []Block
				for _, v := range pv.Vectors {
					seeds = append(seeds, katBlock(v.Seed))
					for _, o := range v.Out {
						want = append(want, katBlock(o))
					}
				}
				got := make([]Block, len(want))
				prg.Expand(got, seeds)
				require.Equal(t, want, got)
			})
		})
	}
}

func TestGroupVectors(t *testing.T) {
	p, err := kat.LoadPrimitives()
	require.NoError(t, err)
	require.Len(t, p.Group, 4)
	for _, gv := range p.Group {
		g, err := ParseGroup(gv.Group)
		require.NoError(t, err)
		require.NotEmpty(t, gv.Vectors)
		for i, v := range gv.Vectors {
			a, b := katBlock(v.A), katBlock(v.B)
			require.Equal(t, katBlock(v.FromAInto), g.Canon(a), "%s #%d from/into", g, i)
			require.Equal(t, katBlock(v.APlusB), g.Add(g.Canon(a), g.Canon(b)), "%s #%d a+b", g, i)
			require.Equal(t, katBlock(v.NegA), g.Neg(g.Canon(a)), "%s #%d -a", g, i)
		}
	}
}

// PrgBackendInfo reports, rather than panics on, a PYFSS_*_BACKEND variable that names
// no backend (New refuses such a PRG). The variables are read when the process
// starts, so the test runs its binary again with one set.
func TestPrgBackendInfoWithARefusedBackend(t *testing.T) {
	if os.Getenv("GOFSS_BACKEND_INFO_CHILD") != "" {
		fmt.Println("error:", PrgBackendInfo()["chacha"]["error"])
		return
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("runs the test binary again, which the emulated arm64 runs cannot")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPrgBackendInfoWithARefusedBackend$")
	cmd.Env = append(os.Environ(), "GOFSS_BACKEND_INFO_CHILD=1", "PYFSS_CHACHA_BACKEND=no-such-backend")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "error: PYFSS_CHACHA_BACKEND=no-such-backend: chacha: unknown backend")
}

// PrgBackendInfo's "walks" follows the selected PRG backend: the walks are portable
// under the portable PRG (or without the routines), and run AES themselves only under
// the VAES backend; without AVX-512, AES-NI gets the one-key walks, with AVX2 the
// fused Eval walks of the backend's class, and ChaCha on AVX2 the point walks.
func TestPrgBackendInfoWalks(t *testing.T) {
	want := map[string]string{"generic": "portable", "aesni": "avx512", "vaes256": "avx512", "vaes-avx512": "avx512-vaes", "avx2": "avx512", "avx512": "avx512", "avx512-shiftrot": "avx512"}
	for _, prg := range []string{"aes128_mmo", "chacha"} {
		forEachBackend(t, prg, func(t *testing.T) {
			info := PrgBackendInfo()[prg]
			w := want[info["active"].(string)]
			if !simdOnCPU {
				w = PortableImpl
				if prg == "aes128_mmo" && info["active"] != "generic" && slices.Contains(Impls(), AesniImpl) {
					w = AesniImpl // the one-key walks, batches on the portable ones
					if fused, ok := avx2Walks[info["active"].(string)]; ok {
						w = fused // the one-key walks, batches on the fused Eval walks
					}
				}
				if prg == "chacha" && info["active"] != "generic" && slices.Contains(Impls(), "chacha") {
					w = "chacha" // the point walks (chachaimpl_amd64.go)
				}
			}
			require.Equal(t, w, info["walks"], "%s on %s", prg, info["active"])
		})
	}
}

// TestGrottoVectors checks the Grotto DCF files under every PRG backend: Gen's
// correction words, both parties' shares at the vectors' points, their leaf control
// bits, their shares on the whole domain and at its last input.
func TestGrottoVectors(t *testing.T) {
	for _, name := range kat.GrottoFiles {
		f, err := kat.LoadGrotto(name)
		require.NoError(t, err, "the vectors are part of the repository")
		require.Len(t, f.Cases, 12)
		t.Run(name, func(t *testing.T) {
			forEachBackend(t, f.Prg.Name, func(t *testing.T) {
				for i := range f.Cases {
					checkGrottoCase(t, f, &f.Cases[i])
				}
			})
		})
	}
}

func checkGrottoCase(t *testing.T, f *kat.GrottoFile, c *kat.GrottoCase) {
	p := DefaultParams(KindGrottoDcf, c.InBits, Bytes, PrgChaCha)
	if f.Prg.Name == "aes128_mmo" {
		p = DefaultParams(KindGrottoDcf, c.InBits, Bytes, PrgAesMmo)
	}
	g, err := NewGrottoDcf(p)
	require.NoError(t, err)
	seeds := []Block{katBlock(c.Seeds[0]), katBlock(c.Seeds[1])}
	cws := make([]Cw, c.InBits+1)
	require.NoError(t, g.Gen(cws, seeds, []Uint128{katUint(c.Alpha)}))
	require.Len(t, c.Cws, c.InBits+1, c.ID)
	for i, row := range c.Cws {
		require.Equal(t, katCw(row), cws[i], "%s: cws row %d", c.ID, i)
	}
	domain := 1 << c.InBits
	require.Equal(t, domain, c.EvalAll.N, c.ID)
	for party := range 2 {
		pre := make([]uint64, g.ParityWords())
		require.NoError(t, g.Preprocess(pre, party, seeds[party:party+1], cws))
		for _, e := range c.Evals {
			got := make([]uint8, 1)
			require.NoError(t, g.Eval(got, pre, []Uint128{katUint(e.X)}))
			require.Equal(t, boolBit([2]bool{e.Y0, e.Y1}[party]), got[0], "%s: party %d at x=%v", c.ID, party, e.X)
		}
		last := make([]uint8, 1)
		require.NoError(t, g.Eval(last, pre, []Uint128{{Lo: uint64(domain - 1)}}))
		require.Equal(t, boolBit(c.ParityRoot[party]), last[0], "%s: party %d's parity root", c.ID, party)

		all := make([]uint8, domain)
		require.NoError(t, g.EvalAll(all, party, seeds[party:party+1], cws))
		require.Equal(t, c.EvalAll.Sha256[party], sha256Hex(all), "%s: EvalAll party %d", c.ID, party)
		first, lastBits := c.EvalAll.FirstBits[party], c.EvalAll.LastBits[party]
		require.Equal(t, first, bitString(all[:len(first)]), c.ID)
		require.Equal(t, lastBits, bitString(all[domain-len(lastBits):]), c.ID)
		// The leaf control bits are the differences of consecutive shares.
		leaves := make([]uint8, domain)
		for x := range leaves {
			leaves[x] = all[x]
			if x > 0 {
				leaves[x] ^= all[x-1]
			}
		}
		require.Equal(t, c.LeafTSha256[party], sha256Hex(leaves), "%s: leaf control bits of party %d", c.ID, party)
	}
}

func boolBit(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func bitString(bits []uint8) string {
	s := make([]byte, len(bits))
	for i, b := range bits {
		s[i] = '0' + b
	}
	return string(s)
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
