package binding

import (
	"encoding/json"
	"sync"

	"github.com/pyfss/pyfss/gofss"
)

// Schemes live on the Go side behind integer handles, so that a call does not parse
// parameters or expand AES keys again: Python makes one per scheme object and frees
// it when the object goes away. A handle holds a gofss.Scheme, or a *gofss.GrottoDcf,
// which evaluates preprocessed keys and so has operations of its own; lookup and
// lookupGrotto return the one an entry needs, refusing the other by name.

var (
	schemesMu  sync.RWMutex
	schemes    = map[int64]scheme{}
	nextHandle int64
)

// scheme is what every handle's value offers: gofss.Scheme or *gofss.GrottoDcf.
type scheme interface{ Params() gofss.Params }

// Catalogue describes the parameters the library takes, as JSON: the schemes with
// their PRG outputs per seed, the groups, the PRGs with their default public
// parameters, the limits, the walk implementations and the error kinds. Python reads
// its names, defaults and limits from here rather than keeping copies.
func Catalogue() (catalogue string, err error) {
	defer guard(&err)
	c := gofss.Catalogue()
	c["impls"] = gofss.Impls()
	c["error_kinds"] = []string{KindValue, KindRuntime, KindInterrupted, KindInternal}
	b, err := json.Marshal(c)
	return string(b), err
}

// NewScheme makes the scheme that params (JSON, see gofss.ParseParams) describes and
// returns its handle. impl names the walk implementation ("" for the fastest that
// serves the parameters, else one of the catalogue's impls).
func NewScheme(params, impl string) (handle int64, err error) {
	defer guard(&err)
	p, err := gofss.ParseParams([]byte(params))
	if err != nil {
		return 0, err
	}
	var opts []gofss.Option
	if impl != "" {
		opts = append(opts, gofss.WithImpl(impl))
	}
	var s scheme
	switch p.Kind {
	case gofss.KindGrottoDcf:
		s, err = gofss.NewGrottoDcf(p, opts...)
	case gofss.KindDmpf, gofss.KindVdmpf:
		s, err = gofss.NewMpf(p, opts...)
	default:
		s, err = gofss.New(p, opts...)
	}
	if err != nil {
		return 0, err
	}
	schemesMu.Lock()
	defer schemesMu.Unlock()
	nextHandle++
	schemes[nextHandle] = s
	return nextHandle, nil
}

// SchemeInfo returns a scheme's complete parameters (defaults filled in), the
// correction-word rows of one key, and its walk implementation, as JSON:
// {"params": {...}, "cw_rows": n, "impl": "..."}. Grotto DCF has no walk
// implementation of its own to report (impl null) and adds "parity_words", the
// 64-bit words of one preprocessed key.
func SchemeInfo(handle int64) (info string, err error) {
	defer guard(&err)
	s, err := lookupAny(handle)
	if err != nil {
		return "", err
	}
	m := map[string]any{"params": s.Params(), "cw_rows": s.Params().CwRows(), "impl": nil}
	switch s := s.(type) {
	case gofss.Scheme:
		m["impl"] = s.Impl()
	case *gofss.GrottoDcf:
		m["parity_words"] = s.ParityWords()
	case *gofss.Mpf:
		m["impl"], m["buckets"], m["proof_blocks"] = s.Impl(), s.Params().Buckets(), gofss.ProofBlocks
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// FreeScheme releases a handle; freeing an unknown handle is an error.
func FreeScheme(handle int64) (n int, err error) {
	defer guard(&err)
	schemesMu.Lock()
	defer schemesMu.Unlock()
	if _, ok := schemes[handle]; !ok {
		return 0, valueErrorf("no scheme with handle %d", handle)
	}
	delete(schemes, handle)
	return 1, nil
}

func lookupAny(handle int64) (scheme, error) {
	schemesMu.RLock()
	defer schemesMu.RUnlock()
	s, ok := schemes[handle]
	if !ok {
		return nil, valueErrorf("no scheme with handle %d", handle)
	}
	return s, nil
}

// lookup returns the gofss.Scheme behind handle.
func lookup(handle int64) (gofss.Scheme, error) {
	return lookupAs[gofss.Scheme](handle, "which has its own operations (the Grotto entries)")
}

// lookupGrotto returns the Grotto DCF behind handle.
func lookupGrotto(handle int64) (*gofss.GrottoDcf, error) {
	return lookupAs[*gofss.GrottoDcf](handle, "not grotto_dcf")
}

// lookupHalfTree returns the Half-Tree DPF behind handle.
func lookupHalfTree(handle int64) (*gofss.HalfTreeDpf, error) {
	return lookupAs[*gofss.HalfTreeDpf](handle, "not half_tree_dpf")
}

// lookupAs returns the scheme behind handle as a T, or a value error that names its
// kind followed by otherwise.
func lookupAs[T any](handle int64, otherwise string) (T, error) {
	var none T
	s, err := lookupAny(handle)
	if err != nil {
		return none, err
	}
	if t, ok := s.(T); ok {
		return t, nil
	}
	return none, valueErrorf("scheme %d is %v, %s", handle, s.Params().Kind, otherwise)
}
