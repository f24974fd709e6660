package hashes

import "github.com/pyfss/pyfss/gofss/internal/cpupath"

// Each hash's implementations, fastest first, the one in use selectable by name
// for tests and benchmarks (cpupath: PYFSS_BLAKE3_BACKEND, PYFSS_SHA256_BACKEND):
// BLAKE3's routines for AVX-512 and for AVX2 (amd64, one description in _asm), and
// SHA-256's with the SHA extensions; else Generic.

// Generic names the portable implementations: BLAKE3's compression in Go (and
// zeebo/blake3 for the one-message hashes), crypto/sha256.
const Generic = "generic"

// blake3Ops names a BLAKE3 implementation's set of routines (package doc of _asm);
// Generic's is noBlake3Routines. The routines are called directly, not through
// func values, whose calls would move every pointer argument to the heap.
type blake3Ops struct{ set blake3Set }

// sha256Ops says whether a SHA-256 implementation compresses with the SHA
// extensions (compress, compressPair).
type sha256Ops struct{ shaNI bool }

var (
	blake3Impls = cpupath.New("blake3", append(blake3Routines(), &cpupath.Impl[blake3Ops]{Name: Generic, Available: true})...)
	sha256Impls = cpupath.New("sha256", append(sha256Routines(), &cpupath.Impl[sha256Ops]{Name: Generic, Available: true})...)
)

// registry is what the callers below use of a hash's cpupath registry, whatever
// its operations.
type registry interface {
	Name() string
	Names() []string
	Set(name string) (string, error)
}

func registryOf(kind Kind) registry {
	if kind == Blake3 {
		return blake3Impls
	}
	return sha256Impls
}

// BackendInfo names, for each hash, the implementation in use and those this CPU
// runs, fastest first.
func BackendInfo() map[string]map[string]any {
	info := map[string]map[string]any{}
	for name, kind := range map[string]Kind{"blake3": Blake3, "sha256": Sha256} {
		r := registryOf(kind)
		info[name] = map[string]any{"active": r.Name(), "available": r.Names()}
	}
	return info
}

// SetBackend selects the implementation of kind's hash by name and returns the
// previous one's name. Not safe while hashes run.
func SetBackend(kind Kind, name string) (string, error) { return registryOf(kind).Set(name) }

// Backends lists the implementations of kind's hash that this CPU runs, fastest
// first.
func Backends(kind Kind) []string { return registryOf(kind).Names() }

// ForcePortable makes every hasher take the Generic implementations until restore
// is called: for tests of the callers' results on both paths. Not safe while
// hashes run.
func ForcePortable() (restore func()) {
	b3, sha := mustSet(Blake3, Generic), mustSet(Sha256, Generic)
	return func() {
		mustSet(Blake3, b3)
		mustSet(Sha256, sha)
	}
}

// mustSet is SetBackend of a name this CPU runs: it returns the previous name.
func mustSet(kind Kind, name string) string {
	prev, err := SetBackend(kind, name)
	if err != nil {
		panic(err) // unreachable: Generic and the names in use are available
	}
	return prev
}

// haveBlake3Lanes tells whether BLAKE3 goes through routines that compress eight
// messages at once, one per 32-bit lane.
func haveBlake3Lanes() bool { return blake3Impls.Ops().set != noBlake3Routines }

// haveSHANI tells whether SHA-256 goes through the compressions with the SHA
// extensions.
func haveSHANI() bool { return sha256Impls.Ops().shaNI }

// blake3x8 hashes the blocks of len(blocks)/8 whole groups of eight into out.
func blake3x8(out [][32]byte, cv *[8]uint32, blocks [][64]byte, blen uint32) {
	g := len(blocks) / 8
	if g > 0 {
		_ = out[8*g-1]
		blake3Impls.Ops().set.x8(&out[0], cv, &blocks[0], g, blen)
	}
}

