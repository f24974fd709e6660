package binding

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/cuda"
)

func TestBackendInfo(t *testing.T) {
	s, err := BackendInfo()
	require.NoError(t, err)
	var info struct {
		Version   string                    `json:"version"`
		GoVersion string                    `json:"go_version"`
		Goos      string                    `json:"goos"`
		Prg       map[string]map[string]any `json:"prg"`
		Cuda      map[string]any            `json:"cuda"`
	}
	require.NoError(t, json.Unmarshal([]byte(s), &info))
	assert.Equal(t, Version(), info.Version)
	assert.Equal(t, runtime.Version(), info.GoVersion)
	assert.Equal(t, runtime.GOOS, info.Goos)
	for _, prg := range []string{"aes128_mmo", "chacha"} {
		require.Contains(t, info.Prg, prg)
		avail, _ := info.Prg[prg]["available"].([]any)
		require.NotEmpty(t, avail)
		assert.Equal(t, avail[0], info.Prg[prg]["active"], "the fastest available path is active")
	}
	c := cuda.GetInfo()
	assert.Equal(t, c.Reason == "", info.Cuda["usable"])
	assert.Equal(t, c.Reason, info.Cuda["reason"])
	assert.Equal(t, c.KernelsCompiled, info.Cuda["kernels_compiled"])
}

func TestCudaCallsFailClearlyWithoutAGPU(t *testing.T) {
	if cuda.GetInfo().Reason == "" {
		t.Skip("a usable GPU is present")
	}
	h, err := NewScheme("dpf", 8, "uint32", "chacha", 1, 2, "")
	require.NoError(t, err)
	defer FreeScheme(h)
	_, err = CudaEval(h, 0, 0, 0x1000, 0, 0x1000, 1, 0x1000, 0x1000, 1, 1, 0)
	require.Error(t, err)
	_, err = CudaEval(h+1000, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0)
	require.ErrorContains(t, err, "no scheme with handle")
}

func TestSchemeErrorsAreMarkedAsValueErrors(t *testing.T) {
	for _, c := range []struct{ kind, group, prg, keys string }{
		{"dpf", "int", "chacha", ""},
		{"dpf", "bytes", "aes", ""},
		{"dcf_le", "bytes", "chacha", ""},
		{"dpf", "bytes", "aes128_mmo", "00"},
	} {
		_, err := NewScheme(c.kind, 8, c.group, c.prg, 0, 0, c.keys)
		require.ErrorContains(t, err, "ValueError: ", "%+v", c)
	}
	_, err := NewScheme("dpf", 0, "bytes", "chacha", 0, 0, "")
	require.ErrorContains(t, err, "ValueError: in_bits must be between 1 and 128")
	_, err = NewScheme("dpf", 8, "bytes", "chacha", 1<<32, 0, "")
	require.ErrorContains(t, err, "ValueError: nonce")
}
