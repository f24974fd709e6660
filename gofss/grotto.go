package gofss

// GrottoDcf is the Grotto distributed comparison function (Storrier, Vadapalli,
// Lyons, Henry, CCS 2023): XOR shares of the bit 1{x >= alpha}, from the keys of a
// DPF of group bytes and beta zero. Party b's share at x is the parity of its leaf
// control bits at 0 .. x, so a key is evaluated through its prefix parities, computed
// once over the whole domain (Preprocess); a point then costs one bit lookup. See
// docs/spec.md section 12.
//
// It is not a Scheme: its Eval reads preprocessed keys and its outputs are bits,
// one byte (0 or 1) each.
type GrottoDcf struct {
	params Params
	dpf    *Dpf // the keys' DPF: its Gen, its tree down to the leaves' parents
	ctl    callControl
}

// NewGrottoDcf makes the Grotto DCF that p (of kind KindGrottoDcf) describes.
func NewGrottoDcf(p Params, opts ...Option) (*GrottoDcf, error) {
	if p.Kind != KindGrottoDcf {
		return nil, ArgErrorf("scheme must be grotto_dcf, not %v", p.Kind)
	}
	prg, err := p.NewPrg()
	if err != nil {
		return nil, err
	}
	dp := p
	dp.Kind = KindDpf
	d, err := newDpf(dp, prg, opts)
	if err != nil {
		return nil, err
	}
	return &GrottoDcf{params: p.owned(), dpf: d}, nil
}

func (g *GrottoDcf) Params() Params { return g.params }

// WithControl returns the scheme with calls that c can watch and end, as
// Scheme.WithControl does.
func (g *GrottoDcf) WithControl(c *Control) *GrottoDcf {
	cp := *g
	cp.ctl = callControl{c: c}
	return &cp
}

// Gen makes K = len(alphas) keys: DPF keys of group bytes and beta zero. Key k uses
// seeds s0s[2k] (party 0) and s0s[2k+1] (party 1) and point alphas[k]; its in_bits+1
// correction words go to cws[k*(n+1):].
func (g *GrottoDcf) Gen(cws []Cw, s0s []Block, alphas []Uint128) error {
	if err := checkKeyArgs(&g.params, cws, s0s, alphas); err != nil {
		return err
	}
	return g.dpf.WithControl(g.ctl.c).Gen(cws, s0s, alphas, make([]Block, len(alphas)))
}

// ParityWords is the length of one key's preprocessed form in 64-bit words: its
// party's shares at every input, a bit each, bit x&63 of word x>>6 the share at x.
// For in_bits below 6, the bits above 2^in_bits are zero.
func (g *GrottoDcf) ParityWords() int { return (1<<g.params.InBits + 63) / 64 }

// Preprocess computes the preprocessed form of K = len(s0s) keys of one party: key
// k's into pre[k*W:(k+1)*W], W = ParityWords(). It walks each key's tree once, as
// DPF's EvalAll does, keeping only the leaves' control bits.
func (g *GrottoDcf) Preprocess(pre []uint64, party int, s0s []Block, cws []Cw) error {
	if err := checkParty(party); err != nil {
		return err
	}
	if w := g.ParityWords(); len(pre) != len(s0s)*w {
		return ArgErrorf("pre must hold %d words per key (%d keys), not %d", w, len(s0s), len(pre))
	}
	if err := checkCwsLen(&g.params, len(s0s), len(cws)); err != nil {
		return err
	}
	if err := g.dpf.checkCws(cws); err != nil {
		return err
	}
	tr := g.leafBits(pre, party, s0s, cws)
	tr.run(g.ctl, len(s0s))
	if g.ctl.stopped() {
		return ErrStopped
	}
	for k := range s0s {
		words := g.keyParities(pre, k)
		prefixParity(words)
		if n := g.params.InBits; n < 6 {
			words[0] &= 1<<(1<<n) - 1 // no inputs there
		}
	}
	return nil
}

// keyParities is key k's preprocessed form in a batch of them.
func (g *GrottoDcf) keyParities(pre []uint64, k int) []uint64 {
	w := g.ParityWords()
	return pre[k*w : (k+1)*w]
}

// leafBits is DPF's EvalAll tree with leaves that write their control bits into
// bits, a bit per leaf as in the preprocessed form. A tile of the tree covers a
// whole number of words (at least 128 leaves) or a whole domain of at most 64.
func (g *GrottoDcf) leafBits(bits []uint64, party int, s0s []Block, cws []Cw) tree {
	n := g.params.InBits
	tr := g.dpf.walkEvalAll(nil, party, s0s, cws)
	tr.rawMul = 2 // the children of a row of parents
	tr.leaves = func(k, x0 int, in nodes, raw []Block) {
		g.dpf.prg.Expand(raw, in.s)
		left, right := dpfChildCws(&cws[k*(n+1)+n-1])
		// The children's control bits, lsb(child) ^ t*tcw, as bits 0 and 1 of
		// lr >> 32: tcw has the left correction in bit 32, the right in bit 33.
		tcw := uint64(left.Lsb())<<32 | uint64(right.Lsb())<<33
		words := g.keyParities(bits, k)[x0/64:]
		for j0 := 0; j0 < len(in.t); j0 += 32 { // 32 parents, 64 leaves: a word
			var w uint64
			for j, t := range in.t[j0:min(j0+32, len(in.t))] {
				pair := raw[2*(j0+j) : 2*(j0+j)+2]
				lr := pair[0].Hi&lsbBit | pair[1].Hi&lsbBit<<1 ^ tcw&-uint64(t)
				w |= lr >> 32 << (2 * j)
			}
			words[j0/32] = w
		}
	}
	return tr
}

// prefixParity replaces each bit x of words (bit x&63 of word x>>6) by the parity
// of bits 0 .. x.
func prefixParity(words []uint64) {
	var carry uint64 // all ones when the bits before the word have parity 1
	for i, w := range words {
		// Within the word, bit x gets the XOR of bits x, x-1, ..., 0: log steps.
		w ^= w << 1
		w ^= w << 2
		w ^= w << 4
		w ^= w << 8
		w ^= w << 16
		w ^= w << 32
		w ^= carry
		words[i] = w
		carry = -(w >> 63)
	}
}
