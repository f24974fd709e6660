//go:build amd64 && !purego

package scatter

import (
	"os"
	"testing"

	"github.com/pyfss/pyfss/gofss/internal/cpupath"

	"golang.org/x/sys/cpu"
)

// TestFastPathSelected: on a CPU with BMI2 the routine runs (Backend says so, as
// backend_info does), unless the environment asked for another.
func TestFastPathSelected(t *testing.T) {
	if !cpu.X86.HasBMI2 || os.Getenv(cpupath.EnvVar("scatter")) != "" {
		t.Skip("no BMI2, or another backend asked for")
	}
	if Backend() != Prefetch {
		t.Fatalf("backend %q, want %q", Backend(), Prefetch)
	}
}
