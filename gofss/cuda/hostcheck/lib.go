//go:build cgo

package hostcheck

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

typedef int (*expand_fn)(int, const void*, int, int, uint32_t, const uint32_t*, uint32_t*);
typedef int (*gen_fn)(int, int, int, const void*, uint32_t*, const uint32_t*, const uint32_t*, int,
                      const uint32_t*, int, int, uint64_t);
typedef int (*eval_fn)(int, int, int, const void*, uint32_t*, uint32_t, const uint32_t*, const uint32_t*,
                       uint64_t, const uint32_t*, int, uint64_t, int);
typedef int (*eval_all_fn)(int, int, int, const void*, uint32_t*, uint32_t, const uint32_t*, const uint32_t*,
                           uint64_t, int);

static int call_expand(void* f, int prg, const void* pp, int mul, int half, uint32_t sel, const uint32_t* seed,
                       uint32_t* out) {
	return ((expand_fn)f)(prg, pp, mul, half, sel, seed, out);
}
static int call_gen(void* f, int scheme, int group, int prg, const void* pp, uint32_t* cws, const uint32_t* seeds,
                    const uint32_t* alphas, int alpha_words, const uint32_t* betas, int n, int pred, uint64_t k) {
	return ((gen_fn)f)(scheme, group, prg, pp, cws, seeds, alphas, alpha_words, betas, n, pred, k);
}
static int call_eval(void* f, int scheme, int group, int prg, const void* pp, uint32_t* dst, uint32_t party,
                     const uint32_t* s0s, const uint32_t* cws, uint64_t k, const uint32_t* xs, int x_words,
                     uint64_t m, int n) {
	return ((eval_fn)f)(scheme, group, prg, pp, dst, party, s0s, cws, k, xs, x_words, m, n);
}
static int call_eval_all(void* f, int scheme, int group, int prg, const void* pp, uint32_t* dst, uint32_t party,
                         const uint32_t* s0s, const uint32_t* cws, uint64_t k, int n) {
	return ((eval_all_fn)f)(scheme, group, prg, pp, dst, party, s0s, cws, k, n);
}
*/
import "C"

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unsafe"
)

// lib is hostcheck.cpp built as a shared library and opened.
//
// The test compiles it itself rather than letting cgo do it: the Go build cache keys
// a cgo package on the files in its own directory only, so a change to a kernel
// header in cuda/ would otherwise be tested against a stale object.
type lib struct {
	expandFn, genFn, evalFn, evalAllFn unsafe.Pointer
}

// buildLib compiles hostcheck.cpp with the C++ compiler that cgo uses into dir and
// opens the result.
func buildLib(dir string) (*lib, error) {
	cxx := strings.Fields(goEnv("CXX"))
	if len(cxx) == 0 {
		return nil, fmt.Errorf("no C++ compiler: go env CXX is empty")
	}
	so := filepath.Join(dir, "hostcheck.so")
	args := append(cxx[1:], "-std=c++17", "-O2", "-Wall", "-shared", "-fPIC", "-o", so, "hostcheck.cpp")
	out, err := exec.Command(cxx[0], args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", cxx[0], strings.Join(args, " "), err, out)
	}
	cso := C.CString(so)
	defer C.free(unsafe.Pointer(cso))
	h := C.dlopen(cso, C.RTLD_NOW|C.RTLD_LOCAL)
	if h == nil {
		return nil, fmt.Errorf("dlopen %s: %s", so, C.GoString(C.dlerror()))
	}
	l := &lib{}
	for _, s := range []struct {
		name string
		dst  *unsafe.Pointer
	}{{"hc_prg_expand", &l.expandFn}, {"hc_gen", &l.genFn}, {"hc_eval", &l.evalFn}, {"hc_eval_all", &l.evalAllFn}} {
		cname := C.CString(s.name)
		*s.dst = C.dlsym(h, cname)
		C.free(unsafe.Pointer(cname))
		if *s.dst == nil {
			return nil, fmt.Errorf("dlsym %s: %s", s.name, C.GoString(C.dlerror()))
		}
	}
	return l, nil
}

func goEnv(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func ptr(w []uint32) *C.uint32_t {
	if len(w) == 0 {
		return nil
	}
	return (*C.uint32_t)(unsafe.Pointer(&w[0]))
}

func check(rc C.int, what string) error {
	if rc != 0 {
		return fmt.Errorf("%s: bad arguments (%d)", what, int(rc))
	}
	return nil
}

// prgExpand returns expand<mul>(seed) (half false) or expand_half<mul>(seed, sel).
func (l *lib) prgExpand(prg int, pp []byte, mul int, half bool, sel uint32, seed [4]uint32) ([]uint32, error) {
	out := make([]uint32, 4*mul)
	h := 0
	if half {
		h = 1
		out = out[:2*mul]
	}
	rc := C.call_expand(l.expandFn, C.int(prg), unsafe.Pointer(&pp[0]), C.int(mul), C.int(h), C.uint32_t(sel),
		ptr(seed[:]), ptr(out))
	return out, check(rc, "hc_prg_expand")
}

// gen runs Gen for k keys: seeds (k, 2, 4), alphas (k, alphaWords), betas (k, 4);
// it returns cws (k, n + 1, 8).
func (l *lib) gen(scheme, group, prg int, pp []byte, seeds, alphas []uint32, alphaWords int, betas []uint32,
	n, pred, k int) ([]uint32, error) {
	cws := make([]uint32, k*(n+1)*8)
	rc := C.call_gen(l.genFn, C.int(scheme), C.int(group), C.int(prg), unsafe.Pointer(&pp[0]), ptr(cws),
		ptr(seeds), ptr(alphas), C.int(alphaWords), ptr(betas), C.int(n), C.int(pred), C.uint64_t(k))
	return cws, check(rc, "hc_gen")
}

// eval returns the shares (k, m, 4) of k keys at m points each.
func (l *lib) eval(scheme, group, prg int, pp []byte, party int, s0s, cws []uint32, k int, xs []uint32,
	xWords, m, n int) ([]uint32, error) {
	dst := make([]uint32, k*m*4)
	rc := C.call_eval(l.evalFn, C.int(scheme), C.int(group), C.int(prg), unsafe.Pointer(&pp[0]), ptr(dst),
		C.uint32_t(party), ptr(s0s), ptr(cws), C.uint64_t(k), ptr(xs), C.int(xWords), C.uint64_t(m), C.int(n))
	return dst, check(rc, "hc_eval")
}

// evalAll returns the shares (k, 2^n, 4) of k keys over the whole domain.
func (l *lib) evalAll(scheme, group, prg int, pp []byte, party int, s0s, cws []uint32, k, n int) ([]uint32, error) {
	dst := make([]uint32, k<<n*4)
	rc := C.call_eval_all(l.evalAllFn, C.int(scheme), C.int(group), C.int(prg), unsafe.Pointer(&pp[0]), ptr(dst),
		C.uint32_t(party), ptr(s0s), ptr(cws), C.uint64_t(k), C.int(n))
	return dst, check(rc, "hc_eval_all")
}
