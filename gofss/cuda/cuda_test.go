package cuda

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
)

// Device addresses for tests that never reach the driver: aligned, distinct, non-zero.
const (
	addrA uintptr = 0x7f0000001000 + 0x100*iota
	addrB
	addrC
	addrD
	addrE
	addrF
)

func dpfParams() gofss.Params {
	return gofss.Params{Kind: gofss.KindDpf, InBits: 20, Group: gofss.Uint32, Prg: gofss.PrgChaCha,
		Nonce: [2]uint32{1, 2}}
}

func dcfAESParams() gofss.Params {
	return gofss.Params{Kind: gofss.KindDcfGt, InBits: 64, Group: gofss.Uint127, Prg: gofss.PrgAesMmo,
		AesKeys: [][16]byte{{1}, {2}, {3}, {4}}}
}

// Without a usable driver (this is the case on machines without a GPU) every call
// that would launch says why, and GetInfo says the same. That is no fault of the
// caller's input.
func TestWithoutDevice(t *testing.T) {
	info := GetInfo()
	if info.DriverLoaded && info.Devices > 0 && info.KernelsCompiled {
		t.Skip("a CUDA device is present")
	}
	assert.NotEmpty(t, info.Reason)
	t.Logf("GetInfo: %+v", info)
	p := dpfParams()
	errs := []error{
		Gen(0, 0, p, addrA, addrB, addrC, 1, addrD, 4),
		Eval(0, 0, p, addrA, 0, addrB, 1, addrC, addrD, 1, 8, 0),
		EvalAll(0, 0, p, addrA, 0, addrB, 1, addrC, 0),
		PrgBench(0, 0, p, addrA, addrB, 10, 20),
	}
	for _, err := range errs {
		require.Error(t, err)
		assert.Contains(t, info.Reason, err.Error())
		var argErr *gofss.ArgError
		assert.False(t, errors.As(err, &argErr), "%v is not an argument error", err)
		if info.KernelsCompiled {
			assert.True(t, errors.Is(err, ErrNoDriver) || errors.Is(err, ErrNeedsCgo), err)
		}
	}
}
