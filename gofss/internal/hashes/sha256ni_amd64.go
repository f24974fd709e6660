//go:build amd64 && !purego

package hashes

import (
	"golang.org/x/sys/cpu"

	"github.com/pyfss/pyfss/gofss/internal/cpupath"
)

// blocksSHANI compresses each 64-byte block of p into h with the SHA extensions;
// k is sha256K and swap byteSwapWords.
//
//go:noescape
func blocksSHANI(h *[8]uint32, p []byte, k *[64]uint32, swap *[16]byte)

// pairSHANI compresses block p0 from the state iv[0] and p1 from iv[1] into out
// (which may be iv: iv is read before out is written),
// the two compressions interleaved.
//
//go:noescape
func pairSHANI(out *[2][8]uint32, p0, p1 *[64]byte, iv *[2][8]uint32, k *[64]uint32, swap *[16]byte)

func cpuidSHA() bool

// sha256Routines are the compressions with the SHA extensions (which the routines
// use with SSSE3 and SSE4.1).
func sha256Routines() []*cpupath.Impl[sha256Ops] {
	return []*cpupath.Impl[sha256Ops]{{Name: "sha-ni", Available: cpuidSHA() && cpu.X86.HasSSSE3 && cpu.X86.HasSSE41, Ops: sha256Ops{shaNI: true}}}
}

// byteSwapWords is the PSHUFB mask that turns four little-endian words into
// big-endian ones.
var byteSwapWords = [16]byte{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12}

func compress(h *[8]uint32, p []byte) { blocksSHANI(h, p, &sha256K, &byteSwapWords) }

func compressPair(out *[2][8]uint32, p0, p1 *[64]byte, iv *[2][8]uint32) {
	pairSHANI(out, p0, p1, iv, &sha256K, &byteSwapWords)
}
