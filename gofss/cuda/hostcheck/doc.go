// Package hostcheck tests the CUDA kernels' arithmetic without a GPU: the headers in
// cuda/ compile for the host as well, and its test runs the per-thread functions the
// kernels call against the DPF, DCF, Half-Tree DPF, Grotto DCF and PRG known-answer
// vectors.
//
// It needs cgo and a C++17 compiler (go env CXX); the package has no API.
package hostcheck
