package aes128

// The portable path: the standard library's block cipher, one block at a time.

func mmoGeneric(keys []*Key, dst, src []byte) {
	mul := len(keys)
	for i := 0; i*BlockSize < len(src); i++ {
		in := src[i*BlockSize : (i+1)*BlockSize]
		for j, k := range keys {
			out := dst[(i*mul+j)*BlockSize : (i*mul+j+1)*BlockSize]
			k.cipher.Encrypt(out, in)
			xor16(out, in)
		}
	}
}

func mmoSelectGeneric(keys []*Key, dst, src []byte, sel []byte) {
	h := len(keys) / 2
	for i := 0; i*BlockSize < len(src); i++ {
		in := src[i*BlockSize : (i+1)*BlockSize]
		for j := 0; j < h; j++ {
			out := dst[(i*h+j)*BlockSize : (i*h+j+1)*BlockSize]
			keys[int(sel[i])*h+j].cipher.Encrypt(out, in)
			xor16(out, in)
		}
	}
}

func xor16(dst, src []byte) {
	for i := range 16 {
		dst[i] ^= src[i]
	}
}
