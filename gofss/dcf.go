package gofss

// Pred is the comparison a DCF computes.
type Pred uint8

const (
	Lt Pred = iota // f(x) = beta if x < alpha
	Gt             // f(x) = beta if x > alpha
)

func (p Pred) String() string {
	switch p {
	case Lt:
		return "lt"
	case Gt:
		return "gt"
	}
	return "Pred(?)"
}

// ParsePred maps "lt" or "gt" to a Pred.
func ParsePred(name string) (Pred, error) {
	switch name {
	case "lt":
		return Lt, nil
	case "gt":
		return Gt, nil
	}
	return 0, argErrorf("pred must be one of lt, gt, not %q", name)
}

// Dcf is a distributed comparison function scheme (Boyle, Chandran, Gilboa, Gupta,
// Ishai, Kumar, Rathee, EUROCRYPT 2021): f(x) = beta if x < alpha (Lt) or x > alpha
// (Gt), else 0, over unsigned InBits-bit inputs. See SPEC.md section 5.
type Dcf struct {
	inBits int
	group  Group
	prg    Prg
	pred   Pred
}

// NewDcf checks the parameters; prg must have four outputs per seed.
func NewDcf(inBits int, group Group, prg Prg, pred Pred) (*Dcf, error) {
	if err := checkScheme(inBits, group, prg, 4); err != nil {
		return nil, err
	}
	if pred != Lt && pred != Gt {
		return nil, argErrorf("pred must be one of lt, gt")
	}
	return &Dcf{inBits: inBits, group: group, prg: prg, pred: pred}, nil
}

func (d *Dcf) InBits() int  { return d.inBits }
func (d *Dcf) Group() Group { return d.group }
func (d *Dcf) Prg() Prg     { return d.prg }
func (d *Dcf) Pred() Pred   { return d.pred }

// Gen makes K = len(alphas) keys, laid out as for Dpf.Gen.
func (d *Dcf) Gen(cws []Cw, s0s []Block, alphas []Uint128, betas []Block) error {
	if err := checkGenArgs(d.inBits, cws, s0s, alphas, betas); err != nil {
		return err
	}
	const tile = 64
	forChunks(len(alphas), genCostNs(d.inBits, 4), func(lo, hi int) {
		st := newGenState(tile, 4)
		vs := make([]Block, tile)
		for k0 := lo; k0 < hi; k0 += tile {
			k1 := min(hi, k0+tile)
			d.genTile(cws[k0*(d.inBits+1):k1*(d.inBits+1)], s0s[2*k0:2*k1], alphas[k0:k1], betas[k0:k1], st, vs)
		}
	})
	return nil
}

// genTile runs Gen for a tile of keys; vs holds each key's running value V.
func (d *Dcf) genTile(cws []Cw, s0s []Block, alphas []Uint128, betas []Block, st *genState, vs []Block) {
	n, m, g := d.inBits, len(alphas), d.group
	s, t, ch := st.init(s0s)
	clear(vs)
	for i := range n {
		d.prg.Expand(ch, s)
		for k := range m {
			a := alphas[k].Bit(n, i)
			p0, p1 := ch[8*k:8*k+4], ch[8*k+4:8*k+8] // per party: SL, VL, SR, VR
			vl0, vr0, vl1, vr1 := g.Canon(p0[1]), g.Canon(p0[3]), g.Canon(p1[1]), g.Canon(p1[3])
			// The "lose" side gets the seed correction; the value correction makes
			// the lose side's values cancel, plus beta where the predicate holds.
			var sCw, vCw Block
			if a == 0 {
				sCw = p0[2].Xor(p1[2]).Clamp()
				vCw = g.Add(g.Sub(vr1, vr0), g.Neg(vs[k]))
				if d.pred == Gt {
					vCw = g.Add(vCw, g.Canon(betas[k]))
				}
			} else {
				sCw = p0[0].Xor(p1[0]).Clamp()
				vCw = g.Add(g.Sub(vl1, vl0), g.Neg(vs[k]))
				if d.pred == Lt {
					vCw = g.Add(vCw, g.Canon(betas[k]))
				}
			}
			if t[2*k+1] == 1 {
				vCw = g.Neg(vCw)
			}
			if a == 0 {
				vs[k] = g.Add(g.Sub(vs[k], vl1), vl0)
			} else {
				vs[k] = g.Add(g.Sub(vs[k], vr1), vr0)
			}
			if t[2*k+1] == 1 {
				vs[k] = g.Sub(vs[k], vCw)
			} else {
				vs[k] = g.Add(vs[k], vCw)
			}
			tlCw := p0[0].Lsb() ^ p1[0].Lsb() ^ a ^ 1
			trCw := p0[2].Lsb() ^ p1[2].Lsb() ^ a
			keep, tKeepCw := 0, tlCw // index of the kept child's seed block
			if a == 1 {
				keep, tKeepCw = 2, trCw
			}
			s[2*k], t[2*k] = advance(p0[keep], t[2*k], sCw, tKeepCw)
			s[2*k+1], t[2*k+1] = advance(p1[keep], t[2*k+1], sCw, tKeepCw)
			cws[k*(n+1)+i] = Cw{sCw.WithLsb(tlCw), vCw.WithLsb(trCw)}
		}
	}
	for k := range m {
		v := g.Sub(g.Sub(g.Canon(s[2*k+1]), g.Canon(s[2*k])), vs[k])
		if t[2*k+1] == 1 {
			v = g.Neg(v)
		}
		cws[k*(n+1)+n] = Cw{Block{}, v}
	}
}

