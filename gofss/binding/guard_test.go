package binding

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGuardTurnsPanicIntoError(t *testing.T) {
	outOfRange := func(i int) (err error) {
		defer guard(&err)
		return errors.New("not reached" + string([]byte{}[i]))
	}
	err := outOfRange(3)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index out of range")

	err = func() (err error) {
		defer guard(&err)
		panic(nil)
	}()
	assert.Error(t, err, "panic(nil) must not pass as success")
}

func TestGuardKeepsResults(t *testing.T) {
	want := errors.New("bad input")
	got := func() (err error) {
		defer guard(&err)
		return want
	}()
	assert.Same(t, want, got)
	assert.NoError(t, func() (err error) { defer guard(&err); return nil }())
}
