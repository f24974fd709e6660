package gofss

import (
	"encoding/binary"
	"math/bits"
)

// Block is 16 bytes, read as four little-endian 32-bit words (x, y, z, w). Its
// control bit is bit 0 of word w, the lowest bit of byte 12.
type Block [16]byte

// BlockFromWords packs four 32-bit words little-endian.
func BlockFromWords(w [4]uint32) Block {
	var b Block
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// Words unpacks the four little-endian 32-bit words.
func (b Block) Words() [4]uint32 {
	return [4]uint32{
		binary.LittleEndian.Uint32(b[0:]), binary.LittleEndian.Uint32(b[4:]),
		binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:]),
	}
}

// Lsb returns the control bit.
func (b Block) Lsb() uint8 { return b[12] & 1 }

// Clamp returns b with the control bit cleared.
func (b Block) Clamp() Block {
	b[12] &^= 1
	return b
}

// WithLsb returns b with the control bit set to t (0 or 1).
func (b Block) WithLsb(t uint8) Block {
	b[12] = b[12]&^1 | t
	return b
}

// Xor returns b XOR c.
func (b Block) Xor(c Block) Block {
	lo := binary.LittleEndian.Uint64(b[0:]) ^ binary.LittleEndian.Uint64(c[0:])
	hi := binary.LittleEndian.Uint64(b[8:]) ^ binary.LittleEndian.Uint64(c[8:])
	binary.LittleEndian.PutUint64(b[0:], lo)
	binary.LittleEndian.PutUint64(b[8:], hi)
	return b
}

// IsZero reports whether all 16 bytes are zero.
func (b Block) IsZero() bool { return b == Block{} }

// Uint128 is an unsigned input value of up to 128 bits: alpha for Gen, x for Eval.
type Uint128 struct{ Lo, Hi uint64 }

// Uint128FromBlock reads the 16 bytes of b as a little-endian 128-bit integer, the
// packing the Python API uses for inputs of more than 64 bits.
func Uint128FromBlock(b Block) Uint128 {
	return Uint128{Lo: binary.LittleEndian.Uint64(b[0:]), Hi: binary.LittleEndian.Uint64(b[8:])}
}

// Bit returns bit i of the inBits-bit value x, counted from the most significant
// bit (i = 0 is the MSB), as tree level i consumes it.
func (x Uint128) Bit(inBits, i int) uint8 {
	k := uint(inBits - 1 - i)
	if k >= 64 {
		return uint8(x.Hi>>(k-64)) & 1
	}
	return uint8(x.Lo>>k) & 1
}

// FitsIn reports whether x < 2^bits.
func (x Uint128) FitsIn(bits int) bool {
	switch {
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
