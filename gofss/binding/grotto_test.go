package binding

import (
	"encoding/json"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
)

const grottoParams = `{"scheme": "grotto_dcf", "in_bits": 4, "prg": "chacha"}`

// grottoKeys makes one Grotto key with the given alpha and preprocesses both
// parties' keys: the seeds, the correction words and the two preprocessed forms.
func grottoKeys(t *testing.T, h int64, alpha uint64) ([]gofss.Block, []gofss.Cw, [2][]uint64) {
	seeds := []gofss.Block{{Lo: 11, Hi: 3}, {Lo: 12, Hi: 7}}
	cws := make([]gofss.Cw, 5)
	n, err := GrottoGen(h, CPU, 0, addr(cws), addr(seeds), 0, 0, alpha, 0, 1, 0)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	var pre [2][]uint64
	for p := range 2 {
		pre[p] = make([]uint64, 1)
		_, err := GrottoPreprocess(h, CPU, 0, addr(pre[p]), p, addr(seeds[p:]), 1, addr(cws), 0, 0)
		require.NoError(t, err)
	}
	return seeds, cws, pre
}

func TestGrottoSharesReconstruct(t *testing.T) {
	h := newScheme(t, grottoParams)
	const alpha = 6
	seeds, cws, pre := grottoKeys(t, h, alpha)
	xs := make([]uint64, 16)
	for x := range xs {
		xs[x] = uint64(x)
	}
	var point, all [2][]uint8
	for p := range 2 {
		point[p], all[p] = make([]uint8, 16), make([]uint8, 16)
		_, err := GrottoEval(h, CPU, 0, addr(point[p]), addr(pre[p]), 1, addr(xs), 2, 0, 0, 16, 0)
		require.NoError(t, err)
		_, err = GrottoEvalAll(h, CPU, 0, addr(all[p]), p, addr(seeds[p:]), 1, addr(cws), 0)
		require.NoError(t, err)
	}
	for x := range 16 {
		assert.Equal(t, x >= alpha, point[0][x]^point[1][x] == 1, "x = %d", x)
	}
	assert.Equal(t, point, all)

	// Intervals [lo, 9] as lo runs over the domain, hi passed as a scalar.
	var in [2][]uint8
	for p := range 2 {
		in[p] = make([]uint8, 10)
		_, err := GrottoEvalInterval(h, CPU, 0, addr(in[p]), addr(pre[p]), 1, addr(xs), 2, 0, 0, 0, 0, 9, 0, 10, 0)
		require.NoError(t, err)
	}
	for lo := range 10 {
		assert.Equal(t, lo <= alpha, in[0][lo]^in[1][lo] == 1, "lo = %d", lo)
	}
}

func TestGrottoSchemeInfo(t *testing.T) {
	h := newScheme(t, grottoParams)
	s, err := SchemeInfo(h)
	require.NoError(t, err)
	var info map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &info))
	assert.Equal(t, 5.0, info["cw_rows"])
	assert.Equal(t, 1.0, info["parity_words"])
	assert.Nil(t, info["impl"])
	assert.Equal(t, "bytes", info["params"].(map[string]any)["group"])
}

// Grotto handles and the others are not interchangeable, and CUDA calls go to the
// launcher, which checks their arguments before any GPU is needed.
func TestGrottoEntriesRefuseOtherSchemes(t *testing.T) {
	g := newScheme(t, grottoParams)
	d := newScheme(t, `{"scheme": "dpf", "in_bits": 4, "group": "bytes", "prg": "chacha"}`)
	buf := make([]gofss.Block, 64)
	_, err := Eval(g, CPU, 0, addr(buf), 0, addr(buf), 1, addr(buf), 0, 0, 5, 0, 1, 0, 0)
	requireKind(t, err, KindValue, "grotto_dcf, which has its own operations")
	_, err = GrottoEval(d, CPU, 0, addr(buf), addr(buf), 1, 0, 0, 5, 0, 1, 0)
	requireKind(t, err, KindValue, "is dpf, not grotto_dcf")
	_, err = GrottoEval(g, 0, 0, addr(buf), addr(buf), 1, 0, 0, 5, 0, 1, 0)
	requireKind(t, err, KindValue, "x: CUDA takes inputs as a tensor")
	_, err = GrottoEval(g, 0, 0, addr(buf), addr(buf), 1, addr(buf), 3, 0, 0, 1, 0)
	requireKind(t, err, KindValue, "cuda: x_words must be 1, 2 or 4, not 3")
	_, err = GrottoEvalInterval(g, 0, 0, addr(buf), addr(buf), 1, addr(buf), 1, 0, 0, 0, 1, 0, 0, 1, 0)
	requireKind(t, err, KindValue, "cuda: his: null device address")
	_, err = GrottoPreprocess(g, 0, 0, addr(buf), 2, addr(buf), 1, addr(buf), 0, 0)
	requireKind(t, err, KindValue, "cuda: party must be 0 or 1, not 2")
	_, err = GrottoGen(g, 0, 0, addr(buf), addr(buf), 0, 0, 1, 0, 1, 0)
	requireKind(t, err, KindValue, "alphas: CUDA takes inputs as a tensor")
	_, err = GrottoEvalAll(g, 0, 0, addr(buf), 0, addr(buf), 1, addr(buf), 0)
	requireKind(t, err, KindValue, "grotto_dcf's eval_all is preprocess, then an unpacking of the bits")
	_, err = HalfTreeToReference(d, addr(buf), addr(buf), addr(buf), 1)
	requireKind(t, err, KindValue, "is dpf, not half_tree_dpf")
}

