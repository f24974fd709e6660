package gofss

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func requireArgError(t *testing.T, err error, contains string) {
	t.Helper()
	var ae *ArgError
	require.True(t, errors.As(err, &ae), "want *ArgError containing %q, got %v", contains, err)
	require.Contains(t, err.Error(), contains)
}

func TestConstructorErrors(t *testing.T) {
	cc2, _ := NewChaCha(2, DefaultNonce)
	cc4, _ := NewChaCha(4, DefaultNonce)
	_, err := NewDpf(0, Bytes, cc2)
	requireArgError(t, err, "in_bits must be between 1 and 128")
	_, err = NewDpf(129, Bytes, cc2)
	requireArgError(t, err, "in_bits must be between 1 and 128")
	_, err = NewDpf(8, Group(9), cc2)
	requireArgError(t, err, "group must be one of")
	_, err = NewDpf(8, Bytes, nil)
	requireArgError(t, err, "prg must not be nil")
	_, err = NewDpf(8, Bytes, cc4)
	requireArgError(t, err, "prg must have 2 outputs")
	_, err = NewDcf(8, Bytes, cc2, Lt)
	requireArgError(t, err, "prg must have 4 outputs")
	_, err = NewDcf(8, Bytes, cc4, Pred(5))
	requireArgError(t, err, "pred must be one of")
	_, err = NewChaCha(3, DefaultNonce)
	requireArgError(t, err, "mul must be 1, 2 or 4")
	_, err = NewAesMmo(make([][16]byte, 3))
	requireArgError(t, err, "needs 1, 2 or 4 AES keys")
	_, err = ParseGroup("int")
	requireArgError(t, err, "group must be one of")
	_, err = ParsePred("le")
	requireArgError(t, err, "pred must be one of")
}

func TestCallErrors(t *testing.T) {
	cc2, _ := NewChaCha(2, DefaultNonce)
	cc4, _ := NewChaCha(4, DefaultNonce)
	const n = 8
	dpf, err := NewDpf(n, Uint32, cc2)
	require.NoError(t, err)
	dcf, err := NewDcf(n, Uint32, cc4, Lt)
	require.NoError(t, err)
	seeds := []Block{{Lo: 1}, {Lo: 2}}
	alpha := []Uint128{{Lo: 5}}
	beta := []Block{{Lo: 3}}
	dpfCws, dcfCws := make([]Cw, n+1), make([]Cw, n+1)
	require.NoError(t, dpf.Gen(dpfCws, seeds, alpha, beta))
	require.NoError(t, dcf.Gen(dcfCws, seeds, alpha, beta))
	out := make([]Block, 1)

	for _, s := range []scheme{dpf, dcf} {
		cws := make([]Cw, n+1)
		requireArgError(t, s.Gen(cws, seeds[:1], alpha, beta), "s0s must hold 2 seeds per key")
		requireArgError(t, s.Gen(cws, seeds, alpha, nil), "betas must hold one block per key")
		requireArgError(t, s.Gen(cws[:n], seeds, alpha, beta), "cws must hold 9 correction words")
		requireArgError(t, s.Gen(cws, seeds, []Uint128{{Lo: 256}}, beta), "alpha must be in [0, 2^8)")
		requireArgError(t, s.Gen(cws, seeds, []Uint128{{Hi: 1}}, beta), "alpha must be in")
	}
	for _, c := range []struct {
		s   scheme
		cws []Cw
	}{{dpf, dpfCws}, {dcf, dcfCws}} {
		s, cws := c.s, c.cws
		for _, party := range []int{-1, 2} {
			requireArgError(t, s.Eval(out, party, seeds[:1], cws, alpha), "party must be 0 or 1")
			requireArgError(t, s.EvalAll(make([]Block, 1<<n), party, seeds[:1], cws), "party must be 0 or 1")
		}
		requireArgError(t, s.Eval(out, 0, seeds[:1], cws, []Uint128{{Lo: 256}}), "x must be in [0, 2^8)")
		requireArgError(t, s.Eval(out, 0, seeds[:1], cws[:n], alpha), "cws must hold 9")
		requireArgError(t, s.Eval(make([]Block, 2), 0, seeds[:1], cws, alpha), "dst must hold one block per point")
		requireArgError(t, s.Eval(make([]Block, 3), 0, seeds, append(cws, cws...), make([]Uint128, 3)), "same number of points")
		requireArgError(t, s.Eval(out, 0, nil, nil, alpha), "same number of points")
		requireArgError(t, s.EvalAll(make([]Block, 1<<n-1), 0, seeds[:1], cws), "dst must hold 2**8 blocks per key")
		// Keys of one scheme are refused by the other.
		other := dcfCws
		if s == scheme(dcf) {
			other = dpfCws
		}
		requireArgError(t, s.Eval(out, 0, seeds[:1], other, alpha), "cws: key 0")
	}

	big, err := NewDpf(41, Bytes, cc2)
	require.NoError(t, err)
	requireArgError(t, big.EvalAll(nil, 0, []Block{{}}, make([]Cw, 42)), "too large for full-domain evaluation")

	bad := append([]Cw(nil), dpfCws...)
	bad[2][1].Lo = 2 // tr word must be 0 or 1
	requireArgError(t, dpf.Eval(out, 0, seeds[:1], bad, alpha), "row 2: words 4-7")
	bad = append([]Cw(nil), dpfCws...)
	bad[3][1].Lo |= 1 << 40 // padding
	requireArgError(t, dpf.Eval(out, 0, seeds[:1], bad, alpha), "row 3")
	bad = append([]Cw(nil), dpfCws...)
	bad[n][0] = bad[n][0].WithLsb(1)
	requireArgError(t, dpf.EvalAll(make([]Block, 1<<n), 0, seeds[:1], bad), "last row")
	bad = append([]Cw(nil), dcfCws...)
	bad[n][1] = bad[n][1].WithLsb(1)
	requireArgError(t, dcf.Eval(out, 0, seeds[:1], bad, alpha), "last row")
}

