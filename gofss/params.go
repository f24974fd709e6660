package gofss

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
)

// Kind names a scheme and, for a comparison, its predicate. It is the first field of
// Params and selects the key layout, the PRG's outputs per seed and the algorithm.
type Kind uint8

// The schemes.
const (
	KindDpf         Kind = iota // f(x) = beta if x == alpha (docs/spec.md section 4)
	KindDcfLt                   // f(x) = beta if x < alpha (section 5)
	KindDcfGt                   // f(x) = beta if x > alpha
	KindHalfTreeDpf             // f(x) = beta if x == alpha, one hash per tree level (section 11)
	KindGrottoDcf               // bit shares of x >= alpha, from DPF keys (section 12)
	KindVdpf                    // DPF with proofs that the keys are well formed (section 15)
	KindDmpf                    // f(alphas[j]) = betas[j]: Cuckoo buckets of DPF keys (section 16)
	KindVdmpf                   // DMPF with proofs: Cuckoo buckets of VDPF keys (section 16)
)

// The kinds' names, and their PRG outputs per seed.
var (
	kindNames = [...]string{KindDpf: "dpf", KindDcfLt: "dcf_lt", KindDcfGt: "dcf_gt",
		KindHalfTreeDpf: "half_tree_dpf", KindGrottoDcf: "grotto_dcf", KindVdpf: "vdpf", KindDmpf: "dmpf", KindVdmpf: "vdmpf"}
	kindMuls = [...]int{KindDpf: 2, KindDcfLt: 4, KindDcfGt: 4, KindHalfTreeDpf: 1, KindGrottoDcf: 2, KindVdpf: 2, KindDmpf: 2, KindVdmpf: 2}
)

func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Mul is the number of PRG output blocks per seed that the kind's trees use. It
// panics for a Kind that is not one of the constants above.
func (k Kind) Mul() int { return kindMuls[k] }

func (k Kind) valid() bool { return int(k) < len(kindNames) }

// PrgKind names a PRG (docs/spec.md section 3).
type PrgKind uint8

// The PRGs.
const (
	PrgChaCha PrgKind = iota // the reference's ChaCha variant; public parameter: a nonce
	PrgAesMmo                // AES-128 Matyas-Meyer-Oseas; public parameters: one key per output
)

var prgNames = [...]string{PrgChaCha: "chacha", PrgAesMmo: "aes128_mmo"}

func (p PrgKind) String() string {
	if int(p) < len(prgNames) {
		return prgNames[p]
	}
	return fmt.Sprintf("PrgKind(%d)", uint8(p))
}

// Limits of the parameters and calls.
const (
	// MaxInBits is the widest input: inputs are at most 128-bit integers.
	MaxInBits = 128
	// MaxEvalAllBits is the widest input that full-domain evaluation accepts, on
	// every device: 2^40 outputs are already 16 TiB. It is also the widest input of
	// grotto_dcf, whose preprocessed key holds a bit per input (2^40 bits: 128 GiB).
	MaxEvalAllBits = 40
	// MaxMpfPoints is the largest max_points of a multi-point scheme.
	MaxMpfPoints = 1 << 20
)

// DefaultHashKey is the public key of Half-Tree DPF's hash used when none is given:
// the one the known-answer vectors were made with.
var DefaultHashKey = Block{Lo: 0x9abcdef0_12345678, Hi: 0x2468ace0_13572468}

// Params are the public parameters of a key set: all that Gen and both parties' Eval
// must agree on besides the keys. They are defined here once; the Python binding,
// the CUDA launcher and the tests take them, and Python reads the names, defaults and
// limits from Catalogue.
type Params struct {
	Kind    Kind
	InBits  int // 1..MaxInBits
	Group   Group
	Prg     PrgKind
	Nonce   [2]uint32  // ChaCha only
	AesKeys [][16]byte // AES-128 MMO only: Kind.Mul() keys, one per output
	HashKey Block      // half_tree_dpf only: the key of its hash H(B) = prg(HashKey ^ B)
	Hash    VdpfHash   // vdpf only: its two keyed hashes (vdpf.go)
	// The multi-point schemes' (dmpf) most points per key and their buckets' input
	// width, at least DefaultBucketBits (docs/spec.md section 16); zero elsewhere.
	MaxPoints  int
	BucketBits int
}

