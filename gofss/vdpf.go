package gofss

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"unsafe"

	"github.com/pyfss/pyfss/gofss/internal/hashes"
)

// Vdpf is the verifiable DPF of de Castro and Polychroniadou (EUROCRYPT 2022): a DPF
// whose parties also get proof pieces from Eval and a proof from Prove (or
// EvalAllProof); equal proofs from both parties, over the same points, show that the
// keys were well formed. See docs/spec.md section 15.
//
// Its tree is DPF's, walked by DPF's walks of the chosen implementation (portable,
// or with aes128_mmo the fused AVX2 walks and one-key AES-NI walks, see
// vdpf_amd64.go), which hand the leaves' seeds and control bits to the hashes; a key
// is DPF's key (n level rows, then the output correction word) followed by two rows
// holding the correction cs of the proofs: R = in_bits + 3 rows. Vdpf is a Scheme:
// Gen, and Eval and EvalAll giving the shares alone; the methods below add the
// proofs.
type Vdpf struct {
	treeScheme
	dpf    *Dpf          // DPF's portable walks over this scheme's keys (its params are the VDPF's)
	xh, hp *hashes.Keyed // the XOR-collision-resistant XH and the plain H'
}

// proofWalks is what an implementation's walks of a VDPF add to DPF's: EvalProof's
// walk, which checks the correction words as walkEval does.
type proofWalks interface {
	walkEvalProof(st callControl, dst, pieces []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error
}

// vdpfExtraRows are the rows of a VDPF key after its n level rows: the output
// correction word, then cs (four blocks).
const vdpfExtraRows = 3

// ProofBlocks is the size of a proof and of a proof piece, in blocks.
const ProofBlocks = 4

// HashKind names the hash of a VDPF.
type HashKind uint8

// The hashes; the zero HashKind is none (every scheme but vdpf).
const (
	HashSha256 HashKind = iota + 1 // SHA-256, the key as a 16-byte prefix of the message
	HashBlake3                     // BLAKE3's keyed hash
)

var hashNames = [...]string{HashSha256: "sha256", HashBlake3: "blake3"}

func (h HashKind) String() string {
	if h.valid() {
		return hashNames[h]
	}
	return "none"
}

func (h HashKind) valid() bool { return h >= HashSha256 && int(h) < len(hashNames) }

// VdpfHash is the hash parameter of a VDPF: the hash function and the public keys of
// its two instances, XH (XorKey) and H' (Key). SHA-256 is keyed with one block (the
// second block of each key is zero), BLAKE3 with two (its 32-byte key).
type VdpfHash struct {
	Kind        HashKind
	XorKey, Key [2]Block
}

// DefaultVdpfHash is the given hash with the keys the known-answer vectors were made
// with.
func DefaultVdpfHash(kind HashKind) VdpfHash {
	if kind == HashBlake3 {
		return VdpfHash{Kind: kind,
			XorKey: [2]Block{{Lo: 0x22222222_11111111, Hi: 0x44444444_33333333}, {Lo: 0x66666666_55555555, Hi: 0x88888888_77777777}},
			Key:    [2]Block{{Lo: 0xe5f60718_a1b2c3d4, Hi: 0x5d6e7f80_192a3b4c}, {Lo: 0xd5e6f708_91a2b3c4, Hi: 0x0d0e0f10_090a0b0c}}}
	}
	return VdpfHash{Kind: kind,
		XorKey: [2]Block{{Lo: 0x9abcdef0_12345678, Hi: 0x2468ace0_13572468}},
		Key:    [2]Block{{Lo: 0x87654321_0fedcba9, Hi: 0x13572468_2468ace0}}}
}

// check refuses a hash that the scheme kind cannot have: vdpf needs one, every other
// kind none.
func (h VdpfHash) check(kind Kind) error {
	if !kind.verifiable() {
		if h != (VdpfHash{}) {
			return ArgErrorf("hash is a parameter of vdpf, not of %s", kind)
		}
		return nil
	}
	if !h.Kind.valid() {
		return ArgErrorf("hash must be one of %s, not %v", strings.Join(hashNames[1:], ", "), h.Kind)
	}
	if h.Kind == HashSha256 && !(h.XorKey[1].IsZero() && h.Key[1].IsZero()) {
		return ArgErrorf("hash: sha256 is keyed with one block per instance; the second must be zero")
	}
	return nil
}

// keyed makes the hash's instance with key k.
func (h VdpfHash) keyed(k [2]Block) *hashes.Keyed {
	kind, n := hashes.Sha256, 16
	if h.Kind == HashBlake3 {
		kind, n = hashes.Blake3, 32
	}
	b0, b1 := k[0].Bytes(), k[1].Bytes()
	out, err := hashes.New(kind, append(b0[:], b1[:]...)[:n])
	if err != nil {
		panic(err) // the kind and the length are right by construction
	}
	return out
}

// vdpfHashJSON is VdpfHash's JSON form, the vectors' "hash" header: sha256 with
// xor_hash_key and hash_key (a block of 4 words each), blake3 with xor_hash_iv and
// hash_iv (two blocks each). Keys left out take the defaults.
type vdpfHashJSON struct {
	Name       string    `json:"name"`
	XorHashKey []int64   `json:"xor_hash_key,omitempty"`
	HashKey    []int64   `json:"hash_key,omitempty"`
	XorHashIV  [][]int64 `json:"xor_hash_iv,omitempty"`
	HashIV     [][]int64 `json:"hash_iv,omitempty"`
}

// UnmarshalJSON refuses fields other than the hash's name and keys: a misspelt key
// would otherwise take its default without a word.
func (j *vdpfHashJSON) UnmarshalJSON(b []byte) error {
	type plain vdpfHashJSON // without this method
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(j)); err != nil {
		return ArgErrorf("hash: %v", err)
	}
	return nil
}

