//go:build !amd64 || purego

package chacha

// simd stands for the walk routines, of which this build has none: walks run
// portably.
type simd struct{ lanes int }

func (simd) walk(*Walk, [2]uint32, *[16]byte, uint8) uint8 { panic("chacha: no walk routine") }

func (simd) points(*Points, [2]uint32, int) { panic("chacha: no walk routine") }

func (simd) pointChunks() int { return 0 }
