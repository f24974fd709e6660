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
	return 0, ArgErrorf("pred must be one of lt, gt, not %q", name)
}

// Dcf is a distributed comparison function scheme (Boyle, Chandran, Gilboa, Gupta,
// Ishai, Kumar, Rathee, EUROCRYPT 2021): f(x) = beta if x < alpha (Lt) or x > alpha
// (Gt), else 0, over unsigned InBits-bit inputs. See docs/spec.md section 5. As for
// Dpf, the methods below the public ones are its portable implementation.
type Dcf struct{ treeScheme }

// NewDcf makes a DCF over prg, which must have four outputs per seed (NewChaCha or
// NewAesMmo); New makes the same from Params.
func NewDcf(inBits int, group Group, prg Prg, pred Pred, opts ...Option) (*Dcf, error) {
	kind := KindDcfLt
	switch pred {
	case Lt:
	case Gt:
		kind = KindDcfGt
	default:
		return nil, ArgErrorf("pred must be one of lt, gt")
	}
	p, err := paramsFor(kind, inBits, group, prg)
	if err != nil {
		return nil, err
	}
	return newDcf(p, prg, opts)
}

func newDcf(p Params, prg Prg, opts []Option) (*Dcf, error) {
	d := &Dcf{treeScheme{params: p.owned(), prg: prg}}
	if err := d.chooseWalks(opts, func(im impl) walks { return im.dcf(d) }); err != nil {
		return nil, err
	}
	return d, nil
}

// Pred is the comparison the scheme computes.
func (d *Dcf) Pred() Pred {
	if d.params.Kind == KindDcfGt {
		return Gt
	}
	return Lt
}

// walkGen runs Gen a tile of keys at a time, spread over goroutines.
func (d *Dcf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	const tile = 64
	n := d.params.InBits
	forChunks(len(alphas), genCostNs(n, 4), func(lo, hi int) {
		sc := getScratch()
		defer sc.release()
		gs := newGenState(sc, tile, 4)
		vs := sc.block(tile)
		for k0 := lo; k0 < hi && !st.stopped(); k0 += tile {
			k1 := min(hi, k0+tile)
			d.genTile(cws[k0*(n+1):k1*(n+1)], s0s[2*k0:2*k1], alphas[k0:k1], betas[k0:k1], gs, vs)
			st.advance(k1 - k0)
		}
	})
}

// genTile runs Gen for a tile of keys; vs holds each key's running value V (value form).
func (d *Dcf) genTile(cws []Cw, s0s []Block, alphas []Uint128, betas []Block, st *genState, vs []Block) {
	n, m, ar := d.params.InBits, len(alphas), d.params.Group.arith()
	s, t, ch := st.init(s0s)
	clear(vs)
	// beta enters the value correction on the lose side where the predicate holds
	// there: the right side (x > alpha) for gt when a = 0, the left for lt when a = 1.
	betaIf := [2]uint8{uint8(d.Pred()), 1 - uint8(d.Pred())} // indexed by a: Gt = 1, Lt = 0
	for i := range n {
		d.prg.Expand(ch, s)
		for k := range m {
			a := alphas[k].Bit(n, i)
			p0, p1 := ch[8*k:8*k+4], ch[8*k+4:8*k+8] // per party: SL, VL, SR, VR
			sCw := pick(a, p0[2].Xor(p1[2]), p0[0].Xor(p1[0])).Clamp()
			// Values on the lose side must cancel; those on the keep side feed V.
			lose0, lose1 := ar.from(pick(a, p0[3], p0[1])), ar.from(pick(a, p1[3], p1[1]))
			keep0, keep1 := ar.from(pick(a, p0[1], p0[3])), ar.from(pick(a, p1[1], p1[3]))
			t1 := t[2*k+1]
			var vCw Block
			vCw, vs[k] = dcfValueCw(ar, vs[k], lose0, lose1, keep0, keep1, mask(ar.from(betas[k]), betaIf[a]), t1)
			tlCw := p0[0].Lsb() ^ p1[0].Lsb() ^ a ^ 1
			trCw := p0[2].Lsb() ^ p1[2].Lsb() ^ a
			tKeepCw := pickBit(a, tlCw, trCw)
			s[2*k], t[2*k] = advance(pick(a, p0[0], p0[2]), t[2*k], sCw, tKeepCw)
			s[2*k+1], t[2*k+1] = advance(pick(a, p1[0], p1[2]), t1, sCw, tKeepCw)
			cws[k*(n+1)+i] = Cw{sCw.WithLsb(tlCw), ar.into(vCw).WithLsb(trCw)}
		}
	}
	for k := range m {
		cws[k*(n+1)+n] = Cw{Block{}, dcfLastCw(ar, s[2*k], s[2*k+1], t[2*k+1], vs[k])}
	}
}

// dcfValueCw is a Gen level's value correction (value form) and the next running
// value V, from V, the parties' value outputs on the lose and keep sides (value
// form), what beta adds on the lose side (zero or from(beta)) and party 1's control
// bit t1.
func dcfValueCw(ar *arith, v, lose0, lose1, keep0, keep1, betaAdd Block, t1 uint8) (Block, Block) {
	// With d = lose1 - lose0 + betaAdd the word is d - V. The word is negated where
	// t1 is set, and V moves by minus the word there: by d - V as computed here
	// either way, so the next V is V - keep1 + keep0 + (d - V) = d + keep0 - keep1.
	// V cancels: the next V does not wait on this one, and a walk's levels overlap.
	d := ar.add(ar.sub(lose1, lose0), betaAdd)
	vCw := ar.sub(d, v)
	next := ar.add(d, ar.sub(keep0, keep1))
	return pick(t1, vCw, ar.neg(vCw)), next // without a branch: t1 is a coin flip
}

