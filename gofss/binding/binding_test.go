package binding

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBackendInfo(t *testing.T) {
	s, err := BackendInfo()
	require.NoError(t, err)
	var info map[string]string
	require.NoError(t, json.Unmarshal([]byte(s), &info))
	assert.Equal(t, map[string]string{
		"version":    Version(),
		"go_version": runtime.Version(),
		"goos":       runtime.GOOS,
		"goarch":     runtime.GOARCH,
	}, info)
}
