//go:build amd64 && !purego

package gofss

import (
	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/simd"
)

// The implementations of CPUs without AVX-512 whose fast routines are the fused
// walks of package simd (AVX2 with VAES or AES-NI), for aes128_mmo: Eval batches
// take the walks, through the same tiles as the AVX-512 ones (fastDpf.evalAes),
// EvalAll and Gen the fused level routines (fastDpf.walkEvalAll, walkGen), and
// everything else the one-key walks of the "aesni" implementation (short batches)
// or the portable ones.

// fusedEvalImpl is the registry entry of eval's walks, named name.
func fusedEvalImpl(name string, eval *simd.FusedEval) impl {
	return impl{
		name: name,
		dpf: func(d *Dpf) walks {
			k, s, ok := fusedEvalSetup(d.prg, d.params.Group, eval)
			if !ok {
				return nil
			}
			return &fusedEvalDpf{oneKeyDpf{d, k}, &fastDpf{s, d}, avx2Short}
		},
		dcf: func(d *Dcf) walks {
			k, s, ok := fusedEvalSetup(d.prg, d.params.Group, eval)
			if !ok {
				return nil
			}
			return &fusedEvalDcf{newOneKeyDcfWalks(d, k), &fastDcf{s, d}, avx2Short}
		},
	}
}

// fusedEvalSetup returns the one-key walks' keys and the fused walks' setup, or
// false where eval does not serve the PRG on this CPU: another PRG, the CPU lacking
// eval's instructions, or the PRG on a backend slower than eval's class (the
// portable one, or AES-NI for the VAES walks; selecting a backend, as tests and
// benchmarks do, selects the walks of its class).
func fusedEvalSetup(prg Prg, group Group, eval *simd.FusedEval) (*aes128.WalkKeys, fastSetup, bool) {
	k := oneKeyKeys(prg)
	backend := aes128.Backend()
	if k == nil || !eval.Available || eval == simd.FusedVAES256 && backend != aes128.VAES256 {
		return nil, fastSetup{}, false
	}
	s := fastSetup{aes: expandAesKeys(prg.(*AesMmo).Keys()), eval: eval}
	s.ka, s.kaOK = simdAriths(group)
	return k, s, true
}

// fusedEvalDpf and fusedEvalDcf are fused walks (these AVX2 ones, or the AVX-512 ones
// of "avx512-vaes": withOneKeyDpf) behind the one-key walks, which take the short
// batches; the portable walks take those between (none on AVX2).
type fusedEvalDpf struct {
	oneKeyDpf
	fast  *fastDpf
	short oneKeyShort
}

type fusedEvalDcf struct {
	oneKeyDcf
	fast  *fastDcf
	short oneKeyShort
}

// oneKeyShort is the batches that the one-key walks take in front of fused walks:
// Evals of at most points points, Gens of at most keys keys. Measured per key against
// the portable and fused walks at in_bits 20: on Zen 3 (AVX2) the one-key walks won up
// to the fused walks' shortest batch; on Zen 5 (AVX-512) the portable Eval of 4-7
// points, each level 8 blocks in flight, and the AVX-512 Gen of 4 keys or more (DCF:
// 3) beat them (DPF Eval, 6 points: 257 ns/key against 312; DPF Gen, 4 keys: 400
// against 503).
type oneKeyShort struct{ points, keys int }

var (
	avx2Short      = oneKeyShort{minFastPoints - 1, oneKeyMaxKeys}
	avx512DpfShort = oneKeyShort{3, 3}
	avx512DcfShort = oneKeyShort{4, 2}
)

func (w *fusedEvalDpf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if len(xs) <= w.short.points || !aes128.HasWalk() {
		return w.oneKeyDpf.walkEval(st, dst, party, s0s, cws, xs, m)
	}
	if len(xs) < minFastPoints {
		return w.Dpf.walkEval(st, dst, party, s0s, cws, xs, m)
	}
	return w.fast.evalAes(st, &pointBatch{dst, party, s0s, cws, xs, m, w.params.InBits, nil})
}

func (w *fusedEvalDpf) walkEvalKeyed(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, keyOf []int32) (bool, error) {
	if !aes128.HasWalk() {
		return false, nil
	}
	return w.fast.walkEvalKeyed(st, dst, party, s0s, cws, xs, keyOf)
}

// walkEval is fusedEvalDpf's for DCF, whose walk needs the group's lane masks
// (not uint127's).
func (w *fusedEvalDcf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if len(xs) <= w.short.points || !w.fast.kaOK || !aes128.HasWalk() {
		return w.oneKeyDcf.walkEval(st, dst, party, s0s, cws, xs, m)
	}
	if len(xs) < minFastPoints {
		return w.Dcf.walkEval(st, dst, party, s0s, cws, xs, m)
	}
	return w.fast.evalAes(st, &pointBatch{dst, party, s0s, cws, xs, m, w.params.InBits, nil})
}

func (w *fusedEvalDpf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	if !aes128.HasWalk() { // the portable AES backend selected since: portable walks
		return w.Dpf.walkEvalAll(place, party, s0s, cws)
	}
	return w.fast.walkEvalAll(place, party, s0s, cws)
}

func (w *fusedEvalDcf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	if !aes128.HasWalk() {
		return w.Dcf.walkEvalAll(place, party, s0s, cws)
	}
	return w.fast.walkEvalAll(place, party, s0s, cws)
}

func (w *fusedEvalDpf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	w.genKeys(st, cws, s0s, alphas, betas, nil)
}

func (w *fusedEvalDpf) genKeys(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block, tail keyTail) {
	if oneKeyServes(len(alphas), w.short.keys) || !aes128.HasWalk() {
		w.oneKeyDpf.genKeys(st, cws, s0s, alphas, betas, tail)
		return
	}
	w.fast.genKeys(st, cws, s0s, alphas, betas, tail)
}

func (w *fusedEvalDcf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	if oneKeyServes(len(alphas), w.short.keys) || !aes128.HasWalk() {
		w.oneKeyDcf.walkGen(st, cws, s0s, alphas, betas)
		return
	}
	w.fast.walkGen(st, cws, s0s, alphas, betas)
}
