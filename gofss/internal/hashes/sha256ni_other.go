//go:build !amd64 || purego

package hashes

import "github.com/pyfss/pyfss/gofss/internal/cpupath"

// sha256Routines is empty: other architectures hash through crypto/sha256.
func sha256Routines() []*cpupath.Impl[sha256Ops] { return nil }
