//go:build !amd64

package hashes

// haveSHANI is false: other architectures hash through crypto/sha256.
var haveSHANI = false

func compress(h *[8]uint32, p []byte) { panic("hashes: no SHA-256 compression here") }

func compressPair(out *[2][8]uint32, p0, p1 *[64]byte, iv *[2][8]uint32) {
	panic("hashes: no SHA-256 compression here")
}
