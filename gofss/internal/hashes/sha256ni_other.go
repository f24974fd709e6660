//go:build !amd64 || purego

package hashes

import "github.com/pyfss/pyfss/gofss/internal/cpupath"

// sha256Routines is empty: other architectures hash through crypto/sha256.
func sha256Routines() []*cpupath.Impl[sha256Ops] { return nil }

func compress(h *[8]uint32, p []byte) { panic("hashes: no SHA-256 compression here") }

func compressPair(out *[2][8]uint32, p0, p1 *[64]byte, iv *[2][8]uint32) {
	panic("hashes: no SHA-256 compression here")
}
