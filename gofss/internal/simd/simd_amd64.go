//go:build amd64 && !purego

package simd

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Available reports whether this CPU runs the routines: they use AVX-512 Foundation
// and BMI2 (x/sys/cpu reports AVX-512 only where the OS saves its registers).
var Available = cpu.X86.HasAVX512F && cpu.X86.HasBMI2

// Block is a 16-byte block as two little-endian 64-bit words, the memory layout of
// gofss.Block and gofss.Uint128. The control bit is bit 32 of Hi.
type Block struct{ Lo, Hi uint64 }

// Arith is an output group's arithmetic on 128-bit lanes, for the groups whose
// addition carries nothing from the low 64 bits into the high ones: bytes, uint32
// and uint64. Values are kept as blocks ANDed with From; integer sums may carry
// into bits outside Mask, which outputs clear. Xor must be all zeros or all ones:
// the EvalAll level routines, the Gen routines and the AVX2 DCF Eval walk have a
// loop for addition alone and one for XOR alone, not for lanes of both.
type Arith struct {
	From Block // from(b) = b & From
	Xor  Block // all ones where + is XOR (bytes), zero where it is integer addition; see below
	Mask Block // the bits of an output
	Neg  Block // all ones to negate outputs (party 1 in an integer group), else zero
}

// DpfLevel corrects the PRG output of a row of DPF nodes. raw[2j] and raw[2j+1] are
// the left and right children of parents[j] (whose control bit is its lsb); where
// that bit is set, child c gets cw[c] XORed in. u receives the children, control
// bit included, and s their clamped seeds. u may be raw.
//
// With keys (AES-128 MMO's, HasAES only) the routine runs the PRG itself, on the
// parents' clamped seeds, and raw is nil: the PRG output never goes through memory.
// The same holds for DpfLeaves, DcfLevel and DcfLeaves.
func DpfLevel(u, s, raw, parents []Block, cw *[2]Block, keys *LaneKeys) {
	m := len(parents)
	if len(u) != 2*m || len(s) != 2*m || !rawFits(raw, 2*m, keys) {
		panic("simd: DpfLevel: bad lengths")
	}
	if m > 0 {
		dpfLevelVAES512(&u[0], &s[0], unsafe.SliceData(raw), &parents[0], m, cw, keys)
	}
}

// DpfLeaves is DpfLevel for the last level: it writes each child x as the output
// from(clamp(x)) + lsb(x)*v, negated under g.Neg, where v is the value of the output
// correction word. dst may be raw.
func DpfLeaves(dst, raw, parents []Block, cw *[2]Block, v Block, g *Arith, keys *LaneKeys) {
	m := len(parents)
	if len(dst) != 2*m || !rawFits(raw, 2*m, keys) {
		panic("simd: DpfLeaves: bad lengths")
	}
	if m > 0 {
		dpfLeavesVAES512(&dst[0], unsafe.SliceData(raw), &parents[0], m, cw, &v, g, keys)
	}
}

// DcfLevel is DpfLevel for DCF: raw[4j:4j+4] holds SL, VL, SR, VR of parents[j], and
// the children's values v are pv[j] + from(V) + t*vcw, t being the parent's control
// bit and vcw the level's value correction (already in value form).
func DcfLevel(u, s, v, raw, parents, pv []Block, cw *[2]Block, vcw Block, g *Arith, keys *LaneKeys) {
	m := len(parents)
	if len(u) != 2*m || len(s) != 2*m || len(v) != 2*m || !rawFits(raw, 4*m, keys) || len(pv) != m {
		panic("simd: DcfLevel: bad lengths")
	}
	if m > 0 {
		dcfLevelVAES512(&u[0], &s[0], &v[0], unsafe.SliceData(raw), &parents[0], &pv[0], m, cw, &[2]Block{vcw}, g, keys)
	}
}

// DcfLeaves is DcfLevel for the last level: each child x with value w gives the
// output w + from(clamp(x)) + lsb(x)*last, negated under g.Neg.
func DcfLeaves(dst, raw, parents, pv []Block, cw *[2]Block, vcw, last Block, g *Arith, keys *LaneKeys) {
	m := len(parents)
	if len(dst) != 2*m || !rawFits(raw, 4*m, keys) || len(pv) != m {
		panic("simd: DcfLeaves: bad lengths")
	}
	if m > 0 {
		dcfLeavesVAES512(&dst[0], unsafe.SliceData(raw), &parents[0], &pv[0], m, cw, &[2]Block{vcw, last}, g, keys)
	}
}

// rawFits reports whether raw is n blocks of PRG output, or nil with AES keys on a
// CPU that runs them.
func rawFits(raw []Block, n int, keys *LaneKeys) bool {
	if keys != nil {
		return raw == nil && HasAES
	}
	return len(raw) == n
}

// EvalRows is what the Eval routines read of a tile of points besides their state:
// the inputs xs (as gofss.Uint128) and, for each point, the byte offset of its key's
// first correction word (32 bytes) in cws. A tile holds a multiple of 4 points.
type EvalRows struct {
	xs     []Block
	off    []int
	cws    []Block
	levels int
	dpfOr  Block
}

