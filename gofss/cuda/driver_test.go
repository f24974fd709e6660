//go:build cgo

package cuda

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The driver glue against testdata/fakecuda.c, a libcuda.so.1 that logs its calls: the
// test runs itself again in a child process whose dynamic loader finds the fake.
func TestFakeDriver(t *testing.T) {
	if len(fatbin) == 0 {
		t.Skip("kernels not compiled in; run python build_support/nvcc.py")
	}
	if os.Getenv("PYFSS_FAKE_CUDA") != "" {
		fakeDriverChild(t)
		return
	}
	dir := t.TempDir()
	cc := strings.Fields(goEnv(t, "CC"))
	require.NotEmpty(t, cc, "go env CC")
	// Read here and piped in, so that the test cache sees a change to the source.
	src, err := os.ReadFile(filepath.Join("testdata", "fakecuda.c"))
	require.NoError(t, err)
	build := exec.Command(cc[0], append(cc[1:], "-shared", "-fPIC", "-Wall", "-o", filepath.Join(dir, "libcuda.so.1"),
		"-x", "c", "-")...)
	build.Stdin = bytes.NewReader(src)
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			log := filepath.Join(dir, fmt.Sprintf("log-%v", fail))
			cmd := exec.Command(os.Args[0], "-test.run=^TestFakeDriver$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+dir, "PYFSS_FAKE_CUDA=1", "FAKE_CUDA_LOG="+log)
			if fail {
				cmd.Env = append(cmd.Env, "FAKE_CUDA_FAIL_LAUNCH=1")
			}
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			b, err := os.ReadFile(log)
			require.NoError(t, err)
			assert.Equal(t, fakeDriverLog(t, fail), strings.Split(strings.TrimSpace(string(b)), "\n"))
		})
	}
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

const fakeStream uintptr = 0xabc0

// fakeDriverChild makes the calls whose log fakeDriverLog predicts.
func fakeDriverChild(t *testing.T) {
	info := GetInfo()
	require.Equal(t, Info{KernelsCompiled: true, Archs: fatbinArchs, DriverLoaded: true, Devices: 1}, info)
	p := dpfParams()
	err := Eval(0, fakeStream, p, addrA, 1, addrB, addrC, 3, addrD, 1, 5, addrE)
	if os.Getenv("FAKE_CUDA_FAIL_LAUNCH") != "" {
		require.EqualError(t, err,
			"cuda: device 0: cuLaunchKernel(cw_relayout): CUDA_ERROR_INVALID_VALUE (invalid argument)")
		return
	}
	require.NoError(t, err)
	// 100000 points need 391 blocks; the fake has 2 multiprocessors, so 64 run.
	require.NoError(t, Eval(0, 0, p, addrA, 0, addrB, addrC, 1, addrD, 1, 100000, 0))
	require.EqualError(t, Eval(1, 0, p, addrA, 0, addrB, addrC, 1, addrD, 1, 1, 0),
		"cuda: device 1 out of range: 1 CUDA devices")
}

func fakeDriverLog(t *testing.T, fail bool) []string {
	launchLine := func(l launch, grid int, stream string) string {
		return fmt.Sprintf("launch %s grid %d 1 1 block 256 1 1 smem 0 stream %s size %d %s",
			l.kernel, grid, stream, len(l.args.buf), hex.EncodeToString(l.args.buf))
	}
	p := dpfParams()
	batch, err := planEval(p, addrA, 1, addrB, addrC, 3, addrD, 1, 5, addrE)
	require.NoError(t, err)
	log := []string{"push 0x100", "load ba55ed50", "pop", "push 0x100", launchLine(batch[0], 1, "0xabc0")}
	if fail {
		return append(log, "pop")
	}
	one, err := planEval(p, addrA, 0, addrB, addrC, 1, addrD, 1, 100000, 0)
	require.NoError(t, err)
	return append(log, launchLine(batch[1], 1, "0xabc0"), "pop", "push 0x100", launchLine(one[0], 64, "(nil)"), "pop")
}
