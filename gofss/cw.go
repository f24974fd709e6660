package gofss

import "unsafe"

// Cw is one correction word: 32 bytes, eight little-endian 32-bit words, as two
// blocks. A key of n-bit inputs has n+1 of them (docs/spec.md sections 4 and 5).
type Cw [2]Block

// isBit reports whether block b is (t, 0, 0, 0) with t in {0, 1}: the DPF layout of
// words 4-7 (the tr bit, then zero padding).
func isBit(b Block) bool { return b.Lo&^1 == 0 && b.Hi == 0 }

// pick returns x0 if a is 0 and x1 if a is 1, without a branch (a is a random bit).
func pick(a uint8, x0, x1 Block) Block {
	m := -uint64(a)
	return Block{x0.Lo ^ (x0.Lo^x1.Lo)&m, x0.Hi ^ (x0.Hi^x1.Hi)&m}
}

// pickBit returns b0 if a is 0 and b1 if a is 1.
func pickBit(a, b0, b1 uint8) uint8 { return b0 ^ (b0^b1)&a }

// advance follows the kept child in Gen: with parent control bit t, the child's seed
// is corrected by sCw and its control bit by tCw.
func advance(child Block, t uint8, sCw Block, tCw uint8) (Block, uint8) {
	return child.Clamp().Xor(mask(sCw, t)), child.Lsb() ^ t&tCw
}

// cwBlocks views correction words as their blocks, two per row.
func cwBlocks(cws []Cw) []Block {
	if len(cws) == 0 {
		return nil
	}
	return unsafe.Slice(&cws[0][0], 2*len(cws))
}
