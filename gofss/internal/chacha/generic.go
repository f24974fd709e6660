package chacha

func expandGeneric(dst, src []byte, nonce [2]uint32, mul int) {
	for i := 0; i*BlockSize < len(src); i++ {
		rows := permute(loadSeed(src[i*BlockSize:]), nonce, mul)
		for j := range mul {
			storeRow(dst[(i*mul+j)*BlockSize:], rows[outputRow(mul, j)])
		}
	}
}

func expandSelectGeneric(dst, src []byte, nonce [2]uint32, mul int, sel []byte) {
	h := mul / 2
	for i := 0; i*BlockSize < len(src); i++ {
		rows := permute(loadSeed(src[i*BlockSize:]), nonce, mul)
		for j := range h {
			storeRow(dst[(i*h+j)*BlockSize:], rows[int(sel[i])*h+j])
		}
	}
}
