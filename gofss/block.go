package gofss

import (
	"encoding/binary"
	"math/bits"
)

// Block is 16 bytes, read as four little-endian 32-bit words (x, y, z, w): Lo holds
// words x and y, Hi words z and w, so that in memory (on the little-endian CPUs that
// gofss supports) a Block is exactly the 16 bytes of the specification. Its control
// bit is bit 0 of word w, the lowest bit of byte 12, which is bit 32 of Hi.
//
// Two uint64 rather than [16]byte: the compiler keeps small structs in registers,
// while arrays live in memory, and the tree walks do a few operations per block.
type Block struct{ Lo, Hi uint64 }

const lsbBit = 1 << 32 // the control bit within Hi

// BlockFromBytes reads a block from its 16-byte memory image.
func BlockFromBytes(b [16]byte) Block {
	return Block{binary.LittleEndian.Uint64(b[0:]), binary.LittleEndian.Uint64(b[8:])}
}

// Bytes returns the block's 16-byte memory image.
func (b Block) Bytes() [16]byte {
	var out [16]byte
	binary.LittleEndian.PutUint64(out[0:], b.Lo)
	binary.LittleEndian.PutUint64(out[8:], b.Hi)
	return out
}

// Lsb returns the control bit.
func (b Block) Lsb() uint8 { return uint8(b.Hi>>32) & 1 }

// Clamp returns b with the control bit cleared.
func (b Block) Clamp() Block { return Block{b.Lo, b.Hi &^ lsbBit} }

// WithLsb returns b with the control bit set to t (0 or 1).
func (b Block) WithLsb(t uint8) Block { return Block{b.Lo, b.Hi&^lsbBit | uint64(t&1)<<32} }

// Xor returns b XOR c.
func (b Block) Xor(c Block) Block { return Block{b.Lo ^ c.Lo, b.Hi ^ c.Hi} }

// IsZero reports whether all 16 bytes are zero.
func (b Block) IsZero() bool { return b.Lo|b.Hi == 0 }

// mask returns b if t is 1 and the zero block if t is 0, without a branch: control
// bits are random, so a branch on them mispredicts half the time.
func mask(b Block, t uint8) Block {
	m := -uint64(t)
	return Block{b.Lo & m, b.Hi & m}
}

// Uint128 is an unsigned input value of up to 128 bits: alpha for Gen, x for Eval.
type Uint128 struct{ Lo, Hi uint64 }

// Uint128FromBlock reads the 16 bytes of a block as a little-endian 128-bit integer,
// the packing the Python API uses for inputs of more than 64 bits.
func Uint128FromBlock(b Block) Uint128 { return Uint128(b) }

// Bit returns bit i of the inBits-bit value x, counted from the most significant
// bit (i = 0 is the MSB), as tree level i consumes it.
func (x Uint128) Bit(inBits, i int) uint8 {
	k := uint(inBits - 1 - i)
	if k >= 64 {
		return uint8(x.Hi>>(k-64)) & 1
	}
	return uint8(x.Lo>>k) & 1
}

// shl returns x << k (0 for k >= 128): Go's shifts by 64 or more give 0, so each
// term is the part of x that lands in its word, or 0.
func (x Uint128) shl(k uint) Uint128 {
	return Uint128{Lo: x.Lo << k, Hi: x.Hi<<k | x.Lo>>(64-k) | x.Lo<<(k-64)}
}

// FitsIn reports whether x < 2^bits (for bits <= 0, whether x is 0).
func (x Uint128) FitsIn(bits int) bool {
	switch {
	case bits <= 0:
		return x == Uint128{}
	case bits >= 128:
		return true
	case bits >= 64:
		return x.Hi>>(bits-64) == 0
	default:
		return x.Hi == 0 && x.Lo>>bits == 0
	}
}

// Add returns x + y mod 2^128.
func (x Uint128) Add(y Uint128) Uint128 {
	lo, c := bits.Add64(x.Lo, y.Lo, 0)
	hi, _ := bits.Add64(x.Hi, y.Hi, c)
	return Uint128{lo, hi}
}
