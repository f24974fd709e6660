package binding

import (
	"crypto/rand"
	"errors"
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
	defer clear(seeds[:])
	// crypto/rand.Read reads the OS's source (getrandom on Linux) and does not fail.
	_, _ = rand.Read(unsafe.Slice((*byte)(unsafe.Pointer(&seeds[0])), int(unsafe.Sizeof(*seeds))))
	if n, err = genCPU(s, cws, seeds[:], 0, 0, alphaLo, alphaHi, betas, 1, 0); err == nil {
		seed0[0], seed1[0] = seeds[0], seeds[1]
	}
	return n, err
}

// keyGenSeeds holds KeyGen's two seeds while Gen runs: the scheme's Gen, behind an
// interface, would move an array of the call's own to the heap, 32 bytes a call.
var keyGenSeeds = sync.Pool{New: func() any { return new([2]gofss.Block) }}
