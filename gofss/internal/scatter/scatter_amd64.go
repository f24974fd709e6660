//go:build amd64 && !purego

package scatter

import (
	"golang.org/x/sys/cpu"

	"github.com/pyfss/pyfss/gofss/internal/cpupath"
)

//go:generate sh -c "cd _asm && go run . -out ../scatter_amd64.s -stubs ../stubs_amd64.go -pkg scatter"

// Prefetch names the amd64 routines (BMI2 for their variable shifts).
const Prefetch = "prefetch"

func archBackends() []*cpupath.Impl[ops] {
	return []*cpupath.Impl[ops]{{Name: Prefetch, Available: cpu.X86.HasBMI2, Ops: ops{appendAsm}}}
}

func appendAsm(l *Lists, xs []uint64, shares []uint64, mask uint64, shift uint) {
	if l.Hi != nil {
		appendLoHi(&xs[0], len(xs), &shares[0], mask, uint64(shift), &l.Fill[0], &l.Offs[0], &l.Lo[0], &l.Hi[0])
		return
	}
	appendLo(&xs[0], len(xs), &shares[0], mask, uint64(shift), &l.Fill[0], &l.Offs[0], &l.Lo[0])
}
