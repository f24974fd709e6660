//go:build !unix

package main

import "github.com/pyfss/pyfss/gofss"

// freshCws is the heap's memory where there is no mmap.
func freshCws(n int) ([]gofss.Cw, func()) { return make([]gofss.Cw, n), func() {} }
