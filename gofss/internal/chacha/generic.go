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

func childrenGeneric(dst, src []byte, nonce [2]uint32, cws *[2][16]byte, leaf *Leaf) {
	childrenVia(expandGeneric, dst, src, nonce, cws, leaf)
}

// childrenVia is ExpandChildren on a backend's expand: the seeds, control bits
// cleared, through expand, and the corrections (and leaf outputs) done after.
func childrenVia(expand func(dst, src []byte, nonce [2]uint32, mul int), dst, src []byte, nonce [2]uint32, cws *[2][16]byte, leaf *Leaf) {
	if len(src) == 0 {
		return // before seeds, which expand's call moves to the heap: no allocation
	}
	var seeds [16 * BlockSize]byte
	for len(src) > 0 {
		m := min(len(src), len(seeds))
		copy(seeds[:], src[:m])
		for i := 12; i < m; i += BlockSize {
			seeds[i] &^= 1
		}
		out := dst[:2*m]
		expand(out, seeds[:m], nonce, 2)
		for i := 0; i < m; i += BlockSize {
			t := -(src[i+12] & 1) // all ones where the node's control bit is set
			for c := range 2 {
				child := out[2*i+c*BlockSize:][:BlockSize]
				for b := range child {
					child[b] ^= cws[c][b] & t
				}
				if leaf != nil {
					leaf.output(child)
				}
			}
		}
		src, dst = src[m:], dst[2*m:]
	}
}

func dcfChildrenGeneric(dst, dstV, src, srcV []byte, nonce [2]uint32, l *DcfLevel) {
	dcfChildrenVia(expandGeneric, dst, dstV, src, srcV, nonce, l)
}

// dcfChildrenVia is ExpandDcfChildren on a backend's expand.
func dcfChildrenVia(expand func(dst, src []byte, nonce [2]uint32, mul int), dst, dstV, src, srcV []byte, nonce [2]uint32, l *DcfLevel) {
	if len(src) == 0 {
		return // as in childrenVia
	}
	var seeds [16 * BlockSize]byte
	var raw [4 * len(seeds)]byte
	for i := 0; i < len(src); i += len(seeds) {
		m := min(len(src)-i, len(seeds))
		copy(seeds[:], src[i:i+m])
		for b := 12; b < m; b += BlockSize {
			seeds[b] &^= 1
		}
		expand(raw[:4*m], seeds[:m], nonce, 4)
		for j := 0; j < m; j += BlockSize {
			t := src[i+j+12] & 1
			for c := range 2 {
				out := 2*(i+j) + c*BlockSize // child c of the node at src[i+j]
				child := dst[out:][:BlockSize]
				copy(child, raw[4*j+2*c*BlockSize:])
				var v [BlockSize]byte
				copy(v[:], srcV[i+j:])
				value := raw[4*j+(2*c+1)*BlockSize:][:BlockSize]
				for b := range value {
					value[b] &= l.From[b]
				}
				l.addTo(v[:], value)
				if t == 1 {
					for b := range child {
						child[b] ^= l.Cws[c][b]
					}
					l.addTo(v[:], l.Cws[2][:])
				}
				if !l.Leaf {
					copy(dstV[out:], v[:])
					continue
				}
				l.share(child, &l.Last)
				l.addTo(v[:], child)
				negate(v[:], &l.Neg)
				copy(child, v[:])
			}
		}
	}
}
