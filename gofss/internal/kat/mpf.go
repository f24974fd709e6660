package kat

import (
	"encoding/json"
	"fmt"
	"math/big"
)

// PrpVectors is the "prp_aes128_feistel" part of primitives.json: per key and
// domain, pairs (x, PRP(x)).
type PrpVectors struct {
	Seed   Block        `json:"seed"`
	Domain BigUint      `json:"domain"`
	XY     [][2]BigUint `json:"x_y"`
}

// LoadPrpVectors reads the PRP vectors of primitives.json.
func LoadPrpVectors() ([]PrpVectors, error) {
	var f struct {
		Cases []struct {
			Prp []PrpVectors `json:"prp_aes128_feistel"`
		} `json:"cases"`
	}
	if err := load("primitives.json", &f); err != nil {
		return nil, err
	}
	if len(f.Cases) != 1 {
		return nil, fmt.Errorf("kat: primitives.json has %d cases, want 1", len(f.Cases))
	}
	return f.Cases[0].Prp, nil
}

// BigUint is an unsigned integer of any width written as a decimal string (PRP
// domains reach 3·2^128).
type BigUint struct{ big.Int }

func (u *BigUint) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if _, ok := u.SetString(s, 10); !ok || u.Sign() < 0 {
		return fmt.Errorf("kat: %q is not an unsigned decimal", s)
	}
	return nil
}

// MpfFiles are the VDMPF vector files.
var MpfFiles = []string{
	"vdmpf_chacha_sha256.json", "vdmpf_chacha_blake3.json",
	"vdmpf_aes128_mmo_sha256.json", "vdmpf_aes128_mmo_blake3.json",
}

// MpfFile is a VDMPF file. The hash header is kept raw: the VDPF code reads it.
type MpfFile struct {
	Scheme string          `json:"scheme"`
	Prg    Prg             `json:"prg"`
	Hash   json.RawMessage `json:"hash"`
	Prp    string          `json:"prp"`
	Cases  []MpfCase       `json:"cases"`
}

// MpfCase is one VDMPF case (the fields are described in the vectors' README).
type MpfCase struct {
	ID         string         `json:"id"`
	InBits     int            `json:"in_bits"`
	Group      string         `json:"group"`
	MaxPoints  int            `json:"max_points"`
	BucketBits int            `json:"bucket_bits"`
	Kappa      int            `json:"kappa"`
	M          int            `json:"m"`
	T          int            `json:"t"`
	Alphas     []Uint         `json:"alphas"`
	Betas      []Block        `json:"betas"`
	S0s        [][2]Block     `json:"s0s"`
	Sigma      Block          `json:"sigma"`
	MRt        int            `json:"m_rt"`
	BSizeRt    uint64         `json:"b_size_rt"`
	Table      [][2]int       `json:"table"`
	Locate     [][3][2]uint64 `json:"locate"`
	Buckets    []struct {
		Cws [][8]int32 `json:"cws"`
		Cs  [4]Block   `json:"cs"`
		Ocw Block      `json:"ocw"`
	} `json:"buckets"`
	Xs     []Uint      `json:"xs"`
	Ys0    []Block     `json:"ys0"`
	Ys1    []Block     `json:"ys1"`
	Sums   []Block     `json:"sums"`
	Pi     [2][4]Block `json:"pi"`
	Verify bool        `json:"verify"`
}

// LoadMpf reads one VDMPF file.
func LoadMpf(name string) (*MpfFile, error) {
	var f MpfFile
	return &f, load(name, &f)
}
