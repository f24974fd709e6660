//go:build !amd64 || purego

package gofss

// simdOnCPU: builds without the routines have no fast walks.
const simdOnCPU = false
