//go:build cgo

package hostcheck

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

// kind, group and prg name the parameters as gofss does; hostcheck.cpp picks its
// templates by them.
typedef const char* name;
typedef int (*expand_fn)(name, const void*, int, int, uint32_t, const uint32_t*, uint32_t*);
typedef int (*gen_fn)(name, name, name, const void*, uint32_t*, const uint32_t*, const uint32_t*, int,
                      const uint32_t*, uint64_t, int);
typedef int (*eval_fn)(name, name, name, const void*, uint32_t*, uint32_t, const uint32_t*, uint64_t,
                       const uint32_t*, const uint32_t*, int, uint64_t, int);
typedef int (*eval_all_fn)(name, name, name, const void*, uint32_t*, uint32_t, const uint32_t*, uint64_t,
                           const uint32_t*, int);

typedef int (*grotto_preprocess_fn)(name, const void*, uint64_t*, uint64_t, uint32_t, const uint32_t*, uint64_t,
                                    const uint32_t*, int);
typedef int (*grotto_eval_fn)(uint8_t*, const uint64_t*, uint64_t, const uint32_t*, int, int, uint64_t, uint64_t);
typedef int (*grotto_interval_fn)(uint8_t*, const uint64_t*, uint64_t, const uint32_t*, int, const uint32_t*, int,
                                  int, uint64_t, uint64_t);

typedef int (*hash_fn)(name, int, const uint32_t*, const uint32_t*, int, uint32_t*);
typedef int (*vdpf_gen_fn)(name, name, name, const void*, const void*, uint32_t*, const uint32_t*, const uint32_t*,
                           int, const uint32_t*, uint64_t, int);
typedef int (*vdpf_eval_fn)(name, name, name, const void*, const void*, uint32_t*, uint32_t*, uint32_t,
                            const uint32_t*, uint64_t, const uint32_t*, const uint32_t*, int, uint64_t, int);

static int call_hash(void* f, name hash, int xor_hash_of, const uint32_t* key, const uint32_t* msg, int words,
                     uint32_t* out) {
	return ((hash_fn)f)(hash, xor_hash_of, key, msg, words, out);
}
static int call_vdpf_gen(void* f, name group, name prg, name hash, const void* pp, const void* keys, uint32_t* cws,
                         const uint32_t* seeds, const uint32_t* alphas, int alpha_words, const uint32_t* betas,
                         uint64_t k, int n) {
	return ((vdpf_gen_fn)f)(group, prg, hash, pp, keys, cws, seeds, alphas, alpha_words, betas, k, n);
}
static int call_vdpf_eval(void* f, name group, name prg, name hash, const void* pp, const void* keys, uint32_t* dst,
                          uint32_t* pieces, uint32_t party, const uint32_t* s0s, uint64_t k, const uint32_t* cws,
                          const uint32_t* xs, int x_words, uint64_t m, int n) {
	return ((vdpf_eval_fn)f)(group, prg, hash, pp, keys, dst, pieces, party, s0s, k, cws, xs, x_words, m, n);
}
typedef int (*mpf_eval_fn)(name, name, name, const void*, const void*, uint32_t*, uint32_t*, uint32_t*, uint32_t,
                           const uint32_t*, uint64_t, const uint32_t*, const uint32_t*, int, uint64_t, int, int, int,
                           int);
