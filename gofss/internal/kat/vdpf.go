package kat

import "fmt"

// HashHeader is the "hash" object of the VDPF files and of primitives.json: the name
// and the keys of XH and H' (SHA-256: one block each; BLAKE3: two blocks each).
type HashHeader struct {
	Name       string   `json:"name"`
	XorHashKey *Block   `json:"xor_hash_key"`
	HashKey    *Block   `json:"hash_key"`
	XorHashIV  [2]Block `json:"xor_hash_iv"`
	HashIV     [2]Block `json:"hash_iv"`
}

// Keys returns the key bytes of XH and of H'.
func (h HashHeader) Keys() (xorKey, key []byte) {
	if h.Name == "sha256" {
		a, b := h.XorHashKey.Bytes(), h.HashKey.Bytes()
		return a[:], b[:]
	}
	return ivBytes(h.XorHashIV), ivBytes(h.HashIV)
}

func ivBytes(iv [2]Block) []byte {
	a, b := iv[0].Bytes(), iv[1].Bytes()
	return append(a[:], b[:]...)
}

// VdpfFile is a VDPF file.
type VdpfFile struct {
	Scheme string     `json:"scheme"`
	Prg    Prg        `json:"prg"`
	Hash   HashHeader `json:"hash"`
	Cases  []VdpfCase `json:"cases"`
}

// VdpfCase is one VDPF case: a key in the reference layout (in_bits rows, then cs and
// ocw), both parties' shares and proof pieces at points, their proofs over those
// points, a tampered key's proof, and for small domains the full-domain outputs.
type VdpfCase struct {
	ID        string     `json:"id"`
	InBits    int        `json:"in_bits"`
	InType    string     `json:"in_type"`
	Group     string     `json:"group"`
	Seeds     [2]Block   `json:"seeds"`
	Alpha     Uint       `json:"alpha"`
	Beta      Block      `json:"beta"`
	BetaGroup Block      `json:"beta_group"`
	GenRet    int        `json:"gen_ret"`
	Cws       [][8]int32 `json:"cws"`
	Cs        [4]Block   `json:"cs"`
	Ocw       Block      `json:"ocw"`
	Evals     []struct {
		X        Uint     `json:"x"`
		Y0       Block    `json:"y0"`
		Y1       Block    `json:"y1"`
		Sum      Block    `json:"sum"`
		PiTilde0 [4]Block `json:"pi_tilde0"`
		PiTilde1 [4]Block `json:"pi_tilde1"`
	} `json:"evals"`
	Prove struct {
		Pi0    [4]Block `json:"pi0"`
		Pi1    [4]Block `json:"pi1"`
		Verify bool     `json:"verify"`
	} `json:"prove"`
	Tampered struct {
		Party   int      `json:"party"`
		CwIndex int      `json:"cw_index"`
		Word    int      `json:"word"`
		Xor     int32    `json:"xor"`
		Pi1     [4]Block `json:"pi1"`
		Verify  bool     `json:"verify"`
	} `json:"tampered"`
	EvalAll *struct {
		N      int         `json:"n"`
		Sha256 [2]string   `json:"sha256"`
		First  [2][]Block  `json:"first"`
		Last   [2][]Block  `json:"last"`
		Pi     [2][4]Block `json:"pi"`
		Verify bool        `json:"verify"`
	} `json:"eval_all"`
}

// VdpfFiles are the VDPF vector files, one per PRG and hash.
var VdpfFiles = []string{
	"vdpf_chacha_sha256.json", "vdpf_chacha_blake3.json",
	"vdpf_aes128_mmo_sha256.json", "vdpf_aes128_mmo_blake3.json",
}

// LoadVdpf reads one VDPF file.
func LoadVdpf(name string) (*VdpfFile, error) {
	var f VdpfFile
	return &f, load(name, &f)
}

// HashVectors is one entry of primitives.json's "hash" list: H' and XH under both of
// the hash's keys.
type HashVectors struct {
	Hash   HashHeader `json:"hash"`
	Hash64 []struct {
		Msg            [4]Block `json:"msg"`
		WithHashKey    [2]Block `json:"hash_with_hash_key"`
		WithXorHashKey [2]Block `json:"hash_with_xor_hash_key"`
	} `json:"hash64"`
	XorHash []struct {
		A              Block    `json:"a"`
		B              Block    `json:"b"`
		WithXorHashKey [4]Block `json:"xor_hash_with_xor_hash_key"`
		WithHashKey    [4]Block `json:"xor_hash_with_hash_key"`
	} `json:"xor_hash"`
}

// LoadHashVectors reads the "hash" part of primitives.json.
func LoadHashVectors() ([]HashVectors, error) {
	var f struct {
		Cases []struct {
			Hash []HashVectors `json:"hash"`
		} `json:"cases"`
	}
	if err := load("primitives.json", &f); err != nil {
		return nil, err
	}
	if len(f.Cases) != 1 {
		return nil, fmt.Errorf("kat: primitives.json has %d cases, want 1", len(f.Cases))
	}
	return f.Cases[0].Hash, nil
}
