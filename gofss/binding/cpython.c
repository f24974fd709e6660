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
    char *err;
    Py_BEGIN_ALLOW_THREADS
    err = fn(words, &n);
    Py_END_ALLOW_THREADS
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

static PyMethodDef methods[] = {
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
