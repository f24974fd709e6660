//go:build !amd64 || purego

package aes128

func archBackends() []*backend { return nil }
