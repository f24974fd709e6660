package aes128

import "github.com/pyfss/pyfss/gofss/internal/cpupath"

// ops are the batch operations one implementation provides.
type ops struct {
	mmo       func(keys []*Key, dst, src []byte)
	mmoSelect func(keys []*Key, dst, src []byte, sel []byte)
	feistel   func(keys *[4]*Key, vs []uint64, h uint)
}

type backend = cpupath.Impl[ops]

// Generic names the portable backend, which every CPU runs.
const Generic = "generic"

var portable = &backend{Name: Generic, Available: true, Ops: ops{mmoGeneric, mmoSelectGeneric, feistelVia(mmoGeneric)}}

// impls holds every implementation, fastest first, the portable one last.
var impls = cpupath.New("aes128", append(archBackends(), portable)...)

// Backend names the implementation in use.
func Backend() string { return impls.Name() }

// Backends lists the implementations that this CPU can run, fastest first.
func Backends() []string { return impls.Names() }

// SetBackend selects an implementation by name (for tests and benchmarks that
// compare paths) and returns the previous one's name. It is not safe to call while
// other goroutines use the package.
func SetBackend(name string) (string, error) { return impls.Set(name) }