// multiPoint reports whether the kind is a multi-point scheme.
func (k Kind) multiPoint() bool { return k == KindDmpf || k == KindVdmpf }

// verifiable reports whether the kind's keys come with proofs, and so a hash.
func (k Kind) verifiable() bool { return k == KindVdpf || k == KindVdmpf }

// owned returns p with AesKeys in memory of its own: schemes keep a copy, so that no
// caller's later change of its slice rewrites the parameters they report. (Params()
// hands out the scheme's own, without a copy on every call: copy AesKeys before
// changing them.)
func (p Params) owned() Params {
	p.AesKeys = slices.Clone(p.AesKeys)
	return p
}

// WithMaxPoints returns p with MaxPoints set and BucketBits at its default.
func (p Params) WithMaxPoints(maxPoints int) Params {
	p.MaxPoints, p.BucketBits = maxPoints, 0
	if maxPoints >= 1 && maxPoints <= MaxMpfPoints && p.InBits >= 1 && p.InBits <= MaxInBits {
		p.BucketBits = DefaultBucketBits(p.InBits, maxPoints)
	}
	return p
}

// DefaultParams are the parameters of the given scheme with the default public
// parameters: DefaultNonce, or the first Mul() of DefaultAesKeys, and for
// half_tree_dpf DefaultHashKey.
func DefaultParams(kind Kind, inBits int, group Group, prg PrgKind) Params {
	p := Params{Kind: kind, InBits: inBits, Group: group, Prg: prg}
	switch {
	case prg == PrgChaCha:
		p.Nonce = DefaultNonce
	case kind.valid():
		p.AesKeys = slices.Clone(DefaultAesKeys[:kind.Mul()]) // the caller's to change
	}
	if kind == KindHalfTreeDpf {
		p.HashKey = DefaultHashKey
	}
	if kind.verifiable() {
		p.Hash = DefaultVdpfHash(HashSha256)
	}
	return p
}

// CwRows is the number of correction words (32-byte rows) of one key: in_bits + 1
// for the DPF, DCF and Grotto layouts, and for Half-Tree DPF the in_bits + 1 blocks
// of its key two to a row, the last row padded with a zero block when in_bits is
// even (docs/spec.md section 11).
func (p Params) CwRows() int { return p.cwRows() }

// cwRows is CwRows without a copy of p (a Params is about 120 bytes), for the
// calls that every Gen and Eval makes.
func (p *Params) cwRows() int {
	switch p.Kind {
	case KindHalfTreeDpf:
		return (p.InBits + 2) / 2
	case KindVdpf:
		return p.InBits + vdpfExtraRows
	case KindDmpf:
		return 1 + p.Buckets()*(p.BucketBits+1)
	case KindVdmpf:
		return 1 + p.Buckets()*(p.BucketBits+vdpfExtraRows)
	}
	return p.InBits + 1
}

