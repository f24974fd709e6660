package binding

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
)

// TestVdpfEntries runs a key pair through Gen and the VDPF entries: the shares add
// up to beta at alpha, the proofs of both parties over the same points agree, on
// the points and on the whole domain, and a changed key's do not.
func TestVdpfEntries(t *testing.T) {
	h := newScheme(t, `{"scheme": "vdpf", "in_bits": 6, "group": "uint32", "prg": "aes128_mmo", "hash": {"name": "blake3"}}`)
	const rows = 9
	cws := make([]gofss.Cw, rows)
	seeds := []gofss.Block{{Lo: 11}, {Lo: 22}}
	beta := []gofss.Block{{Lo: 77}}
	_, err := Gen(h, CPU, 0, addr(cws), addr(seeds), 0, 0, 5, 0, addr(beta), 1, 0)
	require.NoError(t, err)
	xs := []uint32{5, 1, 63}
	var ys [2][]gofss.Block
	var pis, all [2][]gofss.Block
	for party := range 2 {
		ys[party] = make([]gofss.Block, 3)
		pieces := make([]gofss.Block, 12)
		_, err := VdpfEval(h, CPU, 0, addr(ys[party]), addr(pieces), party, addr(seeds[party:]), 1, addr(cws), addr(xs), 1, 0, 0, 3, 0, 0)
		require.NoError(t, err)
		pis[party] = make([]gofss.Block, 4)
		_, err = VdpfProve(h, addr(pis[party]), addr(pieces), 3, addr(cws), 1, 0)
		require.NoError(t, err)
		out := make([]gofss.Block, 64)
		all[party] = make([]gofss.Block, 4)
		_, err = VdpfEvalAll(h, CPU, 0, addr(out), addr(all[party]), party, addr(seeds[party:]), 1, addr(cws), 0)
		require.NoError(t, err)
		require.Equal(t, ys[party][0], out[5])
	}
	require.Equal(t, uint64(77), uint64(uint32(ys[0][0].Lo+ys[1][0].Lo)))
	require.Equal(t, uint64(0), uint64(uint32(ys[0][1].Lo+ys[1][1].Lo)))
	ok := make([]uint8, 2)
	_, err = VdpfVerify(addr(ok), addr(append(pis[0], all[0]...)), addr(append(pis[1], all[1]...)), 2)
	require.NoError(t, err)
	require.Equal(t, []uint8{1, 1}, ok)
	all[1][0].Lo ^= 1
	_, err = VdpfVerify(addr(ok), addr(append(pis[0], all[0]...)), addr(append(pis[1], all[1]...)), 2)
	require.NoError(t, err)
	require.Equal(t, []uint8{1, 0}, ok)
}

func TestVdpfEntryErrors(t *testing.T) {
	h := newScheme(t, `{"scheme": "vdpf", "in_bits": 6, "group": "uint32", "prg": "chacha"}`)
	d := newScheme(t, `{"scheme": "dpf", "in_bits": 6, "group": "uint32", "prg": "chacha"}`)
	buf := make([]gofss.Block, 64)
	_, err := VdpfProve(d, addr(buf), addr(buf), 1, addr(buf), 1, 0)
	requireKind(t, err, KindValue, "is dpf, not vdpf")
	_, err = VdpfEvalAll(h, 0, 0, addr(buf), addr(buf), 0, addr(buf), 1, addr(buf), 0)
	requireKind(t, err, KindValue, "vdpf: eval_all with proofs runs on the CPU")
	// On CUDA the inputs are a tensor, and the launcher checks the rest.
	_, err = VdpfEval(h, 0, 0, addr(buf), addr(buf), 0, addr(buf), 1, addr(buf), 0, 0, 5, 0, 2, 0, 0)
	requireKind(t, err, KindValue, "xs: CUDA takes inputs as a tensor")
	_, err = VdpfEval(h, 0, 0, addr(buf), 0, 0, addr(buf), 1, addr(buf), addr(buf), 1, 0, 0, 2, 0, 0)
	requireKind(t, err, KindValue, "cuda: pieces: null device address")
	_, err = VdpfEval(d, 0, 0, addr(buf), addr(buf), 0, addr(buf), 1, addr(buf), addr(buf), 1, 0, 0, 2, 0, 0)
	requireKind(t, err, KindValue, "is dpf, not vdpf")
	_, err = VdpfEval(h, CPU, 0, addr(buf), 0, 0, addr(buf), 1, addr(buf), addr(buf), 1, 0, 0, 2, 0, 0)
	requireKind(t, err, KindValue, "pieces: null address")
	_, err = VdpfEval(h, CPU, 0, addr(buf), addr(buf), 0, addr(buf), 1, addr(buf), addr(buf), 1, 0, 0, -1, 0, 0)
	requireKind(t, err, KindValue, "bad batch size")
	_, err = VdpfVerify(addr(buf), addr(buf), addr(buf), -1)
	requireKind(t, err, KindValue, "bad number of proofs")
	_, err = VdpfEvalAll(h, CPU, 0, addr(buf), addr(buf), 2, addr(buf), 1, addr(buf), 0)
	requireKind(t, err, KindValue, "party must be 0 or 1")
}
