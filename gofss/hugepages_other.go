//go:build !linux

package gofss

// adviseHugePages has no portable form; elsewhere the OS decides.
func adviseHugePages[T any]([]T) {}
