//go:build armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64

package gofss

// Blocks are handed to the PRG backends and to callers as their memory image, which
// is the specified little-endian byte order only on little-endian CPUs.
var _ = "gofss supports little-endian CPUs only" + 0