// blake3XH writes the hash of XH(as[i], ss[i])'s message bit (0 or 1) to
// out[i*stride] for every i (stride 1: the outputs one after the other; 2: every
// other 32 bytes, as XH's two halves lie), eight leaves a pass; of the last few,
// one or two one by one, more through a pass of copies (as blake3Many). Only
// where haveBlake3Lanes.
func blake3XH(out [][32]byte, stride int, cv *[8]uint32, as, ss [][16]byte, bit uint32) {
	n := len(as)
	if len(ss) != n || len(out) < (n-1)*stride+1 {
		panic("hashes: blake3XH needs a seed and an output for each input")
	}
	set := blake3Impls.Ops().set
	g := n / 8
	if g > 0 {
		set.xh(&out[0], cv, &as[0], &ss[0], g, 32*stride, bit)
	}
	i := 8 * g
	if rest := n - i; rest > 2 {
		var ta, ts [8][16]byte
		var to [8][32]byte
		copy(ta[:], as[i:])
		copy(ts[:], ss[i:])
		set.xh(&to[0], cv, &ta[0], &ts[0], 1, 32, bit)
		for j := range rest {
			out[(i+j)*stride] = to[j]
		}
		return
	}
	for ; i < n; i++ {
		var m [64]byte
		putXHMessage(&m, &as[i], &ss[i], uint64(bit))
		set.one(&out[i*stride], cv, &m, 32)
	}
}

func blake3One(out *[32]byte, cv *[8]uint32, block *[64]byte, blen uint32) {
	blake3Impls.Ops().set.one(out, cv, block, blen)
}

// blake3ChainXH folds n = len(xh0) leaves into pi (the chainXH routine): leaf i's
// piece is XH(as[i], ss[i]) ^ (cs where bit 0 of ts[i] is 1), whose first half is
// xh0[i] and, for leaf 0, second half xh1; hcv keys H', xcv XH.
func blake3ChainXH(pi *[64]byte, xh0 [][32]byte, xh1 *[32]byte, as, ss [][16]byte, ts []uint8, cs *[64]byte, hcv, xcv *[8]uint32) {
	n := len(xh0)
	if n == 0 {
		return
	}
	_, _, _ = as[n-1], ss[n-1], ts[n-1]
	blake3Impls.Ops().set.chainXH(pi, &xh0[0], xh1, &as[0], &ss[0], &ts[0], cs, n, hcv, xcv)
}

// blake3ChainLanes steps eight proof chains over the leaves of as (the chainLanes
// routine): pis and cs transposed, lane i's seeds at ss[off[i]:] and control bits
// at ts[off[i]:], len(as) of each.
func blake3ChainLanes(pis, cs *[16][8]uint32, as, ss [][16]byte, ts []uint8, off *[8]int, hcv, xcv *[8]uint32) {
	n := len(as)
	if n == 0 {
		return
	}
	var bytes [8]int
	for i, o := range off {
		if o < 0 || o+n > len(ss) || o+n > len(ts) {
			panic("hashes: a lane's seeds or control bits past the buffers")
		}
		bytes[i] = 16 * o
	}
	blake3Impls.Ops().set.chainLanes(pis, cs, &as[0], &ss[0], &bytes, &ts[0], off, n, hcv, xcv)
}

// blake3StepLanes steps eight proof chains (the stepLanes routine): pis
// transposed, lane i's n pieces at pieces[poff[i]:].
func blake3StepLanes(pis *[16][8]uint32, pieces [][64]byte, poff *[8]int, n int, hcv *[8]uint32) {
	if n == 0 {
		return
	}
	var bytes [8]int
	for i, o := range poff {
		if o < 0 || o+n > len(pieces) {
			panic("hashes: a lane's pieces past the buffer")
		}
		bytes[i] = 64 * o
	}
	blake3Impls.Ops().set.stepLanes(pis, &pieces[0], &bytes, n, hcv)
}
