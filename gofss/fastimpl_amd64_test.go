//go:build amd64 && !purego

package gofss

import "github.com/pyfss/pyfss/gofss/internal/simd"

// simdOnCPU: this CPU runs the routines of the fast walks.
var simdOnCPU = simd.Available
