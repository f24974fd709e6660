package binding

import (
	"encoding/json"
	"sync"

	"github.com/pyfss/pyfss/gofss"
)

// Schemes live on the Go side behind integer handles, so that a call does not parse
// parameters or expand AES keys again: Python makes one per scheme object and frees
// it when the object goes away.

var (
	schemesMu  sync.RWMutex
	schemes    = map[int64]gofss.Scheme{}
	nextHandle int64
)

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
	s, err := gofss.New(p, opts...)
	if err != nil {
		return 0, err
	}
	schemesMu.Lock()
	defer schemesMu.Unlock()
	nextHandle++
	schemes[nextHandle] = s
	return nextHandle, nil
}

// SchemeInfo returns a scheme's complete parameters (defaults filled in) and its
// walk implementation, as JSON: {"params": {...}, "impl": "..."}.
func SchemeInfo(handle int64) (info string, err error) {
	defer guard(&err)
	s, err := lookup(handle)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{"params": s.Params(), "impl": s.Impl()})
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

func lookup(handle int64) (gofss.Scheme, error) {
	schemesMu.RLock()
	defer schemesMu.RUnlock()
	s, ok := schemes[handle]
	if !ok {
		return nil, valueErrorf("no scheme with handle %d", handle)
	}
	return s, nil
}
