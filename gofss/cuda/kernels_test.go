package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pyfss/pyfss/gofss"
)

func TestKernelNames(t *testing.T) {
	assert.Equal(t, "dpf_eval_chacha_uint32", kernelName(dpfParams(), "eval"))
	assert.Equal(t, "dcf_gen_aes128_mmo_uint127", kernelName(dcfAESParams(), "gen"))
	lt := gofss.DefaultParams(gofss.KindDcfLt, 8, gofss.Bytes, gofss.PrgChaCha)
	assert.Equal(t, "dcf_eval_all_chacha_bytes", kernelName(lt, "eval_all"))
	ht := gofss.DefaultParams(gofss.KindHalfTreeDpf, 8, gofss.Uint127, gofss.PrgAesMmo)
	assert.Equal(t, "half_tree_dpf_eval_aes128_mmo_uint127", kernelName(ht, "eval"))
	g := gofss.DefaultParams(gofss.KindGrottoDcf, 8, gofss.Bytes, gofss.PrgChaCha)
	assert.Equal(t, "dpf_gen_chacha_bytes", kernelName(g, "gen"), "Grotto's Gen is DPF's")
	assert.Equal(t, "grotto_leaf_bits_chacha", grottoKernel(g, "leaf_bits"))

	assert.Equal(t, 0, predArg(gofss.KindDpf))
	assert.Equal(t, 0, predArg(gofss.KindDcfLt))
	assert.Equal(t, 1, predArg(gofss.KindDcfGt))

	assert.Equal(t, "prg_bench_chacha_mul2", prgBenchKernel(dpfParams()))
	assert.Equal(t, "prg_bench_aes128_mmo_mul4", prgBenchKernel(dcfAESParams()))
}
