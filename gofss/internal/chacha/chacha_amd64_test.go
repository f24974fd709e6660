//go:build amd64 && !purego

package chacha

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The AVX-512 routines whose one-seed rotations are shifts come first on AMD family
// 19h (Zen 4) only; both run wherever AVX-512 does.
func TestShiftRotBackendOrder(t *testing.T) {
	_, b, c, d := cpuid(0)
	vendor := string(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, b), d), c))
	require.Len(t, vendor, 12)
	if vendor != "AuthenticAMD" {
		require.False(t, zen4(), "zen4 on %s", vendor)
	}
	names := Backends()
	vprold, shiftRot := slices.Index(names, "avx512"), slices.Index(names, ShiftRotBackend)
	if vprold < 0 {
		require.Negative(t, shiftRot, "one AVX-512 backend without the other")
		t.Skip("no AVX-512 on this CPU")
	}
	require.Equal(t, zen4(), shiftRot < vprold, "%s: %v", vendor, names)
}
