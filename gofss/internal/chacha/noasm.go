//go:build !amd64 || purego

package chacha

func archBackends() []*backend { return nil }

// simd stands for the assembly routines, of which this build has none.
type simd int

func (simd) walk(*Walk, [2]uint32, *[16]byte, uint8) uint8 { panic("chacha: no walk routine") }