static int call_mpf_eval(void* f, name group, name prg, name hash, const void* pp, const void* keys, uint32_t* dst,
                         uint32_t* bkts, uint32_t* pieces, uint32_t party, const uint32_t* s0s, uint64_t k,
                         const uint32_t* cws, const uint32_t* xs, int x_words, uint64_t m, int n, int bucket_bits,
                         int buckets, int least) {
	return ((mpf_eval_fn)f)(group, prg, hash, pp, keys, dst, bkts, pieces, party, s0s, k, cws, xs, x_words, m, n,
	                        bucket_bits, buckets, least);
}
typedef uint64_t (*divide_fn)(uint64_t, uint64_t, uint64_t*);
static uint64_t call_divide(void* f, uint64_t y, uint64_t size, uint64_t* rem) { return ((divide_fn)f)(y, size, rem); }
static int call_expand(void* f, name prg, const void* pp, int mul, int half, uint32_t sel, const uint32_t* seed,
                       uint32_t* out) {
	return ((expand_fn)f)(prg, pp, mul, half, sel, seed, out);
}
static int call_gen(void* f, name kind, name group, name prg, const void* pp, uint32_t* cws, const uint32_t* seeds,
                    const uint32_t* alphas, int alpha_words, const uint32_t* betas, uint64_t k, int n) {
	return ((gen_fn)f)(kind, group, prg, pp, cws, seeds, alphas, alpha_words, betas, k, n);
}
static int call_eval(void* f, name kind, name group, name prg, const void* pp, uint32_t* dst, uint32_t party,
                     const uint32_t* s0s, uint64_t k, const uint32_t* cws, const uint32_t* xs, int x_words,
                     uint64_t m, int n) {
	return ((eval_fn)f)(kind, group, prg, pp, dst, party, s0s, k, cws, xs, x_words, m, n);
}
static int call_eval_all(void* f, name kind, name group, name prg, const void* pp, uint32_t* dst, uint32_t party,
                         const uint32_t* s0s, uint64_t k, const uint32_t* cws, int n) {
	return ((eval_all_fn)f)(kind, group, prg, pp, dst, party, s0s, k, cws, n);
}
static int call_grotto_preprocess(void* f, name prg, const void* pp, uint64_t* pre, uint64_t words, uint32_t party,
                                  const uint32_t* s0s, uint64_t k, const uint32_t* cws, int n) {
	return ((grotto_preprocess_fn)f)(prg, pp, pre, words, party, s0s, k, cws, n);
}
static int call_grotto_eval(void* f, uint8_t* dst, const uint64_t* pre, uint64_t words, const uint32_t* xs,
                            int x_words, int n, uint64_t k, uint64_t m) {
	return ((grotto_eval_fn)f)(dst, pre, words, xs, x_words, n, k, m);
}
static int call_grotto_interval(void* f, uint8_t* dst, const uint64_t* pre, uint64_t words, const uint32_t* los,
                                int lo_words, const uint32_t* his, int hi_words, int n, uint64_t k, uint64_t m) {
	return ((grotto_interval_fn)f)(dst, pre, words, los, lo_words, his, hi_words, n, k, m);
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

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda/internal/prgparams"
)

