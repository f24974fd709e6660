//go:build (!amd64 && !arm64) || purego

package aes128

type archKey struct{}

func (*archKey) init(*[16]byte) {}

func archBackends() []*backend { return nil }

// smallBatchOps is never chosen here, where the portable backend is the only one.
var smallBatchOps = portable.Ops
