package gofss

// Half-Tree DPF evaluation (docs/spec.md section 11): the walk of Eval down the
// levels 0 .. n-2, one hash per node, then the last level, whose children are hashed
// one by one; and the same tree walked breadth-first for EvalAll.

// walkEval checks the keys, then walks tiles of points.
func (h *HalfTreeDpf) walkEval(st stop, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if err := h.checkCws(cws); err != nil {
		return err
	}
	evalPoints(h, st, h.params.InBits, 2, dst, party, s0s, cws, xs, m)
	return nil
}

// evalTile evaluates points j0 .. j0+len(dst)-1 of the flattened K x M batch. The
// tile's PRG inputs and outputs take the two halves of st.ch.
func (h *HalfTreeDpf) evalTile(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, j0 int, st *evalState) {
	n, w := h.params.InBits, len(dst)
	nd, t, base := st.start(w, s0s, party, j0, m, h.params.CwRows())
	in, hs := st.ch[:w], st.ch[w:2*w]
	blocks := cwBlocks(cws)
	for j := range nd {
		nd[j] = nd[j].WithLsb(t[j])
		base[j] *= 2 // the key's first block
	}
	for i := range n - 1 {
		for j, b := range nd {
			in[j] = h.hashIn(b)
		}
		h.prg.Expand(hs, in)
		for j := range nd {
			nd[j] = htChild(hs[j], nd[j], blocks[base[j]+i], xs[j0+j].Bit(n, i))
		}
	}
	for j, b := range nd {
		in[j] = h.hashIn(b.WithLsb(xs[j0+j].Bit(n, n-1)))
	}
	h.prg.Expand(hs, in)
	ar := h.params.Group.arith()
	for j := range dst {
		key := blocks[base[j]:]
		leaf := hs[j].Xor(mask(htLeafCw(key[n-1], key[n], xs[j0+j].Bit(n, n-1)), nd[j].Lsb()))
		dst[j] = dpfLeaf(ar, leaf.Clamp(), leaf.Lsb(), ar.from(key[n]), party)
	}
}

// walkEvalAll is the tree of EvalAll. Its rows of nodes hold each node with its
// control bit in s; raw holds the PRG inputs (and, for levels, outputs) of a row.
func (h *HalfTreeDpf) walkEvalAll(dst []Block, party int, s0s []Block, cws []Cw) tree {
	n, ar := h.params.InBits, h.params.Group.arith()
	return tree{
		n:      n,
		rawMul: 2,
		costNs: nodeCostNs(1),
		root: func(k int, r nodes) {
			r.s[0] = s0s[k].WithLsb(uint8(party))
		},
		level: func(k, i int, out, in nodes, raw []Block) {
			hin, hs := raw[:len(in.s)], raw[len(in.s):]
			for j, b := range in.s {
				hin[j] = h.hashIn(b)
			}
			h.prg.Expand(hs, hin)
			cw := h.keyBlocks(cws, k)[i]
			for j, b := range in.s {
				left := hs[j].Xor(mask(cw, b.Lsb()))
				out.s[2*j], out.s[2*j+1] = left, left.Xor(b)
			}
		},
		leaves: func(k, x0 int, in nodes, raw []Block) {
			for j, b := range in.s {
				raw[2*j], raw[2*j+1] = h.hashIn(b.WithLsb(0)), h.hashIn(b.WithLsb(1))
			}
			// The hashes go straight into the output and are converted in place.
			out := dst[k<<n+x0:][:2*len(in.s)]
			h.prg.Expand(out, raw)
			key := h.keyBlocks(cws, k)
			left, right := htLeafCw(key[n-1], key[n], 0), htLeafCw(key[n-1], key[n], 1)
			leafShares(h.params.Group, out, in.s, left, right, ar.from(key[n]), party)
		},
	}
}
