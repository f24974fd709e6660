// Package pathtest runs tests and benchmarks once per implementation of a package
// that has several (the PRG backends), so that every fast path and the portable one
// are checked and measured the same way.
package pathtest

import "testing"

// Each runs fn as a subtest per name, with that implementation selected by set
// (which returns the previous one's name) and the previous one restored after.
func Each(t *testing.T, names []string, set func(string) (string, error), fn func(t *testing.T)) {
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			defer selected(t, name, set)()
			fn(t)
		})
	}
}

// EachB is Each for benchmarks.
func EachB(b *testing.B, names []string, set func(string) (string, error), fn func(b *testing.B)) {
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			defer selected(b, name, set)()
			fn(b)
		})
	}
}

// selected selects name and returns the function that restores the previous one.
func selected(tb testing.TB, name string, set func(string) (string, error)) func() {
	prev, err := set(name)
	if err != nil {
		tb.Fatal(err)
	}
	return func() { set(prev) }
}
