package binding

import (
	"encoding/json"
	"os"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda"
	"github.com/pyfss/pyfss/gofss/internal/cpupath"
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
	for prg, pkg := range map[string]string{"aes128_mmo": "aes128", "chacha": "chacha"} {
		require.Contains(t, info.Prg, prg)
		avail, _ := info.Prg[prg]["available"].([]any)
		require.NotEmpty(t, avail)
		want := avail[0]
		if forced := os.Getenv(cpupath.EnvVar(pkg)); forced != "" {
			want = forced
		}
		assert.Equal(t, want, info.Prg[prg]["active"], "the fastest available path is active, unless the environment names one")
	}
	c := cuda.GetInfo()
	assert.Equal(t, c.Reason == "", info.Cuda["usable"])
	assert.Equal(t, c.Reason, info.Cuda["reason"])
	assert.Equal(t, c.KernelsCompiled, info.Cuda["kernels_compiled"])
}

// newScheme makes a scheme through the binding, freed at the end of the test.
func newScheme(t *testing.T, params string) int64 {
	h, err := NewScheme(params, "")
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = FreeScheme(h) })
	return h
}

// requireKind checks that err is the binding's JSON error of the given kind and
// that its message contains msg.
func requireKind(t *testing.T, err error, kind, msg string) {
	t.Helper()
	require.Error(t, err)
	var e Error
	require.NoError(t, json.Unmarshal([]byte(err.Error()), &e), "the message is the error as JSON: %s", err)
	assert.Equal(t, kind, e.Kind, e.Message)
	assert.Contains(t, e.Message, msg)
}

func TestCudaCallsFailClearlyWithoutAGPU(t *testing.T) {
	if cuda.GetInfo().Reason == "" {
		t.Skip("a usable GPU is present")
	}
	h := newScheme(t, `{"scheme": "dpf", "in_bits": 8, "group": "uint32", "prg": "chacha"}`)
	_, err := Eval(h, 0, 0, 0x1000, 0, 0x1000, 1, 0x1000, 0x1000, 1, 0, 0, 1, 0, 0)
	requireKind(t, err, KindRuntime, "cuda")
	_, err = Eval(h+1000, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0)
	requireKind(t, err, KindValue, "no scheme with handle")
	g := newScheme(t, `{"scheme": "grotto_dcf", "in_bits": 8, "group": "bytes", "prg": "chacha"}`)
	_, err = GrottoPreprocess(g, 0, 0, 0x1000, 0, 0x1000, 1, 0x1000, 0x1000, 0)
	requireKind(t, err, KindRuntime, "cuda")
	n, err := ScratchBytes(g, 0, "preprocess", 1, 0)
	require.NoError(t, err)
	assert.Equal(t, 8, n, "in_bits 8: the one word above a key's 4")
}

func TestSchemeErrorsAreValueErrors(t *testing.T) {
	for _, c := range []struct{ params, msg string }{
		{`{"scheme": "dpf", "in_bits": 8, "group": "int", "prg": "chacha"}`, "group must be one of"},
		{`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "aes"}`, "prg must be one of"},
		{`{"scheme": "dcf_le", "in_bits": 8, "group": "bytes", "prg": "chacha"}`, "scheme must be one of"},
		{`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "aes128_mmo", "aes_keys": ["00"]}`, "aes_keys must be 16-byte keys"},
		{`{"scheme": "dpf", "in_bits": 0, "group": "bytes", "prg": "chacha"}`, "in_bits must be between 1 and 128"},
		{`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "nonce": [4294967296, 0]}`, "nonce words must fit in 32 bits"},
		{`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "aes128_mmo", "nonce": [1, 2]}`, "nonce is a parameter of chacha"},
		{`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha", "aes_keys": []}`, "aes_keys are a parameter of aes128_mmo"},
		{`[1, 2]`, "params:"},
	} {
		_, err := NewScheme(c.params, "")
		requireKind(t, err, KindValue, c.msg)
	}
	_, err := NewScheme(`{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha"}`, "no-such-impl")
	requireKind(t, err, KindValue, "impl must be one of")
}

func TestSchemeInfoCompletesTheParameters(t *testing.T) {
	h := newScheme(t, `{"scheme": "dcf_gt", "in_bits": 9, "group": "uint64", "prg": "aes128_mmo"}`)
	s, err := SchemeInfo(h)
	require.NoError(t, err)
	var info struct {
		Params map[string]any `json:"params"`
		Impl   string         `json:"impl"`
	}
	require.NoError(t, json.Unmarshal([]byte(s), &info))
	assert.Equal(t, map[string]any{
		"scheme": "dcf_gt", "in_bits": 9.0, "group": "uint64", "prg": "aes128_mmo", "nonce": nil,
		"aes_keys": []any{
			"0102030405060708090a0b0c0d0e0f10", "100f0e0d0c0b0a090807060504030201",
			"01010202030304040505060607070808", "08080707060605050404030302020101",
		},
	}, info.Params)
	assert.Contains(t, gofss.Impls(), info.Impl)
}

