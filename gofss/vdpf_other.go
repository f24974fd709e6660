//go:build !amd64 || purego

package gofss

// archWalks: builds without the routines have only the portable walks.
func (v *Vdpf) archWalks(impl) walks { return nil }
