//go:build amd64 && !purego

package aes128

import "unsafe"

// smallBatchOps runs small batches one source block per call, with no group set-up:
// one DPF Eval level's block takes about 17 ns, against 30 ns through the standard
// library; the generated routines' per-call lane set-up measured 10-30% slower there.
var smallBatchOps = ops{
	mmo: func(keys []*Key, dst, src []byte) {
		mul := len(keys) * BlockSize
		if mul == 0 {
			return
		}
		for i := 0; i*BlockSize < len(src); i++ {
			mmoOneAESNI(encOf(keys), &dst[i*mul], &src[i*BlockSize])
		}
	},
	mmoSelect: func(keys []*Key, dst, src, sel []byte) {
		h := len(keys) / 2
		for i, s := range sel {
			checkSel(s > 1)
			mmoOneAESNI(encOf(keys[int(s)*h:][:h]), &dst[i*h*BlockSize], &src[i*BlockSize])
		}
	},
}

// encOf views keys as pointers to their round keys, which begin every Key: a
// conversion, not a copy, on this latency path.
func encOf(keys []*Key) []*[11][16]byte {
	return unsafe.Slice((**[11][16]byte)(unsafe.Pointer(unsafe.SliceData(keys))), len(keys))
}

// encOf needs a Key's round keys at its start: for any other offset the index
// below is out of range, a compile error.
var _ = [1]struct{}{}[unsafe.Offsetof(Key{}.arch)+unsafe.Offsetof(archKey{}.enc)]
