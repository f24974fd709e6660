package cuda

import (
	"encoding/binary"
	"math"
)

// args is a kernel's parameter list as one buffer, laid out as the compiler lays out
// the parameters (each at its natural alignment), for cuLaunchKernel's `extra`. It
// holds numbers only, so Go may hand it to C.
type args struct {
	buf []byte
	// offsets and sizes of the parameters, for the test that compares them with the
	// compiled kernels.
	offsets, sizes []int
}

// newArgs starts a list; a non-empty prg (the packed PrgParams) is its first parameter.
func newArgs(prg []byte) *args {
	a := &args{}
	if len(prg) > 0 {
		a.add(prg, 4)
	}
	return a
}

func (a *args) add(b []byte, align int) *args {
	for len(a.buf)%align != 0 {
		a.buf = append(a.buf, 0)
	}
	a.offsets = append(a.offsets, len(a.buf))
	a.sizes = append(a.sizes, len(b))
	a.buf = append(a.buf, b...)
	return a
}

func (a *args) u32(v uint32) *args { return a.add(binary.LittleEndian.AppendUint32(nil, v), 4) }

func (a *args) i32(v int) *args { return a.u32(uint32(int32(v))) }

func (a *args) u64(v uint64) *args { return a.add(binary.LittleEndian.AppendUint64(nil, v), 8) }

func (a *args) ptr(v uintptr) *args { return a.u64(uint64(v)) }

func (a *args) f64(v float64) *args { return a.u64(math.Float64bits(v)) }
