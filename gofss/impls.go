package gofss

import "strings"

// walks is one implementation of a scheme's tree walks: its batch operations, once
// the scheme's public methods have checked their arguments. *Dpf and *Dcf are their
// own portable implementation, written as the spec reads; the fast ones (arch
// files) take what they need when they are made and fall back to nothing per call.
type walks interface {
	// checkCws refuses correction words that the scheme's Gen cannot have made.
	checkCws(cws []Cw) error
	walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block)
	// walkEval evaluates len(xs)/m keys at m points each; it checks the correction
	// words, as it reads them or before.
	walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error
	// walkEvalAll describes the full-domain walk, whose leaves go where out places
	// them; the caller checked the words.
	walkEvalAll(out outputs, party int, s0s []Block, cws []Cw) tree
}

// impl is one entry of the registry of walk implementations. Its dpf and dcf make
// the walks for a scheme, or return nil where the implementation does not serve the
// scheme's parameters (PRG, PRG backend, group) on this CPU.
type impl struct {
	name string
	dpf  func(d *Dpf) walks
	dcf  func(d *Dcf) walks
}

// AesniImpl names the implementation with one-key AES-NI walks for aes128_mmo
// (amd64 only; onekey_amd64.go), which the fastest default gets on a CPU with AES-NI
// but without the AVX-512 walks.
const AesniImpl = "aesni"

// PortableImpl names the implementation in plain Go that serves every scheme.
const PortableImpl = "portable"

// impls lists the implementations, fastest first, the portable one last.
var impls = append(archImpls(), impl{
	name: PortableImpl,
	dpf:  func(d *Dpf) walks { return d },
	dcf:  func(d *Dcf) walks { return d },
})

// Impls names the walk implementations this build has, fastest first; which of them
// serve a scheme depends on its parameters and on the CPU.
func Impls() []string {
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.name
	}
	return names
}

// chooseImpl returns the implementation named in o, or, with none named, the first
// that serves the scheme; make is impl.dpf or impl.dcf bound to the scheme.
func chooseImpl(opts []Option, make func(impl) walks) (string, walks, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	for _, im := range impls {
		if o.impl != "" && im.name != o.impl {
			continue
		}
		if w := make(im); w != nil {
			return im.name, w, nil
		}
		if o.impl != "" {
			return "", nil, ArgErrorf("impl %q does not serve these parameters on this CPU", o.impl)
		}
	}
	return "", nil, ArgErrorf("impl must be one of %s, not %q", strings.Join(Impls(), ", "), o.impl)
}
