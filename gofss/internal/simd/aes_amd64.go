//go:build amd64 && !purego

package simd

import "golang.org/x/sys/cpu"

// HasAES reports whether the routines that run AES-128 themselves (the fused Eval
// walks, for the aes128_mmo PRG) can run: they need VAES on top of Available.
var HasAES = Available && cpu.X86.HasAES && cpu.X86.HasAVX512VAES

// RoundKeys is an expanded AES-128 key: the 11 round keys of FIPS-197, as
// aes128.RoundKeys makes them.
type RoundKeys = [11][16]byte

// LaneKeys are AES-128 round keys laid out for the EvalAll routines' vectors of 4
// blocks: [r][i] is round r of lane i's key.
type LaneKeys [11][4][16]byte

// NewLaneKeys gives lane i the expanded key keys[i % len(keys)]: DPF's left and right
// keys twice, or DCF's SL, VL, SR and VR keys, the order of the PRG's outputs.
func NewLaneKeys(keys []RoundKeys) *LaneKeys {
	var l LaneKeys
	for r := range l {
		for i := range l[r] {
			l[r][i] = keys[i%len(keys)][r]
		}
	}
	return &l
}

// FusedEval is one CPU class's fused routines with AES-128 MMO as the PRG: the DPF
// and DCF Eval walks, each call walking groups of points down all levels of their
// keys' trees with the states in registers and AES run in place, so that the PRG
// output never goes through memory; and the EvalAll and Gen level routines with
// AES keys (methods named after the package's functions).
type FusedEval struct {
	Name      string
	Available bool // this CPU runs them
	DpfGroup  int  // points per group of the DPF walk
	DcfGroup  int  // and of the DCF walk
	// Which routines the methods call: by name, not through func values, whose
	// arguments would escape, a few allocations per tile and level of every call.
	class fusedClass
}

// The fused walks, fastest first: AVX-512 with VAES (avx512_amd64.s), and for CPUs
// without AVX-512 VAES on 256-bit vectors or AES-NI on 128-bit ones, both with AVX2
// (avx2_amd64.go); _asm generates both.
var (
	FusedAVX512  = &FusedEval{"avx512", HasAES, 32, 16, classAVX512}
	FusedVAES256 = &FusedEval{"vaes256", hasVAES256, 16, 8, classVAES256}
	FusedAESNI   = &FusedEval{"aesni", hasAVX2AES, 8, 4, classAESNI}
)

// fusedClass names a FusedEval's routines.
type fusedClass int

const (
	classAVX512 fusedClass = iota
	classVAES256
	classAESNI
)

// DpfLevel is the package's DpfLevel with keys (raw nil), on f's CPU class.
func (f *FusedEval) DpfLevel(u, s, parents []Block, cw *[2]Block, keys *LaneKeys) {
	m := len(parents)
	if !f.Available || len(u) != 2*m || len(s) != 2*m {
		panic("simd: FusedEval.DpfLevel: bad lengths or CPU")
	}
	if m == 0 {
		return
	}
	switch f.class {
	case classAVX512:
		dpfLevelVAES512(&u[0], &s[0], nil, &parents[0], m, cw, keys)
	case classVAES256:
		dpfLevelVAES256(&u[0], &s[0], &parents[0], m, cw, keys)
	default:
		dpfLevelAESNI(&u[0], &s[0], &parents[0], m, cw, keys)
	}
}

// DpfGenLevel is the package's DpfGenLevel with keys (ch nil), on f's CPU class.
func (f *FusedEval) DpfGenLevel(u0, u1, s []Block, r *GenRows, level int, keys *[2]RoundKeys) {
	p := r.check(u0, u1, s, nil, 2, level, true, f.Available)
	if p > 0 {
		cnt := shiftCounts(r.Levels - 1 - level)
		switch f.class {
		case classAVX512:
			dpfGenLevelVAES512(&u0[0], &u1[0], &s[0], nil, &r.Alphas[0], &r.Cws[2*level], r.stride(), r.Keys, p, &cnt, keys)
		case classVAES256:
			dpfGenLevelVAES256(&u0[0], &u1[0], &s[0], nil, &r.Alphas[0], &r.Cws[2*level], r.stride(), r.Keys, p, &cnt, keys)
		default:
			dpfGenLevelAESNI(&u0[0], &u1[0], &s[0], nil, &r.Alphas[0], &r.Cws[2*level], r.stride(), r.Keys, p, &cnt, keys)
		}
	}
}