// Check refuses parameters that no scheme has.
func (p Params) Check() error {
	if !p.Kind.valid() {
		return ArgErrorf("scheme must be one of %s, not %v", strings.Join(kindNames[:], ", "), p.Kind)
	}
	if p.InBits < 1 || p.InBits > MaxInBits {
		return ArgErrorf("in_bits must be between 1 and %d, not %d", MaxInBits, p.InBits)
	}
	if !p.Group.valid() {
		return ArgErrorf("group must be one of %s, not %v", strings.Join(groupNames[:], ", "), p.Group)
	}
	if p.Kind == KindGrottoDcf {
		if p.Group != Bytes {
			return ArgErrorf("group: grotto_dcf outputs bit shares over DPF keys of group bytes, not %v", p.Group)
		}
		if p.InBits > MaxEvalAllBits {
			return ArgErrorf("in_bits must be between 1 and %d for grotto_dcf (a preprocessed key holds a bit per input), not %d", MaxEvalAllBits, p.InBits)
		}
	}
	if err := p.checkMultiPoint(); err != nil {
		return err
	}
	if p.Kind != KindHalfTreeDpf && !p.HashKey.IsZero() {
		return ArgErrorf("hash_key is a parameter of half_tree_dpf, not of %s", p.Kind)
	}
	if err := p.Hash.check(p.Kind); err != nil {
		return err
	}
	switch p.Prg {
	case PrgChaCha:
		if p.AesKeys != nil {
			return ArgErrorf("aes_keys are a parameter of aes128_mmo, not of chacha")
		}
	case PrgAesMmo:
		if p.Nonce != ([2]uint32{}) {
			return ArgErrorf("nonce is a parameter of chacha, not of aes128_mmo")
		}
		if len(p.AesKeys) != p.Kind.Mul() {
			return ArgErrorf("aes_keys: %s with aes128_mmo needs %d AES keys, not %d", p.Kind, p.Kind.Mul(), len(p.AesKeys))
		}
	default:
		return ArgErrorf("prg must be one of %s, not %v", strings.Join(prgNames[:], ", "), p.Prg)
	}
	return nil
}

// NewPrg makes the PRG the parameters name, with Kind.Mul() outputs per seed.
func (p Params) NewPrg() (Prg, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if p.Prg == PrgAesMmo {
		return NewAesMmo(p.AesKeys)
	}
	return NewChaCha(p.Kind.Mul(), p.Nonce)
}

// paramsJSON is the JSON form of Params: names for the enumerations, the nonce and
// the hash key as 32-bit words (int32 or uint32 range, as Python and the vectors
// write them), the AES keys in hex. A PRG's parameters that do not apply are null;
// the hash key, written only for half_tree_dpf, is left out elsewhere.
type paramsJSON struct {
	Scheme  string        `json:"scheme"`
	InBits  int           `json:"in_bits"`
	Group   string        `json:"group"`
	Prg     string        `json:"prg"`
	Nonce   []int64       `json:"nonce"`
	AesKeys []string      `json:"aes_keys"`
	HashKey []int64       `json:"hash_key,omitempty"`
	Hash    *vdpfHashJSON `json:"hash,omitempty"`
	// Multi-point schemes only.
	MaxPoints  int `json:"max_points,omitempty"`
	BucketBits int `json:"bucket_bits,omitempty"`
}

// MarshalJSON writes the parameters as ParseParams reads them.
func (p Params) MarshalJSON() ([]byte, error) {
	j := paramsJSON{Scheme: p.Kind.String(), InBits: p.InBits, Group: p.Group.String(), Prg: p.Prg.String(),
		MaxPoints: p.MaxPoints, BucketBits: p.BucketBits}
	if p.Prg == PrgChaCha {
		j.Nonce = []int64{int64(int32(p.Nonce[0])), int64(int32(p.Nonce[1]))}
	}
	for _, k := range p.AesKeys {
		j.AesKeys = append(j.AesKeys, hex.EncodeToString(k[:]))
	}
	if p.Kind == KindHalfTreeDpf {
		w := blockWords(p.HashKey)
		j.HashKey = w[:]
	}
	if p.Kind.verifiable() {
		j.Hash = p.Hash.toJSON()
	}
	return json.Marshal(j)
}

// blockWords are a block's four words as int32 values, the form the JSON writes.
func blockWords(b Block) [4]int64 {
	return [4]int64{int64(int32(b.Lo)), int64(int32(b.Lo >> 32)), int64(int32(b.Hi)), int64(int32(b.Hi >> 32))}
}

// parseWord reads a 32-bit word written in the int32 or the uint32 range.
func parseWord(what string, w int64) (uint32, error) {
	if w < math.MinInt32 || w > math.MaxUint32 {
		return 0, ArgErrorf("%s words must fit in 32 bits, not %d", what, w)
	}
	return uint32(w), nil
}

