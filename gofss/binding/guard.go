package binding

import "fmt"

// guard turns a panic in the calling function into an error of kind internal, and
// gives any other error its kind. Deferred first thing by every exported function
// that can fail: an unrecovered panic would abort the Python interpreter instead of
// raising an exception. It cannot catch panics in other goroutines; functions that
// fan out must recover in each of them (gofss's forChunks does).
func guard(err *error) {
	if r := recover(); r != nil {
		*err = &Error{Kind: KindInternal, Message: fmt.Sprintf("pyfss: internal error: %v", r)}
		return
	}
	*err = classify(*err)
}