// DcfGenLevel is the package's DcfGenLevel with keys (ch nil), on f's CPU class.
func (f *FusedEval) DcfGenLevel(u0, u1, s, vs, betas []Block, r *GenRows, level int, gt bool, ar *Arith, keys *[4]RoundKeys) {
	p := r.check(u0, u1, s, nil, 4, level, true, f.Available)
	if len(vs) != p || len(betas) != p {
		panic("simd: FusedEval.DcfGenLevel: bad lengths")
	}
	if p > 0 {
		cnt := shiftCounts(r.Levels - 1 - level)
		switch f.class {
		case classAVX512:
			dcfGenLevelVAES512(&u0[0], &u1[0], &s[0], nil, &r.Alphas[0], &r.Cws[2*level], r.stride(), r.Keys, p, &cnt, &vs[0], &betas[0], gt, ar, keys)
		case classVAES256:
			dcfGenLevelVAES256(&u0[0], &u1[0], &s[0], nil, &r.Alphas[0], &r.Cws[2*level], r.stride(), r.Keys, p, &cnt, &vs[0], &betas[0], gt, ar, keys)
		default:
			dcfGenLevelAESNI(&u0[0], &u1[0], &s[0], nil, &r.Alphas[0], &r.Cws[2*level], r.stride(), r.Keys, p, &cnt, &vs[0], &betas[0], gt, ar, keys)
		}
	}
}

// DcfLevel is the package's DcfLevel with keys (raw nil), on f's CPU class.
func (f *FusedEval) DcfLevel(u, s, v, parents, pv []Block, cw *[2]Block, vcw Block, g *Arith, keys *LaneKeys) {
	m := len(parents)
	if !f.Available || len(u) != 2*m || len(s) != 2*m || len(v) != 2*m || len(pv) != m {
		panic("simd: FusedEval.DcfLevel: bad lengths or CPU")
	}
	if m == 0 {
		return
	}
	vcws := [2]Block{vcw}
	switch f.class {
	case classAVX512:
		dcfLevelVAES512(&u[0], &s[0], &v[0], nil, &parents[0], &pv[0], m, cw, &vcws, g, keys)
	case classVAES256:
		dcfLevelVAES256(&u[0], &s[0], &v[0], &parents[0], &pv[0], m, cw, &vcws, g, keys)
	default:
		dcfLevelAESNI(&u[0], &s[0], &v[0], &parents[0], &pv[0], m, cw, &vcws, g, keys)
	}
}

// DcfLeaves is the package's DcfLeaves with keys (raw nil), on f's CPU class.
func (f *FusedEval) DcfLeaves(dst, parents, pv []Block, cw *[2]Block, vcw, last Block, g *Arith, keys *LaneKeys) {
	m := len(parents)
	if !f.Available || len(dst) != 2*m || len(pv) != m {
		panic("simd: FusedEval.DcfLeaves: bad lengths or CPU")
	}
	if m == 0 {
		return
	}
	vcws := [2]Block{vcw, last}
	switch f.class {
	case classAVX512:
		dcfLeavesVAES512(&dst[0], nil, &parents[0], &pv[0], m, cw, &vcws, g, keys)
	case classVAES256:
		dcfLeavesVAES256(&dst[0], &parents[0], &pv[0], m, cw, &vcws, g, keys)
	default:
		dcfLeavesAESNI(&dst[0], &parents[0], &pv[0], m, cw, &vcws, g, keys)
	}
}

// DpfLeaves is the package's DpfLeaves with keys (raw nil), on f's CPU class.
func (f *FusedEval) DpfLeaves(dst, parents []Block, cw *[2]Block, v Block, g *Arith, keys *LaneKeys) {
	m := len(parents)
	if !f.Available || len(dst) != 2*m {
		panic("simd: FusedEval.DpfLeaves: bad lengths or CPU")
	}
	if m == 0 {
		return
	}
	switch f.class {
	case classAVX512:
		dpfLeavesVAES512(&dst[0], nil, &parents[0], m, cw, &v, g, keys)
	case classVAES256:
		dpfLeavesVAES256(&dst[0], &parents[0], m, cw, &v, g, keys)
	default:
		dpfLeavesAESNI(&dst[0], &parents[0], m, cw, &v, g, keys)
	}
}

