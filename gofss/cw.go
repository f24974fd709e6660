package gofss

// Cw is one correction word: 32 bytes, eight little-endian 32-bit words, as two
// blocks. A key of n-bit inputs has n+1 of them (SPEC.md sections 4 and 5).
type Cw [2]Block

// CwsPerKey is the number of correction words of one key over inBits-bit inputs.
func CwsPerKey(inBits int) int { return inBits + 1 }

// isBit reports whether block b is (t, 0, 0, 0) with t in {0, 1}: the DPF layout of
// words 4-7 (the tr bit, then zero padding).
func isBit(b Block) bool { return b.Lo&^1 == 0 && b.Hi == 0 }