// lib is hostcheck.cpp built as a shared library and opened. Its Gen, Eval, EvalAll,
// and Grotto's Preprocess and lookups are a vectortest.Backend.
//
// The test compiles it itself rather than letting cgo do it: the Go build cache keys
// a cgo package on the files in its own directory only, so a change to a kernel
// header in cuda/ would otherwise be tested against a stale object.
type lib struct {
	expandFn, genFn, evalFn, evalAllFn           unsafe.Pointer
	preprocessFn, grottoEvalFn, grottoIntervalFn unsafe.Pointer
	hashFn, vdpfGenFn, vdpfEvalFn, mpfEvalFn     unsafe.Pointer
	divideFn                                     unsafe.Pointer
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
	}{{"hc_prg_expand", &l.expandFn}, {"hc_gen", &l.genFn}, {"hc_eval", &l.evalFn}, {"hc_eval_all", &l.evalAllFn},
		{"hc_grotto_preprocess", &l.preprocessFn}, {"hc_grotto_eval", &l.grottoEvalFn},
		{"hc_grotto_eval_interval", &l.grottoIntervalFn}, {"hc_hash", &l.hashFn}, {"hc_vdpf_gen", &l.vdpfGenFn},
		{"hc_vdpf_eval", &l.vdpfEvalFn}, {"hc_mpf_eval", &l.mpfEvalFn},
		{"hc_divide", &l.divideFn}} {
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

// withNames calls f with p's kind, group and PRG names as C strings.
func withNames(p gofss.Params, f func(kind, group, prg *C.char) C.int) C.int {
	kind, group, prg := C.CString(p.Kind.String()), C.CString(p.Group.String()), C.CString(p.Prg.String())
	defer C.free(unsafe.Pointer(kind))
	defer C.free(unsafe.Pointer(group))
	defer C.free(unsafe.Pointer(prg))
	return f(kind, group, prg)
}

// prgExpand returns expand<mul>(seed) (half false) or expand_half<mul>(seed, sel) of
// the PRG named prg with the packed parameters pp; for mul 1, its hash.
func (l *lib) prgExpand(prg string, pp []byte, mul int, half bool, sel uint32, seed [4]uint32) ([]uint32, error) {
	out := make([]uint32, 4*mul)
	h := 0
	if half {
		h = 1
		out = out[:2*mul]
	}
	cprg := C.CString(prg)
	defer C.free(unsafe.Pointer(cprg))
	rc := C.call_expand(l.expandFn, cprg, unsafe.Pointer(&pp[0]), C.int(mul), C.int(h), C.uint32_t(sel),
		ptr(seed[:]), ptr(out))
	return out, check(rc, "hc_prg_expand")
}

// Gen runs Gen for k keys: seeds (k, 2, 4), alphas (k, alphaWords), betas (k, 4) or
// nil (grotto_dcf); it returns cws (k, CwRows(), 8).
func (l *lib) Gen(p gofss.Params, seeds, alphas []uint32, alphaWords int, betas []uint32, k int) ([]uint32, error) {
	cws := make([]uint32, k*p.CwRows()*8)
	pp := packed(p)
	rc := withNames(p, func(kind, group, prg *C.char) C.int {
		return C.call_gen(l.genFn, kind, group, prg, unsafe.Pointer(&pp[0]), ptr(cws), ptr(seeds), ptr(alphas),
			C.int(alphaWords), ptr(betas), C.uint64_t(k), C.int(p.InBits))
	})
	return cws, check(rc, "hc_gen")
}

// Eval returns party's shares (k, m, 4) of k keys at m points each.
func (l *lib) Eval(p gofss.Params, party int, s0s []uint32, k int, cws, xs []uint32, xWords, m int) ([]uint32, error) {
	dst := make([]uint32, k*m*4)
	pp := packed(p)
	rc := withNames(p, func(kind, group, prg *C.char) C.int {
		return C.call_eval(l.evalFn, kind, group, prg, unsafe.Pointer(&pp[0]), ptr(dst), C.uint32_t(party), ptr(s0s),
			C.uint64_t(k), ptr(cws), ptr(xs), C.int(xWords), C.uint64_t(m), C.int(p.InBits))
	})
	return dst, check(rc, "hc_eval")
}

// EvalAll returns party's shares (k, 2^n, 4) of k keys over the whole domain.
func (l *lib) EvalAll(p gofss.Params, party int, s0s []uint32, k int, cws []uint32) ([]uint32, error) {
	dst := make([]uint32, k<<p.InBits*4)
	pp := packed(p)
	rc := withNames(p, func(kind, group, prg *C.char) C.int {
		return C.call_eval_all(l.evalAllFn, kind, group, prg, unsafe.Pointer(&pp[0]), ptr(dst), C.uint32_t(party),
			ptr(s0s), C.uint64_t(k), ptr(cws), C.int(p.InBits))
	})
	return dst, check(rc, "hc_eval_all")
}

// Preprocess returns party's prefix parities (k, words) of k Grotto keys.
func (l *lib) Preprocess(p gofss.Params, party int, s0s []uint32, k int, cws []uint32) ([]uint64, error) {
	words := grottoWords(p)
	pre := make([]uint64, k*words)
	pp := packed(p)
	cprg := C.CString(p.Prg.String())
	defer C.free(unsafe.Pointer(cprg))
	rc := C.call_grotto_preprocess(l.preprocessFn, cprg, unsafe.Pointer(&pp[0]), (*C.uint64_t)(unsafe.Pointer(&pre[0])),
		C.uint64_t(words), C.uint32_t(party), ptr(s0s), C.uint64_t(k), ptr(cws), C.int(p.InBits))
	return pre, check(rc, "hc_grotto_preprocess")
}

// GrottoEval returns the shares (k, m) of k preprocessed keys at m points each.
func (l *lib) GrottoEval(p gofss.Params, pre []uint64, k int, xs []uint32, xWords, m int) ([]uint8, error) {
	dst := make([]uint8, k*m)
	rc := C.call_grotto_eval(l.grottoEvalFn, (*C.uint8_t)(&dst[0]), (*C.uint64_t)(&pre[0]), C.uint64_t(grottoWords(p)),
		ptr(xs), C.int(xWords), C.int(p.InBits), C.uint64_t(k), C.uint64_t(m))
	return dst, check(rc, "hc_grotto_eval")
}

// GrottoEvalInterval returns the shares (k, m) of k preprocessed keys for m intervals each.
func (l *lib) GrottoEvalInterval(p gofss.Params, pre []uint64, k int, los []uint32, loWords int, his []uint32,
	hiWords, m int) ([]uint8, error) {
	dst := make([]uint8, k*m)
	rc := C.call_grotto_interval(l.grottoIntervalFn, (*C.uint8_t)(&dst[0]), (*C.uint64_t)(&pre[0]),
		C.uint64_t(grottoWords(p)), ptr(los), C.int(loWords), ptr(his), C.int(hiWords), C.int(p.InBits), C.uint64_t(k),
		C.uint64_t(m))
	return dst, check(rc, "hc_grotto_eval_interval")
}

// hash returns the hash named (sha256, blake3) under key (8 words) of msg (8 or 16
// words), 8 words; with xor, XH(msg[0:4], msg[4:8]) under key as the XH key, 16 words.
func (l *lib) hash(name string, xor bool, key [8]uint32, msg []uint32) ([]uint32, error) {
	out, x := make([]uint32, 8), 0
	if xor {
		out, x = make([]uint32, 16), 1
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	rc := C.call_hash(l.hashFn, cname, C.int(x), ptr(key[:]), ptr(msg), C.int(len(msg)), ptr(out))
	return out, check(rc, "hc_hash")
}

// withVdpfNames calls f with p's group, PRG and hash names as C strings.
func withVdpfNames(p gofss.Params, f func(group, prg, hash *C.char) C.int) C.int {
	group, prg, hash := C.CString(p.Group.String()), C.CString(p.Prg.String()), C.CString(p.Hash.Kind.String())
	defer C.free(unsafe.Pointer(group))
	defer C.free(unsafe.Pointer(prg))
	defer C.free(unsafe.Pointer(hash))
	return f(group, prg, hash)
}

// VdpfGen runs VDPF Gen for k keys laid out as Gen's; it returns cws (k, in_bits + 3, 8).
func (l *lib) VdpfGen(p gofss.Params, seeds, alphas []uint32, alphaWords int, betas []uint32, k int) ([]uint32, error) {
	cws := make([]uint32, k*p.CwRows()*8)
	pp, hk := packed(p), prgparams.PackHashKeys(p.Hash)
	rc := withVdpfNames(p, func(group, prg, hash *C.char) C.int {
		return C.call_vdpf_gen(l.vdpfGenFn, group, prg, hash, unsafe.Pointer(&pp[0]), unsafe.Pointer(&hk[0]), ptr(cws),
			ptr(seeds), ptr(alphas), C.int(alphaWords), ptr(betas), C.uint64_t(k), C.int(p.InBits))
	})
	return cws, check(rc, "hc_vdpf_gen")
}

// VdpfEval returns party's shares (k, m, 4) and proof pieces (k, m, 4, 4).
func (l *lib) VdpfEval(p gofss.Params, party int, s0s []uint32, k int, cws, xs []uint32, xWords, m int) ([]uint32,
	[]uint32, error) {
	dst, pieces := make([]uint32, k*m*4), make([]uint32, k*m*16)
	pp, hk := packed(p), prgparams.PackHashKeys(p.Hash)
	rc := withVdpfNames(p, func(group, prg, hash *C.char) C.int {
		return C.call_vdpf_eval(l.vdpfEvalFn, group, prg, hash, unsafe.Pointer(&pp[0]), unsafe.Pointer(&hk[0]),
			ptr(dst), ptr(pieces), C.uint32_t(party), ptr(s0s), C.uint64_t(k), ptr(cws), ptr(xs), C.int(xWords),
			C.uint64_t(m), C.int(p.InBits))
	})
	return dst, pieces, check(rc, "hc_vdpf_eval")
}

// divide returns y / size and y % size as the multi-point kernels compute them, from
// the reciprocal 1 / size as a double.
func (l *lib) divide(y, size uint64) (uint64, uint64) {
	var rem C.uint64_t
	q := C.call_divide(l.divideFn, C.uint64_t(y), C.uint64_t(size), &rem)
	return uint64(q), uint64(rem)
}

// MpfEval returns party's shares (k, m, 4) of k dmpf or vdmpf keys at m inputs each,
// and for vdmpf each pair's bucket (k, m, 3) and proof piece (k, m, 3, 4, 4).
func (l *lib) MpfEval(p gofss.Params, party int, s0s []uint32, k int, cws, xs []uint32, xWords, m int) ([]uint32,
	[]uint32, []uint32, error) {
	dst := make([]uint32, k*m*4)
	var bkts, pieces []uint32
	pp, hk := packed(p), prgparams.PackHashKeys(p.Hash)
	group, prg := C.CString(p.Group.String()), C.CString(p.Prg.String())
	defer C.free(unsafe.Pointer(group))
	defer C.free(unsafe.Pointer(prg))
	var hash *C.char
	if p.Kind == gofss.KindVdmpf {
		bkts, pieces = make([]uint32, k*m*3), make([]uint32, k*m*3*16)
		hash = C.CString(p.Hash.Kind.String())
		defer C.free(unsafe.Pointer(hash))
	}
	rc := C.call_mpf_eval(l.mpfEvalFn, group, prg, hash, unsafe.Pointer(&pp[0]), unsafe.Pointer(&hk[0]), ptr(dst),
		ptr(bkts), ptr(pieces), C.uint32_t(party), ptr(s0s), C.uint64_t(k), ptr(cws), ptr(xs), C.int(xWords),
		C.uint64_t(m), C.int(p.InBits), C.int(p.BucketBits), C.int(p.Buckets()), C.int(p.MinBuckets()))
	return dst, bkts, pieces, check(rc, "hc_mpf_eval")
}

// grottoWords is the length of one preprocessed key in 64-bit words.
func grottoWords(p gofss.Params) int { return (1<<p.InBits + 63) / 64 }

// packed is the PrgParams image of checked parameters, as the launcher packs it.
func packed(p gofss.Params) []byte { return prgparams.Pack(p.Nonce, p.AesKeys, p.HashKey) }
