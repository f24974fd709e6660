//go:build pyfss_cpython

// A module of the Python extension's smallest calls, made by pyfss_small_calls
// (pyfss._ext fetches it once through ctypes): each function takes its Go
// function's arguments as positional ints, checked for range as they are
// converted, and calls the core with the GIL released in C. See cpython.go.

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"

#define MAX_ARGS 16

typedef char *(*entry)(unsigned long long *, long long *);

// run calls fn on words without the GIL and returns its error's message
// (malloc'd) or NULL. Every entry below goes through it: its release of the GIL is
// what tests/test_binding.py's test_small_entries_release_the_gil sees.
static char *run(entry fn, unsigned long long *words, long long *n) {
    char *err;
    Py_BEGIN_ALLOW_THREADS
    err = fn(words, n);
    Py_END_ALLOW_THREADS
    return err;
}

// call converts args by sig (one letter per argument: 'L' a signed, 'K' an
// unsigned 64-bit int), runs fn on them without the GIL, and returns its count or
// raises RuntimeError with its error's message, as gopy's wrapper does.
static PyObject *call(entry fn, const char *name, const char *sig, PyObject *const *args,
                      Py_ssize_t nargs) {
    unsigned long long words[MAX_ARGS];
    Py_ssize_t count = (Py_ssize_t)strlen(sig);
    if (nargs != count) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", name, count, nargs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (sig[i] == 'L') {
            long long v = PyLong_AsLongLong(args[i]);
            if (v == -1 && PyErr_Occurred()) {
                return NULL;
            }
            words[i] = (unsigned long long)v;
        } else {
            unsigned long long v = PyLong_AsUnsignedLongLong(args[i]);
            if (v == (unsigned long long)-1 && PyErr_Occurred()) {
                return NULL;
            }
            words[i] = v;
        }
    }
    long long n = 0;
    char *err = run(fn, words, &n);
    if (err != NULL) {
        PyErr_SetString(PyExc_RuntimeError, err);
        free(err);
        return NULL;
    }
    return PyLong_FromLongLong(n);
}

// Signatures as gopy's wrappers parse them (binding.Eval, binding.Gen, binding.KeyGen).
static PyObject *eval(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return call(pyfssEval, "eval", "LLKKLKLKKLKKLKK", args, nargs);
}

static PyObject *gen(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return call(pyfssGen, "gen", "LLKKKKLKKKLK", args, nargs);
}

static PyObject *keygen(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return call(pyfssKeyGen, "keygen", "LKKKKKK", args, nargs);
}

// The torch objects that eval_one and gen_one check tensors against and make their
// outputs with, the shapes of seeds, and the names of the attributes they read
// (setup).
static PyObject *tensor_type, *int32, *empty_like, *seed_shape, *seeds_shape;
static PyObject *name_dtype, *name_is_cpu, *name_shape, *name_is_contiguous, *name_is_neg,
    *name_data_ptr, *name_new_empty;

// setup(torch.Tensor, torch.int32, torch.empty_like) keeps them for eval_one and
// gen_one.
static PyObject *setup(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyType_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "setup takes (torch.Tensor, torch.int32, torch.empty_like)");
        return NULL;
    }
    if (tensor_type == NULL) {
        seed_shape = Py_BuildValue("(i)", 4);
        seeds_shape = Py_BuildValue("(ii)", 2, 4);
        name_new_empty = PyUnicode_InternFromString("new_empty");
        name_dtype = PyUnicode_InternFromString("dtype");
        name_is_cpu = PyUnicode_InternFromString("is_cpu");
        name_shape = PyUnicode_InternFromString("shape");
        name_is_contiguous = PyUnicode_InternFromString("is_contiguous");
        name_is_neg = PyUnicode_InternFromString("is_neg");
        name_data_ptr = PyUnicode_InternFromString("data_ptr");
        if (seed_shape == NULL || seeds_shape == NULL || name_new_empty == NULL ||
            name_dtype == NULL || name_is_cpu == NULL || name_shape == NULL ||
            name_is_contiguous == NULL || name_is_neg == NULL || name_data_ptr == NULL) {
            return NULL;
        }
    }
    PyObject *old[3] = {tensor_type, int32, empty_like};
    tensor_type = Py_NewRef(args[0]);
    int32 = Py_NewRef(args[1]);
    empty_like = Py_NewRef(args[2]);
    for (int i = 0; i < 3; i++) {
        Py_XDECREF(old[i]);
    }
    Py_RETURN_NONE;
}

