//go:build amd64 && !purego

package aes128

import "golang.org/x/sys/cpu"

// archKey is what the assembly reads from a Key: the AES-128 round keys.
type archKey struct {
	enc [11][16]byte
}

func (a *archKey) init(raw *[16]byte) { a.enc = RoundKeys(*raw) }

// VAES names the VAES backend: the one whose selection also lets other packages'
// routines run the same AES instructions themselves.
const VAES = "vaes-avx512"

var (
	aesni = &backend{Name: "aesni", Available: cpu.X86.HasAES, Ops: ops{mmoAESNI, mmoSelectAESNI}}
	vaes  = &backend{
		Name: VAES,
		// x/sys/cpu reports AVX-512 only where the OS saves the zmm and mask registers.
		Available: cpu.X86.HasAES && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL &&
			cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VAES && cpu.X86.HasBMI2,
		Ops: ops{mmoVAES, mmoSelectVAES},
	}
)

func archBackends() []*backend { return []*backend{vaes, aesni} }
