//go:build pyfss_cpython

package binding

// #include <stdlib.h>
import "C"

import "unsafe"

// The entries below serve cpython.c, which the Python extension calls directly for
// its smallest calls (one key, or a few): gopy's wrapper parses arguments by keyword
// and releases the GIL through two calls from Go into C, about 0.25 us of the 0.65 us
// that a one-key eval's call took, while cpython.c converts positional ints and
// releases the GIL in C. Each takes its function's arguments as 64-bit words in order (signed
// ones two's complement, as cpython.c parsed them), writes the function's result to
// n and returns its error's message, malloc'd (cpython.c frees it), or NULL. The
// functions themselves are the ones gopy binds, guard included.

func words(args *C.ulonglong, count int) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(args)), count)
}

func report(done int, err error, n *C.longlong) *C.char {
	*n = C.longlong(done)
	if err != nil {
		return C.CString(err.Error())
	}
	return nil
}

//export pyfssEval
func pyfssEval(args *C.ulonglong, n *C.longlong) *C.char {
	a := words(args, 15)
	done, err := Eval(int64(a[0]), int(a[1]), uintptr(a[2]), uintptr(a[3]), int(a[4]), uintptr(a[5]), int(a[6]), uintptr(a[7]), uintptr(a[8]), int(a[9]), a[10], a[11], int(a[12]), uintptr(a[13]), uintptr(a[14]))
	return report(done, err, n)
}

//export pyfssGen
func pyfssGen(args *C.ulonglong, n *C.longlong) *C.char {
	a := words(args, 12)
	done, err := Gen(int64(a[0]), int(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), uintptr(a[5]), int(a[6]), a[7], a[8], uintptr(a[9]), int(a[10]), uintptr(a[11]))
	return report(done, err, n)
}

//export pyfssKeyGen
func pyfssKeyGen(args *C.ulonglong, n *C.longlong) *C.char {
	a := words(args, 7)
	done, err := KeyGen(int64(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), a[4], a[5], uintptr(a[6]))
	return report(done, err, n)
}