// DpfRowsOr is the OR of the second blocks of the correction words that the
// DpfEvalLevel calls on r have read. Each is (0 or 1, 0, 0, 0) in a DPF key's level
// rows, so the OR is 0 or 1 unless a row read was malformed.
func (r *EvalRows) DpfRowsOr() Block { return r.dpfOr }

// NewEvalRows checks that every point's key has its levels+1 correction words in cws
// (two blocks each): the routines read them without further checks.
func NewEvalRows(xs []Block, off []int, cws []Block, levels int) EvalRows {
	if len(xs)%4 != 0 || len(off) != len(xs) {
		panic("simd: NewEvalRows: bad lengths")
	}
	for _, o := range off {
		if o < 0 || o%32 != 0 || o/32+levels+1 > len(cws)/2 {
			panic("simd: NewEvalRows: offset out of range")
		}
	}
	return EvalRows{xs: xs, off: off, cws: cws, levels: levels}
}

// DpfEvalLevel advances a tile of points one level down their paths. ch[j] is the
// PRG output of point j's node u[j] on the side sides[j]; where u[j]'s control bit is
// set it gets the level's seed correction, with the control-bit correction of that
// side in its lsb. u[j] becomes the child, s[j] its clamped seed, and next[j] bit
// shift (counted from the lsb) of xs[j], the side of the following level; zero when
// shift < 0. The second blocks of the rows read are ORed into r's DpfRowsOr.
func DpfEvalLevel(u, s []Block, sides []uint8, ch []Block, next []uint8, r *EvalRows, level, shift int) {
	checkEval(u, s, sides, next, r, level)
	if len(ch) != len(u) {
		panic("simd: DpfEvalLevel: bad lengths")
	}
	if len(u) > 0 {
		cnt := shiftCounts(shift)
		dpfEvalLevel(&u[0], &s[0], &sides[0], &ch[0], &next[0], &r.xs[0], &r.off[0], &r.cws[2*level], len(u), &cnt, &r.dpfOr)
	}
}

// DcfEvalLevel is DpfEvalLevel for DCF: ch holds the seed and value blocks of the
// chosen side, and v[j] accumulates from(value) + t*from(value correction).
func DcfEvalLevel(u, s, v []Block, sides []uint8, ch []Block, next []uint8, r *EvalRows, level, shift int, g *Arith) {
	checkEval(u, s, sides, next, r, level)
	if len(ch) != 2*len(u) || len(v) != len(u) {
		panic("simd: DcfEvalLevel: bad lengths")
	}
	if len(u) > 0 {
		cnt := shiftCounts(shift)
		dcfEvalLevel(&u[0], &s[0], &v[0], &sides[0], &ch[0], &next[0], &r.xs[0], &r.off[0], &r.cws[2*level], len(u), &cnt, g)
	}
}

func checkEval(u, s []Block, sides, next []uint8, r *EvalRows, level int) {
	m := len(u)
	if m != len(r.xs) || len(s) != m || len(sides) != m || len(next) != m {
		panic("simd: Eval: bad lengths")
	}
	if level < 0 || level >= r.levels {
		panic("simd: Eval: level out of range")
	}
}

// shiftCounts are the VPSRLVQ counts that bring bit shift of a 128-bit input to bit
// 0 of its low or its high half; a count of 64 or more gives zero.
func shiftCounts(shift int) [2]uint64 { return [2]uint64{uint64(shift), uint64(shift - 64)} }

//go:noescape
func dpfLevelVAES512(u, s, raw, parents *Block, m int, cw *[2]Block, keys *LaneKeys)

//go:noescape
func dpfLeavesVAES512(dst, raw, parents *Block, m int, cw *[2]Block, v *Block, ar *Arith, keys *LaneKeys)

//go:noescape
func dcfLevelVAES512(u, s, v, raw, parents, pv *Block, m int, cw *[2]Block, vcw *[2]Block, ar *Arith, keys *LaneKeys)

//go:noescape
func dcfLeavesVAES512(dst, raw, parents, pv *Block, m int, cw *[2]Block, vcw *[2]Block, ar *Arith, keys *LaneKeys)

//go:noescape
func dpfEvalLevel(u, s *Block, sides *uint8, ch *Block, next *uint8, xs *Block, off *int, rows *Block, m int, cnt *[2]uint64, or *Block)

//go:noescape
func dcfEvalLevel(u, s, v *Block, sides *uint8, ch *Block, next *uint8, xs *Block, off *int, rows *Block, m int, cnt *[2]uint64, ar *Arith)

// GenRows are the per-tile inputs of the Gen routines: the keys' alphas (as
// gofss.Uint128, padded to a multiple of 4), their correction words (two blocks each,
// Rows per key, of which the routines write the first Levels) and how many keys are
// real (the rest are padding, whose rows are not written). Rows is levels+1 for DPF
// and DCF keys, more for a scheme that adds rows (VDPF: levels+3).
type GenRows struct {
	Alphas []Block
	Cws    []Block
	Keys   int
	Levels int
	Rows   int
}