// is_attr reads attribute name of t (called if call is set) and tells whether it
// is want: 1 or 0, or -1 with the error set.
static int is_attr(PyObject *t, PyObject *name, int call, PyObject *want) {
    PyObject *v = call ? PyObject_CallMethodNoArgs(t, name) : PyObject_GetAttr(t, name);
    if (v == NULL) {
        return -1;
    }
    int is = v == want;
    Py_DECREF(v);
    return is;
}

// address is t.data_ptr(), or 0: with the error set where reading it failed.
static unsigned long long address(PyObject *t) {
    PyObject *p = PyObject_CallMethodNoArgs(t, name_data_ptr);
    if (p == NULL) {
        return 0;
    }
    unsigned long long a = PyLong_AsUnsignedLongLong(p);
    Py_DECREF(p);
    return a == (unsigned long long)-1 && PyErr_Occurred() ? 0 : a;
}

// plain reads t's address into *ptr where t is what the core reads directly: an
// exact torch.Tensor, int32 on the CPU, of the given shape, contiguous, not a
// negative view (whose memory holds the negated values), at an 8-byte aligned
// address. Returns 1, 0 where t is not (any other tensor, or no tensor), or -1 with
// the error set.
static int plain(PyObject *t, PyObject *shape, unsigned long long *ptr) {
    if (Py_TYPE(t) != (PyTypeObject *)tensor_type) {
        return 0;
    }
    int ok;
    if ((ok = is_attr(t, name_dtype, 0, int32)) != 1 || (ok = is_attr(t, name_is_cpu, 0, Py_True)) != 1) {
        return ok;
    }
    PyObject *got = PyObject_GetAttr(t, name_shape);
    if (got == NULL) {
        return -1;
    }
    ok = PyObject_RichCompareBool(got, shape, Py_EQ);
    Py_DECREF(got);
    if (ok != 1 || (ok = is_attr(t, name_is_contiguous, 1, Py_True)) != 1 ||
        (ok = is_attr(t, name_is_neg, 1, Py_False)) != 1) {
        return ok;
    }
    if ((*ptr = address(t)) == 0) {
        return PyErr_Occurred() ? -1 : 0; // no memory: an empty tensor's is NULL
    }
    return (*ptr & 7) == 0;
}

// point reads x, a Python int in 0 .. min(2^64, 2^bits)-1, into *lo: 1, or 0 where x
// is anything else (no error set).
static int point(PyObject *x, long long bits, unsigned long long *lo) {
    if (!PyLong_CheckExact(x)) {
        return 0;
    }
    *lo = PyLong_AsUnsignedLongLong(x);
    if (*lo == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear(); // negative or past 64 bits: the general path says which
        return 0;
    }
    return bits >= 64 || *lo >> bits == 0;
}

// size is the bytes of an int32 tensor of shape (a tuple, checked by the caller),
// or 0 with the error set.
static unsigned long long size(PyObject *shape) {
    unsigned long long n = 4;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape); i++) {
        long long d = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
        if (d < 0 || d > (1LL << 40)) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "cws_shape: a size out of range");
            }
            return 0;
        }
        n *= (unsigned long long)d;
    }
    return n;
}

// ready checks that setup ran and that the call has count arguments.
static int ready(const char *name, Py_ssize_t nargs, Py_ssize_t count) {
    if (nargs != count) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", name, count, nargs);
        return 0;
    }
    if (tensor_type == NULL) {
        PyErr_Format(PyExc_RuntimeError, "%s before setup", name);
        return 0;
    }
    return 1;
}

// output is the address of out, a tensor just made, or 0 with out released and
// the error set.
static unsigned long long output(PyObject *out) {
    unsigned long long a = address(out);
    if (a == 0) {
        Py_DECREF(out);
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "an output of no memory");
        }
    }
    return a;
}

// finish returns out, or raises RuntimeError with the core's message err (freed)
// and releases out.
static PyObject *finish(PyObject *out, char *err) {
    if (err == NULL) {
        return out;
    }
    Py_DECREF(out);
    PyErr_SetString(PyExc_RuntimeError, err);
    free(err);
    return NULL;
}