// dcfLastCw is the value of the last correction word from the parties' seeds s0, s1
// at alpha's leaf and the running value v: from(s1) - from(s0) - v, negated where
// party 1's control bit t1 is set.
func dcfLastCw(ar *arith, s0, s1 Block, t1 uint8, v Block) Block {
	v = ar.sub(ar.sub(ar.from(s1), ar.from(s0)), v)
	if t1 == 1 {
		v = ar.neg(v)
	}
	return ar.into(v)
}

// walkEval checks the correction words, then walks tiles of points.
func (d *Dcf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if err := d.checkCws(cws); err != nil {
		return err
	}
	evalPoints(d, st, d.params.InBits, 2, dst, party, s0s, cws, xs, m)
	return nil
}

func (d *Dcf) evalTile(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, j0 int, st *evalState) {
	n, ar := d.params.InBits, d.params.Group.arith()
	s, t, base := st.start(len(dst), s0s, party, j0, m, n+1)
	v, sides, ch := st.v[:len(s)], st.sides[:len(s)], st.ch[:2*len(s)]
	clear(v)
	for i := range n {
		for j := range sides {
			sides[j] = xs[j0+j].Bit(n, i)
		}
		d.prg.ExpandSide(ch, s, sides)
		for j, side := range sides {
			x, vj := dcfChild(ar, ch[2*j:], &cws[base[j]+i], side, t[j], v[j])
			s[j], t[j], v[j] = x.Clamp(), x.Lsb(), vj
		}
	}
	for j := range dst {
		dst[j] = dcfLeaf(ar, s[j], t[j], v[j], &cws[base[j]+n], party)
	}
}

// dcfChildCw is the seed correction of a level's left or right child with that
// side's control-bit correction (tl in the seed block, tr in the value block) in
// its lsb.
func dcfChildCw(cw *Cw, side uint8) Block {
	return cw[0].WithLsb(pickBit(side, cw[0].Lsb(), cw[1].Lsb()))
}

// dcfLeaf adds the last level's share, from(s) + t*v_cw_n, to the path's value v and
// returns the sum in block form, negated for party 1.
func dcfLeaf(ar *arith, s Block, t uint8, v Block, last *Cw, party int) Block {
	v = ar.add(v, ar.add(ar.from(s), mask(ar.from(last[1]), t)))
	if party == 1 {
		v = ar.neg(v)
	}
	return ar.into(v)
}

// walkEvalAll is the tree of EvalAll.
func (d *Dcf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	n, ar := d.params.InBits, d.params.Group.arith()
	return tree{
		n:      n,
		shape:  rowShape{t: true, v: true},
		rawMul: 4,
		costNs: nodeCostNs(4),
		root: func(k int, r nodes) {
			r.s[0], r.t[0], r.v[0] = s0s[k].Clamp(), uint8(party), Block{} // v: the group's zero
		},
		level: func(k, i int, out, in nodes, raw []Block) {
			d.prg.Expand(raw, in.s)
			cw := &cws[k*(n+1)+i]
			for j, t := range in.t {
				for c := range 2 {
					x, v := dcfChild(ar, raw[4*j+2*c:], cw, uint8(c), t, in.v[j])
					out.s[2*j+c], out.t[2*j+c], out.v[2*j+c] = x.Clamp(), x.Lsb(), v
				}
			}
		},
		leaves: func(k, x0 int, in nodes, raw []Block) {
			d.prg.Expand(raw, in.s)
			cw, last := &cws[k*(n+1)+n-1], &cws[k*(n+1)+n]
			out := place(k, x0, 2*len(in.s))
			for j, t := range in.t {
				for c := range 2 {
					x, v := dcfChild(ar, raw[4*j+2*c:], cw, uint8(c), t, in.v[j])
					out[2*j+c] = dcfLeaf(ar, x.Clamp(), x.Lsb(), v, last, party)
				}
			}
		},
	}
}

// dcfChild corrects the child on the given side of a node with control bit t and
// path value v, from the node's PRG output sv = (S, V) of that side: it returns the
// child's seed (control bit in the lsb) and its path value v + from(V) + t*v_cw.
func dcfChild(ar *arith, sv []Block, cw *Cw, side, t uint8, v Block) (Block, Block) {
	x := sv[0].Xor(mask(dcfChildCw(cw, side), t))
	return x, dcfValue(ar, v, sv[1], cw, t)
}

// dcfValue adds a level's share to the path's value v: from(raw) + t*v_cw, with raw
// the PRG's value output for the chosen side and t the parent's control bit.
func dcfValue(ar *arith, v, raw Block, cw *Cw, t uint8) Block {
	return ar.add(v, ar.add(ar.from(raw), mask(ar.from(cw[1]), t)))
}

// checkCws refuses correction words that Gen cannot have made: a nonzero seed
// block or a set control bit in the last row.
func (d *Dcf) checkCws(cws []Cw) error {
	n := d.params.InBits
	for k := n; k < len(cws); k += n + 1 {
		if last := cws[k]; !last[0].IsZero() || last[1].Lsb() != 0 {
			return ArgErrorf("cws: key %d, last row: not a DCF output correction word (zeros, then a clamped block)", k/(n+1))
		}
	}
	return nil
}
