package gofss

// Grotto DCF evaluation from preprocessed keys (docs/spec.md section 12): party b's
// share of 1{x >= alpha} is bit x of its key's prefix parities P_b, and its share of
// 1{lo <= alpha <= hi} is P_b(hi) ^ P_b(lo - 1), with P_b(-1) = 0.

// Eval looks up K keys' shares at M points each. pre holds the keys' preprocessed
// forms (ParityWords() words each, from Preprocess) and key k's points are
// xs[k*M:(k+1)*M]; the share at xs[k*M+j], 0 or 1, goes to dst[k*M+j].
func (g *GrottoDcf) Eval(dst []uint8, pre []uint64, xs []Uint128) error {
	keys, err := g.preKeys(pre)
	if err != nil {
		return err
	}
	m, err := checkPoints(keys, len(dst), "byte", xs)
	if err != nil {
		return err
	}
	if err := checkInputs("x", g.params.InBits, xs); err != nil {
		return err
	}
	g.forPoints(len(xs), m, true, func(k, lo, hi int) {
		p := g.keyParities(pre, k)
		for j := lo; j < hi; j++ {
			dst[j] = parityAt(p, xs[j].Lo)
		}
	})
	return g.ctl.err()
}

// EvalInterval looks up K keys' shares of 1{lo <= alpha <= hi} for M intervals each:
// key k's intervals are [los[k*M+j], his[k*M+j]], its shares go to dst[k*M+j], and
// pre is as for Eval. Each interval must have lo <= hi.
func (g *GrottoDcf) EvalInterval(dst []uint8, pre []uint64, los, his []Uint128) error {
	keys, err := g.preKeys(pre)
	if err != nil {
		return err
	}
	if len(his) != len(los) {
		return ArgErrorf("his must hold one bound per interval (%d), not %d", len(los), len(his))
	}
	m, err := checkPoints(keys, len(dst), "byte", los)
	if err != nil {
		return err
	}
	if err := checkInputs("lo", g.params.InBits, los); err != nil {
		return err
	}
	if err := checkInputs("hi", g.params.InBits, his); err != nil {
		return err
	}
	for j := range los {
		if los[j].Lo > his[j].Lo {
			return ArgErrorf("los: entry %d is above its his entry: an interval needs lo <= hi", j)
		}
	}
	g.forPoints(len(los), m, true, func(k, lo, hi int) {
		p := g.keyParities(pre, k)
		for j := lo; j < hi; j++ {
			var below uint8 // P(lo - 1), 0 for lo = 0: no alpha is below 0
			if l := los[j].Lo; l > 0 {
				below = parityAt(p, l-1)
			}
			dst[j] = parityAt(p, his[j].Lo) ^ below
		}
	})
	return g.ctl.err()
}

// EvalAll evaluates K = len(s0s) keys of one party on the whole domain: key k's
// share at x, 0 or 1, into dst[k<<n + x]. It preprocesses the keys, then spreads
// their bits into bytes.
func (g *GrottoDcf) EvalAll(dst []uint8, party int, s0s []Block, cws []Cw) error {
	n := g.params.InBits
	if err := checkDomainLen(n, len(dst), len(s0s), "bytes"); err != nil {
		return err
	}
	pre := make([]uint64, len(s0s)*g.ParityWords())
	if err := g.Preprocess(pre, party, s0s, cws); err != nil {
		return err
	}
	g.forPoints(len(dst), 1<<n, false, func(k, lo, hi int) { // Preprocess counted the outputs
		p := g.keyParities(pre, k)
		for x := lo; x < hi; x++ {
			dst[x] = parityAt(p, uint64(x-k<<n))
		}
	})
	return g.ctl.err()
}

// preKeys is the number of keys whose preprocessed forms pre holds.
func (g *GrottoDcf) preKeys(pre []uint64) (int, error) {
	w := g.ParityWords()
	if len(pre)%w != 0 {
		return 0, ArgErrorf("pre must hold %d words per key, not %d in all", w, len(pre))
	}
	return len(pre) / w, nil
}

// parityAt is bit x of a key's prefix parities.
func parityAt(p []uint64, x uint64) uint8 { return uint8(p[x>>6]>>(x&63)) & 1 }

// lookupCostNs is the rough cost of a point's lookup, for the parallel split.
const lookupCostNs = 2

// stopEvery is the most points looked up between checks of the stop flag.
const stopEvery = 1 << 14

// forPoints calls fn on runs lo .. hi-1 of the points of a flattened K x m batch,
// each run within one key k, spread over goroutines, until done or stopped; counted:
// the Control counts the points.
func (g *GrottoDcf) forPoints(total, m int, counted bool, fn func(k, lo, hi int)) {
	forChunks(total, lookupCostNs, func(lo, hi int) {
		for lo < hi && !g.ctl.stopped() {
			k := lo / m
			end := min(hi, (k+1)*m, lo+stopEvery)
			fn(k, lo, end)
			if counted {
				g.ctl.advance(end - lo)
			}
			lo = end
		}
	})
}
