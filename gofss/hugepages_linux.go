package gofss

import "syscall"

// adviseHugePages marks the whole huge pages inside buf for huge pages. It is a
// hint: where the kernel refuses it (no huge pages built in), nothing changes, and
// no byte outside buf is advised.
func adviseHugePages[T any](buf []T) {
	if b := hugeRange(buf); b != nil {
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	}
}
