package feistel

import "golang.org/x/sys/cpu"

//go:generate sh -c "cd _asm && go run . -out ../invert_amd64.s -stubs ../invert_stub_amd64.go -pkg feistel"

// haveAVX2 tells whether the CPU runs invertPassesAVX2; the tests turn it off.
var haveAVX2 = cpu.X86.HasAVX2

// invertPassesSIMD runs InvertPasses over the whole groups of eight values at the
// start of vs where the routine applies (2h <= 32) and returns how many it did.
func invertPassesSIMD(vs []uint64, h uint, f *[4][]uint32) int {
	groups := len(vs) / 8
	if !haveAVX2 || 2*h > 32 || groups == 0 {
		return 0
	}
	tabs := [4]*uint32{&f[0][0], &f[1][0], &f[2][0], &f[3][0]}
	invertPassesAVX2(&vs[0], groups, uint64(h), &tabs)
	return 8 * groups
}