// eval_one(handle, party, s0, cws, x, cws_shape, in_bits) is a one-key eval
// (binding.Eval of one key at one point on the CPU) with its checks and its output
// made here, without the interpreter between them: party 0 or 1, s0 and cws plain
// (shapes (4,) and cws_shape), x an int in 0 .. min(2^64, 2^in_bits)-1. It returns
// the output, a new (4,) int32 tensor, or None where an argument is anything else
// (the caller's general path takes the call then), and raises RuntimeError with the
// core's message where the core refuses the key.
static PyObject *eval_one(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready("eval_one", nargs, 7)) {
        return NULL;
    }
    PyObject *party = args[1];
    long long handle = PyLong_AsLongLong(args[0]), bits = PyLong_AsLongLong(args[6]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (!PyTuple_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError, "eval_one: cws_shape must be a tuple");
        return NULL;
    }
    unsigned long long x, s0, cws;
    // An exact int, as Python's `type(party) is int` (not a bool).
    long p = PyLong_CheckExact(party) ? PyLong_AsLong(party) : -1;
    if (p == -1 && PyErr_Occurred()) {
        PyErr_Clear();
    }
    if ((p != 0 && p != 1) || !point(args[4], bits, &x)) {
        Py_RETURN_NONE;
    }
    int ok;
    if ((ok = plain(args[2], seed_shape, &s0)) != 1 || (ok = plain(args[3], args[5], &cws)) != 1) {
        if (ok < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    PyObject *y = PyObject_CallOneArg(empty_like, args[2]);
    if (y == NULL) {
        return NULL;
    }
    unsigned long long dst = output(y);
    if (dst == 0) {
        return NULL;
    }
    unsigned long long words[] = {handle, p, s0, cws, x, dst, size(args[5])};
    if (words[6] == 0 && PyErr_Occurred()) {
        Py_DECREF(y);
        return NULL;
    }
    long long n;
    return finish(y, run(pyfssEvalOne, words, &n));
}

// gen_one(handle, s0s, beta, alpha, cws_shape, in_bits) is a one-key gen
// (binding.Gen of one key on the CPU) as eval_one is an eval: s0s and beta plain
// (shapes (2, 4) and (4,)), alpha an int in 0 .. min(2^64, 2^in_bits)-1. It returns
// the correction words, a new int32 tensor of shape cws_shape, or None where an
// argument is anything else, and raises RuntimeError where the core refuses the
// seeds or beta.
static PyObject *gen_one(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready("gen_one", nargs, 6)) {
        return NULL;
    }
    PyObject *shape = args[4];
    long long handle = PyLong_AsLongLong(args[0]), bits = PyLong_AsLongLong(args[5]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > 4) {
        PyErr_SetString(PyExc_TypeError, "gen_one: cws_shape must be a tuple of at most 4 sizes");
        return NULL;
    }
    unsigned long long alpha, s0s, beta;
    if (!point(args[3], bits, &alpha)) {
        Py_RETURN_NONE;
    }
    int ok;
    if ((ok = plain(args[1], seeds_shape, &s0s)) != 1 || (ok = plain(args[2], seed_shape, &beta)) != 1) {
        if (ok < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    // s0s.new_empty(*cws_shape): sizes as varargs parse faster than a tuple.
    PyObject *stack[5] = {args[1]};
    Py_ssize_t dims = PyTuple_GET_SIZE(shape);
    for (Py_ssize_t i = 0; i < dims; i++) {
        stack[1 + i] = PyTuple_GET_ITEM(shape, i);
    }
    PyObject *cws = PyObject_VectorcallMethod(name_new_empty, stack, 1 + dims, NULL);
    if (cws == NULL) {
        return NULL;
    }
    unsigned long long dst = output(cws);
    if (dst == 0) {
        return NULL;
    }
    unsigned long long words[] = {handle, dst, s0s, alpha, beta, size(shape)};
    if (words[5] == 0 && PyErr_Occurred()) {
        Py_DECREF(cws);
        return NULL;
    }
    long long n;
    return finish(cws, run(pyfssGenOne, words, &n));
}

static PyMethodDef methods[] = {
    {"setup", (PyCFunction)(void (*)(void))setup, METH_FASTCALL, "eval_one's torch objects"},
    {"eval_one", (PyCFunction)(void (*)(void))eval_one, METH_FASTCALL, "binding.Eval, one key at one point"},
    {"gen_one", (PyCFunction)(void (*)(void))gen_one, METH_FASTCALL, "binding.Gen, one key"},
    {"eval", (PyCFunction)(void (*)(void))eval, METH_FASTCALL, "binding.Eval"},
    {"gen", (PyCFunction)(void (*)(void))gen, METH_FASTCALL, "binding.Gen"},
    {"keygen", (PyCFunction)(void (*)(void))keygen, METH_FASTCALL, "binding.KeyGen"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef small_calls = {
    PyModuleDef_HEAD_INIT, "pyfss._gofss.small_calls", NULL, -1, methods,
};

// pyfss_small_calls returns a new module of the functions above (the caller holds
// the GIL).
PyObject *pyfss_small_calls(void) { return PyModule_Create(&small_calls); }
