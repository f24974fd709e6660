//go:build !amd64 || purego

package gofss

// Without the kernels every walk is the portable one.

const kernelsAvailable = false

func (*Dpf) fastEvalAll([]Block, int, []Block, []Cw) (tree, bool) { return tree{}, false }
func (*Dcf) fastEvalAll([]Block, int, []Block, []Cw) (tree, bool) { return tree{}, false }

func (*Dpf) fastEval([]Block, int, []Block, []Cw, []Uint128, int) (bool, error) { return false, nil }
func (*Dcf) fastEval([]Block, int, []Block, []Cw, []Uint128, int) (bool, error) { return false, nil }

// aesKernelKeys has no kernels to serve here.
type aesKernelKeys struct{}

func expandAesKeys([][16]byte) *aesKernelKeys { return nil }

func (*Dpf) fastGen([]Cw, []Block, []Uint128, []Block) bool { return false }
func (*Dcf) fastGen([]Cw, []Block, []Uint128, []Block) bool { return false }

func walkPath(string, bool) string { return "portable" }
