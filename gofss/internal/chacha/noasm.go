//go:build (!amd64 && !arm64) || purego

package chacha

func archBackends() []*backend { return nil }