// Eval evaluates K = len(s0s) keys of one party at M = len(xs)/K points each, laid
// out as for Dpf.Eval.
func (d *Dcf) Eval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128) error {
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
	forChunks(len(xs), evalCostNs(d.inBits, 2), func(lo, hi int) {
		st := newEvalState(tile, 2)
		for j0 := lo; j0 < hi; j0 += tile {
			d.evalTile(dst[j0:min(hi, j0+tile)], party, s0s, cws, xs, m, j0, st)
		}
	})
	return nil
}

func (d *Dcf) evalTile(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, j0 int, st *evalState) {
	n, w, g := d.inBits, len(dst), d.group
	s, t, v, sides, ch := st.s[:w], st.t[:w], st.v[:w], st.sides[:w], st.ch[:2*w]
	for j := range w {
		s[j], t[j], v[j] = s0s[(j0+j)/m].Clamp(), uint8(party), Block{}
	}
	for i := range n {
		for j := range w {
			sides[j] = xs[j0+j].Bit(n, i)
		}
		d.prg.ExpandSide(ch, s, sides)
		for j := range w {
			cw := &cws[(j0+j)/m*(n+1)+i]
			c := ch[2*j].Xor(mask(dcfChildCw(cw, sides[j]), t[j]))
			v[j] = g.Add(v[j], g.Add(g.Canon(ch[2*j+1]), mask(g.Canon(cw[1]), t[j])))
			s[j], t[j] = c.Clamp(), c.Lsb()
		}
	}
	for j := range w {
		dst[j] = d.leaf(s[j], t[j], v[j], &cws[(j0+j)/m*(n+1)+n], party)
	}
}

// dcfChildCw is the seed correction of a level's left or right child with that
// side's control-bit correction in its lsb.
func dcfChildCw(cw *Cw, side uint8) Block {
	if side == 0 {
		return cw[0]
	}
	return cw[0].WithLsb(cw[1].Lsb())
}

// leaf adds the last level's share, from(s) + t*v_cw_n, to the path's value and
// negates the sum for party 1.
func (d *Dcf) leaf(s Block, t uint8, v Block, last *Cw, party int) Block {
	g := d.group
	v = g.Add(v, g.Add(g.Canon(s), mask(last[1], t)))
	if party == 1 {
		v = g.Neg(v)
	}
	return v
}

// EvalAll evaluates K = len(s0s) keys of one party on the whole domain, laid out as
// for Dpf.EvalAll.
func (d *Dcf) EvalAll(dst []Block, party int, s0s []Block, cws []Cw) error {
	if err := checkEvalAllArgs(d.inBits, dst, party, s0s, cws); err != nil {
		return err
	}
	if err := d.checkCws(cws); err != nil {
		return err
	}
	n, g := d.inBits, d.group
	tr := tree{
		n:      n,
		withV:  true,
		rawMul: 4,
		costNs: nodeCostNs(4),
		root: func(k int, r nodes) {
			r.s[0], r.t[0], r.v[0] = s0s[k].Clamp(), uint8(party), Block{}
		},
		level: func(k, i int, out, in nodes) {
			cw := &cws[k*(n+1)+i]
			raw := out.raw[:4*len(in.s)]
			d.prg.Expand(raw, in.s)
			left, right, vCw := dcfChildCw(cw, 0), dcfChildCw(cw, 1), g.Canon(cw[1])
			for j, t := range in.t {
				vc := mask(vCw, t)
				l := raw[4*j].Xor(mask(left, t))
				r := raw[4*j+2].Xor(mask(right, t))
				out.v[2*j] = g.Add(in.v[j], g.Add(g.Canon(raw[4*j+1]), vc))
				out.v[2*j+1] = g.Add(in.v[j], g.Add(g.Canon(raw[4*j+3]), vc))
				out.s[2*j], out.t[2*j] = l.Clamp(), l.Lsb()
				out.s[2*j+1], out.t[2*j+1] = r.Clamp(), r.Lsb()
			}
		},
		leaves: func(k, x0 int, l nodes) {
			last := &cws[k*(n+1)+n]
			out := dst[k<<n+x0:]
			for j := range l.s {
				out[j] = d.leaf(l.s[j], l.t[j], l.v[j], last, party)
			}
		},
	}
	tr.run(len(s0s))
	return nil
}

// checkCws refuses correction words that Gen cannot have made: a nonzero seed
// block or a set control bit in the last row.
func (d *Dcf) checkCws(cws []Cw) error {
	n := d.inBits
	for k := n; k < len(cws); k += n + 1 {
		if last := cws[k]; !last[0].IsZero() || last[1].Lsb() != 0 {
			return argErrorf("cws: key %d, last row: not a DCF output correction word (zeros, then a clamped block)", k/(n+1))
		}
	}
	return nil
}
