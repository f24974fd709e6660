package gofss

import "syscall"

// adviseHugePages marks the whole huge pages inside cws for huge pages. It is a
// hint: where the kernel refuses it (no huge pages built in), nothing changes.
func adviseHugePages(cws []Cw) {
	if b := hugeRange(cws); b != nil {
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	}
}
