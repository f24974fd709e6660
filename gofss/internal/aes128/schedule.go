package aes128

// The AES-128 key schedule and S-box in portable Go, shared by every path that runs
// AES itself: the assembly here, the fused tree routines and the GPU kernels' launch
// parameters. A key is expanded once per PRG, so its speed does not matter.

// RoundKeys is the AES-128 key schedule (FIPS-197 section 5.2): the 11 round keys,
// each as the 16 bytes the cipher XORs into the state (the layout AES-NI uses).
func RoundKeys(key [16]byte) [11][16]byte {
	var rk [11][16]byte
	rk[0] = key
	rcon := byte(1)
	for r := 1; r <= 10; r++ {
		prev := rk[r-1]
		// RotWord and SubWord of the previous key's last word, then Rcon.
		t := [4]byte{sbox[prev[13]] ^ rcon, sbox[prev[14]], sbox[prev[15]], sbox[prev[12]]}
		for i := range 16 {
			rk[r][i] = prev[i] ^ t[i%4]
			t[i%4] = rk[r][i]
		}
		rcon = xtime(rcon)
	}
	return rk
}

// SBox returns the AES S-box.
func SBox() [256]byte { return sbox }

var sbox = makeSBox()

// makeSBox computes the S-box from its definition: the inverse in GF(2^8) (0 maps to
// 0) followed by the affine map of FIPS-197 section 5.1.1.
func makeSBox() [256]byte {
	var s [256]byte
	for x := range 256 {
		inv := gfInverse(byte(x))
		s[x] = inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63
	}
	return s
}

// gfInverse is x^254, the multiplicative inverse for x != 0.
func gfInverse(x byte) byte {
	r, sq := byte(1), x
	for range 7 {
		sq = gfMul(sq, sq)
		r = gfMul(r, sq)
	}
	return r
}

func gfMul(a, b byte) byte {
	var p byte
	for ; b != 0; b >>= 1 {
		if b&1 != 0 {
			p ^= a
		}
		a = xtime(a)
	}
	return p
}

func xtime(a byte) byte { return a<<1 ^ (a>>7)*0x1b }

func rotl8(b byte, n int) byte { return b<<n | b>>(8-n) }
