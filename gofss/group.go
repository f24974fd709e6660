package gofss

import (
	"fmt"
	"math/bits"
)

// Group is the output group of a DPF or DCF (SPEC.md section 2). Elements are
// handled in their block form into(v); the group is chosen independently of the
// input width.
type Group uint8

// The output groups.
const (
	Bytes   Group = iota // 16 bytes under XOR
	Uint32               // integers mod 2^32 in word x
	Uint64               // integers mod 2^64 in words x, y
	Uint127              // integers mod 2^127, top 31 bits shifted up by one in word w
)

var groupNames = [...]string{Bytes: "bytes", Uint32: "uint32", Uint64: "uint64", Uint127: "uint127"}

func (g Group) String() string {
	if int(g) < len(groupNames) {
		return groupNames[g]
	}
	return fmt.Sprintf("Group(%d)", uint8(g))
}

// ParseGroup maps a group name (bytes, uint32, uint64, uint127) to a Group.
func ParseGroup(name string) (Group, error) {
	for g, n := range groupNames {
		if n == name {
			return Group(g), nil
		}
	}
	return 0, argErrorf("group must be one of bytes, uint32, uint64, uint127, not %q", name)
}

// UintGroupFor is the group fss_crypto's "uint" picks for inputs of inBits bits.
func UintGroupFor(inBits int) Group {
	switch {
	case inBits <= 32:
		return Uint32
	case inBits <= 64:
		return Uint64
	default:
		return Uint127
	}
}

func (g Group) valid() bool { return int(g) < len(groupNames) }

// Canon returns into(from(clamp(b))): the group element b stands for, in block form.
func (g Group) Canon(b Block) Block {
	switch g {
	case Bytes:
		return b.Clamp()
	case Uint32:
		return Block{Lo: b.Lo & 0xffffffff}
	case Uint64:
		return Block{Lo: b.Lo}
	default:
		return intoU127(fromU127(b))
	}
}

// Add returns a + b for elements in block form.
func (g Group) Add(a, b Block) Block {
	switch g {
	case Bytes:
		return a.Xor(b)
	case Uint32:
		return Block{Lo: (a.Lo + b.Lo) & 0xffffffff}
	case Uint64:
		return Block{Lo: a.Lo + b.Lo}
	default:
		return intoU127(fromU127(a).Add(fromU127(b)))
	}
}

// Neg returns -a for an element in block form.
func (g Group) Neg(a Block) Block {
	switch g {
	case Bytes:
		return a
	case Uint32:
		return Block{Lo: -a.Lo & 0xffffffff}
	case Uint64:
		return Block{Lo: -a.Lo}
	default:
		x := fromU127(a)
		lo, b := bits.Sub64(0, x.Lo, 0)
		hi, _ := bits.Sub64(0, x.Hi, b)
		return intoU127(Uint128{lo, hi})
	}
}

// Sub returns a - b for elements in block form.
func (g Group) Sub(a, b Block) Block { return g.Add(a, g.Neg(b)) }

// fromU127 reads the 127-bit integer: words x, y, z as they are, then word w without
// its control bit.
func fromU127(b Block) Uint128 {
	return Uint128{Lo: b.Lo, Hi: b.Hi&0xffffffff | b.Hi>>33<<32}
}

// intoU127 writes v mod 2^127 with its top 31 bits shifted up by one in word w.
func intoU127(v Uint128) Block {
	return Block{Lo: v.Lo, Hi: v.Hi&0xffffffff | v.Hi>>32<<33}
}
