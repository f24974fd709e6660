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
	aesni = &backend{Name: "aesni", Available: cpu.X86.HasAES, Ops: aesniOps}
	vaes  = &backend{
		Name: VAES,
		// x/sys/cpu reports AVX-512 only where the OS saves the zmm and mask registers.
		Available: cpu.X86.HasAES && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL &&
			cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VAES && cpu.X86.HasBMI2,
		Ops: vaes512Ops,
	}
	// vaes256 runs VAES on ymm vectors: for CPUs with VAES and AVX2 but no AVX-512.
	// x/sys/cpu reports AVX2 only where the OS saves the ymm registers.
	vaes256 = &backend{
		Name:      VAES256,
		Available: cpu.X86.HasAES && cpu.X86.HasAVX2 && hasVAES(),
		Ops:       vaes256Ops,
	}
)

// VAES256 names the VAES backend on 256-bit vectors.
const VAES256 = "vaes256"

func archBackends() []*backend { return []*backend{vaes, vaes256, aesni} }