func (h VdpfHash) toJSON() *vdpfHashJSON {
	j := &vdpfHashJSON{Name: h.Kind.String()}
	words := func(b Block) []int64 { w := blockWords(b); return w[:] }
	if h.Kind == HashSha256 {
		j.XorHashKey, j.HashKey = words(h.XorKey[0]), words(h.Key[0])
	} else {
		j.XorHashIV = [][]int64{words(h.XorKey[0]), words(h.XorKey[1])}
		j.HashIV = [][]int64{words(h.Key[0]), words(h.Key[1])}
	}
	return j
}

func (j *vdpfHashJSON) parse() (VdpfHash, error) {
	kind, err := parseName("hash", j.Name, hashNames[1:])
	if err != nil {
		return VdpfHash{}, err
	}
	h := DefaultVdpfHash(HashKind(kind + 1))
	sha := h.Kind == HashSha256
	if sha && (j.XorHashIV != nil || j.HashIV != nil) || !sha && (j.XorHashKey != nil || j.HashKey != nil) {
		return h, ArgErrorf("hash: sha256 takes xor_hash_key and hash_key (a block each), blake3 xor_hash_iv and hash_iv (two blocks each)")
	}
	for _, f := range []struct {
		name   string
		blocks [][]int64
		dst    *[2]Block
	}{
		{"xor_hash_key", [][]int64{j.XorHashKey}, &h.XorKey},
		{"hash_key", [][]int64{j.HashKey}, &h.Key},
		{"xor_hash_iv", j.XorHashIV, &h.XorKey},
		{"hash_iv", j.HashIV, &h.Key},
	} {
		if f.blocks == nil || len(f.blocks) == 1 && f.blocks[0] == nil {
			continue // the default
		}
		if f.name == "xor_hash_iv" || f.name == "hash_iv" {
			if len(f.blocks) != 2 {
				return h, ArgErrorf("hash: %s must be two blocks, not %d", f.name, len(f.blocks))
			}
		}
		for i, w := range f.blocks {
			if f.dst[i], err = wordsBlock("hash: "+f.name, w); err != nil {
				return h, err
			}
		}
	}
	return h, nil
}

// wordsBlock reads a block from its four 32-bit words (int32 or uint32 range).
func wordsBlock(what string, w []int64) (Block, error) {
	if len(w) != 4 {
		return Block{}, ArgErrorf("%s must be a block of 4 words, not %d", what, len(w))
	}
	var u [4]uint32
	for i, v := range w {
		var err error
		if u[i], err = parseWord(what, v); err != nil {
			return Block{}, err
		}
	}
	return Block{Lo: uint64(u[1])<<32 | uint64(u[0]), Hi: uint64(u[3])<<32 | uint64(u[2])}, nil
}

