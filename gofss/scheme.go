package gofss

import (
	"errors"
	"sync/atomic"
)

// Scheme is what every scheme offers: batched key generation and evaluation over
// caller-provided slices (see Dpf for the layouts), and the public parameters.
type Scheme interface {
	// Params are the scheme's parameters; their AesKeys are the scheme's own memory
	// (copy them before changing them).
	Params() Params
	// Impl names the implementation of the tree walks chosen when the scheme was
	// made: one of Impls().
	Impl() string
	Gen(cws []Cw, s0s []Block, alphas []Uint128, betas []Block) error
	Eval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128) error
	EvalAll(dst []Block, party int, s0s []Block, cws []Cw) error
	// WithControl returns the scheme with calls that another goroutine or thread
	// can watch and end through c (see Control).
	WithControl(c *Control) Scheme
}

// Control lets another goroutine or thread watch and end long calls. A call checks
// Stop and adds to Done after every tile of work, a few hundred microseconds at most.
// Its memory layout (16 bytes: Stop, 4 bytes of padding, Done) is fixed, so that
// callers in other languages can pass one.
type Control struct {
	// Stop, once nonzero, ends the call: it returns ErrStopped with its outputs
	// partly written.
	Stop atomic.Int32
	_    int32
	// Done counts the items finished: keys for Gen, points for Eval, outputs for
	// EvalAll.
	Done atomic.Int64
}

// ErrStopped is the error of a call ended early through its Control.
var ErrStopped = errors.New("gofss: call stopped before it finished")

// Option adjusts how New makes a scheme.
type Option func(*options)

type options struct{ impl string }

// WithImpl makes the scheme on the named implementation of the tree walks (one of
// Impls(), "portable" always among them) instead of the fastest that serves its
// parameters on this CPU. For tests and benchmarks that compare implementations.
func WithImpl(name string) Option { return func(o *options) { o.impl = name } }

// New makes the scheme that p describes. Grotto DCF keys are evaluated through
// their preprocessed form, not through Scheme's methods: NewGrottoDcf makes it.
func New(p Params, opts ...Option) (Scheme, error) {
	prg, err := p.NewPrg()
	if err != nil {
		return nil, err
	}
	switch p.Kind {
	case KindDpf:
		return newDpf(p, prg, opts)
	case KindHalfTreeDpf:
		return newHalfTreeDpf(p, prg, opts)
	case KindVdpf:
		return newVdpf(p, prg, opts)
	case KindGrottoDcf:
		return nil, ArgErrorf("scheme: grotto_dcf evaluates preprocessed keys, not through Scheme: make it with NewGrottoDcf")
	case KindDmpf, KindVdmpf:
		return nil, ArgErrorf("scheme: %s keys hold many points, not through Scheme: make it with NewMpf", p.Kind)
	}
	return newDcf(p, prg, opts)
}

// treeScheme is what every tree scheme shares: its parameters, the walk
// implementation chosen when it was made, and the public operations, which check
// their arguments and hand over to the walks. Dpf and Dcf embed it.
type treeScheme struct {
	params Params
	prg    Prg
	impl   string
	walks  walks
	ctl    callControl
}

// chooseWalks sets the walks of the scheme, which make (impl.dpf or impl.dcf bound
// to the scheme) makes from the chosen implementation of the registry.
func (s *treeScheme) chooseWalks(opts []Option, make func(impl) walks) error {
	var err error
	s.impl, s.walks, err = chooseImpl(opts, make)
	return err
}

func (s *treeScheme) Params() Params { return s.params }
func (s *treeScheme) InBits() int    { return s.params.InBits }
func (s *treeScheme) Group() Group   { return s.params.Group }
func (s *treeScheme) Prg() Prg       { return s.prg }
func (s *treeScheme) Impl() string   { return s.impl }

func (s *treeScheme) WithControl(c *Control) Scheme {
	cp := *s
	cp.ctl = callControl{c: c}
	return &cp
}

