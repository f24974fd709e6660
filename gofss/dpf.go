package gofss

// Dpf is a distributed point function scheme (Boyle, Gilboa, Ishai, CCS 2016) over
// inputs of InBits bits with outputs in a Group: f(x) = beta if x == alpha, else 0.
// See docs/spec.md section 4. The methods below the public ones are its portable
// implementation; a faster one, where the CPU has it, is chosen when it is made.
type Dpf struct{ treeScheme }

// NewDpf makes a DPF over prg, which must have two outputs per seed (NewChaCha or
// NewAesMmo); New makes the same from Params.
func NewDpf(inBits int, group Group, prg Prg, opts ...Option) (*Dpf, error) {
	p, err := paramsFor(KindDpf, inBits, group, prg)
	if err != nil {
		return nil, err
	}
	return newDpf(p, prg, opts)
}

func newDpf(p Params, prg Prg, opts []Option) (*Dpf, error) {
	d := &Dpf{treeScheme{params: p.owned(), prg: prg}}
	if err := d.chooseWalks(opts, func(im impl) walks { return im.dpf(d) }); err != nil {
		return nil, err
	}
	return d, nil
}

// walkGen runs Gen a tile of keys at a time, spread over goroutines.
func (d *Dpf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	d.genKeys(st, cws, s0s, alphas, betas, nil)
}

// keyTail writes the rows that a scheme built on DPF's tree (VDPF) adds after DPF's
// in keys cws, from their points and leaves, the parties' clamped seeds at each
// alpha's leaf (key j's at 2j and 2j+1). (An interface, not a func: a method value
// passed down allocated on every Gen.)
type keyTail interface {
	tailRows(cws []Cw, alphas []Uint128, leaves []Block)
}

// genKeys runs DPF Gen's tree a tile of keys at a time, spread over goroutines, with
// tail, if not nil, writing each key's rows after DPF's.
func (d *Dpf) genKeys(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block, tail keyTail) {
	const tile = 128 // keys whose level state (s, t, children) stays in L1
	n, rows := d.params.InBits, d.params.cwRows()
	forChunks(len(alphas), genCostNs(n, 2), func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		gs := newGenState(sc, tile, 2)
		for k0 := lo; k0 < hi && !st.stopped(); k0 += tile {
			k1 := min(hi, k0+tile)
			d.genTile(cws[k0*rows:k1*rows], s0s[2*k0:2*k1], alphas[k0:k1], betas[k0:k1], gs, tail)
			st.advance(k1 - k0)
		}
	})
}

func (d *Dpf) genTile(cws []Cw, s0s []Block, alphas []Uint128, betas []Block, st *genState, tail keyTail) {
	n, m, rows, ar := d.params.InBits, len(alphas), d.params.cwRows(), d.params.Group.arith()
	s, t, ch := st.init(s0s)
	for i := range n {
		d.prg.Expand(ch, s)
		for k := range m {
			a := alphas[k].Bit(n, i)
			l0, r0, l1, r1 := ch[4*k], ch[4*k+1], ch[4*k+2], ch[4*k+3]
			// The "lose" side (away from alpha) gets the seed correction.
			sCw := pick(a, r0.Xor(r1), l0.Xor(l1)).Clamp()
			tlCw := l0.Lsb() ^ l1.Lsb() ^ a ^ 1
			trCw := r0.Lsb() ^ r1.Lsb() ^ a
			tKeepCw := pickBit(a, tlCw, trCw)
			s[2*k], t[2*k] = advance(pick(a, l0, r0), t[2*k], sCw, tKeepCw)
			s[2*k+1], t[2*k+1] = advance(pick(a, l1, r1), t[2*k+1], sCw, tKeepCw)
			cws[k*rows+i] = Cw{sCw.WithLsb(tlCw), Block{Lo: uint64(trCw)}}
		}
	}
	for k := range m {
		cws[k*rows+n] = Cw{dpfLastCw(ar, betas[k], s[2*k], s[2*k+1], t[2*k+1])}
	}
	if tail != nil {
		tail.tailRows(cws, alphas, s)
	}
}

// dpfLastCw is the output correction word from the parties' seeds s0, s1 at alpha's
// leaf: from(beta) - from(s0) + from(s1), negated where party 1's control bit t1 is set.
func dpfLastCw(ar *arith, beta, s0, s1 Block, t1 uint8) Block {
	v := ar.add(ar.sub(ar.from(beta), ar.from(s0)), ar.from(s1))
	if t1 == 1 {
		v = ar.neg(v)
	}
	return ar.into(v)
}

// walkEval checks the correction words, then walks tiles of points.
func (d *Dpf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if err := d.checkCws(cws); err != nil {
		return err
	}
	evalPoints(d, st, d.params.InBits, 1, dst, party, s0s, cws, xs, m)
	return nil
}

// evalTile evaluates points j0 .. j0+len(dst)-1 of the flattened K x M batch.
func (d *Dpf) evalTile(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, j0 int, st *evalState) {
	n := d.params.InBits
	s, t, base := d.descend(len(dst), party, s0s, cws, xs, m, j0, st)
	ar := d.params.Group.arith()
	for j := range dst {
		dst[j] = dpfLeaf(ar, s[j], t[j], ar.from(cws[base[j]+n][0]), party)
	}
}

