package gofss

import (
	"fmt"
	"math/bits"
)

// Group is the output group of a DPF or DCF (docs/spec.md section 2). Elements are
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
	g, err := parseName("group", name, groupNames[:])
	return Group(g), err
}

func (g Group) valid() bool { return int(g) < len(groupNames) }

// Canon returns into(from(clamp(b))): the group element b stands for, in block form.
// Canon, Add and Neg panic for a Group that is not one of the constants above.
func (g Group) Canon(b Block) Block {
	a := g.arith()
	return a.into(a.from(b))
}

// Add returns a + b for elements in block form.
func (g Group) Add(a, b Block) Block {
	ar := g.arith()
	return ar.into(ar.add(ar.from(a), ar.from(b)))
}

// Neg returns -a for an element in block form.
func (g Group) Neg(a Block) Block {
	ar := g.arith()
	return ar.into(ar.neg(ar.from(a)))
}

// arith is a group's arithmetic written with masks instead of a switch on the group,
// so that it inlines into the tree walks' inner loops, where a call per element
// would cost more than the element's share of the PRG.
//
// It works on elements in value form: for bytes the clamped block; for the integer
// groups the integer as Lo + Hi*2^64. from and into convert from and to the block
// form of docs/spec.md section 2; only uint127 moves bits (word w holds its top 31 bits
// shifted up by one).
type arith struct {
	xorLo, xorHi uint64 // bytes: + is XOR on all bits
	addLo, addHi uint64 // integer groups: + is addition, mod 2^32, 2^64 or 2^127
	valLo        uint64 // from: the bits of Lo that belong to the value
	fromHi       uint64 // from: Hi bits taken as they are
	fromShifted  uint64 // from: Hi bits taken from above the control bit, shifted down
	intoHi       uint64 // into: Hi bits written as they are
	intoShifted  uint64 // into: Hi bits written above the control bit
}

var ariths = [...]arith{
	Bytes:   {xorLo: ^uint64(0), xorHi: ^uint64(0), valLo: ^uint64(0), fromHi: ^uint64(lsbBit), intoHi: ^uint64(0)},
	Uint32:  {addLo: 1<<32 - 1, valLo: 1<<32 - 1},
	Uint64:  {addLo: ^uint64(0), valLo: ^uint64(0)},
	Uint127: {addLo: ^uint64(0), addHi: 1<<63 - 1, valLo: ^uint64(0), fromHi: 1<<32 - 1, fromShifted: ^uint64(0), intoHi: 1<<32 - 1, intoShifted: ^uint64(0)},
}

func (g Group) arith() *arith { return &ariths[g] }

// laneMasks are a group's arithmetic as masks on the two 64-bit halves of blocks,
// for SIMD routines: values are blocks ANDed with from, + is XOR where xor is set and
// addition within each half where add is set. Only groups whose addition carries
// nothing from the low half into the high one have them (all but uint127).
type laneMasks struct{ from, xor, add Block }

func (g Group) laneMasks() (laneMasks, bool) {
	a := g.arith()
	if a.fromShifted != 0 || a.addHi != 0 {
		return laneMasks{}, false
	}
	return laneMasks{from: Block{a.valLo, a.fromHi}, xor: Block{a.xorLo, a.xorHi}, add: Block{a.addLo, a.addHi}}, true
}

// from returns the value form of from(clamp(b)).
func (a *arith) from(b Block) Block {
	return Block{b.Lo & a.valLo, b.Hi&a.fromHi | b.Hi>>33<<32&a.fromShifted}
}

// into returns the block form of a value.
func (a *arith) into(v Block) Block {
	return Block{v.Lo, v.Hi&a.intoHi | v.Hi>>32<<33&a.intoShifted}
}

func (a *arith) add(x, y Block) Block {
	lo, c := bits.Add64(x.Lo, y.Lo, 0)
	hi := x.Hi + y.Hi + c
	return Block{(x.Lo^y.Lo)&a.xorLo | lo&a.addLo, (x.Hi^y.Hi)&a.xorHi | hi&a.addHi}
}

func (a *arith) neg(x Block) Block {
	lo, b := bits.Sub64(0, x.Lo, 0)
	hi := -x.Hi - b
	return Block{x.Lo&a.xorLo | lo&a.addLo, x.Hi&a.xorHi | hi&a.addHi}
}

// sub is add(x, neg(y)) in one step (it inlines where that would not).
func (a *arith) sub(x, y Block) Block {
	lo, b := bits.Sub64(x.Lo, y.Lo, 0)
	hi := x.Hi - y.Hi - b
	return Block{(x.Lo^y.Lo)&a.xorLo | lo&a.addLo, (x.Hi^y.Hi)&a.xorHi | hi&a.addHi}
}
