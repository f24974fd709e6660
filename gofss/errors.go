package gofss

import "fmt"

// ArgError reports caller input that the library refuses: a length, range or
// format problem. Its message names the argument.
type ArgError struct{ msg string }

func (e *ArgError) Error() string { return e.msg }

// ArgErrorf makes an *ArgError; packages that check caller input for gofss (the
// CUDA launcher) use it so that their refusals are told apart the same way.
func ArgErrorf(format string, args ...any) error {
	return &ArgError{msg: fmt.Sprintf(format, args...)}
}

// firstError is the first of errs that is not nil: the error of a call whose parts
// failed alike (each stopped part gives ErrStopped, which the call returns once).
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
