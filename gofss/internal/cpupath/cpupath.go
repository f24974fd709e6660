// Package cpupath chooses among the implementations of one set of operations: the
// fastest that this CPU supports, unless a test or a benchmark selects another by
// name to compare paths, in code (Set) or, for a whole process, Go or Python, with
// the environment variable EnvVar(pkg).
package cpupath

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Impl is one implementation: its name, whether this CPU runs it, and its operations.
type Impl[T any] struct {
	Name      string
	Available bool
	Ops       T
}

// Registry holds a package's implementations, fastest first, and the one in use.
type Registry[T any] struct {
	pkg    string
	impls  []*Impl[T]
	active *Impl[T]
}

// EnvVar names the environment variable that selects package pkg's implementation
// when the process starts, e.g. PYFSS_AES128_BACKEND=aesni.
func EnvVar(pkg string) string { return "PYFSS_" + strings.ToUpper(pkg) + "_BACKEND" }

// envErrors are New's refusals of environment variables, reported by EnvError.
var envErrors []error

// New makes a registry of impls, fastest first; the last must be the portable one,
// which every CPU runs. The fastest available one is selected, or the one that
// EnvVar(pkg) names; if that one is unknown or this CPU cannot run it, the fastest
// stays and EnvError reports the refusal.
func New[T any](pkg string, impls ...*Impl[T]) *Registry[T] {
	r := newFastest(pkg, impls...)
	if err := r.setFromEnv(os.Getenv(EnvVar(pkg))); err != nil {
		envErrors = append(envErrors, err)
	}
	return r
}

// EnvError is the refusal of the environment variables that name implementations,
// nil if none was refused. The PRG constructors and the Python import return it, since
// a benchmark or test that asked for a path must not silently measure another; a
// panic during package initialization would instead kill a Python process outright.
func EnvError() error { return errors.Join(envErrors...) }

// setFromEnv selects the implementation that the environment variable's value names,
// if any.
func (r *Registry[T]) setFromEnv(value string) error {
	if value == "" {
		return nil
	}
	if _, err := r.Set(value); err != nil {
		return fmt.Errorf("%s=%s: %w (this CPU runs: %s)", EnvVar(r.pkg), value, err, strings.Join(r.Names(), ", "))
	}
	return nil
}

func newFastest[T any](pkg string, impls ...*Impl[T]) *Registry[T] {
	r := &Registry[T]{pkg: pkg, impls: impls}
	for _, im := range impls {
		if im.Available {
			r.active = im
			break
		}
	}
	if r.active == nil {
		panic(pkg + ": no implementation available, not even the portable one")
	}
	return r
}

// Ops returns the operations of the implementation in use.
func (r *Registry[T]) Ops() T { return r.active.Ops }

// Name names the implementation in use.
func (r *Registry[T]) Name() string { return r.active.Name }

// Names lists the implementations this CPU can run, fastest first.
func (r *Registry[T]) Names() []string {
	var names []string
	for _, im := range r.impls {
		if im.Available {
			names = append(names, im.Name)
		}
	}
	return names
}

// Set selects an implementation by name and returns the previous one's name. It is
// not safe to call while other goroutines use the package.
func (r *Registry[T]) Set(name string) (string, error) {
	for _, im := range r.impls {
		if im.Name == name {
			if !im.Available {
				return "", fmt.Errorf("%s: backend %q is not supported by this CPU", r.pkg, name)
			}
			prev := r.active.Name
			r.active = im
			return prev, nil
		}
	}
	return "", fmt.Errorf("%s: unknown backend %q", r.pkg, name)
}
