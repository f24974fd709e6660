//go:build tools

// Package tools pins the code generators that the Python build runs. It lives in
// its own module so that their dependencies never enter the library's go.mod.
package tools

import (
	_ "github.com/go-python/gopy"
	_ "golang.org/x/tools/cmd/goimports"
)
