// Package binding is the one package that gopy turns into the Python extension
// pyfss._gofss. It holds no algorithm: it validates sizes, wraps caller-owned
// memory into slices and calls the gofss library.
//
// gopy constrains every exported function here:
//   - parameters are int, int64, uint64, uintptr, bool or string only; tensors
//     arrive as a data address plus a length, never as Go slices;
//   - every function returns a value, because gopy runs a function without
//     results as a detached goroutine, which would outlive borrowed memory;
//   - a function that can fail returns (value, error), never a bare error, whose
//     message string gopy leaks on every call, and defers guard, because a Go
//     panic would abort the Python process.
//
// With the build tag pyfss_cpython (the extension's build sets it), cpython.go and
// cpython.c add a module of direct entries to Eval, Gen and KeyGen, which Python
// uses for its smallest calls: gopy's wrapper costs more than a one-key Eval.
package binding

import (
	"encoding/json"
	"os"
	"runtime"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda"
	"github.com/pyfss/pyfss/gofss/internal/cpupath"
	"github.com/pyfss/pyfss/gofss/internal/hashes"
	"github.com/pyfss/pyfss/gofss/internal/scatter"
)

// One processor (GOMAXPROCS 1, as Go sets it for a process allowed one CPU) slows
// calls from Python down: between calls the Python thread is in C holding Go's only
// P, which Go's monitor thread takes back each time (no P is idle, so it does not
// leave it be) and keeps waking to poll for, each wake-up preempting the caller on
// that one CPU. A second P, idle, stops the retakes; calls still spread their work
// over one goroutine. Pinned to one CPU, one-key evals with keygen's allocations
// around them: p90 52 us against 22-26 (median 12.5), the monitor's wake-ups 2,400
// against 800 over 20,000 calls. A GOMAXPROCS the user set is left as it is.
func init() {
	if os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) == 1 {
		gofss.SetMaxWorkers(1)
		runtime.GOMAXPROCS(2)
	}
}

// version is the release of the Go core compiled into the extension; it must
// equal the Python package's version, which a Python test checks.
const version = "0.1.0"

// Version returns the release of the compiled Go core.
func Version() string { return version }

// BackendEnvError is the refusal of a PYFSS_<PKG>_BACKEND environment variable that
// names a PRG backend that does not exist or that this CPU cannot run, or "": the
// Python import raises it.
func BackendEnvError() string {
	if err := cpupath.EnvError(); err != nil {
		return err.Error()
	}
	return ""
}

// BackendInfo describes the compiled core as a JSON object, so that the Python
// side can add fields without changing this function's signature: the build, the
// PRG and scatter implementations in use and available, and CUDA (kernels compiled
// in, for which architectures, driver, devices, and why CUDA cannot be used if it
// cannot).
func BackendInfo() (info string, err error) {
	defer guard(&err)
	c := cuda.GetInfo()
	b, err := json.Marshal(map[string]any{
		"version":    version,
		"go_version": runtime.Version(),
		"goos":       runtime.GOOS,
		"goarch":     runtime.GOARCH,
		"gomaxprocs": runtime.GOMAXPROCS(0),
		"workers":    gofss.Workers(),
		"prg":        gofss.PrgBackendInfo(),
		"huge_pages": gofss.HugePageMode(),
		// The appends of the multi-point schemes' full-domain evaluation.
		"scatter": map[string]any{"active": scatter.Backend(), "available": scatter.Backends()},
		// VDPF's and VDMPF's hashes.
		"hashes": hashes.BackendInfo(),
		"cuda": map[string]any{
			"kernels_compiled": c.KernelsCompiled,
			"archs":            c.Archs,
			"driver_loaded":    c.DriverLoaded,
			"devices":          c.Devices,
			"usable":           c.Reason == "",
			"reason":           c.Reason,
		},
	})
	return string(b), err
}
