package binding

import (
	"crypto/rand"
	"unsafe"

	"github.com/pyfss/pyfss/gofss"
)

// KeyGen is keygen's one crossing for one key on the CPU: it fills s0s (the key's
// two seeds, 2 blocks) from the OS's randomness, as os.urandom would, and runs Gen
// for that key at alpha = alphaLo + alphaHi<<64 with the value at betas (1 block)
// into cws. Returns 1, the keys made.
func KeyGen(handle int64, cws, s0s uintptr, alphaLo, alphaHi uint64, betas uintptr) (n int, err error) {
	defer guard(&err)
	seeds, err := view[gofss.Block]("s0s", s0s, 2)
	if err != nil {
		return 0, err
	}
	// crypto/rand.Read reads the OS's source (getrandom on Linux) and does not fail.
	_, _ = rand.Read(unsafe.Slice((*byte)(unsafe.Pointer(&seeds[0])), 2*int(unsafe.Sizeof(gofss.Block{}))))
	return Gen(handle, CPU, 0, cws, s0s, 0, 0, alphaLo, alphaHi, betas, 1, 0)
}
