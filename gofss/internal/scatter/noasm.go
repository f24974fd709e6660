//go:build !amd64 || purego

package scatter

import "github.com/pyfss/pyfss/gofss/internal/cpupath"

func archBackends() []*cpupath.Impl[ops] { return nil }