func TestGrottoErrorsNameTheArgument(t *testing.T) {
	h := newScheme(t, grottoParams)
	_, _, pre := grottoKeys(t, h, 3)
	out := make([]uint8, 4)
	_, err := GrottoEval(h, CPU, 0, addr(out), 0, 1, 0, 0, 5, 0, 1, 0)
	requireKind(t, err, KindValue, "pre: null address")
	_, err = GrottoEval(h, CPU, 0, addr(out), addr(pre[0]), 1, 0, 0, 16, 0, 1, 0)
	requireKind(t, err, KindValue, "x must be in [0, 2^4)")
	_, err = GrottoEvalInterval(h, CPU, 0, addr(out), addr(pre[0]), 1, 0, 0, 5, 0, 0, 0, 4, 0, 1, 0)
	requireKind(t, err, KindValue, "an interval needs lo <= hi")
	_, err = GrottoPreprocess(h, CPU, 0, addr(pre[0]), 2, addr(out), 0, addr(out), 0, 0)
	requireKind(t, err, KindValue, "party")
}

func TestGrottoStopFlagInterrupts(t *testing.T) {
	h := newScheme(t, grottoParams)
	seeds, cws, _ := grottoKeys(t, h, 3)
	out := make([]uint8, 16)
	var c gofss.Control
	c.Stop.Store(1)
	_, err := GrottoEvalAll(h, CPU, 0, addr(out), 0, addr(seeds), 1, addr(cws), uintptr(unsafe.Pointer(&c)))
	requireKind(t, err, KindInterrupted, "stopped")
}

// A Half-Tree key converts to the reference layout and back unchanged, one key or
// a batch; a key the reference's Gen cannot make is refused, naming it.
func TestHalfTreeReferenceRoundTrip(t *testing.T) {
	for _, bits := range []int{1, 4, 7} {
		h := newScheme(t, fmt.Sprintf(`{"scheme": "half_tree_dpf", "in_bits": %d, "group": "uint32", "prg": "chacha"}`, bits))
		rows := (bits + 2) / 2
		seeds := []gofss.Block{{Lo: 1}, {Lo: 2}, {Lo: 3}, {Lo: 4}}
		keys := make([]gofss.Cw, 2*rows)
		_, err := Gen(h, CPU, 0, addr(keys), addr(seeds), 0, 0, 1, 0, addr([]gofss.Block{{Lo: 5}, {Lo: 6}}), 2, 0)
		require.NoError(t, err)
		ref, ocw := make([]gofss.Cw, 2*bits), make([]gofss.Block, 2)
		n, err := HalfTreeToReference(h, addr(ref), addr(ocw), addr(keys), 2)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		back := make([]gofss.Cw, 2*rows)
		_, err = HalfTreeFromReference(h, addr(back), addr(ref), addr(ocw), 2)
		require.NoError(t, err)
		assert.Equal(t, keys, back, "in_bits %d", bits)
		ocw[1] = ocw[1].WithLsb(1)
		_, err = HalfTreeFromReference(h, addr(back), addr(ref), addr(ocw), 2)
		requireKind(t, err, KindValue, "key 1: ocw: the control bit must be clear")
	}
}
