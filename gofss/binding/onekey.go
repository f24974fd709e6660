package binding

import (
	"crypto/rand"
	"errors"
	"math"
	"sync"
	"unsafe"

	"github.com/pyfss/pyfss/gofss"
)

// KeyGen is keygen's one crossing for one key on the CPU: it draws the key's two
// seeds from the OS's randomness, as os.urandom would, writes them to s0 and s1 (1
// block each: the two parties' seeds live apart, so that neither party's tensor
// carries the other's seed in its memory), and runs Gen for that key at alpha =
// alphaLo + alphaHi<<64 with the value at betas (1 block) into cws. Returns 1, the
// keys made.
func KeyGen(handle int64, cws, s0, s1 uintptr, alphaLo, alphaHi uint64, betas uintptr) (n int, err error) {
	defer guard(&err)
	s, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	seed0, err1 := view[gofss.Block]("s0", s0, 1)
	seed1, err2 := view[gofss.Block]("s1", s1, 1)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	seeds := keyGenSeeds.Get().(*[2]gofss.Block)
	defer keyGenSeeds.Put(seeds)
	return genOnFreshSeeds(s, cws, seeds[:], seed0, seed1, 0, 0, alphaLo, alphaHi, betas, 1, 0)
}

// KeyGens is keygen's crossing for a batch of k keys on the CPU (device must be
// CPU): KeyGen for each key, its two seeds drawn from the OS's randomness and written
// to s0 and s1 (k blocks each, apart for the same reason), the keys made by Gen at
// alphas (see readInputs) with the values at betas into cws. control is Gen's.
// Nothing is written to s0 and s1 when Gen refuses or is stopped. Returns k.
func KeyGens(handle int64, device int, stream uintptr, cws, s0, s1, alphas uintptr, alphaWords int, alphaLo, alphaHi uint64, betas uintptr, k int, control uintptr) (n int, err error) {
	defer guard(&err)
	s, err := lookup(handle)
	if err != nil {
		return 0, err
	}
	if device != CPU {
		return 0, valueErrorf("KeyGens runs on the CPU; on CUDA, Gen takes seeds drawn on the host")
	}
	if k < 0 || k > math.MaxInt/(2*s.Params().CwRows()) {
		return 0, valueErrorf("bad number of keys %d", k)
	}
	seed0, err1 := view[gofss.Block]("s0", s0, k)
	seed1, err2 := view[gofss.Block]("s1", s1, k)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return genOnFreshSeeds(s, cws, make([]gofss.Block, 2*k), seed0, seed1, alphas, alphaWords, alphaLo, alphaHi, betas, k, control)
}

// genOnFreshSeeds fills seeds (2k blocks, key i's at 2i and 2i+1, as Gen takes them)
// from the OS's randomness, runs Gen for k keys on them, and only where Gen succeeds
// writes each key's party 0 and party 1 seeds to seed0 and seed1 (k blocks each).
// seeds is cleared before it returns.
func genOnFreshSeeds(s gofss.Scheme, cws uintptr, seeds, seed0, seed1 []gofss.Block, alphas uintptr, alphaWords int, alphaLo, alphaHi uint64, betas uintptr, k int, control uintptr) (n int, err error) {
	defer clear(seeds)
	// crypto/rand.Read reads the OS's source (getrandom on Linux) and does not fail.
	_, _ = rand.Read(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(seeds))), len(seeds)*int(unsafe.Sizeof(gofss.Block{}))))
	if n, err = genCPU(s, cws, seeds, alphas, alphaWords, alphaLo, alphaHi, betas, k, control); err == nil {
		for i := range k {
			seed0[i], seed1[i] = seeds[2*i], seeds[2*i+1]
		}
	}
	return n, err
}

// keyGenSeeds holds KeyGen's two seeds while Gen runs: the scheme's Gen, behind an
// interface, would move an array of the call's own to the heap, 32 bytes a call.
var keyGenSeeds = sync.Pool{New: func() any { return new([2]gofss.Block) }}
