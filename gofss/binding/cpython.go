//go:build pyfss_cpython

package binding

// #include <stdlib.h>
import "C"

import (
	"unsafe"

	"github.com/pyfss/pyfss/gofss"
)

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

// pyfssEvalOne is Eval of one key at one point x < 2^64 on the CPU, its words
// (handle, party, s0, cws, x, dst, cwsBytes) as cpython.c's eval_one checked them:
// cws must be the scheme's key (cwsBytes its size), which cpython.c cannot know.
//
//export pyfssEvalOne
func pyfssEvalOne(args *C.ulonglong, n *C.longlong) *C.char {
	a := words(args, 7)
	err := oneKeyCws(int64(a[0]), a[6])
	if err == nil {
		_, err = Eval(int64(a[0]), CPU, 0, uintptr(a[5]), int(a[1]), uintptr(a[2]), 1, uintptr(a[3]), 0, 0, a[4], 0, 1, 0, 0)
	}
	return report(1, err, n)
}

// pyfssGenOne is Gen of one key at alpha < 2^64 on the CPU, its words (handle, cws,
// s0s, alpha, beta, cwsBytes) as cpython.c's gen_one checked them.
//
//export pyfssGenOne
func pyfssGenOne(args *C.ulonglong, n *C.longlong) *C.char {
	a := words(args, 6)
	err := oneKeyCws(int64(a[0]), a[5])
	if err == nil {
		_, err = Gen(int64(a[0]), CPU, 0, uintptr(a[1]), uintptr(a[2]), 0, 0, a[3], 0, uintptr(a[4]), 1, 0)
	}
	return report(1, err, n)
}

// oneKeyCws checks that a key's correction words of the given size in bytes are
// the size of one key of the scheme at handle.
func oneKeyCws(handle int64, size uint64) error {
	s, err := lookup(handle)
	if err != nil {
		return err
	}
	if want := uint64(s.Params().CwRows()) * uint64(unsafe.Sizeof(gofss.Cw{})); size != want {
		return valueErrorf("cws: %d bytes, where one key's are %d", size, want)
	}
	return nil
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
