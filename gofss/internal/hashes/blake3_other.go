//go:build !amd64 || purego

package hashes

import "github.com/pyfss/pyfss/gofss/internal/cpupath"

// blake3Set has no routines here: other architectures compress one message at a
// time.
type blake3Set uint8

const noBlake3Routines blake3Set = 0

func blake3Routines() []*cpupath.Impl[blake3Ops] { return nil }

func (blake3Set) x8(*[32]byte, *[8]uint32, *[64]byte, int, uint32) {
	panic("hashes: no eight-lane BLAKE3 here")
}

func (blake3Set) xh(*[32]byte, *[8]uint32, *[16]byte, *[16]byte, int, int, uint32) {
	panic("hashes: no eight-lane BLAKE3 here")
}

func (blake3Set) one(*[32]byte, *[8]uint32, *[64]byte, uint32) {
	panic("hashes: no one-message BLAKE3 routine here")
}

func (blake3Set) chainXH(*[64]byte, *[32]byte, *[32]byte, *[16]byte, *[16]byte, *uint8, *[64]byte, int, *[8]uint32, *[8]uint32) {
	panic("hashes: no BLAKE3 chain routine here")
}

func (blake3Set) chainLanes(*[16][8]uint32, *[16][8]uint32, *[16]byte, *[16]byte, *[8]int, *uint8, *[8]int, int, *[8]uint32, *[8]uint32) {
	panic("hashes: no BLAKE3 lanes routine here")
}

func (blake3Set) stepLanes(*[16][8]uint32, *[64]byte, *[8]int, int, *[8]uint32) {
	panic("hashes: no BLAKE3 lanes routine here")
}
