//go:build amd64 && !purego

package aes128

// mmoOneAESNI is the one routine written by hand: one source block under every key,
// the latency path of single-key walks, with no lane set-up before its rounds.
//
//go:noescape
func mmoOneAESNI(keys []*Key, dst, src *byte)

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
