package binding

import (
	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/cuda"
)

// gpuParams gives the CUDA launcher its form of the parameters.
func gpuParams(p gofss.Params) cuda.Params {
	c := cuda.Params{InBits: p.InBits, Group: int(p.Group), Nonce: p.Nonce}
	switch p.Kind {
	case gofss.KindDpf:
		c.Scheme = cuda.SchemeDpf
	case gofss.KindDcfLt:
		c.Scheme = cuda.SchemeDcfLt
	case gofss.KindDcfGt:
		c.Scheme = cuda.SchemeDcfGt
	}
	if p.Prg == gofss.PrgAesMmo {
		c.Prg, c.AesKeys = cuda.PrgAES128MMO, p.AesKeys
	}
	return c
}
