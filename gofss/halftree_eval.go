package gofss

// Half-Tree DPF evaluation (docs/spec.md section 11): Eval walks down levels 0 .. n-2,
// a hash per node, then hashes the chosen child of its last node; EvalAll walks the
// same tree breadth-first and hashes both children of each node of the last level.

// walkEval checks the keys, then walks tiles of points.
func (h *HalfTreeDpf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if err := h.checkCws(cws); err != nil {
		return err
	}
	evalPoints(h, st, h.params.InBits, 2, dst, party, s0s, cws, xs, m)
	return nil
}

// evalTile evaluates points j0 .. j0+len(dst)-1 of the flattened K x M batch. The
// tile's hashes and last PRG inputs take the two halves of st.ch.
func (h *HalfTreeDpf) evalTile(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, j0 int, st *evalState) {
	n, w, hk := h.params.InBits, len(dst), h.params.HashKey
	nd, t, base := st.start(w, s0s, party, j0, m, h.params.cwRows())
	hs, in := st.ch[:w], st.ch[w:2*w]
	blocks := cwBlocks(cws)
	for j := range nd {
		nd[j] = nd[j].WithLsb(t[j]).Xor(hk)
		base[j] *= 2 // the key's first block
	}
	for i := range n - 1 {
		h.prg.Expand(hs, nd)
		for j := range nd {
			nd[j] = htChild(hs[j], nd[j], blocks[base[j]+i], hk, xs[j0+j].Bit(n, i))
		}
	}
	for j, b := range nd {
		in[j] = htLeafIn(b, hk, xs[j0+j].Bit(n, n-1))
	}
	h.prg.Expand(hs, in)
	ar := h.params.Group.arith()
	for j := range dst {
		key := blocks[base[j]:]
		leaf := hs[j].Xor(mask(htLeafCw(key[n-1], key[n], xs[j0+j].Bit(n, n-1)), htControl(nd[j], hk)))
		dst[j] = dpfLeaf(ar, leaf.Clamp(), leaf.Lsb(), ar.from(key[n]), party)
	}
}

// walkEvalAll is the tree of EvalAll. Its rows of nodes hold each keyed node (with
// its control bit) in s; raw holds a row's hashes, or the PRG inputs of the leaves.
func (h *HalfTreeDpf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	n, ar, hk := h.params.InBits, h.params.Group.arith(), h.params.HashKey
	return tree{
		n:      n,
		rawMul: 2,
		costNs: nodeCostNs(1),
		root: func(k int, r nodes) {
			r.s[0] = s0s[k].WithLsb(uint8(party)).Xor(hk)
		},
		level: func(k, i int, out, in nodes, raw []Block) {
			hs := raw[:len(in.s)]
			h.prg.Expand(hs, in.s)
			htChildren(out.s, in.s, hs, h.keyBlocks(cws, k)[i], hk)
		},
		leaves: func(k, x0 int, in nodes, raw []Block) {
			htLeafInputs(raw, in.s, hk)
			// The hashes go straight into the output and are converted in place.
			out := place(k, x0, 2*len(in.s))
			h.prg.Expand(out, raw)
			key := h.keyBlocks(cws, k)
			left, right := htLeafCw(key[n-1], key[n], 0), htLeafCw(key[n-1], key[n], 1)
			leafShares(h.params.Group, out, in.s, hk.Lsb(), left, right, ar.from(key[n]), party)
		},
	}
}

// htChildren writes to out the keyed children, left then right, of the row of keyed
// nodes in, whose hashes are hs, at a level of correction cw. (Rows go through
// functions of their own, whose loops keep cw and hk in registers.)
func htChildren(out, in, hs []Block, cw, hk Block) {
	hs, out = hs[:len(in)], out[:2*len(in)]
	// The left child is H(N) ^ fix[lsb(k)], with lsb(k) ^ lsb(HashKey) the control
	// bit t: fix holds HashKey ^ t*cw, looked up rather than masked (fewer
	// operations). The right child is the left one XOR HashKey XOR k.
	var fix [2]Block
	for b := range 2 {
		fix[b] = hk.Xor(mask(cw, uint8(b)^hk.Lsb()))
	}
	hkLo, hkHi := hk.Lo, hk.Hi
	for j, k := range in {
		f := &fix[k.Hi>>32&1]
		lLo, lHi := hs[j].Lo^f.Lo, hs[j].Hi^f.Hi
		pair := (*[2]Block)(out[2*j:])
		pair[0], pair[1] = Block{lLo, lHi}, Block{lLo ^ hkLo ^ k.Lo, lHi ^ hkHi ^ k.Hi}
	}
}

// htLeafInputs writes to raw the PRG inputs of the hashes of the children, left then
// right, of the row of keyed nodes in.
func htLeafInputs(raw, in []Block, hk Block) {
	raw = raw[:2*len(in)]
	lsbLeft := hk.Hi & lsbBit // the input's control bit: the child's side XOR HashKey's
	for j, b := range in {
		hi := b.Hi&^lsbBit | lsbLeft
		pair := (*[2]Block)(raw[2*j:])
		pair[0], pair[1] = Block{b.Lo, hi}, Block{b.Lo, hi ^ lsbBit}
	}
}
