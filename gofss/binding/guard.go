package binding

import "fmt"

// guard turns a panic in the calling function into an error. Deferred first
// thing by every exported function: an unrecovered panic would abort the Python
// interpreter instead of raising an exception. It cannot catch panics in other
// goroutines; functions that fan out must recover in each of them.
func guard(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("pyfss: internal error: %v", r)
	}
}
