package gofss

// Dpf is a distributed point function scheme (Boyle, Gilboa, Ishai, CCS 2016) over
// inputs of InBits bits with outputs in a Group: f(x) = beta if x == alpha, else 0.
// See SPEC.md section 4.
type Dpf struct {
	inBits int
	group  Group
	prg    Prg
}

// NewDpf checks the parameters; prg must have two outputs per seed.
func NewDpf(inBits int, group Group, prg Prg) (*Dpf, error) {
	if err := checkScheme(inBits, group, prg, 2); err != nil {
		return nil, err
	}
	return &Dpf{inBits: inBits, group: group, prg: prg}, nil
}

func (d *Dpf) InBits() int  { return d.inBits }
func (d *Dpf) Group() Group { return d.group }
func (d *Dpf) Prg() Prg     { return d.prg }

// Gen makes K = len(alphas) keys. Key k uses seeds s0s[2k] (party 0) and s0s[2k+1]
// (party 1), point alphas[k] and value betas[k]; its n+1 correction words go to
// cws[k*(n+1):]. Seeds and betas may have their control bit set; Gen clears it.
func (d *Dpf) Gen(cws []Cw, s0s []Block, alphas []Uint128, betas []Block) error {
	if err := checkGenArgs(d.inBits, cws, s0s, alphas, betas); err != nil {
		return err
	}
	const tile = 128 // keys whose level state (s, t, children) stays in L1
	forChunks(len(alphas), genCostNs(d.inBits, 2), func(lo, hi int) {
		st := newGenState(tile, 2)
		for k0 := lo; k0 < hi; k0 += tile {
			k1 := min(hi, k0+tile)
			d.genTile(cws[k0*(d.inBits+1):k1*(d.inBits+1)], s0s[2*k0:2*k1], alphas[k0:k1], betas[k0:k1], st)
		}
	})
	return nil
}

func (d *Dpf) genTile(cws []Cw, s0s []Block, alphas []Uint128, betas []Block, st *genState) {
	n, m := d.inBits, len(alphas)
	s, t, ch := st.init(s0s)
	for i := range n {
		d.prg.Expand(ch, s)
		for k := range m {
			a := alphas[k].Bit(n, i)
			l0, r0, l1, r1 := ch[4*k], ch[4*k+1], ch[4*k+2], ch[4*k+3]
			sCw := l0.Xor(l1)
			if a == 0 {
				sCw = r0.Xor(r1)
			}
			sCw = sCw.Clamp()
			tlCw := l0.Lsb() ^ l1.Lsb() ^ a ^ 1
			trCw := r0.Lsb() ^ r1.Lsb() ^ a
			keep, tKeepCw := l0, tlCw
			if a == 1 {
				keep, tKeepCw = r0, trCw
			}
			s[2*k], t[2*k] = advance(keep, t[2*k], sCw, tKeepCw)
			keep = l1
			if a == 1 {
				keep = r1
			}
			s[2*k+1], t[2*k+1] = advance(keep, t[2*k+1], sCw, tKeepCw)
			cws[k*(n+1)+i] = Cw{sCw.WithLsb(tlCw), Block{Lo: uint64(trCw)}}
		}
	}
	g := d.group
	for k := range m {
		v := g.Add(g.Sub(g.Canon(betas[k]), g.Canon(s[2*k])), g.Canon(s[2*k+1]))
		if t[2*k+1] == 1 {
			v = g.Neg(v)
		}
		cws[k*(n+1)+n] = Cw{v}
	}
}

// advance follows the kept child: with parent control bit t, the child's seed is
// corrected by sCw and its control bit by tCw.
func advance(child Block, t uint8, sCw Block, tCw uint8) (Block, uint8) {
	return child.Clamp().Xor(mask(sCw, t)), child.Lsb() ^ t&tCw
}

// Eval evaluates K = len(s0s) keys of one party at M = len(xs)/K points each: key k
// at xs[k*M+j] into dst[k*M+j]. Key k's correction words are cws[k*(n+1):].
func (d *Dpf) Eval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128) error {
	if err := checkEvalArgs(d.inBits, dst, party, s0s, cws, xs); err != nil {
		return err
	}
	if err := d.checkCws(cws); err != nil {
		return err
	}
	m := 0
	if len(s0s) > 0 {
		m = len(xs) / len(s0s)
	}
	const tile = 256
	forChunks(len(xs), evalCostNs(d.inBits, 1), func(lo, hi int) {
		st := newEvalState(tile, 1)
		for j0 := lo; j0 < hi; j0 += tile {
			d.evalTile(dst[j0:min(hi, j0+tile)], party, s0s, cws, xs, m, j0, st)
		}
	})
	return nil
}

