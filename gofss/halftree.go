package gofss

// HalfTreeDpf is the Half-Tree distributed point function (Guo, Yang, Wang, Zhang,
// Xie, Zhang, Liu, EUROCRYPT 2023): f(x) = beta if x == alpha, else 0, like Dpf, with
// one hash per tree node where DPF expands two PRG outputs: a node's left child is
// its hash, corrected, and its right child is the left child XOR the node itself.
// Gen and full-domain evaluation hash half as many blocks as DPF's PRG expands, and
// a key is n+1 blocks rather than n+1 correction words. See docs/spec.md section 11.
//
// Nodes carry their control bit in their lsb, which the hash reads with the rest.
// A key's blocks travel two to a Cw row (Params.CwRows), so that Scheme's methods
// carry Half-Tree keys as they carry the others.
type HalfTreeDpf struct{ treeScheme }

// NewHalfTreeDpf makes a Half-Tree DPF over prg, which must have one output per seed
// (NewChaCha or NewAesMmo), with the hash key hashKey (DefaultHashKey is the one of
// the known-answer vectors); New makes the same from Params.
func NewHalfTreeDpf(inBits int, group Group, prg Prg, hashKey Block, opts ...Option) (*HalfTreeDpf, error) {
	p, err := paramsFor(KindHalfTreeDpf, inBits, group, prg)
	if err != nil {
		return nil, err
	}
	p.HashKey = hashKey
	return newHalfTreeDpf(p, prg, opts)
}