// stride is the bytes from one key's rows to the next's.
func (r *GenRows) stride() int { return r.Rows * 32 }

// check panics unless the buffers fit padded keys: u0, u1 (the parties' nodes, seed
// with control bit in the lsb), s (their clamped seeds, party 0's then party 1's) and
// ch (the PRG output of s, mul blocks per seed; nil when the routine runs the PRG).
func (r *GenRows) check(u0, u1, s, ch []Block, mul, level int, fused, canFuse bool) int {
	p := len(r.Alphas)
	if p%4 != 0 || r.Keys > p || p-r.Keys >= 4 || len(u0) != p || len(u1) != p || len(s) != 2*p {
		panic("simd: Gen: bad lengths")
	}
	if fused != (ch == nil) || !fused && len(ch) != 2*mul*p {
		panic("simd: Gen: ch must be the PRG output, or nil with AES keys")
	}
	if fused && !canFuse {
		panic("simd: Gen: AES keys given, but the CPU lacks the routine's instructions")
	}
	if level < 0 || level >= r.Levels || r.Rows <= r.Levels || len(r.Cws) != 2*r.Keys*r.Rows {
		panic("simd: Gen: bad level or correction words")
	}
	return p
}

// DpfGenLevel runs level `level` of DPF Gen for a tile of keys: from the PRG output
// ch of the parties' seeds (L, R per seed) it writes each key's correction word and
// advances both parties' nodes (u0, u1) and seeds (s) to the child on alpha's path.
// With keys, the expanded keys of AES-128 MMO's left and right outputs (HasAES
// only), the routine runs the PRG itself on the clamped parents and ch is nil (s is
// then neither read nor written): the PRG output never goes through memory, and the
// AES rounds overlap the level's other work (DPF Gen at in_bits 20, one 128-key tile
// in cache: 115-125 -> 75-85 ns/key).
func DpfGenLevel(u0, u1, s, ch []Block, r *GenRows, level int, keys *[2]RoundKeys) {
	p := r.check(u0, u1, s, ch, 2, level, keys != nil, HasAES)
	if p > 0 {
		cnt := shiftCounts(r.Levels - 1 - level)
		dpfGenLevelVAES512(&u0[0], &u1[0], &s[0], unsafe.SliceData(ch), &r.Alphas[0], &r.Cws[2*level], r.stride(), r.Keys, p, &cnt, keys)
	}
}

// DcfGenLevel is DpfGenLevel for DCF (ch: SL, VL, SR, VR per seed; keys: those four
// outputs' expanded keys): vs holds each key's running value V and betas each key's
// from(clamp(beta)); gt says the predicate is x > alpha. ar is the group's Arith for
// party 1 (its Neg negates).
func DcfGenLevel(u0, u1, s, ch, vs, betas []Block, r *GenRows, level int, gt bool, ar *Arith, keys *[4]RoundKeys) {
	p := r.check(u0, u1, s, ch, 4, level, keys != nil, HasAES)
	if len(vs) != p || len(betas) != p {
		panic("simd: DcfGenLevel: bad lengths")
	}
	if p > 0 {
		cnt := shiftCounts(r.Levels - 1 - level)
		dcfGenLevelVAES512(&u0[0], &u1[0], &s[0], unsafe.SliceData(ch), &r.Alphas[0], &r.Cws[2*level], r.stride(), r.Keys, p, &cnt, &vs[0], &betas[0], gt, ar, keys)
	}
}

//go:noescape
func dpfGenLevelVAES512(u0, u1, s, ch, alphas, rows *Block, stride, keys, padded int, cnt *[2]uint64, rk *[2]RoundKeys)

//go:noescape
func dcfGenLevelVAES512(u0, u1, s, ch, alphas, rows *Block, stride, keys, padded int, cnt *[2]uint64, vs, betas *Block, gt bool, ar *Arith, rk *[4]RoundKeys)

// CopyNT copies src to dst (of the same length) with non-temporal stores for dst's
// whole cache lines. An ordinary store first reads the line it writes; for an
// output far larger than the caches that read doubles the memory traffic (Gen at
// 2^16 keys: 25% faster).
func CopyNT(dst, src []Block) {
	if len(dst) != len(src) {
		panic("simd: CopyNT: lengths differ")
	}
	switch {
	case len(dst) == 0:
	case Available:
		copyNT(&dst[0], &src[0], len(dst))
	default:
		copyNTAVX2(&dst[0], &src[0], len(dst))
	}
}

//go:noescape
func copyNT(dst, src *Block, n int)

// Constants the assembly reads.
var (
	lsbMask  = Block{Hi: 1 << 32} // a lane's control bit
	laneBits = uint32(0x55)       // the low qword's bit of each of 4 lanes, in a qword mask
	byteBits = uint32(0x01010101) // bit 0 of each of 4 bytes
)