// evalTile evaluates points j0 .. j0+len(dst)-1 of the flattened K x M batch.
func (d *Dpf) evalTile(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, j0 int, st *evalState) {
	n, w := d.inBits, len(dst)
	s, t, sides, ch := st.s[:w], st.t[:w], st.sides[:w], st.ch[:w]
	for j := range w {
		s[j], t[j] = s0s[(j0+j)/m].Clamp(), uint8(party)
	}
	for i := range n {
		for j := range w {
			sides[j] = xs[j0+j].Bit(n, i)
		}
		d.prg.ExpandSide(ch, s, sides)
		for j := range w {
			cw := &cws[(j0+j)/m*(n+1)+i]
			c := ch[j].Xor(mask(dpfChildCw(cw, sides[j]), t[j]))
			s[j], t[j] = c.Clamp(), c.Lsb()
		}
	}
	for j := range w {
		dst[j] = d.leaf(s[j], t[j], &cws[(j0+j)/m*(n+1)+n], party)
	}
}

// dpfChildCw is the correction of a level's left (side 0) or right (side 1) child:
// the seed correction with that side's control-bit correction in its lsb.
func dpfChildCw(cw *Cw, side uint8) Block {
	if side == 0 {
		return cw[0]
	}
	return cw[0].WithLsb(uint8(cw[1].Lo & 1))
}

// leaf is a party's output share at a leaf: from(s) + t*v_cw, negated for party 1.
func (d *Dpf) leaf(s Block, t uint8, last *Cw, party int) Block {
	g := d.group
	y := g.Canon(s)
	if t == 1 {
		y = g.Add(y, last[0])
	}
	if party == 1 {
		y = g.Neg(y)
	}
	return y
}

// EvalAll evaluates K = len(s0s) keys of one party on the whole domain: key k at x
// into dst[k<<n + x]. It costs one PRG expansion per tree node.
func (d *Dpf) EvalAll(dst []Block, party int, s0s []Block, cws []Cw) error {
	if err := checkEvalAllArgs(d.inBits, dst, party, s0s, cws); err != nil {
		return err
	}
	if err := d.checkCws(cws); err != nil {
		return err
	}
	n := d.inBits
	tr := tree{
		n:      n,
		costNs: nodeCostNs(2),
		root: func(k int, r nodes) {
			r.s[0], r.t[0] = s0s[k].Clamp(), uint8(party)
		},
		level: func(k, i int, out, in nodes) {
			expandDpfLevel(d.prg, out, in, &cws[k*(n+1)+i])
		},
		leaves: func(k, x0 int, l nodes) {
			last := &cws[k*(n+1)+n]
			out := dst[k<<n+x0:]
			for j := range l.s {
				out[j] = d.leaf(l.s[j], l.t[j], last, party)
			}
		},
	}
	tr.run(len(s0s))
	return nil
}

// expandDpfLevel writes the corrected children of the nodes in into out, in order.
func expandDpfLevel(prg Prg, out, in nodes, cw *Cw) {
	prg.Expand(out.s, in.s)
	left, right := dpfChildCw(cw, 0), dpfChildCw(cw, 1)
	for j, t := range in.t {
		l := out.s[2*j].Xor(mask(left, t))
		r := out.s[2*j+1].Xor(mask(right, t))
		out.s[2*j], out.t[2*j] = l.Clamp(), l.Lsb()
		out.s[2*j+1], out.t[2*j+1] = r.Clamp(), r.Lsb()
	}
}

// checkCws refuses correction words that Gen cannot have made: a tr word other than
// 0 or 1, nonzero padding, or a set control bit in the output correction word.
func (d *Dpf) checkCws(cws []Cw) error {
	n := d.inBits
	for k := 0; k < len(cws); k += n + 1 {
		for i := range n {
			if !isBit(cws[k+i][1]) {
				return argErrorf("cws: key %d, row %d: words 4-7 must be (0 or 1, 0, 0, 0) in a DPF key", k/(n+1), i)
			}
		}
		if last := cws[k+n]; last[0].Lsb() != 0 || !last[1].IsZero() {
			return argErrorf("cws: key %d, last row: not a DPF output correction word (clamped block, then zeros)", k/(n+1))
		}
	}
	return nil
}