// ParseParams reads parameters in the JSON form of MarshalJSON. A missing nonce,
// missing AES keys or a missing hash key take the defaults, and grotto_dcf's group
// may be left out (it is always bytes); fields of the other PRG, and a hash key
// for a scheme other than half_tree_dpf, must be absent or null. vdpf's hash
// without its keys takes the default keys of that hash.
func ParseParams(data []byte) (Params, error) {
	var j paramsJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a misspelt field would otherwise take its default without a word
	if err := dec.Decode(&j); err != nil {
		return Params{}, ArgErrorf("params: %v", err)
	}
	if dec.More() {
		return Params{}, ArgErrorf("params: data after the object")
	}
	var p Params
	var kind, group, prg uint8
	var err error
	if kind, err = parseName("scheme", j.Scheme, kindNames[:]); err != nil {
		return p, err
	}
	if j.Group == "" && Kind(kind) == KindGrottoDcf {
		j.Group = Bytes.String()
	}
	if group, err = parseName("group", j.Group, groupNames[:]); err != nil {
		return p, err
	}
	if prg, err = parseName("prg", j.Prg, prgNames[:]); err != nil {
		return p, err
	}
	p.Kind, p.Group, p.Prg = Kind(kind), Group(group), PrgKind(prg)
	p = DefaultParams(p.Kind, j.InBits, p.Group, p.Prg)
	if j.Nonce != nil {
		if p.Prg != PrgChaCha {
			return p, ArgErrorf("nonce is a parameter of chacha, not of %s", p.Prg)
		}
		if len(j.Nonce) != 2 {
			return p, ArgErrorf("nonce must be two 32-bit words, not %d", len(j.Nonce))
		}
		for i, w := range j.Nonce {
			if p.Nonce[i], err = parseWord("nonce", w); err != nil {
				return p, err
			}
		}
	}
	if j.HashKey != nil {
		if p.Kind != KindHalfTreeDpf {
			return p, ArgErrorf("hash_key is a parameter of half_tree_dpf, not of %s", p.Kind)
		}
		if len(j.HashKey) != 4 {
			return p, ArgErrorf("hash_key must be a block of 4 words, not %d", len(j.HashKey))
		}
		var w [4]uint32
		for i, v := range j.HashKey {
			if w[i], err = parseWord("hash_key", v); err != nil {
				return p, err
			}
		}
		p.HashKey = Block{Lo: uint64(w[1])<<32 | uint64(w[0]), Hi: uint64(w[3])<<32 | uint64(w[2])}
	}
	if j.MaxPoints != 0 || j.BucketBits != 0 {
		if !p.Kind.multiPoint() {
			return p, ArgErrorf("max_points and bucket_bits are parameters of the multi-point schemes, not of %s", p.Kind)
		}
		p = p.WithMaxPoints(j.MaxPoints)
		if j.BucketBits != 0 {
			p.BucketBits = j.BucketBits
		}
	}
	if j.Hash != nil {
		if !p.Kind.verifiable() {
			return p, ArgErrorf("hash is a parameter of vdpf, not of %s", p.Kind)
		}
		if p.Hash, err = j.Hash.parse(); err != nil {
			return p, err
		}
	}
	if j.AesKeys != nil {
		if p.Prg != PrgAesMmo {
			return p, ArgErrorf("aes_keys are a parameter of aes128_mmo, not of %s", p.Prg)
		}
		p.AesKeys = make([][16]byte, len(j.AesKeys))
		for i, h := range j.AesKeys {
			b, err := hex.DecodeString(h)
			if err != nil || len(b) != 16 {
				return p, ArgErrorf("aes_keys must be 16-byte keys in hex, not %q", h)
			}
			p.AesKeys[i] = [16]byte(b)
		}
	}
	return p, p.Check()
}