// Dpf walks a tile of points (a multiple of DpfGroup) down all levels of their DPF
// keys' trees: keys are the expanded keys of the left and right outputs. u holds
// each point's root node (clamped seed with the party as control bit). With ar it
// receives the outputs, from(clamp(x)) + t*v_cw at each leaf x; with ar nil, the
// leaves themselves. While it walks group g it prefetches the correction words at
// byte offsets pf[2g] to pf[2g+1] of cws, those of the next group. It reports false
// if a correction word it read is not one a DPF Gen makes (words 4-7 other than (0
// or 1, 0, 0, 0); with ar, an output correction word with its control bit set or
// nonzero words 4-7): checking them as they are read saves the caller a pass over
// memory.
func (f *FusedEval) Dpf(u []Block, r *EvalRows, keys *[2]RoundKeys, ar *Arith, pf []int) bool {
	f.check(len(u), f.DpfGroup, pf, r)
	if len(u) == 0 {
		return true
	}
	groups := len(u) / f.DpfGroup
	switch f.class {
	case classAVX512:
		return !dpfEvalVAES512(&u[0], &r.xs[0], &r.off[0], &r.cws[0], groups, r.levels, keys, ar, &pf[0])
	case classVAES256:
		return !dpfEvalVAES256(&u[0], &r.xs[0], &r.off[0], &r.cws[0], groups, r.levels, keys, ar, &pf[0])
	default:
		return !dpfEvalAESNI(&u[0], &r.xs[0], &r.off[0], &r.cws[0], groups, r.levels, keys, ar, &pf[0])
	}
}

// Dcf is Dpf for DCF, in groups of DcfGroup points: keys are the expanded keys of
// the SL, VL, SR and VR outputs, and u receives the outputs, V + from(clamp(x)) +
// t*from(v_cw_n) at each leaf x, with V the values accumulated along the path. It
// reports false if a last correction word it read is not one a DCF Gen makes (a
// nonzero first block or a control bit in the second).
func (f *FusedEval) Dcf(u []Block, r *EvalRows, keys *[4]RoundKeys, ar *Arith, pf []int) bool {
	f.check(len(u), f.DcfGroup, pf, r)
	if len(u) == 0 {
		return true
	}
	groups := len(u) / f.DcfGroup
	switch f.class {
	case classAVX512:
		return !dcfEvalVAES512(&u[0], &r.xs[0], &r.off[0], &r.cws[0], groups, r.levels, keys, ar, &pf[0])
	case classVAES256:
		return !dcfEvalVAES256(&u[0], &r.xs[0], &r.off[0], &r.cws[0], groups, r.levels, keys, ar, &pf[0])
	default:
		return !dcfEvalAESNI(&u[0], &r.xs[0], &r.off[0], &r.cws[0], groups, r.levels, keys, ar, &pf[0])
	}
}

// check panics unless the CPU runs the walks and their arguments fit: n points in
// whole groups, two prefetch offsets per group, and what checkWalk checks.
func (f *FusedEval) check(n, group int, pf []int, r *EvalRows) {
	if !f.Available {
		panic("simd: fused walk " + f.Name + ": the CPU lacks its instructions")
	}
	if n%group != 0 || n != len(r.xs) || len(pf) != 2*n/group {
		panic("simd: fused walk: bad lengths")
	}
	checkWalk(pf, r)
}

//go:noescape
func dpfEvalVAES512(u, xs *Block, off *int, rows *Block, groups, levels int, keys *[2]RoundKeys, ar *Arith, pf *int) (bad bool)

// checkWalk checks what the fused walks assume beyond the lengths: 1 to 128 levels
// (their side patterns hold 128) and prefetch ranges inside cws.
func checkWalk(pf []int, r *EvalRows) {
	if r.levels < 1 || r.levels > 128 {
		panic("simd: fused walk: levels out of 1..128")
	}
	for g := 0; g < len(pf); g += 2 {
		if pf[g] < 0 || pf[g] > pf[g+1] || pf[g+1] > 16*len(r.cws) {
			panic("simd: prefetch range out of cws")
		}
	}
}

//go:noescape
func dcfEvalVAES512(u, xs *Block, off *int, rows *Block, groups, levels int, keys *[4]RoundKeys, ar *Arith, pf *int) (bad bool)
