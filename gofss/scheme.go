package gofss

import (
	"errors"
	"sync/atomic"
)

// Scheme is what every scheme offers: batched key generation and evaluation over
// caller-provided slices (see Dpf for the layouts), and the public parameters.
type Scheme interface {
	Params() Params
	// Impl names the implementation of the tree walks chosen when the scheme was
	// made: one of Impls().
	Impl() string
	Gen(cws []Cw, s0s []Block, alphas []Uint128, betas []Block) error
	Eval(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128) error
	EvalAll(dst []Block, party int, s0s []Block, cws []Cw) error
	// WithStop returns the scheme with calls that end early, returning ErrStopped
	// with their outputs partly written, once *flag is nonzero (set from another
	// goroutine or thread). The flag is checked between tiles of work, every few
	// hundred microseconds at most.
	WithStop(flag *atomic.Int32) Scheme
}

// ErrStopped is the error of a call ended early through WithStop's flag.
var ErrStopped = errors.New("gofss: call stopped before it finished")

// Option adjusts how New makes a scheme.
type Option func(*options)

type options struct{ impl string }

// WithImpl makes the scheme on the named implementation of the tree walks (one of
// Impls(), "portable" always among them) instead of the fastest that serves its
// parameters on this CPU. For tests and benchmarks that compare implementations.
func WithImpl(name string) Option { return func(o *options) { o.impl = name } }

// New makes the scheme that p describes.
func New(p Params, opts ...Option) (Scheme, error) {
	prg, err := p.NewPrg()
	if err != nil {
		return nil, err
	}
	if p.Kind == KindDpf {
		return newDpf(p, prg, opts)
	}
	return newDcf(p, prg, opts)
}

// paramsFor completes the parameters of a scheme made from a PRG object: its kind
// and public parameters.
func paramsFor(kind Kind, inBits int, group Group, prg Prg) (Params, error) {
	p := Params{Kind: kind, InBits: inBits, Group: group}
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

// stop is a call's view of WithStop's flag; the zero value never stops.
type stop struct{ flag *atomic.Int32 }

func (s stop) stopped() bool { return s.flag != nil && s.flag.Load() != 0 }

// err is the result of a call that ran to its end or was stopped.
func (s stop) err() error {
	if s.stopped() {
		return ErrStopped
	}
	return nil
}
