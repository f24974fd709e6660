package gofss

import "unsafe"

// Checks of caller input shared by the schemes. Every public entry point runs them
// before touching any slice, so bad input returns an *ArgError instead of panicking.

// checkInputs refuses inputs of inBits or more bits. The inputs are ORed together
// first, without a branch per input (a batch's check then costs a fraction of a
// nanosecond an input); the entry at fault is looked for only when there is one.
func checkInputs(name string, inBits int, xs []Uint128) error {
	var all Uint128
	for _, x := range xs {
		all.Lo, all.Hi = all.Lo|x.Lo, all.Hi|x.Hi
	}
	if all.FitsIn(inBits) {
		return nil
	}
	for i, x := range xs {
		if !x.FitsIn(inBits) {
			return ArgErrorf("%s must be in [0, 2^%d): entry %d is out of range", name, inBits, i)
		}
	}
	return nil
}

func checkParty(party int) error {
	if party != 0 && party != 1 {
		return ArgErrorf("party must be 0 or 1, not %d", party)
	}
	return nil
}

// checkCwsLen checks that cws holds keys keys of the scheme p describes.
func checkCwsLen(p *Params, keys, cws int) error {
	if rows := p.cwRows(); cws != keys*rows {
		return ArgErrorf("cws must hold %d correction words (%d keys x %d rows), not %d", keys*rows, keys, rows, cws)
	}
	return nil
}

func checkGenArgs(p *Params, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) error {
	k := len(alphas)
	if len(betas) != k {
		return ArgErrorf("betas must hold one block per key (%d), not %d", k, len(betas))
	}
	return checkKeyArgs(p, cws, s0s, alphas)
}

// checkKeyArgs checks the arguments of a Gen that every scheme takes: the correction
// words to write and the seeds and points of the keys.
func checkKeyArgs(p *Params, cws []Cw, s0s []Block, alphas []Uint128) error {
	k := len(alphas)
	if len(s0s) != 2*k {
		return ArgErrorf("s0s must hold 2 seeds per key (%d), not %d", 2*k, len(s0s))
	}
	if err := checkCwsLen(p, k, len(cws)); err != nil {
		return err
	}
	if err := checkSeedPairs(s0s, "key"); err != nil {
		return err
	}
	return checkInputs("alpha", p.InBits, alphas)
}

// checkSeedPairs refuses a key whose two seeds are equal once their control bits are
// cleared: both parties would then walk the same tree, every seed correction would
// be zero and the control-bit corrections would spell alpha's bits in clear. what
// names the pairs in the error: keys, or a multi-point key's buckets.
func checkSeedPairs(s0s []Block, what string) error {
	for k := 0; k+1 < len(s0s); k += 2 {
		if s0s[k].Clamp() == s0s[k+1].Clamp() {
			return ArgErrorf("s0s: %s %d: the two seeds are equal once the control bit is cleared", what, k/2)
		}
	}
	return nil
}

// checkEvalArgs checks an Eval's arguments and returns the points per key.
func checkEvalArgs(p *Params, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128) (int, error) {
	if err := checkParty(party); err != nil {
		return 0, err
	}
	m, err := checkPoints(len(s0s), len(dst), "block", xs)
	if err != nil {
		return 0, err
	}
	if err := checkCwsLen(p, len(s0s), len(cws)); err != nil {
		return 0, err
	}
	if err := checkOutputMemory(dst, s0s, cws, xs, m); err != nil {
		return 0, err
	}
	return m, checkInputs("x", p.InBits, xs)
}

// checkOutputMemory refuses a dst that shares memory with the inputs in a way the
// walks do not allow: they read each key's rows throughout, and a point's input and
// its key's seed before they write its output, so dst may be the very memory of xs,
// or of s0s with one point per key, but no other overlap (a dst one block off xs
// gave wrong outputs on some walks).
func checkOutputMemory(dst, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	d := span(dst)
	if d.overlaps(span(cws)) {
		return ArgErrorf("dst must not share memory with cws")
	}
	if x := span(xs); d.overlaps(x) && d.lo != x.lo {
		return ArgErrorf("dst must be the memory of xs or not overlap it")
	}
	if s := span(s0s); d.overlaps(s) && (d.lo != s.lo || m != 1) {
		return ArgErrorf("dst must be the memory of s0s (one point per key) or not overlap it")
	}
	return nil
}

// byteSpan is the memory of a slice, [lo, hi) (empty for an empty slice).
type byteSpan struct{ lo, hi uintptr }

func span[T any](s []T) byteSpan {
	if len(s) == 0 {
		return byteSpan{}
	}
	lo := uintptr(unsafe.Pointer(&s[0]))
	return byteSpan{lo, lo + uintptr(len(s))*unsafe.Sizeof(s[0])}
}

func (a byteSpan) overlaps(b byteSpan) bool { return a.lo < b.hi && b.lo < a.hi }

// checkPoints checks that keys keys have the same number of points xs each, with
// one output (a block or a bit, what) per point in dst, and returns the points per
// key.
func checkPoints(keys, dst int, what string, xs []Uint128) (int, error) {
	if keys == 0 && len(xs) > 0 || keys > 0 && len(xs)%keys != 0 {
		return 0, ArgErrorf("xs must hold the same number of points for each of the %d keys, not %d in all", keys, len(xs))
	}
	if dst != len(xs) {
		return 0, ArgErrorf("dst must hold one %s per point (%d), not %d", what, len(xs), dst)
	}
	if keys == 0 {
		return 0, nil
	}
	return len(xs) / keys, nil
}

func checkEvalAllArgs(p *Params, dst []Block, party int, s0s []Block, cws []Cw) error {
	if err := checkParty(party); err != nil {
		return err
	}
	if err := checkDomainLen(p.InBits, len(dst), len(s0s), "blocks"); err != nil {
		return err
	}
	return checkCwsLen(p, len(s0s), len(cws))
}

// checkDomainLen checks that a full-domain output of dst items (what) holds 2^inBits
// of them per key, for an inBits that full-domain evaluation takes.
func checkDomainLen(inBits, dst, keys int, what string) error {
	if inBits > MaxEvalAllBits {
		return ArgErrorf("in_bits %d is too large for full-domain evaluation (at most %d)", inBits, MaxEvalAllBits)
	}
	if uint64(dst)>>inBits != uint64(keys) || dst&(1<<inBits-1) != 0 {
		return ArgErrorf("dst must hold 2**%d %s per key (%d keys), not %d", inBits, what, keys, dst)
	}
	return nil
}

// Rough costs in nanoseconds, used only to decide whether to fan out.

func nodeCostNs(mul int) float64 { return 10 * float64(mul) }

func genCostNs(inBits, mul int) float64 { return 2 * float64(inBits) * nodeCostNs(mul) }

func evalCostNs(inBits, mul int) float64 { return float64(inBits) * nodeCostNs(mul) / 2 }
