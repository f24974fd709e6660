//go:build amd64 && !purego

package aes128

// The AES-NI routines take whole groups of 8 source blocks, the number they keep in
// flight; the Go side runs the last partial group through a buffer on the stack.

//go:noescape
func mmoAESNIBlocks(keys []*Key, dst, src []byte)

//go:noescape
func mmoSelectAESNIBlocks(keys []*Key, dst, src, sel []byte) (bad bool)

//go:noescape
func mmoOneAESNI(keys []*Key, dst, src *byte)

const groupAESNI = 8 * BlockSize

func mmoAESNI(keys []*Key, dst, src []byte) {
	mul := len(keys)
	if mul == 0 {
		return
	}
	whole := len(src) &^ (groupAESNI - 1)
	mmoAESNIBlocks(keys, dst[:whole*mul], src[:whole])
	if whole == len(src) {
		return
	}
	var in, out [groupAESNI]byte
	copy(in[:], src[whole:])
	for j := range keys {
		mmoAESNIBlocks(keys[j:j+1], out[:], in[:])
		scatter(dst[whole*mul:], out[:len(src)-whole], mul, j)
	}
}

func mmoSelectAESNI(keys []*Key, dst, src, sel []byte) {
	h := len(keys) / 2
	whole := len(src) &^ (groupAESNI - 1)
	bad := mmoSelectAESNIBlocks(keys, dst[:whole*h], src[:whole], sel[:whole/BlockSize])
	if whole < len(src) {
		var in [groupAESNI]byte
		var s [groupAESNI / BlockSize]byte
		copy(in[:], src[whole:])
		copy(s[:], sel[whole/BlockSize:])
		for j := range h {
			var out [groupAESNI]byte
			pair := []*Key{keys[j], keys[h+j]}
			bad = mmoSelectAESNIBlocks(pair, out[:], in[:], s[:]) || bad
			scatter(dst[whole*h:], out[:len(src)-whole], h, j)
		}
	}
	checkSel(bad)
}

// scatter copies the consecutive blocks of src to every mul-th block of dst,
// starting at block j.
func scatter(dst, src []byte, mul, j int) {
	for i := 0; i*BlockSize < len(src); i++ {
		d := (i*mul + j) * BlockSize
		copy(dst[d:d+BlockSize], src[i*BlockSize:])
	}
}

// smallBatchOps runs small batches one source block per call, with no group set-up
// or padding: one DPF Eval level's block takes about 17 ns, against 30 ns through
// the standard library and more padded to a group of 8.
var smallBatchOps = ops{
	mmo: func(keys []*Key, dst, src []byte) {
		mul := len(keys) * BlockSize
		if mul == 0 {
			return
		}
		for i := 0; i*BlockSize < len(src); i++ {
			mmoOneAESNI(keys, &dst[i*mul], &src[i*BlockSize])
		}
	},
	mmoSelect: func(keys []*Key, dst, src, sel []byte) {
		h := len(keys) / 2
		for i, s := range sel {
			checkSel(s > 1)
			mmoOneAESNI(keys[int(s)*h:][:h], &dst[i*h*BlockSize], &src[i*BlockSize])
		}
	},
}
