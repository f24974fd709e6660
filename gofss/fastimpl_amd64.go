//go:build amd64 && !purego

package gofss

import (
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/chacha"
	"github.com/pyfss/pyfss/gofss/internal/kernels"
)

// The fast walks: the same trees as the portable code, with the per-node steps done
// by package kernels (AVX-512) many nodes at a time. Nodes carry their control bit in
// the lsb of u instead of in a separate byte. Two entries of the registry: the
// kernels running AES-128 MMO themselves (VAES), and the kernels fed by the PRG.

func archImpls() []impl {
	return []impl{
		{
			name: "avx512-vaes",
			dpf:  func(d *Dpf) walks { return newFastDpf(d, true) },
			dcf:  func(d *Dcf) walks { return newFastDcf(d, true) },
		},
		{
			name: "avx512",
			dpf:  func(d *Dpf) walks { return newFastDpf(d, false) },
			dcf:  func(d *Dcf) walks { return newFastDcf(d, false) },
		},
	}
}

// fastSetup is what both schemes' fast walks take when they are made.
type fastSetup struct {
	ka     [2]kernels.Arith // the group's arithmetic for party 0 and 1, where kaOK
	kaOK   bool             // false for uint127, whose leaves and values stay in Go
	aes    *aesKernelKeys   // non-nil: the kernels run AES-128 MMO themselves
	chacha *ChaCha          // non-nil: short batches take the one-point ChaCha walk
}

// newFastSetup returns the setup of the fast walks of a scheme with these parameters
// and prg, fused or not (the kernels running AES themselves), or false where they do
// not serve it: without the kernels, or with prg on its portable backend (selecting
// that backend, as tests and benchmarks do, keeps the walks portable too).
func newFastSetup(group Group, prg Prg, fused bool) (fastSetup, bool) {
	var f fastSetup
	if !kernels.Available {
		return f, false
	}
	switch p := prg.(type) {
	case *AesMmo:
		if aes128.Backend() == aes128.Generic {
			return f, false
		}
		if fused {
			if !kernels.HasAES || aes128.Backend() != aes128.VAES {
				return f, false
			}
			f.aes = expandAesKeys(p.Keys())
		}
	case *ChaCha:
		if fused || chacha.Backend() == chacha.Generic {
			return f, false
		}
		f.chacha = p
	default:
		return f, false
	}
	f.ka, f.kaOK = kernelAriths(group)
	return f, true
}

// fastDpf and fastDcf are the fast walks of a scheme. They embed the scheme, whose
// own walks (f.Dpf.walkEval, ...) serve what the kernels do not: uint127 where the
// kernels would need its arithmetic, short batches without the ChaCha walk.
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

// kernelAriths gives the group's masks for the kernels, for party 0 and party 1
// (whose outputs an integer group negates), where the group has lane masks.
func kernelAriths(g Group) ([2]kernels.Arith, bool) {
	m, ok := g.laneMasks()
	if !ok {
		return [2]kernels.Arith{}, false
	}
	from := kblock(m.from)
	a := kernels.Arith{From: from, Xor: kblock(m.xor), Mask: from}
	b := a
	b.Neg = kblock(m.add)
	return [2]kernels.Arith{a, b}, true
}

// aesKernelKeys are an aes128_mmo PRG's keys in the forms that the kernels running
// AES themselves take, made once with the walks.
type aesKernelKeys struct {
	rounds []kernels.RoundKeys // the expanded keys, one per output
	lanes  *kernels.LaneKeys   // the same, laid out for the EvalAll kernels' lanes
}

func expandAesKeys(keys [][16]byte) *aesKernelKeys {
	k := &aesKernelKeys{rounds: make([]kernels.RoundKeys, len(keys))}
	for i, raw := range keys {
		k.rounds[i] = aes128.RoundKeys(raw)
	}
	k.lanes = kernels.NewLaneKeys(k.rounds)
	return k
}

// two and four are the expanded keys of a 2- or 4-output PRG (DPF's, DCF's); lanes
// the EvalAll kernels' form. All are nil on a nil receiver, where the kernels take
// the PRG output from the PRG instead.
func (k *aesKernelKeys) two() *[2]kernels.RoundKeys {
	if k == nil {
		return nil
	}
	return (*[2]kernels.RoundKeys)(k.rounds)
}

func (k *aesKernelKeys) four() *[4]kernels.RoundKeys {
	if k == nil {
		return nil
	}
	return (*[4]kernels.RoundKeys)(k.rounds)
}

func (k *aesKernelKeys) laneKeys() *kernels.LaneKeys {
	if k == nil {
		return nil
	}
	return k.lanes
}

// prgRaw runs the PRG on the seeds in into raw for the kernels, or returns nil when
// they run it themselves (fused).
func prgRaw(prg Prg, fused bool, raw, in []Block) []kernels.Block {
	if fused {
		return nil
	}
	prg.Expand(raw, in)
	return kblocks(raw)
}

func kblocks(b []Block) []kernels.Block {
	return unsafe.Slice((*kernels.Block)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

func kcws(cws []Cw) []kernels.Block {
	return unsafe.Slice((*kernels.Block)(unsafe.Pointer(unsafe.SliceData(cws))), 2*len(cws))
}

const cwSize = int(unsafe.Sizeof(Cw{}))

func kblock(b Block) kernels.Block { return kernels.Block(b) }
