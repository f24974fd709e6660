//go:build !amd64 || purego

package gofss

// Without the routines every scheme takes the portable walks.

func archImpls() []impl { return nil }
