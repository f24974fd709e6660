//go:build amd64 && !purego

package aes128

import "golang.org/x/sys/cpu"

// One key's tree walks with AES-NI, for DPF and DCF (aes128_mmo): a point's levels
// are a chain of one-seed PRG calls, so they run in one routine call with the seed
// and control bit in registers, and a level costs one AES latency. The rules of a
// level are the gofss package's (docs/spec.md sections 4 and 5); here they are
// described only as far as the routines need.

// WalkKeys are the round keys the walk routines take: the seed output's key for the
// left and right child, then the value output's key for each (DCF; nil for DPF).
type WalkKeys [4]*[11][16]byte

// NewWalkKeys returns the walk keys of a 2-output PRG (DPF: keys L, R) or a 4-output
// one (DCF: keys SL, VL, SR, VR).
func NewWalkKeys(keys []*Key) *WalkKeys {
	var w WalkKeys
	switch len(keys) {
	case 2:
		w[0], w[1] = &keys[0].arch.enc, &keys[1].arch.enc
	case 4:
		w[0], w[1], w[2], w[3] = &keys[0].arch.enc, &keys[2].arch.enc, &keys[1].arch.enc, &keys[3].arch.enc
	default:
		panic("aes128: walk keys need 2 or 4 keys")
	}
	return &w
}

// HasWalk tells whether the walk routines run: the CPU has AES-NI and the active
// backend is not the portable one (tests select it to keep every path portable).
func HasWalk() bool { return cpu.X86.HasAES && Backend() != Generic }

// EvalWalk is one point's walk in Eval.
type EvalWalk struct {
	Rows   []byte // n correction-word rows, 32 bytes each
	Sides  []byte // n bytes, 0 or 1: the child taken at each level
	TrByte int    // row byte whose bit 0 is the right child's control-bit correction: 16 (DPF), 28 (DCF)
	Values []byte // DCF: receives the n value outputs of the chosen side, raw; nil for DPF
	Bits   []byte // DCF: receives the n parent control bits; nil for DPF
}

// Eval walks from seed (control bit, bit 0 of byte 12, clear) with control bit t
// down len(w.Sides) levels and returns the leaf's seed (control bit clear) and
// control bit. At level i with side s, the child is AES-MMO of the seed under the
// seed key of side s, XORed when t is 1 with the first 16 bytes of row i whose
// control bit, for s = 1, is replaced by bit 0 of row byte TrByte. The child's
// control bit is the next t, the child with it cleared the next seed. keys[2:] must
// be set where w.Values is. The caller checks HasWalk.
func (k *WalkKeys) Eval(w *EvalWalk, seed [16]byte, t uint8) ([16]byte, uint8) {
	n := len(w.Sides)
	if len(w.Rows) != 32*n || w.TrByte < 0 || w.TrByte >= 32 || t > 1 {
		panic("aes128: bad EvalWalk")
	}
	if n == 0 {
		return seed, t
	}
	var values, bits *byte
	if w.Values != nil {
		if len(w.Values) != BlockSize*n || len(w.Bits) != n || k[2] == nil || k[3] == nil {
			panic("aes128: bad EvalWalk values")
		}
		values, bits = &w.Values[0], &w.Bits[0]
	}
	t = evalWalkAESNI((*[4]*[11][16]byte)(k), &w.Rows[0], &w.Sides[0], values, bits, n, w.TrByte, &seed, t)
	return seed, t
}

// GenWalk is one key's walk in Gen.
type GenWalk struct {
	Rows   []byte // receives n rows of 32 bytes: the seed correction with tl in its control bit, then tr as a uint64, then zeros
	Sides  []byte // n bytes, 0 or 1: alpha's bits, first level first
	Values []byte // DCF: receives 4 blocks a level, raw: the value outputs VL, VR of party 0, then of party 1; nil for DPF
	Bits   []byte // DCF: receives party 1's parent control bit at each level; nil for DPF
}

// Gen walks both parties' trees along alpha from seeds[0] (party 0, control bit 0)
// and seeds[1] (party 1, control bit 1), both clamped, writes each level's
// correction row, and leaves the parties' seeds at alpha's leaf (clamped) in seeds;
// it returns party 1's control bit there. A level's correction: with L_p, R_p the
// children of party p and a alpha's bit, the seed correction is the clamped XOR of
// the parties' children on side 1-a, tl = lsb(L_0 ^ L_1) ^ a ^ 1, tr = lsb(R_0 ^
// R_1) ^ a; each party keeps its side-a child, XORed when its control bit is 1 with
// the seed correction carrying side a's control-bit correction.
func (k *WalkKeys) Gen(w *GenWalk, seeds *[2][16]byte) uint8 {
	n := len(w.Sides)
	if len(w.Rows) != 32*n {
		panic("aes128: bad GenWalk")
	}
	if n == 0 {
		return 1
	}
	var values, bits *byte
	if w.Values != nil {
		if len(w.Values) != 4*BlockSize*n || len(w.Bits) != n || k[2] == nil || k[3] == nil {
			panic("aes128: bad GenWalk values")
		}
		values, bits = &w.Values[0], &w.Bits[0]
	}
	return genWalkAESNI((*[4]*[11][16]byte)(k), &w.Rows[0], &w.Sides[0], values, bits, n, seeds)
}
