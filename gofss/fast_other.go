//go:build !amd64 || purego

package gofss

// Without the kernels every scheme takes the portable walks.

func archImpls() []impl { return nil }
