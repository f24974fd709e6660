//go:build cgo

package cuda

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda/internal/prgparams"
)

// The driver glue against testdata/fakecuda.c, a libcuda.so.1 that logs its calls: the
// test runs itself again in a child process whose dynamic loader finds the fake, once
// per way the fake may fail ("" for none).
func TestFakeDriver(t *testing.T) {
	if len(fatbin) == 0 {
		t.Skip("kernels not compiled in; run python build_support/nvcc.py")
	}
	if os.Getenv("PYFSS_FAKE_CUDA") != "" {
		fakeDriverChild(t, os.Getenv("FAKE_CUDA_FAIL"))
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

	// With PYFSS_CUDA_SYNC set, each launch is followed by a synchronization of its
	// stream, whose failure names the kernel.
	for _, mode := range []struct {
		fail string
		sync bool
	}{{"", false}, {"launch", false}, {"load", false}, {"", true}, {"sync", true}} {
		t.Run(fmt.Sprintf("fail=%s/sync=%v", mode.fail, mode.sync), func(t *testing.T) {
			fail := mode.fail
			log := filepath.Join(dir, fmt.Sprintf("log-%s-%v", fail, mode.sync))
			cmd := exec.Command(os.Args[0], "-test.run=^TestFakeDriver$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+dir, "PYFSS_FAKE_CUDA=1", "FAKE_CUDA_LOG="+log,
				"FAKE_CUDA_FAIL="+fail, fmt.Sprintf("PYFSS_CUDA_SYNC=%d", map[bool]int{false: 0, true: 1}[mode.sync]))
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			b, err := os.ReadFile(log)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			assert.Equal(t, fakeDriverLog(fail, mode.sync), lines)
			if fail == "load" {
				assert.Equal(t, count(lines, "retain "), count(lines, "release "), "primary context retains and releases")
			}
		})
	}
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

func count(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

const fakeStream uintptr = 0xabc0

// fakeDriverChild makes the calls whose log fakeDriverLog predicts.
func fakeDriverChild(t *testing.T, fail string) {
	info := GetInfo()
	require.Equal(t, Info{KernelsCompiled: true, Archs: fatbinArchs, DriverLoaded: true, Devices: 1}, info)
	p := dpfParams()
	err := Eval(0, fakeStream, p, addrA, 1, addrB, 3, addrC, addrD, 1, 5, addrE)
	switch fail {
	case "sync":
		require.EqualError(t, err,
			"cuda: device 0: cuStreamSynchronize after cw_relayout: CUDA_ERROR_INVALID_VALUE (invalid argument)")
		return
	case "launch":
		require.EqualError(t, err,
			"cuda: device 0: cuLaunchKernel(cw_relayout): CUDA_ERROR_INVALID_VALUE (invalid argument)")
		return
	case "load":
		// Each call tries to load the module again, and gives the context back.
		const want = "cuda: device 0: cuModuleLoadData: CUDA_ERROR_INVALID_VALUE (invalid argument)"
		require.EqualError(t, err, want)
		require.EqualError(t, Eval(0, fakeStream, p, addrA, 1, addrB, 3, addrC, addrD, 1, 5, addrE), want)
		return
	}
	require.NoError(t, err)
	// 100000 points need 391 blocks; the fake has 2 multiprocessors, so 64 run.
	require.NoError(t, Eval(0, 0, p, addrA, 0, addrB, 1, addrC, addrD, 1, 100000, 0))
	require.NoError(t, EvalProof(0, fakeStream, vdpfOf(p), addrA, addrF, 1, addrB, 1, addrC, addrD, 1, 5, 0))
	g := gofss.DefaultParams(gofss.KindGrottoDcf, 8, gofss.Bytes, gofss.PrgChaCha)
	require.NoError(t, Preprocess(0, fakeStream, g, addrA, 1, addrB, 1, addrC, addrE))
	require.NoError(t, MpfEval(0, fakeStream, mpfParams(gofss.KindDmpf, 9), addrA, 0, 0, 1, addrB, 1, addrC, addrD, 1,
		5, addrE))
	require.EqualError(t, Eval(1, 0, p, addrA, 0, addrB, 1, addrC, addrD, 1, 1, 0),
		"cuda: device 1 out of range: 1 CUDA devices")
}

// fakeDriverLog is the log of fakeDriverChild's calls, with the kernels' parameters
// written out as cuda/kernels.cu declares them: each at its natural alignment after
// the packed PrgParams, whose size (968 bytes) is a multiple of 8.
func fakeDriverLog(fail string, synced bool) []string {
	lines := fakeDriverCalls(fail)
	if !synced {
		return lines
	}
	// Each launch's stream, synchronized after it: "launch NAME grid X Y Z block X Y
	// Z smem N stream S ...".
	var out []string
	for _, l := range lines {
		out = append(out, l)
		if f := strings.Fields(l); f[0] == "launch" {
			out = append(out, "sync "+f[13])
		}
	}
	return out
}

// fakeDriverCalls is fakeDriverLog without synchronizations.
func fakeDriverCalls(fail string) []string {
	launch := func(kernel string, grid int, stream string, args []byte) string {
		return fmt.Sprintf("launch %s grid %d 1 1 block 256 1 1 smem 0 stream %s size %d %s",
			kernel, grid, stream, len(args), hex.EncodeToString(args))
	}
	const pad = uint32(0)
	mpf := mpfParams(gofss.KindDmpf, 9)
	// cw_relayout(dst, src, rows, k): the 3 keys' 21 rows into scratch.
	relayout := le(uint64(addrE), uint64(addrC), uint32(21), pad, uint64(3))
	// dpf_eval_chacha_uint32(pp, dst, s0s, cws_lm, xs, party, x_words, n, k, m)
	eval := func(party uint32, cwsLm uintptr, k, m uint64) []byte {
		return append(prgparams.Pack([2]uint32{1, 2}, nil, gofss.Block{}),
			le(uint64(addrA), uint64(addrB), uint64(cwsLm), uint64(addrD), party, uint32(1), uint32(20), pad, k, m)...)
	}
	loaded := []string{"retain 0", "push 0x100", "load ba55ed50", "pop"}
	switch fail {
	case "load":
		return slices.Concat(loaded, []string{"release 0"}, loaded, []string{"release 0"})
	case "launch", "sync":
		return append(loaded, "push 0x100", launch("cw_relayout", 1, "0xabc0", relayout), "pop")
	}
	return append(loaded,
		"push 0x100",
		launch("cw_relayout", 1, "0xabc0", relayout),
		launch("dpf_eval_chacha_uint32", 1, "0xabc0", eval(1, addrE, 3, 5)),
		"pop",
		"push 0x100",
		launch("dpf_eval_chacha_uint32", 64, "(nil)", eval(0, addrC, 1, 100000)),
		"pop",
		// vdpf_eval_proof_chacha_uint32_sha256(pp, hk, dst, pieces, s0s, cws, xs, party, x_words, n, k, m)
		"push 0x100",
		launch("vdpf_eval_proof_chacha_uint32_sha256", 1, "0xabc0", slices.Concat(
			prgparams.Pack([2]uint32{1, 2}, nil, gofss.Block{}), prgparams.PackHashKeys(vdpfOf(dpfParams()).Hash),
			le(uint64(addrA), uint64(addrF), uint64(addrB), uint64(addrC), uint64(addrD), uint32(1), uint32(1),
				uint32(20), pad, uint64(1), uint64(5)))),
		"pop",
		// Preprocess of one key at in_bits 8: one tree level, the leaf bits of its two
		// nodes (4 words), the one word above them in scratch, then both levels' prefixes.
		"push 0x100",
		launch("grotto_tree_chacha", 1, "0xabc0", append(prgparams.Pack(gofss.DefaultNonce, nil, gofss.Block{}),
			le(uint64(addrA), uint64(addrB), uint64(addrC), uint32(1), uint32(1), uint32(0), uint32(1), uint64(1))...)),
		launch("grotto_leaf_bits_chacha", 1, "0xabc0", append(prgparams.Pack(gofss.DefaultNonce, nil, gofss.Block{}),
			le(uint64(addrA), uint64(addrB), uint64(addrC), uint32(1), uint32(8), uint64(1), uint64(4))...)),
		launch("parity_gather", 1, "0xabc0", le(uint64(addrE), uint64(addrA), uint64(4), uint64(1))),
		launch("parity_apply", 1, "0xabc0", le(uint64(addrE), uint64(0), uint64(1), uint64(1), ^uint64(0))),
		launch("parity_apply", 1, "0xabc0", le(uint64(addrA), uint64(addrE), uint64(4), uint64(1), ^uint64(0))),
		"pop",
		// One dmpf key at 5 inputs: its schedule into scratch, then dmpf_eval(pp, dst, s0s,
		// cws, prp_keys, xs, party, x_words, n, bucket_bits, buckets, least, k, m, 1 / m).
		"push 0x100",
		launch("mpf_prp_keys", 1, "0xabc0", append(prgparams.Pack(gofss.DefaultNonce, nil, gofss.Block{}),
			le(uint64(addrE), uint64(addrC), uint32(mpf.CwRows()), uint32(9), uint64(1))...)),
		launch("dmpf_eval_chacha_uint32", 1, "0xabc0", append(prgparams.Pack(gofss.DefaultNonce, nil, gofss.Block{}),
			le(uint64(addrA), uint64(addrB), uint64(addrC), uint64(addrE), uint64(addrD), uint32(1), uint32(1),
				uint32(9), uint32(mpf.BucketBits), uint32(mpf.Buckets()), uint32(mpf.MinBuckets()), uint64(1),
				uint64(5), math.Float64bits(0.2))...)),
		"pop")
}

// le writes 32- and 64-bit fields little-endian, back to back: padding is spelled out.
func le(fields ...any) []byte {
	var b []byte
	for _, f := range fields {
		switch v := f.(type) {
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, v)
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, v)
		default:
			panic(fmt.Sprintf("le: %T", f))
		}
	}
	return b
}

// vdpfOf is p as a VDPF with the default SHA-256 keys.
func vdpfOf(p gofss.Params) gofss.Params {
	p.Kind, p.Hash = gofss.KindVdpf, gofss.DefaultVdpfHash(gofss.HashSha256)
	return p
}
