//go:build !amd64 || purego

package aes128

type archKey struct{}

func (*archKey) init(*[16]byte) {}

func archBackends() []*backend { return nil }

var smallBatchOps = portable.Ops
