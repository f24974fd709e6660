package chacha

import "fmt"

// backend is one implementation of the batch operations.
type backend struct {
	name         string
	available    bool
	expand       func(dst, src []byte, nonce [2]uint32, mul int)
	expandSelect func(dst, src []byte, nonce [2]uint32, mul int, sel []byte)
}

var portable = &backend{name: "generic", available: true, expand: expandGeneric, expandSelect: expandSelectGeneric}

// backends lists every implementation, fastest first; the portable one is last.
var backends = append(archBackends(), portable)

// active is the fastest backend this CPU supports, unless a test chose another.
var active = fastestAvailable()

func fastestAvailable() *backend {
	for _, b := range backends {
		if b.available {
			return b
		}
	}
	return portable
}

// Backend names the implementation in use.
func Backend() string { return active.name }

// Backends lists the implementations that this CPU can run, fastest first.
func Backends() []string {
	var names []string
	for _, b := range backends {
		if b.available {
			names = append(names, b.name)
		}
	}
	return names
}

// SetBackend selects an implementation by name (for tests and benchmarks that
// compare paths) and returns the previous one's name. It is not safe to call while
// other goroutines use the package.
func SetBackend(name string) (string, error) {
	for _, b := range backends {
		if b.name == name {
			if !b.available {
				return "", fmt.Errorf("chacha: backend %q is not supported by this CPU", name)
			}
			prev := active.name
			active = b
			return prev, nil
		}
	}
	return "", fmt.Errorf("chacha: unknown backend %q", name)
}
