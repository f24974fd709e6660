package aes128

import "encoding/binary"

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

// feistelVia is FeistelPass through a backend's MMO, a tile of values per call.
func feistelVia(mmo func(keys []*Key, dst, src []byte)) func(keys *[4]*Key, vs []uint64, h uint) {
	return func(keys *[4]*Key, vs []uint64, h uint) {
		const tile = 256
		var in, out [tile * BlockSize]byte // in's high words stay zero
		mask := uint64(1)<<h - 1
		for lo := 0; lo < len(vs); lo += tile {
			part := vs[lo:min(len(vs), lo+tile)]
			src, dst := in[:BlockSize*len(part)], out[:BlockSize*len(part)]
			for _, key := range keys {
				for j, v := range part {
					binary.LittleEndian.PutUint64(src[BlockSize*j:], v&mask)
				}
				mmo([]*Key{key}, dst, src)
				for j, v := range part {
					// MMO gives AES(R) ^ R: the R part is undone here.
					f := (binary.LittleEndian.Uint64(dst[BlockSize*j:]) ^ v) & mask
					part[j] = v&mask<<h | (v>>h ^ f)
				}
			}
		}
	}
}

func xor16(dst, src []byte) {
	for i := range 16 {
		dst[i] ^= src[i]
	}
}