// Catalogue describes what Params can hold, for bindings that let users name the
// parameters: the schemes with their PRG outputs per seed (and half_tree_dpf's
// default hash key, grotto_dcf's one group and input limit), the groups, the PRGs
// with their default public parameters, and the limits.
func Catalogue() map[string]any {
	schemes := map[string]any{}
	for k, name := range kindNames {
		schemes[name] = map[string]any{"mul": kindMuls[k]}
	}
	schemes[KindHalfTreeDpf.String()].(map[string]any)["default_hash_key"] = blockWords(DefaultHashKey)
	grotto := schemes[KindGrottoDcf.String()].(map[string]any)
	grotto["groups"], grotto["max_in_bits"] = []string{Bytes.String()}, MaxEvalAllBits
	schemes[KindDmpf.String()].(map[string]any)["max_max_points"] = MaxMpfPoints
	schemes[KindVdmpf.String()].(map[string]any)["max_max_points"] = MaxMpfPoints
	hashes := map[string]any{
		HashSha256.String(): DefaultVdpfHash(HashSha256).toJSON(), HashBlake3.String(): DefaultVdpfHash(HashBlake3).toJSON()}
	schemes[KindVdpf.String()].(map[string]any)["default_hashes"] = hashes
	schemes[KindVdmpf.String()].(map[string]any)["default_hashes"] = hashes
	aesKeys := make([]string, len(DefaultAesKeys))
	for i, k := range DefaultAesKeys {
		aesKeys[i] = hex.EncodeToString(k[:])
	}
	return map[string]any{
		"schemes": schemes,
		"groups":  groupNames,
		"prgs": map[string]any{
			"chacha":     map[string]any{"default_nonce": [2]int64{int64(int32(DefaultNonce[0])), int64(int32(DefaultNonce[1]))}},
			"aes128_mmo": map[string]any{"default_aes_keys": aesKeys},
		},
		"limits": map[string]int{"max_in_bits": MaxInBits, "max_eval_all_bits": MaxEvalAllBits},
	}
}

// parseName returns the index of name in names.
func parseName(what, name string, names []string) (uint8, error) {
	for i, n := range names {
		if n == name {
			return uint8(i), nil
		}
	}
	return 0, ArgErrorf("%s must be one of %s, not %q", what, strings.Join(names, ", "), name)
}

// DefaultBucketBits is the input width of the buckets of a multi-point key for up
// to maxPoints points: the least that holds ceil(3·2^inBits / ChBucket(maxPoints))
// values (at most 128).
func DefaultBucketBits(inBits, maxPoints int) int {
	size := ceilDiv(hashedDomain(inBits), big.NewInt(int64(chBuckets(maxPoints))))
	return min(MaxInBits, max(1, size.Sub(size, big.NewInt(1)).BitLen()))
}

// Buckets is the number of buckets, and inner keys, of a multi-point key: m =
// ChBucket(MaxPoints), or more where BucketBits is too narrow for that.
func (p Params) Buckets() int { return mpfBuckets(p.InBits, p.MaxPoints, p.BucketBits) }

// mpfBuckets is the number of buckets used for t points: ChBucket(t), or the least
// number of buckets of 2^bucketBits values that hold every hashed value if that is
// more.
func mpfBuckets(inBits, t, bucketBits int) int {
	return max(chBuckets(t), minBuckets(inBits, bucketBits))
}

// checkMultiPoint checks max_points and bucket_bits: set for the multi-point
// schemes only.
func (p Params) checkMultiPoint() error {
	if !p.Kind.multiPoint() {
		if p.MaxPoints != 0 || p.BucketBits != 0 {
			return ArgErrorf("max_points and bucket_bits are parameters of the multi-point schemes, not of %s", p.Kind)
		}
		return nil
	}
	if p.MaxPoints < 1 || p.MaxPoints > MaxMpfPoints {
		return ArgErrorf("max_points must be between 1 and %d, not %d", MaxMpfPoints, p.MaxPoints)
	}
	if least := DefaultBucketBits(p.InBits, p.MaxPoints); p.BucketBits < least || p.BucketBits > MaxInBits {
		return ArgErrorf("bucket_bits must be between %d (for in_bits %d and max_points %d) and %d, not %d", least, p.InBits, p.MaxPoints, MaxInBits, p.BucketBits)
	}
	return nil
}
