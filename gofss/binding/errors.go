package binding

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pyfss/pyfss/gofss"
)

// Error is every failure that leaves the binding. gopy turns a returned error into
// RuntimeError(message) and carries nothing else, so the message is this error as
// JSON: pyfss reads it back in one place and raises the exception its kind names.
type Error struct {
	Kind    string `json:"kind"` // one of the Kind constants
	Message string `json:"message"`
}

// The kinds of Error, and the Python exception pyfss raises for each.
const (
	KindValue       = "value"       // input the library refuses: ValueError
	KindRuntime     = "runtime"     // the device or the system failed: RuntimeError
	KindInterrupted = "interrupted" // stopped through the call's stop flag: KeyboardInterrupt
	KindInternal    = "internal"    // a bug, caught as a panic: RuntimeError
)

func (e *Error) Error() string {
	b, err := json.Marshal(e)
	if err != nil {
		return e.Message // unreachable: two strings always marshal
	}
	return string(b)
}

func valueErrorf(format string, args ...any) error {
	return &Error{Kind: KindValue, Message: fmt.Sprintf(format, args...)}
}

// classify gives an error from the library its kind.
func classify(err error) error {
	if err == nil {
		return nil // before errors.As, whose target would be allocated on every call
	}
	var be *Error
	var ae *gofss.ArgError
	switch {
	case errors.As(err, &be):
		return be
	case errors.As(err, &ae):
		return &Error{Kind: KindValue, Message: err.Error()}
	case errors.Is(err, gofss.ErrStopped):
		return &Error{Kind: KindInterrupted, Message: err.Error()}
	}
	return &Error{Kind: KindRuntime, Message: err.Error()}
}
