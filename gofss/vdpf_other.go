//go:build !amd64 || purego

package gofss

// vdpfArch is empty: without the one-key walks EvalProof always takes the batched
// portable walk.
type vdpfArch struct{}

func newVdpfArch(Prg) vdpfArch { return vdpfArch{} }

func (v *Vdpf) evalProofOneKey(dst, pieces []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) bool {
	return false
}
