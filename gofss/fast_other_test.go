//go:build !amd64 || purego

package gofss

// kernelsOnCPU: builds without the kernels have no fast walks.
const kernelsOnCPU = false
