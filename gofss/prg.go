package gofss

import (
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/chacha"
	"github.com/pyfss/pyfss/gofss/internal/cpupath"
)

// Prg is a length-multiplying pseudorandom generator: it maps one seed block to Mul()
// blocks. Its public parameters (nonce or AES keys) belong to the key set. Calls take
// many seeds at once so that implementations can keep several in flight; they are
// safe for concurrent use.
type Prg interface {
	// Name is "chacha" or "aes128_mmo".
	Name() string
	// Mul is the number of output blocks per seed: 2 for DPF, 4 for DCF.
	Mul() int
	// Expand writes output j of seeds[i] to dst[i*Mul()+j]; len(dst) = len(seeds)*Mul().
	Expand(dst, seeds []Block)
	// ExpandSide writes only one half of the outputs: with h = Mul()/2, output
	// sides[i]*h+j of seeds[i] goes to dst[i*h+j]; sides[i] is 0 or 1.
	ExpandSide(dst, seeds []Block, sides []uint8)
}

// ChaCha is the reference's ChaCha-based PRG (docs/spec.md section 3); it is not the
// ChaCha20 stream cipher.
type ChaCha struct {
	mul   int
	nonce [2]uint32
}

// DefaultNonce is the ChaCha nonce used when none is given: the one the known-answer
// vectors were made with.
var DefaultNonce = [2]uint32{0x12345678, 0x9abcdef0}

// NewChaCha returns the ChaCha PRG with mul (1, 2 or 4) outputs per seed.
func NewChaCha(mul int, nonce [2]uint32) (*ChaCha, error) {
	if err := backendEnvError(); err != nil {
		return nil, err
	}
	if mul != 1 && mul != 2 && mul != 4 {
		return nil, ArgErrorf("chacha: mul must be 1, 2 or 4, not %d", mul)
	}
	return &ChaCha{mul: mul, nonce: nonce}, nil
}

func (*ChaCha) Name() string { return "chacha" }

func (p *ChaCha) Mul() int { return p.mul }

// Nonce returns the public nonce.
func (p *ChaCha) Nonce() [2]uint32 { return p.nonce }

func (p *ChaCha) Expand(dst, seeds []Block) {
	chacha.Expand(blockBytes(dst), blockBytes(seeds), p.nonce, p.mul)
}

func (p *ChaCha) ExpandSide(dst, seeds []Block, sides []uint8) {
	chacha.ExpandSelect(blockBytes(dst), blockBytes(seeds), p.nonce, p.mul, sides)
}

// AesMmo is Matyas-Meyer-Oseas over AES-128 with fixed public keys: output j of seed
// s is AES-128(key j, s) XOR s.
type AesMmo struct {
	keys []*aes128.Key
}

// DefaultAesKeys are the AES-128 keys used when none are given: the ones the
// known-answer vectors were made with. A PRG with mul outputs uses the first mul.
var DefaultAesKeys = [4][16]byte{
	{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10},
	{0x10, 0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01},
	{0x01, 0x01, 0x02, 0x02, 0x03, 0x03, 0x04, 0x04, 0x05, 0x05, 0x06, 0x06, 0x07, 0x07, 0x08, 0x08},
	{0x08, 0x08, 0x07, 0x07, 0x06, 0x06, 0x05, 0x05, 0x04, 0x04, 0x03, 0x03, 0x02, 0x02, 0x01, 0x01},
}

// NewAesMmo returns the AES-128 MMO PRG with one output per key (1, 2 or 4 keys).
func NewAesMmo(keys [][16]byte) (*AesMmo, error) {
	if err := backendEnvError(); err != nil {
		return nil, err
	}
	if n := len(keys); n != 1 && n != 2 && n != 4 {
		return nil, ArgErrorf("aes128_mmo: needs 1, 2 or 4 AES keys, got %d", n)
	}
	p := &AesMmo{}
	for _, k := range keys {
		p.keys = append(p.keys, aes128.NewKey(k))
	}
	return p, nil
}

func (*AesMmo) Name() string { return "aes128_mmo" }

func (p *AesMmo) Mul() int { return len(p.keys) }

// Keys returns the public AES-128 keys, one per output.
func (p *AesMmo) Keys() [][16]byte {
	out := make([][16]byte, len(p.keys))
	for i, k := range p.keys {
		out[i] = k.Raw()
	}
	return out
}

func (p *AesMmo) Expand(dst, seeds []Block) {
	aes128.MMO(p.keys, blockBytes(dst), blockBytes(seeds))
}

func (p *AesMmo) ExpandSide(dst, seeds []Block, sides []uint8) {
	aes128.MMOSelect(p.keys, blockBytes(dst), blockBytes(seeds), sides)
}

// blockBytes views blocks as their memory image, the form the PRG backends take.
func blockBytes(b []Block) []byte {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*int(unsafe.Sizeof(Block{})))
}

// blockHalves views blocks as their words, each block's Lo then its Hi.
func blockHalves(b []Block) []uint64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice(&b[0].Lo, 2*len(b))
}

// PrgBackendInfo tells, per PRG, the implementation in use ("active"), those this
// CPU can run ("available", fastest first), and the walk implementation that a new
// DPF with the PRG gets ("walks", one of Impls()), so callers can see which fast
// path runs.
func PrgBackendInfo() map[string]map[string]any {
	info := map[string]map[string]any{
		"aes128_mmo": {"active": aes128.Backend(), "available": aes128.Backends()},
		"chacha":     {"active": chacha.Backend(), "available": chacha.Backends()},
	}
	for _, prg := range []PrgKind{PrgChaCha, PrgAesMmo} {
		s, err := New(DefaultParams(KindDpf, 20, Bytes, prg))
		if err != nil { // a PYFSS_*_BACKEND variable naming no backend here
			info[prg.String()]["error"] = err.Error()
			continue
		}
		info[prg.String()]["walks"] = s.Impl()
	}
	return info
}

// backendEnvError refuses to make a PRG when an environment variable named a PRG
// backend that does not exist or that this CPU cannot run (cpupath.EnvVar).
func backendEnvError() error {
	if err := cpupath.EnvError(); err != nil {
		return ArgErrorf("%v", err)
	}
	return nil
}
