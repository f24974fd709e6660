// Package kat loads the known-answer vectors of the reference library (the JSON
// files under gofss/testdata/vectors, described in their README.md) for tests.
package kat

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
)

// Block is one 16-byte block as the files write it: four int32 words.
type Block [4]int32

// Bytes returns the block's memory image (little-endian words).
func (b Block) Bytes() [16]byte {
	var out [16]byte
	for i, w := range b {
		u := uint32(w)
		out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return out
}

// Uint is an unsigned integer of up to 128 bits, written as a decimal string.
type Uint struct{ Lo, Hi uint64 }

func (u *Uint) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() < 0 || v.BitLen() > 128 {
		return fmt.Errorf("kat: %q is not an unsigned 128-bit decimal", s)
	}
	mask := new(big.Int).SetUint64(^uint64(0))
	u.Lo = new(big.Int).And(v, mask).Uint64()
	u.Hi = new(big.Int).Rsh(v, 64).Uint64()
	return nil
}

// Prg is a file's PRG header.
type Prg struct {
	Name       string   `json:"name"`
	Mul        int      `json:"mul"`
	Nonce      [2]int32 `json:"nonce"`
	AesKeysHex []string `json:"aes_keys_hex"`
}

// AesKeys decodes the AES keys.
func (p Prg) AesKeys() ([][16]byte, error) {
	var keys [][16]byte
	for _, h := range p.AesKeysHex {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 16 {
			return nil, fmt.Errorf("kat: bad AES key %q", h)
		}
		keys = append(keys, [16]byte(b))
	}
	return keys, nil
}

// NonceU32 returns the ChaCha nonce as unsigned words.
func (p Prg) NonceU32() [2]uint32 { return [2]uint32{uint32(p.Nonce[0]), uint32(p.Nonce[1])} }

// TreeFile is a DPF, DCF or Half-Tree DPF file.
type TreeFile struct {
	Scheme  string     `json:"scheme"`
	Pred    string     `json:"pred"`
	Prg     Prg        `json:"prg"`
	HashKey Block      `json:"hash_key"` // Half-Tree DPF only
	Cases   []TreeCase `json:"cases"`
}

// TreeCase is one DPF, DCF or Half-Tree DPF case.
type TreeCase struct {
	ID        string     `json:"id"`
	InBits    int        `json:"in_bits"`
	Group     string     `json:"group"`
	Seeds     [2]Block   `json:"seeds"`
	Alpha     Uint       `json:"alpha"`
	Beta      Block      `json:"beta"`
	BetaGroup Block      `json:"beta_group"`
	Cws       [][8]int32 `json:"cws"`
	Ocw       *Block     `json:"ocw"` // Half-Tree DPF only: the output correction word
	Evals     []struct {
		X   Uint  `json:"x"`
		Y0  Block `json:"y0"`
		Y1  Block `json:"y1"`
		Sum Block `json:"sum"`
	} `json:"evals"`
	EvalAll *struct {
		N      int        `json:"n"`
		Sha256 [2]string  `json:"sha256"`
		First  [2][]Block `json:"first"`
		Last   [2][]Block `json:"last"`
	} `json:"eval_all"`
}

// GrottoFile is a Grotto DCF file.
type GrottoFile struct {
	Scheme string       `json:"scheme"`
	Prg    Prg          `json:"prg"`
	Cases  []GrottoCase `json:"cases"`
}

// GrottoCase is one Grotto DCF case: a DPF key of group bytes and beta zero, and
// both parties' bit shares of x >= alpha.
type GrottoCase struct {
	ID     string     `json:"id"`
	InBits int        `json:"in_bits"`
	Seeds  [2]Block   `json:"seeds"`
	Alpha  Uint       `json:"alpha"`
	Cws    [][8]int32 `json:"cws"`
	Evals  []struct {
		X  Uint `json:"x"`
		Y0 bool `json:"y0"`
		Y1 bool `json:"y1"`
	} `json:"evals"`
	ParityRoot  [2]bool   `json:"parity_root"`   // per party: its share at x = 2^n - 1
	LeafTSha256 [2]string `json:"leaf_t_sha256"` // per party: SHA-256 of its leaf control bits, a byte each
	EvalAll     struct {
		N         int       `json:"n"`
		Sha256    [2]string `json:"sha256"`     // per party: SHA-256 of its shares, a byte each
		FirstBits [2]string `json:"first_bits"` // per party: its first shares, as '0' and '1'
		LastBits  [2]string `json:"last_bits"`
	} `json:"eval_all"`
}

// PrgVectors is the "prg" part of primitives.json: per (name, mul) seeds and outputs.
type PrgVectors struct {
	Prg     Prg `json:"prg"`
	Vectors []struct {
		Seed Block   `json:"seed"`
		Out  []Block `json:"out"`
	} `json:"vectors"`
}

// GroupVectors is the "group" part of primitives.json.
type GroupVectors struct {
	Group   string `json:"group"`
	Vectors []struct {
		A         Block `json:"a"`
		B         Block `json:"b"`
		FromAInto Block `json:"from_a_into"`
		APlusB    Block `json:"a_plus_b"`
		NegA      Block `json:"neg_a"`
	} `json:"vectors"`
}

// Primitives is primitives.json's single case, the parts the tree schemes use.
type Primitives struct {
	Prg   []PrgVectors   `json:"prg"`
	Group []GroupVectors `json:"group"`
}

// Dir is the vectors directory, found relative to this source file so that tests in
// any package of the module can use it.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "vectors")
}

// TreeFiles are the DPF and DCF vector files.
var TreeFiles = []string{
	"dpf_chacha.json", "dpf_aes128_mmo.json",
	"dcf_lt_chacha.json", "dcf_lt_aes128_mmo.json",
	"dcf_gt_chacha.json", "dcf_gt_aes128_mmo.json",
}

// HalfTreeFiles are the Half-Tree DPF vector files, in LoadTree's form.
var HalfTreeFiles = []string{"half_tree_dpf_chacha.json", "half_tree_dpf_aes128_mmo.json"}

// GrottoFiles are the Grotto DCF vector files.
var GrottoFiles = []string{"grotto_dcf_chacha.json", "grotto_dcf_aes128_mmo.json"}

// LoadTree reads one DPF, DCF or Half-Tree DPF file.
func LoadTree(name string) (*TreeFile, error) {
	var f TreeFile
	return &f, load(name, &f)
}

// LoadGrotto reads one Grotto DCF file.
func LoadGrotto(name string) (*GrottoFile, error) {
	var f GrottoFile
	return &f, load(name, &f)
}

// LoadPrimitives reads primitives.json.
func LoadPrimitives() (*Primitives, error) {
	var f struct {
		Cases []Primitives `json:"cases"`
	}
	if err := load("primitives.json", &f); err != nil {
		return nil, err
	}
	if len(f.Cases) != 1 {
		return nil, fmt.Errorf("kat: primitives.json has %d cases, want 1", len(f.Cases))
	}
	return &f.Cases[0], nil
}

func load(name string, v any) error {
	b, err := os.ReadFile(filepath.Join(Dir(), name))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
