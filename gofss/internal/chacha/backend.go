package chacha

import "github.com/pyfss/pyfss/gofss/internal/cpupath"

// ops are the batch operations one implementation provides.
type ops struct {
	expand       func(dst, src []byte, nonce [2]uint32, mul int)
	expandSelect func(dst, src []byte, nonce [2]uint32, mul int, sel []byte)
	children     func(dst, src []byte, nonce [2]uint32, cws *[2][16]byte, leaf *Leaf)
	dcfChildren  func(dst, dstV, src, srcV []byte, nonce [2]uint32, l *DcfLevel)
	// walk is WalkOne's routine, without lanes where there is none. Calling a method of it
	// rather than a func value keeps a walk's arguments on the caller's stack: the
	// compiler takes whatever goes through a func value to escape.
	walk simd
}

type backend = cpupath.Impl[ops]

// Generic names the portable backend, which every CPU runs.
const Generic = "generic"

var portable = &backend{Name: Generic, Available: true, Ops: ops{expand: expandGeneric, expandSelect: expandSelectGeneric, children: childrenGeneric, dcfChildren: dcfChildrenGeneric}}

// impls holds every implementation, fastest first, the portable one last.
var impls = cpupath.New("chacha", append(archBackends(), portable)...)

// Backend names the implementation in use.
func Backend() string { return impls.Name() }

// Backends lists the implementations that this CPU can run, fastest first.
func Backends() []string { return impls.Names() }

// SetBackend selects an implementation by name (for tests and benchmarks that
// compare paths) and returns the previous one's name. It is not safe to call while
// other goroutines use the package.
func SetBackend(name string) (string, error) { return impls.Set(name) }
