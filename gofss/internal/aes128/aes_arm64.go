//go:build !purego

package aes128

import "golang.org/x/sys/cpu"

// archKey is what the assembly reads from a Key: the AES-128 round keys, in the
// byte order AESE XORs into the state.
type archKey struct {
	enc [11][16]byte
}

func (a *archKey) init(raw *[16]byte) { a.enc = RoundKeys(*raw) }

// ARMv8 names the backend that runs the ARMv8 Cryptography Extensions' AESE and
// AESMC instructions.
const ARMv8 = "armv8-aes"

var armv8 = &backend{Name: ARMv8, Available: cpu.ARM64.HasAES, Ops: ops{mmoARMv8, mmoSelectARMv8, feistelVia(mmoARMv8)}}

func archBackends() []*backend { return []*backend{armv8} }

// The routines run whole groups of 8 source blocks, the number they keep in flight,
// and then the last blocks one at a time, so they read and write exactly the
// callers' bytes and need no set-up per call: small batches take them too.
var smallBatchOps = armv8.Ops

//go:noescape
func mmoARMv8Blocks(keys []*Key, dst, src []byte)

//go:noescape
func mmoSelectARMv8Blocks(keys []*Key, dst, src, sel []byte)

func mmoARMv8(keys []*Key, dst, src []byte) {
	if len(keys) == 0 {
		return
	}
	mmoARMv8Blocks(keys, dst, src)
}

// mmoSelectARMv8 checks sel before any block is written. The routine itself uses
// bit 0 of each sel byte only, so no value makes it read outside keys.
func mmoSelectARMv8(keys []*Key, dst, src, sel []byte) {
	for _, s := range sel {
		checkSel(s > 1)
	}
	mmoSelectARMv8Blocks(keys, dst, src, sel)
}
