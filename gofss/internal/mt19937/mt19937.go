// Package mt19937 is the 32-bit Mersenne Twister MT19937 (Matsumoto and Nishimura,
// 1998) with the seeding of C++'s std::mt19937: the multi-point schemes' Cuckoo
// placement draws its hash-function choices from it, seeded with a fixed value, so
// that keys match the reference bit for bit.
package mt19937

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Rand is one generator's state.
type Rand struct {
	state [n]uint32
	index int
}

// New returns a generator seeded like std::mt19937(seed).
func New(seed uint32) *Rand {
	r := &Rand{index: n}
	r.state[0] = seed
	for i := 1; i < n; i++ {
		prev := r.state[i-1]
		r.state[i] = 1812433253*(prev^prev>>30) + uint32(i)
	}
	return r
}

// Uint32 returns the next output.
func (r *Rand) Uint32() uint32 {
	if r.index == n {
		r.twist()
	}
	y := r.state[r.index]
	r.index++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// twist makes the next n words of state.
func (r *Rand) twist() {
	for i := range n {
		y := r.state[i]&upperMask | r.state[(i+1)%n]&lowerMask
		next := r.state[(i+m)%n] ^ y>>1
		if y&1 != 0 {
			next ^= matrixA
		}
		r.state[i] = next
	}
	r.index = 0
}
