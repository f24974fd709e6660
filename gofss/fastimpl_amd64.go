//go:build amd64 && !purego

package gofss

import (
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/chacha"
	"github.com/pyfss/pyfss/gofss/internal/simd"
)

// The fast walks: the same trees as the portable code, with the per-node steps done
// by package routines (AVX-512) many nodes at a time. Nodes carry their control bit in
// the lsb of u instead of in a separate byte. Two entries of the registry: the
// routines running AES-128 MMO themselves (VAES), and the routines fed by the PRG.
// Without AVX-512, the fused Eval walks of AVX2 CPUs with the one-key walks.

func archImpls() []impl {
	return []impl{
		{
			name: "avx512-vaes",
			dpf:  func(d *Dpf) walks { return withOneKeyDpf(d, newFastDpf(d, true)) },
			dcf:  func(d *Dcf) walks { return withOneKeyDcf(d, newFastDcf(d, true)) },
		},
		{
			name: "avx512",
			dpf:  func(d *Dpf) walks { return newFastDpf(d, false) },
			dcf:  func(d *Dcf) walks { return newFastDcf(d, false) },
		},
		fusedEvalImpl("avx2-vaes", simd.FusedVAES256), // fusedeval_amd64.go
		fusedEvalImpl("avx2-aesni", simd.FusedAESNI),
		{name: AesniImpl, dpf: newOneKeyDpf, dcf: newOneKeyDcf}, // onekey_amd64.go
		{name: ChachaImpl, dpf: newChachaDpf, dcf: newChachaDcf},
	}
}

// fastSetup is what both schemes' fast walks take when they are made.
type fastSetup struct {
	ka     [2]simd.Arith   // the group's arithmetic for party 0 and 1, where kaOK
	kaOK   bool            // false for uint127, whose leaves and values stay in Go
	aes    *simdAesKeys    // non-nil: the routines run AES-128 MMO themselves
	eval   *simd.FusedEval // with aes: the fused Eval walks
	chacha *ChaCha         // non-nil: one point, and batches of a chunk or more, take the ChaCha point walks
}

// newFastSetup returns the setup of the fast walks of a scheme with these parameters
// and prg, fused or not (the routines running AES themselves), or false where they do
// not serve it: without the routines, or with prg on its portable backend (selecting
// that backend, as tests and benchmarks do, keeps the walks portable too).
func newFastSetup(group Group, prg Prg, fused bool) (fastSetup, bool) {
	var f fastSetup
	if !simd.Available {
		return f, false
	}
	switch p := prg.(type) {
	case *AesMmo:
		if aes128.Backend() == aes128.Generic {
			return f, false
		}
		if fused {
			if !simd.HasAES || aes128.Backend() != aes128.VAES {
				return f, false
			}
			f.aes, f.eval = expandAesKeys(p.Keys()), simd.FusedAVX512
		}
	case *ChaCha:
		if fused || chacha.Backend() == chacha.Generic {
			return f, false
		}
		f.chacha = p
	default:
		return f, false
	}
	f.ka, f.kaOK = simdAriths(group)
	return f, true
}

// fastDpf and fastDcf are the fast walks of a scheme. They embed the scheme, whose
// own walks (f.Dpf.walkEval, ...) serve what the routines do not: uint127 where the
// routines would need its arithmetic, short batches without the ChaCha walk.
type fastDpf struct {
	fastSetup
	*Dpf
}

type fastDcf struct {
	fastSetup
	*Dcf
}

func newFastDpf(d *Dpf, fused bool) walks {
	s, ok := newFastSetup(d.params.Group, d.prg, fused)
	if !ok {
		return nil
	}
	return &fastDpf{s, d}
}

func newFastDcf(d *Dcf, fused bool) walks {
	s, ok := newFastSetup(d.params.Group, d.prg, fused)
	if !ok {
		return nil
	}
	return &fastDcf{s, d}
}

// withOneKeyDpf puts the one-key walks in front of the fused AVX-512 walks f for short
// batches, as the AVX2 fused implementations have them (fusedEvalDpf): without, a
// single key went through the portable walk (Eval) or a padded tile of the Gen
// routine. f is returned as it is where the one-key walks do not serve the PRG.
func withOneKeyDpf(d *Dpf, f walks) walks {
	fast, ok := f.(*fastDpf)
	keys := oneKeyKeys(d.prg)
	if !ok || keys == nil {
		return f
	}
	return &fusedEvalDpf{oneKeyDpf{d, keys}, fast, avx512DpfShort}
}

func withOneKeyDcf(d *Dcf, f walks) walks {
	fast, ok := f.(*fastDcf)
	keys := oneKeyKeys(d.prg)
	if !ok || keys == nil {
		return f
	}
	return &fusedEvalDcf{newOneKeyDcfWalks(d, keys), fast, avx512DcfShort}
}

// simdAriths gives the group's masks for the routines, for party 0 and party 1
// (whose outputs an integer group negates), where the group has lane masks and its
// + is XOR or addition throughout, as simd.Arith requires.
func simdAriths(g Group) ([2]simd.Arith, bool) {
	m, ok := g.laneMasks()
	if !ok || m.xor != (Block{}) && m.xor != (Block{^uint64(0), ^uint64(0)}) {
		return [2]simd.Arith{}, false
	}
	from := kblock(m.from)
	a := simd.Arith{From: from, Xor: kblock(m.xor), Mask: from}
	b := a
	b.Neg = kblock(m.add)
	return [2]simd.Arith{a, b}, true
}

// simdAesKeys are an aes128_mmo PRG's keys in the forms that the routines running
// AES themselves take, made once with the walks.
type simdAesKeys struct {
	rounds []simd.RoundKeys // the expanded keys, one per output
	lanes  *simd.LaneKeys   // the same, laid out for the EvalAll routines' lanes
}

func expandAesKeys(keys [][16]byte) *simdAesKeys {
	k := &simdAesKeys{rounds: make([]simd.RoundKeys, len(keys))}
	for i, raw := range keys {
		k.rounds[i] = aes128.RoundKeys(raw)
	}
	k.lanes = simd.NewLaneKeys(k.rounds)
	return k
}

// two and four are the expanded keys of a 2- or 4-output PRG (DPF's, DCF's); lanes
// the EvalAll routines' form. All are nil on a nil receiver, where the routines take
// the PRG output from the PRG instead.
func (k *simdAesKeys) two() *[2]simd.RoundKeys {
	if k == nil {
		return nil
	}
	return (*[2]simd.RoundKeys)(k.rounds)
}

func (k *simdAesKeys) four() *[4]simd.RoundKeys {
	if k == nil {
		return nil
	}
	return (*[4]simd.RoundKeys)(k.rounds)
}

func (k *simdAesKeys) laneKeys() *simd.LaneKeys {
	if k == nil {
		return nil
	}
	return k.lanes
}

// prgRaw runs the PRG on the seeds in into raw for the routines.
func prgRaw(prg Prg, raw, in []Block) []simd.Block {
	prg.Expand(raw, in)
	return kblocks(raw)
}

func kblocks(b []Block) []simd.Block {
	return unsafe.Slice((*simd.Block)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

func kcws(cws []Cw) []simd.Block {
	return unsafe.Slice((*simd.Block)(unsafe.Pointer(unsafe.SliceData(cws))), 2*len(cws))
}

const cwSize = int(unsafe.Sizeof(Cw{}))

func kblock(b Block) simd.Block { return simd.Block(b) }
