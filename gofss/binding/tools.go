//go:build tools

package binding

// The extension that gopy generates from this package imports gopyh; requiring
// it here pins gopy in go.mod, so the build never asks for its latest version.
import _ "github.com/go-python/gopy/gopyh"