// Gen makes K = len(alphas) keys. Key k uses seeds s0s[2k] (party 0) and s0s[2k+1]
// (party 1), point alphas[k] and value betas[k]; its R = Params.CwRows() correction
// words (n+1 but for Half-Tree DPF) go to cws[k*R:]. Seeds and betas may have their
// control bit set; Gen clears it. Where cws spans whole 2 MiB pages, Gen asks the OS to back them with huge pages,
// which a batched Eval reads faster (see HugePageMode).
func (s *treeScheme) Gen(cws []Cw, s0s []Block, alphas []Uint128, betas []Block) error {
	if err := checkGenArgs(&s.params, cws, s0s, alphas, betas); err != nil {
		return err
	}
	if s.ctl.stopped() { // the one-key walks of short batches do not look at st
		return ErrStopped
	}
	adviseHugePages(cws)
	s.walks.walkGen(s.ctl, cws, s0s, alphas, betas)
	return s.ctl.err()
}

// Eval evaluates K = len(s0s) keys of one party at M = len(xs)/K points each: key k
// at xs[k*M+j] into dst[k*M+j]. Key k's correction words are cws[k*R:]. When it
// refuses correction words that Gen cannot have made, dst may be partly written: the
// fast walks check them as they read them rather than in a pass of their own.
func (s *treeScheme) Eval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128) error {
	m, err := checkEvalArgs(&s.params, dst, party, s0s, cws, xs)
	if err != nil {
		return err
	}
	if s.ctl.stopped() {
		return ErrStopped
	}
	adviseHugePages(dst) // a fresh dst faults once per huge page, not per 4 KiB
	if err := s.walks.walkEval(s.ctl, dst, party, s0s, cws, xs, m); err != nil {
		return err
	}
	return s.ctl.err()
}

// EvalAll evaluates K = len(s0s) keys of one party on the whole domain: key k at x
// into dst[k<<n + x]. It costs one PRG expansion (for Half-Tree, one hash) per tree
// node.
func (s *treeScheme) EvalAll(dst []Block, party int, s0s []Block, cws []Cw) error {
	if err := checkEvalAllArgs(&s.params, dst, party, s0s, cws); err != nil {
		return err
	}
	if err := s.walks.checkCws(cws); err != nil {
		return err
	}
	if err := s.evalRuns(dst, party, s0s, cws, 0, 1<<s.params.InBits); err != nil {
		return err
	}
	return s.ctl.err()
}

// paramsFor completes the parameters of a scheme made from a PRG object: its kind
// and public parameters, and for vdpf its hash (the one value hash may hold).
func paramsFor(kind Kind, inBits int, group Group, prg Prg, hash ...VdpfHash) (Params, error) {
	p := Params{Kind: kind, InBits: inBits, Group: group}
	if len(hash) > 0 {
		p.Hash = hash[0]
	}
	switch g := prg.(type) {
	case *ChaCha:
		p.Prg, p.Nonce = PrgChaCha, g.Nonce()
	case *AesMmo:
		p.Prg, p.AesKeys = PrgAesMmo, g.Keys()
	case nil:
		return p, ArgErrorf("prg must not be nil")
	default:
		return p, ArgErrorf("prg must be made by NewChaCha or NewAesMmo")
	}
	if err := p.Check(); err != nil {
		return p, err
	}
	if prg.Mul() != kind.Mul() {
		return p, ArgErrorf("prg must have %d outputs per seed, not %d", kind.Mul(), prg.Mul())
	}
	return p, nil
}

// callControl is a call's view of its Control; the zero value never stops and
// counts nothing. A scheme run inside another's call (a multi-point scheme's
// buckets) stops with it but leaves the counting to it: uncounted.
type callControl struct {
	c         *Control
	uncounted bool
}

func (cc callControl) stopped() bool { return cc.c != nil && cc.c.Stop.Load() != 0 }

// advance counts n more items finished.
func (cc callControl) advance(n int) {
	if cc.c != nil && !cc.uncounted {
		cc.c.Done.Add(int64(n))
	}
}

// err is the result of a call that ran to its end or was stopped.
func (cc callControl) err() error {
	if cc.stopped() {
		return ErrStopped
	}
	return nil
}
