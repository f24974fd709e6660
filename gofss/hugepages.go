package gofss

import (
	"os"
	"strings"
	"unsafe"
)

// Gen asks the OS to back the correction words it writes with huge pages (2 MiB on
// amd64 Linux). A batched Eval reads each key's correction words once, from memory;
// with 4 KiB pages a new page, and its TLB walk, comes every sixth key at in_bits
// 20, which costs a fast DPF Eval a fifth of its time (47.4 against 38.0 ns/key).
// Memory not touched before Gen (a fresh allocation) gets huge pages as Gen writes
// it; memory touched before keeps its pages until the kernel collapses them in the
// background.
//
// EvalAll asks the same for its output, for another reason: a fresh output (a new
// tensor) is memory no one has touched, and each 4 KiB page of it faults when the walk
// first writes it. On a virtual machine a fault costs about 2 us, 8 ns per output at
// 4 KiB per 256 outputs: more than the walk itself. A huge page faults once per 2 MiB.
// The multi-point schemes' full-domain evaluations ask the same for their output and
// for the per-region lists of their adds (tens of MiB, fresh when their pool lost
// them to a garbage collection).

const hugePage = 2 << 20

// hugeRange returns the whole huge pages inside buf, as a byte slice (nil if none).
func hugeRange[T any](buf []T) []byte {
	if len(buf) == 0 {
		return nil
	}
	var zero T
	start := uintptr(unsafe.Pointer(&buf[0]))
	end := start + uintptr(len(buf))*unsafe.Sizeof(zero)
	lo, hi := (start+hugePage-1)&^(hugePage-1), end&^(hugePage-1)
	if lo >= hi {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&buf[0]), lo-start)), hi-lo)
}

// HugePageMode tells when this OS gives a process huge pages: "always", "madvise"
// (where asked, as Gen does), "never", or "unsupported".
func HugePageMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return "unsupported"
	}
	// The file lists the modes with the selected one in brackets.
	for _, f := range strings.Fields(string(b)) {
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			return strings.Trim(f, "[]")
		}
	}
	return "unsupported"
}
