package binding

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
)

func TestGuardTurnsPanicIntoError(t *testing.T) {
	outOfRange := func(i int) (err error) {
		defer guard(&err)
		return errors.New("not reached" + string([]byte{}[i]))
	}
	err := outOfRange(3)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, KindInternal, e.Kind)
	assert.Contains(t, e.Message, "index out of range")

	err = func() (err error) {
		defer guard(&err)
		panic(nil)
	}()
	assert.Error(t, err, "panic(nil) must not pass as success")
}

// guard gives every error its kind: the library's argument errors are value
// errors, panics internal ones, others runtime errors; nil stays nil.
func TestGuardClassifies(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind string
	}{
		{gofss.ArgErrorf("bad input"), KindValue},
		{fmt.Errorf("wrapped: %w", gofss.ArgErrorf("bad input")), KindValue},
		{gofss.ErrStopped, KindInterrupted},
		{errors.New("device lost"), KindRuntime},
		{valueErrorf("no such handle"), KindValue},
	} {
		got := func() (err error) {
			defer guard(&err)
			return c.err
		}()
		var e *Error
		require.ErrorAs(t, got, &e)
		assert.Equal(t, c.kind, e.Kind, "%v", c.err)
		assert.Contains(t, c.err.Error(), e.Message)
	}
	assert.NoError(t, func() (err error) { defer guard(&err); return nil }())
}