// Empty batches are valid and do nothing.
func TestEmptyBatches(t *testing.T) {
	cc2, _ := NewChaCha(2, DefaultNonce)
	d, err := NewDpf(8, Bytes, cc2)
	require.NoError(t, err)
	require.NoError(t, d.Gen(nil, nil, nil, nil))
	require.NoError(t, d.Eval(nil, 0, nil, nil, nil))
	require.NoError(t, d.EvalAll(nil, 1, nil, nil))
	require.NoError(t, d.Eval(nil, 0, []Block{{}}, make([]Cw, 9), nil))
}

// checkInputs names the first input out of range, whether its excess is bit in_bits
// or the top bit, and passes batches of inputs as large as fit.
func TestCheckInputsNamesTheEntry(t *testing.T) {
	bit := func(b int) Uint128 { // 2^b
		if b < 64 {
			return Uint128{Lo: 1 << b}
		}
		return Uint128{Hi: 1 << (b - 64)}
	}
	for _, n := range []int{1, 20, 63, 64, 65, 127, 128} {
		largest := Uint128{Lo: ^uint64(0), Hi: ^uint64(0)}
		if n < 128 {
			b := bit(n)
			largest = Uint128{Lo: b.Lo - 1, Hi: b.Hi}
			if b.Lo == 0 {
				largest.Hi--
			}
		}
		xs := []Uint128{largest, {}, largest, largest, {}, largest, largest, largest, largest}
		require.NoError(t, checkInputs("x", n, xs), "n=%d", n)
		if n == 128 {
			continue
		}
		for _, bad := range []int{0, 4, 8} {
			for _, excess := range []Uint128{bit(n), bit(127)} {
				ys := append([]Uint128(nil), xs...)
				ys[bad] = excess
				requireArgError(t, checkInputs("x", n, ys), fmt.Sprintf("entry %d is out of range", bad))
			}
		}
	}
}