func newHalfTreeDpf(p Params, prg Prg, opts []Option) (*HalfTreeDpf, error) {
	h := &HalfTreeDpf{treeScheme{params: p.owned(), prg: prg}}
	// Its walks are its own portable ones; they run fast through the PRG's backends,
	// which they call on many blocks at once.
	err := h.chooseWalks(opts, func(im impl) walks {
		if im.name == PortableImpl {
			return h
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// The walks keep each node N as N ^ HashKey, the PRG input of its hash
// H(N) = prg(HashKey ^ N), so that rows of nodes go to the PRG as they are; hk below
// is the hash key.

// htControl is the control bit of keyed node k: lsb(N).
func htControl(k, hk Block) uint8 { return k.Lsb() ^ hk.Lsb() }

// htChild is the keyed child on the given side of keyed node k, whose hash is hn:
// the left child H(N) ^ t*cw, t the node's control bit, the right child that XOR N.
func htChild(hn, k, cw, hk Block, side uint8) Block {
	// hn ^ mask(cw, htControl(k, hk)) ^ pick(side, hk, k), written out on the two
	// halves so that it inlines into the walks.
	t, s := -((k.Hi ^ hk.Hi) >> 32 & 1), -uint64(side)
	return Block{hn.Lo ^ cw.Lo&t ^ hk.Lo ^ (hk.Lo^k.Lo)&s, hn.Hi ^ cw.Hi&t ^ hk.Hi ^ (hk.Hi^k.Hi)&s}
}

// htLeafIn is the PRG input of the hash of the last level's child on the given side
// of keyed node k: with_lsb(N, side) ^ HashKey.
func htLeafIn(k, hk Block, side uint8) Block {
	return Block{k.Lo, k.Hi&^lsbBit | (hk.Hi^uint64(side)<<32)&lsbBit}
}

// htLeafCw is the correction of the last level's child on the given side,
// with_lsb(HCW, LCW_side): HCW and LCW0 are key block n-1, LCW1 the control bit of
// key block n (the output correction word).
func htLeafCw(hcw, ocw Block, side uint8) Block {
	return hcw.WithLsb(pickBit(side, hcw.Lsb(), ocw.Lsb()))
}

// keyBlocks returns the n+1 blocks of key k of a batch.
func (h *HalfTreeDpf) keyBlocks(cws []Cw, k int) []Block {
	rows := h.params.cwRows()
	return cwBlocks(cws[k*rows : (k+1)*rows])[:h.params.InBits+1]
}

// walkGen runs Gen a tile of keys at a time, spread over goroutines.
func (h *HalfTreeDpf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	const tile = 128
	rows := h.params.cwRows()
	forChunks(len(alphas), genCostNs(h.params.InBits, 1), func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		gs := newGenState(sc, tile, 4) // the last level hashes 4 blocks per key
		for k0 := lo; k0 < hi && !st.stopped(); k0 += tile {
			k1 := min(hi, k0+tile)
			h.genTile(cws[k0*rows:k1*rows], s0s[2*k0:2*k1], alphas[k0:k1], betas[k0:k1], gs)
			st.advance(k1 - k0)
		}
	})
}

// genTile runs Gen for a tile of keys. nd holds the parties' nodes, two per key;
// key k's blocks start at keys[k*stride].
func (h *HalfTreeDpf) genTile(cws []Cw, s0s []Block, alphas []Uint128, betas []Block, st *genState) {
	n, m := h.params.InBits, len(alphas)
	keys, stride := cwBlocks(cws), 2*h.params.cwRows()
	hk := h.params.HashKey
	nd, t, buf := st.init(s0s)
	for i := range nd {
		nd[i] = nd[i].WithLsb(t[i]).Xor(hk)
	}
	in, hs := buf[:4*m], buf[4*m:]
	for i := range n - 1 {
		h.prg.Expand(hs[:2*m], nd)
		for k := range m {
			a := alphas[k].Bit(n, i)
			p, hp := nd[2*k:2*k+2], hs[2*k:2*k+2] // the two parties'
			// Off alpha's path the parties' children must be equal, on it differ
			// by N0 ^ N1 as their parents do.
			cw := hp[0].Xor(hp[1]).Xor(mask(p[0].Xor(p[1]), a^1))
			p[0], p[1] = htChild(hp[0], p[0], cw, hk, a), htChild(hp[1], p[1], cw, hk, a)
			keys[k*stride+i] = cw
		}
	}
	// The last level hashes both children of each node: 4 blocks per key, party p's
	// child c at 4k+2p+c.
	htLeafInputs(in, nd, hk)
	h.prg.Expand(hs[:4*m], in)
	ar := h.params.Group.arith()
	for k := range m {
		a := alphas[k].Bit(n, n-1)
		c := hs[4*k : 4*k+4]
		hcw := pick(a, c[1].Xor(c[3]), c[0].Xor(c[2])).Clamp()
		lcw0 := c[0].Lsb() ^ c[2].Lsb() ^ a ^ 1
		lcw1 := c[1].Lsb() ^ c[3].Lsb() ^ a
		keep := hcw.WithLsb(pickBit(a, lcw0, lcw1)) // the correction of alpha's leaf
		leaf0 := pick(a, c[0], c[1]).Xor(mask(keep, htControl(nd[2*k], hk)))
		leaf1 := pick(a, c[2], c[3]).Xor(mask(keep, htControl(nd[2*k+1], hk)))
		key := keys[k*stride : (k+1)*stride]
		key[n-1] = hcw.WithLsb(lcw0)
		key[n] = dpfLastCw(ar, betas[k], leaf0, leaf1, leaf1.Lsb()).WithLsb(lcw1)
		if n%2 == 0 {
			key[n+1] = Block{} // the padding block
		}
	}
}

// checkCws refuses keys that Gen cannot have made: an output correction word that,
// its control bit aside, is not a group element in block form (into(v) leaves some
// words zero in the narrow groups), or a nonzero padding block.
func (h *HalfTreeDpf) checkCws(cws []Cw) error {
	n, g, rows := h.params.InBits, h.params.Group, h.params.cwRows()
	for k := range len(cws) / rows {
		if ocw := h.keyBlocks(cws, k)[n].Clamp(); g.Canon(ocw) != ocw {
			return ArgErrorf("cws: key %d, block %d: not a Half-Tree output correction word (a %s element in block form and a control bit)", k, n, g)
		}
		if n%2 == 0 && !cws[(k+1)*rows-1][1].IsZero() {
			return ArgErrorf("cws: key %d, last row: words 4-7 must be zero padding in a Half-Tree key of even in_bits", k)
		}
	}
	return nil
}
