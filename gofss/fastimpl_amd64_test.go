//go:build amd64 && !purego

package gofss

import "github.com/pyfss/pyfss/gofss/internal/kernels"

// kernelsOnCPU: this CPU runs the kernels of the fast walks.
var kernelsOnCPU = kernels.Available
