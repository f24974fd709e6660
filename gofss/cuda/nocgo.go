//go:build !cgo

package cuda

// GetInfo reports that the driver cannot be opened without cgo.
func GetInfo() Info {
	var info Info
	_ = kernelsInfo(&info) // without cgo, the missing cgo is the reason either way
	info.Reason = ErrNeedsCgo.Error()
	return info
}

func run(int, uintptr, []launch) error { return ErrNeedsCgo }
