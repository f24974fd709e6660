//go:build !amd64 || purego

package chacha

func archBackends() []*backend { return nil }
