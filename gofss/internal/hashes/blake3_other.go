//go:build !amd64 || purego

package hashes

import "github.com/pyfss/pyfss/gofss/internal/cpupath"

// blake3Routines is empty: other architectures compress one message at a time.
func blake3Routines() []*cpupath.Impl[blake3Ops] { return nil }