// descend walks points j0 .. j0+w-1 of the flattened K x M batch down to their
// leaves, and returns their seeds and control bits there and where their keys' rows
// start.
func (d *Dpf) descend(w, party int, s0s []Block, cws []Cw, xs []Uint128, m, j0 int, st *evalState) ([]Block, []uint8, []int) {
	n := d.params.InBits
	s, t, base := st.start(w, s0s, party, j0, m, d.params.cwRows())
	sides, ch := st.sides[:len(s)], st.ch[:len(s)]
	for i := range n {
		for j := range sides {
			sides[j] = xs[j0+j].Bit(n, i)
		}
		d.prg.ExpandSide(ch, s, sides)
		for j := range ch {
			c := ch[j].Xor(mask(dpfChildCw(&cws[base[j]+i], sides[j]), t[j]))
			s[j], t[j] = c.Clamp(), c.Lsb()
		}
	}
	return s, t, base
}

// dpfLeaf is the output at a leaf with seed s and control bit t: from(s) + t*v,
// negated for party 1, where v is the output correction word's value.
func dpfLeaf(ar *arith, s Block, t uint8, v Block, party int) Block {
	y := ar.add(ar.from(s), mask(v, t))
	if party == 1 {
		y = ar.neg(y)
	}
	return ar.into(y)
}

// dpfChildCw is the correction of a level's left (side 0) or right (side 1) child:
// the seed correction with that side's control-bit correction (tl or tr) in its lsb.
func dpfChildCw(cw *Cw, side uint8) Block {
	return cw[0].WithLsb(pickBit(side, cw[0].Lsb(), uint8(cw[1].Lo)&1))
}

// walkEvalAll is the tree of EvalAll.
func (d *Dpf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	n, rows, ar := d.params.InBits, d.params.cwRows(), d.params.Group.arith()
	return tree{
		n:      n,
		shape:  rowShape{t: true},
		costNs: nodeCostNs(2),
		root: func(k int, r nodes) {
			r.s[0], r.t[0] = s0s[k].Clamp(), uint8(party)
		},
		level: func(k, i int, out, in nodes, _ []Block) {
			d.prg.Expand(out.s, in.s)
			left, right := dpfChildCws(&cws[k*rows+i])
			for j, t := range in.t {
				l, r := out.s[2*j].Xor(mask(left, t)), out.s[2*j+1].Xor(mask(right, t))
				out.s[2*j], out.t[2*j] = l.Clamp(), l.Lsb()
				out.s[2*j+1], out.t[2*j+1] = r.Clamp(), r.Lsb()
			}
		},
		leaves: func(k, x0 int, in nodes, _ []Block) {
			// The children go straight into the output and are converted in place.
			out := place(k, x0, 2*len(in.s))
			d.prg.Expand(out, in.s)
			left, right := dpfChildCws(&cws[k*rows+n-1])
			v := ar.from(cws[k*rows+n][0])
			for j, t := range in.t {
				l, r := out[2*j].Xor(mask(left, t)), out[2*j+1].Xor(mask(right, t))
				out[2*j] = dpfLeaf(ar, l.Clamp(), l.Lsb(), v, party)
				out[2*j+1] = dpfLeaf(ar, r.Clamp(), r.Lsb(), v, party)
			}
		},
	}
}

// dpfChildCws are the corrections of a level's left and right children.
func dpfChildCws(cw *Cw) (Block, Block) { return dpfChildCw(cw, 0), dpfChildCw(cw, 1) }

// checkCws refuses correction words that Gen cannot have made: a tr word other than
// 0 or 1, nonzero padding, or a set control bit in the output correction word.
func (d *Dpf) checkCws(cws []Cw) error {
	n, rows := d.params.InBits, d.params.cwRows()
	for k := 0; k < len(cws); k += rows {
		// Any bit besides tr's, in any row, shows in the OR of them all; which row
		// is looked for only then (a one-key Eval checks its 20 rows in a few ns).
		var others uint64
		key := cws[k:][:n]
		for i := range key { // by index: a range value would copy each row
			others |= key[i][1].Lo&^1 | key[i][1].Hi
		}
		if others == 0 {
			continue
		}
		for i := range n {
			if !isBit(cws[k+i][1]) {
				return ArgErrorf("cws: key %d, row %d: words 4-7 must be (0 or 1, 0, 0, 0) in a DPF key", k/rows, i)
			}
		}
	}
	return d.checkLastRows(cws)
}

// isDpfLastRow tells whether c can be a DPF key's output correction word: a clamped
// block, then zeros.
func isDpfLastRow(c *Cw) bool { return c[0].Lsb() == 0 && c[1].IsZero() }

// checkLastRows is the part of checkCws about the output correction words.
func (d *Dpf) checkLastRows(cws []Cw) error {
	n, rows := d.params.InBits, d.params.cwRows()
	for k := n; k < len(cws); k += rows {
		if !isDpfLastRow(&cws[k]) {
			return ArgErrorf("cws: key %d, last row: not a DPF output correction word (clamped block, then zeros)", k/rows)
		}
	}
	return nil
}
