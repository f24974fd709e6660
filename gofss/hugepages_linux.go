package gofss

import (
	"syscall"
	"unsafe"
)

// adviseHugePages marks the whole huge pages inside buf for huge pages. It is a
// hint: where the kernel refuses it (no huge pages built in), nothing changes, and
// no byte outside buf is advised.
func adviseHugePages[T any](buf []T) {
	var zero T
	if uintptr(len(buf))*unsafe.Sizeof(zero) < hugePage {
		return // holds no whole huge page (a one-key call, inlined, stops here)
	}
	if b := hugeRange(buf); b != nil {
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	}
}
