//go:build amd64 && !purego

package aes128

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

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

// Path is the sides a walk takes: level i takes bit 127-i of the 128-bit integer
// (Hi, Lo), so an n-bit input's path is the input shifted left by 128-n.
type Path struct{ Lo, Hi uint64 }

// Lanes is a group's addition on blocks, for the DCF walks' value arithmetic: a
// value is a block ANDed with From, and x + y is (x XOR y) AND Xor, OR'd with
// (x + y in each 64-bit half) AND Add.
type Lanes struct{ From, Xor, Add [16]byte }

func (l *Lanes) blocks() *[3][16]byte { return (*[3][16]byte)(unsafe.Pointer(l)) }

// EvalWalk is one point's walk in Eval.
type EvalWalk struct {
	Rows   []byte   // n correction-word rows, 32 bytes each
	Path   Path     // the child taken at each level
	TrByte int      // row byte whose bit 0 is the right child's control-bit correction: 16 (DPF), 28 (DCF)
	Lanes  *Lanes   // DCF: the value outputs' group; nil for DPF
	Sum    [16]byte // DCF: receives the sum of the levels' values; DPF: the OR of the rows' bytes 16-31
}

// Eval walks from seed (its control bit, bit 0 of byte 12, cleared) with control bit t
// down len(w.Rows)/32 levels and returns the leaf's seed (control bit clear) and
// control bit. At level i with side s, the child is AES-MMO of the seed under the
// seed key of side s, XORed when t is 1 with the first 16 bytes of row i whose
// control bit, for s = 1, is replaced by bit 0 of row byte TrByte. The child's
// control bit is the next t, the child with it cleared the next seed. With Lanes
// (DCF; keys[2:] must be set), the level's value, the value output of side s
// (AES-MMO of the seed under that side's value key) plus, where t is 1, the row's
// bytes 16-31, both as values, is added to Sum, which starts at zero; without
// Lanes (DPF), Sum receives the OR of the rows' bytes 16-31, for the caller's check
// of the rows. The caller checks HasWalk.
func (k *WalkKeys) Eval(w *EvalWalk, seed [16]byte, t uint8) ([16]byte, uint8) {
	n := len(w.Rows) / 32
	if len(w.Rows) != 32*n || w.TrByte < 0 || w.TrByte >= 32 || t > 1 || w.Lanes != nil && (k[2] == nil || k[3] == nil) {
		panic("aes128: bad EvalWalk")
	}
	w.Sum = [16]byte{}
	if n == 0 {
		return seed, t
	}
	var lanes *[3][16]byte
	if w.Lanes != nil {
		lanes = w.Lanes.blocks()
	}
	t = evalWalkAESNI((*[4]*[11][16]byte)(k), &w.Rows[0], w.Path.Lo, w.Path.Hi, n, w.TrByte, &seed, t, lanes, &w.Sum)
	return seed, t
}

// GenWalk is one key's walk in Gen.
type GenWalk struct {
	Rows  []byte      // receives n rows of 32 bytes: the seed correction with tl in its control bit, then for DPF tr as a uint64 and zeros, for DCF the value word with tr in its control bit
	Path  Path        // alpha's bits
	Lanes *Lanes      // DCF: the value outputs' group; nil for DPF
	Beta  [2][16]byte // DCF: what the value words add on the lose side where alpha's bit is 0, 1 (a value)
	Sum   [16]byte    // DCF: receives the running value at alpha's leaf
}

// Gen walks both parties' trees along alpha from seeds[0] (party 0, control bit 0)
// and seeds[1] (party 1, control bit 1), their control bits cleared, writes each level's
// correction row, and leaves the parties' seeds at alpha's leaf (clamped) in seeds;
// it returns party 1's control bit there. A level's correction: with L_p, R_p the
// children of party p and a alpha's bit, the seed correction is the clamped XOR of
// the parties' children on side 1-a, tl = lsb(L_0 ^ L_1) ^ a ^ 1, tr = lsb(R_0 ^
// R_1) ^ a; each party keeps its side-a child, XORed when its control bit is 1 with
// the seed correction carrying side a's control-bit correction. With Lanes (DCF),
// the value word: with VL_p, VR_p party p's value outputs as values, lose and keep
// their sides 1-a and a, and the running value V (zero at the root), d = lose_1 -
// lose_0 + Beta[a]; the word is d - V, negated where party 1's control bit (the
// parent's) is 1; the next V is d + keep_0 - keep_1.
func (k *WalkKeys) Gen(w *GenWalk, seeds *[2][16]byte) uint8 {
	n := len(w.Rows) / 32
	if len(w.Rows) != 32*n || w.Lanes != nil && (k[2] == nil || k[3] == nil) {
		panic("aes128: bad GenWalk")
	}
	w.Sum = [16]byte{}
	if n == 0 {
		return 1
	}
	var lanes *[3][16]byte
	if w.Lanes != nil {
		lanes = w.Lanes.blocks()
	}
	return genWalkAESNI((*[4]*[11][16]byte)(k), &w.Rows[0], w.Path.Lo, w.Path.Hi, n, seeds, lanes, &w.Beta, &w.Sum)
}