// NewVdpf makes a VDPF over prg, which must have two outputs per seed (NewChaCha or
// NewAesMmo), with the given hash; New makes the same from Params.
func NewVdpf(inBits int, group Group, prg Prg, hash VdpfHash, opts ...Option) (*Vdpf, error) {
	p, err := paramsFor(KindVdpf, inBits, group, prg, hash)
	if err != nil {
		return nil, err
	}
	return newVdpf(p, prg, opts)
}

func newVdpf(p Params, prg Prg, opts []Option) (*Vdpf, error) {
	v := &Vdpf{
		treeScheme: treeScheme{params: p.owned(), prg: prg},
		dpf:        &Dpf{treeScheme{params: p.owned(), prg: prg}},
		xh:         p.Hash.keyed(p.Hash.XorKey),
		hp:         p.Hash.keyed(p.Hash.Key),
	}
	err := v.chooseWalks(opts, func(im impl) walks {
		if im.name == PortableImpl {
			return v
		}
		return v.archWalks(im)
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// WithControl returns the scheme with calls that c watches and ends, the proof
// operations included.
func (v *Vdpf) WithControl(c *Control) Scheme {
	cp := *v
	cp.ctl = callControl{c: c}
	return &cp
}

// The portable walks: DPF's, with Gen adding cs to each key.

func (v *Vdpf) checkCws(cws []Cw) error { return v.dpf.checkCws(cws) }

func (v *Vdpf) walkGen(st callControl, cws []Cw, s0s []Block, alphas []Uint128, betas []Block) {
	v.dpf.genKeys(st, cws, s0s, alphas, betas, v)
}

func (v *Vdpf) walkEval(st callControl, dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	return v.dpf.walkEval(st, dst, party, s0s, cws, xs, m)
}

func (v *Vdpf) walkEvalAll(place outputs, party int, s0s []Block, cws []Cw) tree {
	return v.dpf.walkEvalAll(place, party, s0s, cws)
}

// tailGroup is the keys whose XH tailRows hashes in one call: with BLAKE3 on
// AVX-512 their 4 messages each go through the hash 16 lanes at a time.
const tailGroup = 64

// tailRows is VDPF's keyTail: rows n+1 and n+2 of each key hold cs = XH(alpha, s0)
// ^ XH(alpha, s1), Pack(alpha) being alpha's 16 little-endian bytes whatever the
// input type (the words above in_bits are zero).
func (v *Vdpf) tailRows(cws []Cw, alphas []Uint128, leaves []Block) {
	n, rows := v.params.InBits, v.params.cwRows()
	h := v.xh.Get()
	defer h.Put()
	// Room from the scratch pool: arrays declared here were zeroed on every call,
	// a tenth of a one-key Gen.
	sc := getScratch()
	defer sc.release()
	g := min(len(alphas), tailGroup)
	as, xh := sc.block(2*g), proofImages(sc.block(2*ProofBlocks*g))
	for lo := 0; lo < len(alphas); lo += tailGroup {
		group := alphas[lo:min(len(alphas), lo+tailGroup)]
		for j, a := range group {
			as[2*j], as[2*j+1] = Block(a), Block(a)
		}
		out := xh[:2*len(group)]
		h.XorHashMany(out, images(as[:len(out)]), images(leaves[2*lo:][:len(out)]))
		for j := range group {
			key, c0, c1 := cws[(lo+j)*rows:], &out[2*j], &out[2*j+1]
			for i := range ProofBlocks {
				c := getBlock(c0[16*i:]).Xor(getBlock(c1[16*i:]))
				key[n+1+i/2][i%2] = c
			}
		}
	}
}

// putBlock writes b's memory image to dst[:16], and getBlock reads it back: the
// hashes' messages are built in place, without a copy per block.
func putBlock(dst []byte, b Block) {
	binary.LittleEndian.PutUint64(dst, b.Lo)
	binary.LittleEndian.PutUint64(dst[8:], b.Hi)
}

func getBlock(src []byte) Block {
	return Block{binary.LittleEndian.Uint64(src), binary.LittleEndian.Uint64(src[8:])}
}

// keyCs is cs of the key whose rows start at key.
func keyCs(key []Cw, n int) [ProofBlocks]Block {
	return [ProofBlocks]Block{key[n+1][0], key[n+1][1], key[n+2][0], key[n+2][1]}
}

// images views blocks or inputs as their memory images, which the hashes take:
// Pack(x) and a seed's bytes are those images on the little-endian CPUs the project
// runs on (as blockBytes), so no message is copied block by block.
func images[T Block | Uint128](b []T) [][16]byte {
	return unsafe.Slice((*[16]byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// proofImage is the memory image of a proof, proof piece or cs (ProofBlocks
// blocks), and proofImages that of consecutive ones.
func proofImage(p *[ProofBlocks]Block) *[16 * ProofBlocks]byte {
	return (*[16 * ProofBlocks]byte)(unsafe.Pointer(p))
}

func proofImages(p []Block) [][16 * ProofBlocks]byte {
	return unsafe.Slice((*[16 * ProofBlocks]byte)(unsafe.Pointer(unsafe.SliceData(p))), len(p)/ProofBlocks)
}

// EvalProof is Eval that also writes each point's proof piece: ProofBlocks blocks
// per point, point j's at pieces[ProofBlocks*j:].
func (v *Vdpf) EvalProof(dst, pieces []Block, party int, s0s []Block, cws []Cw, xs []Uint128) error {
	m, err := checkEvalArgs(&v.params, dst, party, s0s, cws, xs)
	if err != nil {
		return err
	}
	if len(pieces) != ProofBlocks*len(xs) {
		return ArgErrorf("pieces must hold %d blocks per point (%d), not %d", ProofBlocks, ProofBlocks*len(xs), len(pieces))
	}
	if err := v.walks.(proofWalks).walkEvalProof(v.ctl, dst, pieces, party, s0s, cws, xs, m); err != nil {
		return err
	}
	return v.ctl.err()
}

// walkEvalProof is the portable EvalProof: DPF's batched descent, then the leaves.
func (v *Vdpf) walkEvalProof(st callControl, dst, pieces []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m int) error {
	if err := v.checkCws(cws); err != nil {
		return err
	}
	evalPoints(vdpfPoints{v, pieces}, st, v.params.InBits, 1, dst, party, s0s, cws, xs, m)
	return nil
}

// vdpfPoints walks tiles of EvalProof's points: DPF's descent, then each leaf's share
// and proof piece.
type vdpfPoints struct {
	v      *Vdpf
	pieces []Block
}

func (w vdpfPoints) evalTile(dst []Block, party int, s0s []Block, cws []Cw, xs []Uint128, m, j0 int, st *evalState) {
	s, t, base := w.v.dpf.descend(len(dst), party, s0s, cws, xs, m, j0, st)
	w.leaves(dst, party, cws, xs, j0, s, t, base)
}

// leaves writes the shares and proof pieces of points j0 .. j0+len(dst)-1, whose
// leaves have seeds s and control bits t and whose keys' rows start at base.
func (w vdpfPoints) leaves(dst []Block, party int, cws []Cw, xs []Uint128, j0 int, s []Block, t []uint8, base []int) {
	n, ar := w.v.params.InBits, w.v.params.Group.arith()
	// XH of all the points in one call (BLAKE3 compresses eight messages at
	// once), then each piece takes cs where its control bit is set.
	pieces := w.pieces[ProofBlocks*j0 : ProofBlocks*(j0+len(dst))]
	h := w.v.xh.Get()
	h.XorHashMany(proofImages(pieces), images(xs[j0:j0+len(dst)]), images(s))
	h.Put()
	for j := range dst {
		key := cws[base[j]:]
		dst[j] = dpfLeaf(ar, s[j], t[j], ar.from(key[n][0]), party)
		cs := keyCs(key, n)
		for i, c := range cs {
			pieces[ProofBlocks*j+i] = pieces[ProofBlocks*j+i].Xor(mask(c, t[j]))
		}
	}
}

// Prove makes the proofs of K = len(cws)/R keys from their proof pieces at M =
// len(pieces)/(ProofBlocks*K) points each, in the order they were evaluated: key k's
// proof, at pis[ProofBlocks*k:], starts as its cs and takes ProofStep with each of
// its pieces in turn.
func (v *Vdpf) Prove(pis, pieces []Block, cws []Cw) error {
	rows := v.params.cwRows()
	if len(cws)%rows != 0 {
		return ArgErrorf("cws must hold whole keys of %d rows, not %d rows", rows, len(cws))
	}
	k := len(cws) / rows
	if len(pis) != ProofBlocks*k {
		return ArgErrorf("pis must hold %d blocks per key (%d), not %d", ProofBlocks, ProofBlocks*k, len(pis))
	}
	if k == 0 && len(pieces) > 0 || k > 0 && len(pieces)%(ProofBlocks*k) != 0 {
		return ArgErrorf("pieces must hold the same number of proof pieces (%d blocks each) for each of the %d keys, not %d blocks", ProofBlocks, k, len(pieces))
	}
	if k == 0 {
		return nil
	}
	per := len(pieces) / k
	if span(pis).overlaps(span(pieces)) {
		pieces = slices.Clone(pieces) // proveGroups writes cs into pis before it reads the pieces
	}
	size := laneGroup(k)
	forChunks((k+size-1)/size, float64(size*per)*100, func(lo, hi int) {
		v.proveGroups(pis, pieces, cws, per, size, lo, hi)
	})
	return v.ctl.err()
}

// proveGroups is Prove of the keys of groups lo .. hi-1 of size (at most
// proveLanes) keys, per blocks of pieces each: the chains of a group step together
// (their H' side by side: BLAKE3 eight at once, SHA-256 two), so that work spread
// over goroutines goes a whole group at a time.
func (v *Vdpf) proveGroups(pis, pieces []Block, cws []Cw, per, size, lo, hi int) {
	rows := v.params.cwRows()
	k := len(cws) / rows
	h := v.hp.Get()
	defer h.Put()
	var proofs [proveLanes]*[16 * ProofBlocks]byte
	for g := lo * size; g < min(k, hi*size) && !v.ctl.stopped(); g += size {
		keys := min(size, k-g)
		for i := range keys {
			pi := (*[ProofBlocks]Block)(pis[ProofBlocks*(g+i):])
			*pi = keyCs(cws[(g+i)*rows:], v.params.InBits)
			proofs[i] = proofImage(pi)
		}
		chains, steps := proofImages(pieces[g*per:(g+keys)*per]), per/ProofBlocks
		for j := 0; j < steps && !v.ctl.stopped(); j += proveSpan {
			h.StepChains(proofs[:keys], chains[j:], min(proveSpan, steps-j), steps)
		}
		v.ctl.advance(keys)
	}
}

// proveSpan is how many pieces of each chain Prove takes between two looks at its
// stop flag: a few milliseconds of hashing, so that a stop ends one long chain soon.
const proveSpan = 1 << 12

// proveLanes is how many keys' proof chains Prove steps together: BLAKE3's
// compressions go eight at a time.
const proveLanes = 8

// laneGroup is how many of keys keys' chains step side by side: up to proveLanes,
// fewer where groups that large would leave workers idle.
func laneGroup(keys int) int { return min(proveLanes, (keys+Workers()-1)/Workers()) }

// ProofStep takes one proof piece into a proof: h = H'(pi ^ piece), then pi[0] ^=
// h[0] and pi[1] ^= h[1]; pi[2] and pi[3] stay as they are.
func (v *Vdpf) ProofStep(pi *[ProofBlocks]Block, piece *[ProofBlocks]Block) {
	h := v.hp.Get()
	defer h.Put()
	proofStep(h, pi, piece)
}

func proofStep(h *hashes.Hasher, pi, piece *[ProofBlocks]Block) {
	var m [16 * ProofBlocks]byte
	for i := range pi {
		putBlock(m[16*i:], pi[i].Xor(piece[i]))
	}
	var o [32]byte
	h.H(&o, &m)
	pi[0] = pi[0].Xor(getBlock(o[:16]))
	pi[1] = pi[1].Xor(getBlock(o[16:]))
}

// Hash is H'(m): four blocks hashed to two, with the scheme's hash key.
func (v *Vdpf) Hash(m [ProofBlocks]Block) [2]Block {
	h := v.hp.Get()
	defer h.Put()
	var in [16 * ProofBlocks]byte
	for i, b := range m {
		img := b.Bytes()
		copy(in[16*i:], img[:])
	}
	var o [32]byte
	h.H(&o, &in)
	return [2]Block{BlockFromBytes([16]byte(o[:16])), BlockFromBytes([16]byte(o[16:]))}
}

// EvalPoint evaluates one key of party at one point: its share and proof piece.
// key holds the key's R rows.
func (v *Vdpf) EvalPoint(party int, seed Block, key []Cw, x Uint128) (Block, [ProofBlocks]Block, error) {
	var y [1]Block
	var p [ProofBlocks]Block
	err := v.EvalProof(y[:], p[:], party, []Block{seed}, key, []Uint128{x})
	return y[0], p, err
}

// EvalAllProof is EvalAll that also writes each key's proof over its whole domain,
// x = 0 .. 2^n - 1 in order, at pis[ProofBlocks*k:]. The proof chain of a key is
// sequential, so keys, not parts of one domain, spread over goroutines. Where the
// hash has lanes (BLAKE3 with AVX2) and there are keys enough, the keys go in
// groups of up to eight whose trees are walked tile by tile in step, and their
// chains step side by side, one key per lane (chainGroup).
func (v *Vdpf) EvalAllProof(dst, pis []Block, party int, s0s []Block, cws []Cw) error {
	if err := checkEvalAllArgs(&v.params, dst, party, s0s, cws); err != nil {
		return err
	}
	if len(pis) != ProofBlocks*len(s0s) {
		return ArgErrorf("pis must hold %d blocks per key (%d), not %d", ProofBlocks, ProofBlocks*len(s0s), len(pis))
	}
	if err := v.checkCws(cws); err != nil {
		return err
	}
	n, rows := v.params.InBits, v.params.cwRows()
	for k := range s0s {
		*(*[ProofBlocks]Block)(pis[ProofBlocks*k:]) = keyCs(cws[k*rows:], n)
	}
	tr, shape, expand := v.allLeaves(dst, party, s0s, cws)
	if size := v.chainGroup(len(s0s)); size > 1 {
		tr.runGroups(v.ctl, len(s0s), size, func(sc *scratch, m int) func(k0, x0 int, lasts []nodes, raw []Block) {
			// The group's leaves: key i's seeds and control bits m entries after
			// key i-1's, as ChainLanes takes them.
			all, xs := newNodes(sc, size*m, shape), sc.block(m)
			proofs, css, cs := make([]*[16 * ProofBlocks]byte, size), make([]*[16 * ProofBlocks]byte, size), make([][ProofBlocks]Block, size)
			return func(k0, x0 int, lasts []nodes, raw []Block) {
				g := len(lasts)
				for i, in := range lasts {
					k := k0 + i
					expand(all.slice(i*m, (i+1)*m), k, x0, in, raw)
					cs[i] = keyCs(cws[k*rows:], n)
					proofs[i], css[i] = proofImage((*[ProofBlocks]Block)(pis[ProofBlocks*k:])), proofImage(&cs[i])
				}
				xh, hp := v.xh.Get(), v.hp.Get()
				hp.ChainLanes(proofs[:g], xh, leafInputs(xs[:2*len(lasts[0].s)], x0), images(all.s), all.t, m, css[:g])
				xh.Put()
				hp.Put()
			}
		})
		return v.ctl.err()
	}
	tr.leaves = func(k, x0 int, in nodes, raw []Block) {
		sc := getScratch()
		defer sc.release()
		l := expand(newNodes(sc, 2*len(in.s), shape), k, x0, in, raw)
		cs := keyCs(cws[k*rows:], n)
		xh, hp := v.xh.Get(), v.hp.Get()
		hp.Chain(proofImage((*[ProofBlocks]Block)(pis[ProofBlocks*k:])), xh, leafInputs(sc.block(len(l.s)), x0), images(l.s), l.t, proofImage(&cs))
		xh.Put()
		hp.Put()
	}
	tr.runInOrder(v.ctl, len(s0s))
	return v.ctl.err()
}

// allLeaves is the walk of EvalAllProof and evalAllPieces over the keys' whole
// domains: its tree, whose leaves the caller sets; the shape of the leaves' nodes
// (with control bits); and expand, which grows key k's nodes in (at level n-1,
// above inputs x0 ..) into leaves, writes their outputs to dst and returns the
// leaves' seeds and control bits. The implementation's level makes the leaves, with
// control bits in t (portable) or in the lsb of u (the routines).
func (v *Vdpf) allLeaves(dst []Block, party int, s0s []Block, cws []Cw) (tree, rowShape, func(leaves nodes, k, x0 int, in nodes, raw []Block) nodes) {
	n, rows, ar := v.params.InBits, v.params.cwRows(), v.params.Group.arith()
	tr := v.walks.walkEvalAll(nil, party, s0s, cws)
	tr.costNs += 150 // the hashes of an output, for the parallel split
	level, shape := tr.level, tr.shape
	shape.t = true
	expand := func(leaves nodes, k, x0 int, in nodes, raw []Block) nodes {
		leaves = leaves.slice(0, 2*len(in.s))
		level(k, n-1, leaves, in, raw)
		for j, u := range leaves.u {
			leaves.t[j] = u.Lsb()
		}
		v0 := ar.from(cws[k*rows+n][0])
		for j, s := range leaves.s {
			dst[k<<n+x0+j] = dpfLeaf(ar, s, leaves.t[j], v0, party)
		}
		return leaves
	}
	return tr, shape, expand
}

// leafInputs writes the leaves' inputs x0 .. x0+len(xs)-1 to xs, for XH.
func leafInputs(xs []Block, x0 int) [][16]byte {
	for j := range xs {
		xs[j] = Block{Lo: uint64(x0 + j)}
	}
	return images(xs)
}

// evalAllPieces writes each key's shares at every input to dst (as EvalAll) and
// the proof pieces (EvalProof's) of its inputs below limit to pieces, key k's at
// input x at pieces[ProofBlocks*(k<<n+x):]: a whole domain's pieces, for a caller
// that takes them into its proofs in an order of its own (vdmpf's EvalAllProof).
// The keys' rows must have been checked.
func (v *Vdpf) evalAllPieces(dst, pieces []Block, party int, s0s []Block, cws []Cw, limit int) error {
	n, rows := v.params.InBits, v.params.cwRows()
	tr, shape, expand := v.allLeaves(dst, party, s0s, cws)
	tr.leaves = func(k, x0 int, in nodes, raw []Block) {
		sc := getScratch()
		defer sc.release()
		l := expand(newNodes(sc, 2*len(in.s), shape), k, x0, in, raw)
		if x0 >= limit {
			return
		}
		l = l.slice(0, min(len(l.s), limit-x0))
		at := ProofBlocks * (k<<n + x0)
		mine := pieces[at : at+ProofBlocks*len(l.s)]
		xh := v.xh.Get()
		xh.XorHashMany(proofImages(mine), leafInputs(sc.block(len(l.s)), x0), images(l.s))
		xh.Put()
		cs := keyCs(cws[k*rows:], n)
		for j, t := range l.t {
			for i, c := range cs {
				mine[ProofBlocks*j+i] = mine[ProofBlocks*j+i].Xor(mask(c, t))
			}
		}
	}
	tr.run(v.ctl, len(s0s))
	return v.ctl.err()
}

// chainGroup is how many keys' proof chains EvalAllProof of keys keys steps side
// by side: laneGroup's, or 1 (each key's chain alone, on one goroutine) where the
// hash gains nothing from lanes or the groups would be smaller than minChainGroup.
func (v *Vdpf) chainGroup(keys int) int {
	h := v.hp.Get()
	defer h.Put()
	size := laneGroup(keys)
	if !h.LanesPay() || size < minChainGroup {
		return 1
	}
	return size
}

// minChainGroup is the fewest chains worth stepping side by side: a pass costs
// the same however many lanes hold chains, and below four a key's own chain (its
// H' beside its next leaf's XH) is faster (in_bits 20, one core: 95 ns per output
// alone, 112 with three keys in lanes, 86 with four, 47 with eight).
const minChainGroup = 4

// VerifyProofs compares K = len(ok) pairs of proofs, party 0's in pi0 and party 1's
// in pi1 (ProofBlocks blocks each): ok[k] is 1 where key k's are equal, else 0. The
// comparison takes the same time whatever the proofs hold.
func VerifyProofs(ok []uint8, pi0, pi1 []Block) error {
	if len(pi0) != ProofBlocks*len(ok) || len(pi1) != len(pi0) {
		return ArgErrorf("pi0 and pi1 must hold %d blocks per proof (%d proofs: %d blocks), not %d and %d", ProofBlocks, len(ok), ProofBlocks*len(ok), len(pi0), len(pi1))
	}
	for k := range ok {
		var diff uint64
		for i := ProofBlocks * k; i < ProofBlocks*(k+1); i++ {
			diff |= (pi0[i].Lo ^ pi1[i].Lo) | (pi0[i].Hi ^ pi1[i].Hi)
		}
		ok[k] = uint8(1 ^ (diff|-diff)>>63)
	}
	return nil
}