// A bytes-group beta with its control bit set is refused: Gen would clear the bit
// and the function would output another value than the one asked for.
func TestGenRefusesReservedBitOfBytesBeta(t *testing.T) {
	h := newScheme(t, `{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha"}`)
	cws := make([]gofss.Cw, 2*9)
	seeds := []gofss.Block{{Lo: 1}, {Lo: 2}, {Lo: 3}, {Lo: 4}}
	betas := []gofss.Block{{Lo: 5}, {Lo: 6, Hi: 1 << 32}}
	_, err := Gen(h, CPU, 0, addr(cws), addr(seeds), 0, 0, 7, 0, addr(betas), 2, 0)
	requireKind(t, err, KindValue, "beta: key 1: bit 0 of word 3 is reserved")
	betas[1].Hi = 0
	n, err := Gen(h, CPU, 0, addr(cws), addr(seeds), 0, 0, 7, 0, addr(betas), 2, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
}

// A control block counts a call's items; its stop flag, set before the call, ends it
// at once with kind interrupted.
func TestStopFlagInterrupts(t *testing.T) {
	h := newScheme(t, `{"scheme": "dpf", "in_bits": 12, "group": "uint64", "prg": "aes128_mmo"}`)
	seeds := []gofss.Block{{Lo: 1}, {Lo: 2}}
	cws := make([]gofss.Cw, 13)
	_, err := Gen(h, CPU, 0, addr(cws), addr(seeds), 0, 0, 77, 0, addr([]gofss.Block{{Lo: 9}}), 1, 0)
	require.NoError(t, err)
	out := make([]gofss.Block, 1<<12)
	// The block as a caller in another language lays it out: int32 stop, padding,
	// int64 done.
	block := []int64{0, 0}
	stop, done := (*int32)(unsafe.Pointer(&block[0])), &block[1]
	n, err := EvalAll(h, CPU, 0, addr(out), 0, addr(seeds), 1, addr(cws), 0, 1<<12, 0, addr(block))
	require.NoError(t, err)
	assert.Equal(t, 1<<12, n)
	assert.EqualValues(t, 1<<12, *done, "outputs counted")
	*stop = 1
	_, err = EvalAll(h, CPU, 0, addr(out), 0, addr(seeds), 1, addr(cws), 0, 1<<12, 0, addr(block))
	requireKind(t, err, KindInterrupted, "stopped")
	_, err = Eval(h, CPU, 0, addr(out), 0, addr(seeds), 1, addr(cws), 0, 0, 5, 0, 1000, 0, addr(block))
	requireKind(t, err, KindInterrupted, "stopped")
}

// Arguments that address no usable memory are refused, naming the argument.
func TestAddressErrorsNameTheArgument(t *testing.T) {
	h := newScheme(t, `{"scheme": "dpf", "in_bits": 8, "group": "bytes", "prg": "chacha"}`)
	buf := make([]gofss.Block, 64)
	_, err := Eval(h, CPU, 0, addr(buf)+4, 0, addr(buf), 1, addr(buf), 0, 0, 5, 0, 1, 0, 0)
	requireKind(t, err, KindValue, "out: address")
	_, err = Eval(h, CPU, 0, addr(buf), 0, 0, 1, addr(buf), 0, 0, 5, 0, 1, 0, 0)
	requireKind(t, err, KindValue, "s0s: null address")
}

func TestCatalogue(t *testing.T) {
	s, err := Catalogue()
	require.NoError(t, err)
	var c map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &c))
	for _, k := range []string{"schemes", "groups", "prgs", "limits", "impls", "error_kinds"} {
		assert.Contains(t, c, k)
	}
	assert.Equal(t, float64(gofss.MaxEvalAllBits), c["limits"].(map[string]any)["max_eval_all_bits"])
}

func addr[T any](s []T) uintptr { return uintptr(unsafe.Pointer(&s[0])) }

// EvalAll over a range writes the slice of the whole domain's outputs; a bad range,
// or a range on CUDA, is refused with kind value before any memory is read.
func TestEvalAllRange(t *testing.T) {
	h := newScheme(t, `{"scheme": "dcf_gt", "in_bits": 10, "group": "uint32", "prg": "chacha"}`)
	seeds := []gofss.Block{{Lo: 1}, {Lo: 2}, {Lo: 3}, {Lo: 4}}
	cws := make([]gofss.Cw, 22)
	_, err := Gen(h, CPU, 0, addr(cws), addr(seeds), 0, 0, 300, 0, addr([]gofss.Block{{Lo: 9}, {Lo: 8}}), 2, 0)
	require.NoError(t, err)
	ps := []gofss.Block{seeds[1], seeds[3]}
	full := make([]gofss.Block, 2<<10)
	_, err = EvalAll(h, CPU, 0, addr(full), 1, addr(ps), 2, addr(cws), 0, 1<<10, 0, 0)
	require.NoError(t, err)
	part := make([]gofss.Block, 2*500)
	n, err := EvalAll(h, CPU, 0, addr(part), 1, addr(ps), 2, addr(cws), 33, 533, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 1000, n)
	assert.Equal(t, full[33:533], part[:500])
	assert.Equal(t, full[1024+33:1024+533], part[500:])

	n, err = EvalAll(h, CPU, 0, 0, 1, addr(ps), 2, addr(cws), 7, 7, 0, 0)
	require.NoError(t, err, "an empty range needs no memory")
	assert.Equal(t, 0, n)
	_, err = EvalAll(h, CPU, 0, addr(part), 1, addr(ps), 2, addr(cws), 8, 7, 0, 0)
	requireKind(t, err, KindValue, "start and stop must have 0 <= start <= stop <= 2**10, not start 8, stop 7")
	_, err = EvalAll(h, CPU, 0, addr(part), 1, addr(ps), 2, addr(cws), 0, 1<<10+1, 0, 0)
	requireKind(t, err, KindValue, "stop 1025")
	_, err = EvalAll(h, 0, 0, addr(part), 1, addr(ps), 2, addr(cws), 0, 5, 0, 0)
	requireKind(t, err, KindValue, "cuda: eval_all evaluates the whole domain only")
}
