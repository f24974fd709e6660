package cuda

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFatbinParse(t *testing.T) {
	_, err := parseFatbinArchs([]byte("not a fatbin at all"))
	assert.EqualError(t, err, "cuda: embedded kernels are not a fatbin")

	// A header that claims more entries than there are bytes.
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b, fatbinMagic)
	binary.LittleEndian.PutUint16(b[6:], 16)
	binary.LittleEndian.PutUint64(b[8:], 100)
	_, err = parseFatbinArchs(b)
	assert.EqualError(t, err, "cuda: embedded fatbin is truncated")

	archs, err := parseFatbinArchs(nil)
	assert.NoError(t, err)
	assert.Empty(t, archs)
}

func TestEmbeddedArchs(t *testing.T) {
	if len(fatbin) == 0 {
		t.Skip("kernels not compiled in; run python build_support/nvcc.py")
	}
	require.NoError(t, fatbinErr)
	assert.Equal(t, []string{"sm_80", "sm_90", "compute_90"}, fatbinArchs)
}
