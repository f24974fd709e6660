"""The FSS gates against plaintext: random inputs, edge values, and inputs chosen so
that the opened x + r sits at the wrap-around and borrow boundaries of its mask."""

import hashlib
import io
import re
import struct
import zipfile
from functools import partial

import pytest
import torch
from children import run_doc_block
from vectors import loaded_mutations

import pyfss
from pyfss import gates
from pyfss.mpc import random_ring, share

RINGS = [torch.int32, torch.int64]


def bits_of(ring):
    return 32 if ring == torch.int32 else 64


def signed(v, n):
    v %= 1 << n
    return v - (1 << n) if v >> (n - 1) else v


def edge_values(n):
    top = 1 << (n - 1)
    return [0, 1, -1, 2, -2, top - 1, -top, top - 2, -top + 1, top // 2, -top // 2, 4096, -4096]


def opened_targets(n):
    """Values of x + r (mod 2^n) at the boundaries the gates handle: 0, 2^n - 1, the
    sign flip, and the borrow out of the low bits of a shift."""
    top = 1 << (n - 1)
    out = []
    for t in (0, top, 1 << 12, 1 << (n - 12)):
        out += [t - 1, t, t + 1]
    return [signed(t, n) for t in out]


def run(gate, make_x, shape=None, seed=0):
    """Deals, picks x (make_x gets the mask r, so inputs can be aimed at x + r), shares
    it, opens x + r and returns x and the reconstructed output."""
    n = bits_of(gate.ring)
    g = torch.Generator().manual_seed(seed)
    count = len(edge_values(n)) + len(opened_targets(n)) + 40
    k0, k1 = gate.deal(shape or (count,), generator=g)
    r = k0["r"] + k1["r"]
    x = make_x(r, g)
    x0, x1 = share(x, g)
    xhat = gate.mask(k0, x0) + gate.mask(k1, x1)
    assert torch.equal(xhat, x + r)
    return x, gate.eval(0, k0, xhat) + gate.eval(1, k1, xhat)


def mixed(ring):
    """Edge values, then x aimed at x + r = each boundary, then random values."""
    n = bits_of(ring)

    def make(r, g):
        edges = torch.tensor(edge_values(n), dtype=ring)
        targets = torch.tensor(opened_targets(n), dtype=ring)
        aimed = targets - r[len(edges) : len(edges) + len(targets)]
        rest = random_ring((r.numel() - len(edges) - len(targets),), ring, g)
        rest[:8] = torch.arange(-4, 4, dtype=ring)  # near zero, where signs flip
        return torch.cat([edges, aimed, rest])

    return make


def as_ints(t):
    return t.tolist()


@pytest.mark.parametrize("ring", RINGS)
def test_drelu(ring):
    x, y = run(gates.DReLU(ring), mixed(ring))
    assert y.dtype == ring
    assert as_ints(y) == [int(v >= 0) for v in as_ints(x)]


@pytest.mark.parametrize("ring", RINGS)
@pytest.mark.parametrize("prg", ["aes128_mmo", "chacha"])
def test_relu(ring, prg):
    gate = gates.ReLU(ring, prg)
    x, y = run(gate, mixed(ring))
    assert as_ints(y) == [max(v, 0) for v in as_ints(x)]


def test_relu_gives_the_sign_too():
    gate = gates.ReLU(torch.int64)
    g = torch.Generator().manual_seed(4)
    x = torch.tensor([-(2**63), -3, 0, 3, 2**63 - 1])
    k0, k1 = gate.deal(x.shape, generator=g)
    x0, x1 = share(x, g)
    xhat = gate.mask(k0, x0) + gate.mask(k1, x1)
    (d0, y0), (d1, y1) = gate.eval_both(0, k0, xhat), gate.eval_both(1, k1, xhat)
    assert as_ints(d0 + d1) == [0, 0, 1, 1, 1]
    assert as_ints(y0 + y1) == [0, 0, 0, 3, 2**63 - 1]


@pytest.mark.parametrize("ring", RINGS)
@pytest.mark.parametrize("c", [0, -1, 7])
def test_equal_to_a_public_value(ring, c):
    def make(r, g):
        x = mixed(ring)(r, g)
        x[-10:] = c  # hits
        x[-12] = c + 1
        return x

    x, y = run(gates.Equal(c, ring), make)
    assert as_ints(y) == [int(v == c) for v in as_ints(x)]
    assert sum(as_ints(y)) >= 10


def test_equality_between_shares():
    """x == z for shared x and z: each party subtracts its shares, the gate tests 0."""
    g = torch.Generator().manual_seed(2)
    x = torch.tensor([5, -7, 2**63 - 1, -(2**63), 0, 9], dtype=torch.int64)
    z = torch.tensor([5, 7, 2**63 - 1, 2**63 - 1, 0, -9], dtype=torch.int64)
    (x0, x1), (z0, z1) = share(x, g), share(z, g)
    gate = gates.Equal()
    k0, k1 = gate.deal(x.shape, generator=g)
    xhat = gate.mask(k0, x0 - z0) + gate.mask(k1, x1 - z1)
    assert as_ints(gate.eval(0, k0, xhat) + gate.eval(1, k1, xhat)) == [1, 0, 1, 0, 1, 0]


def intervals_for(n, is_signed):
    top = 1 << (n - 1)
    if is_signed:
        return [(-10, 10), (0, 0), (-top, -1), (3, top - 1), (-top, top - 1), (top - 1, top - 1)]
    full = (1 << n) - 1
    return [(0, 10), (5, 5), (top, full), (0, full), (full, full), (top - 3, top + 3)]


@pytest.mark.parametrize("ring", RINGS)
@pytest.mark.parametrize("is_signed", [True, False])
def test_multiple_interval_containment(ring, is_signed):
    n = bits_of(ring)
    iv = intervals_for(n, is_signed)
    x, y = run(gates.IntervalContainment(iv, ring, signed=is_signed), mixed(ring))
    assert y.shape == (x.numel(), len(iv))
    values = as_ints(x) if is_signed else [v % (1 << n) for v in as_ints(x)]
    assert as_ints(y) == [[int(lo <= v <= hi) for lo, hi in iv] for v in values]


@pytest.mark.parametrize("ring", RINGS)
def test_interval_containment_of_one_interval(ring):
    x, y = run(gates.IntervalContainment([(-3, 2)], ring), mixed(ring))
    assert as_ints(y) == [[int(-3 <= v <= 2)] for v in as_ints(x)]


@pytest.mark.parametrize("ring", RINGS)
@pytest.mark.parametrize("c", [0, 1, -5, 100])
def test_less_than(ring, c):
    x, y = run(gates.LessThan(c, ring), mixed(ring))
    assert as_ints(y) == [int(v < c) for v in as_ints(x)]


def test_less_than_unsigned():
    x, y = run(gates.LessThan(2**31, torch.int32, signed=False), mixed(torch.int32))
    assert as_ints(y) == [int(v % 2**32 < 2**31) for v in as_ints(x)]


@pytest.mark.parametrize("ring", RINGS)
@pytest.mark.parametrize("table_bits", [1, 4, 8])
def test_lookup_table(ring, table_bits):
    g = torch.Generator().manual_seed(table_bits)
    table = random_ring((1 << table_bits,), ring, g)
    x, y = run(gates.LookupTable(table, ring), mixed(ring))
    assert as_ints(y) == [as_ints(table)[v % (1 << table_bits)] for v in as_ints(x)]


def spline_case(n):
    """A ReLU-like spline with a parabola in the middle and a constant on the right,
    coefficients wrapping the ring, and overlapping intervals that add up."""
    top = 1 << (n - 1)
    intervals = [(-top, -1), (0, 100), (101, top - 1), (-5, 5)]
    coeffs = [[0, 0, 0], [3, -2, 1], [7, 0, 0], [top - 1, 1 << 20, -3]]
    return intervals, coeffs


def spline_plain(intervals, coeffs, v, n):
    total = 0
    for (lo, hi), row in zip(intervals, coeffs):
        if lo <= v <= hi:
            total += sum(a * v**k for k, a in enumerate(row))
    return signed(total, n)


@pytest.mark.parametrize("ring", RINGS)
def test_spline(ring):
    n = bits_of(ring)
    intervals, coeffs = spline_case(n)
    x, y = run(gates.Spline(intervals, coeffs, ring), mixed(ring))
    assert as_ints(y) == [spline_plain(intervals, coeffs, v, n) for v in as_ints(x)]


def test_spline_of_degree_zero_unsigned():
    iv = [(0, 9), (10, 2**32 - 1)]
    x, y = run(gates.Spline(iv, [[1], [-1]], torch.int32, signed=False), mixed(torch.int32))
    assert as_ints(y) == [1 if v % 2**32 <= 9 else -1 for v in as_ints(x)]


@pytest.mark.parametrize("ring", RINGS)
@pytest.mark.parametrize("shift", [1, 12, 31])
def test_arithmetic_shift(ring, shift):
    x, y = run(gates.Truncate(shift, ring), mixed(ring))
    assert as_ints(y) == [v >> shift for v in as_ints(x)]


@pytest.mark.parametrize("ring", RINGS)
@pytest.mark.parametrize("shift", [1, 12, 31])
def test_logical_shift(ring, shift):
    n = bits_of(ring)
    x, y = run(gates.Truncate(shift, ring, arithmetic=False), mixed(ring))
    assert as_ints(y) == [signed((v % (1 << n)) >> shift, n) for v in as_ints(x)]


def test_shift_by_all_but_one_bit_of_int64():
    x, y = run(gates.Truncate(63, torch.int64), mixed(torch.int64))
    assert as_ints(y) == [v >> 63 for v in as_ints(x)]
    x, y = run(gates.Truncate(63, torch.int64, arithmetic=False), mixed(torch.int64))
    assert as_ints(y) == [int(v < 0) for v in as_ints(x)]


@pytest.mark.parametrize("ring", RINGS)
def test_bit_decomposition(ring):
    n = bits_of(ring)
    x, y = run(gates.BitDecompose(None, ring), mixed(ring))
    assert y.shape == (x.numel(), n)
    assert as_ints(y) == [[(v >> i) & 1 for i in range(n)] for v in as_ints(x)]


def test_low_bits_only():
    x, y = run(gates.BitDecompose(5, torch.int64), mixed(torch.int64))
    assert as_ints(y) == [[(v >> i) & 1 for i in range(5)] for v in as_ints(x)]


@pytest.mark.parametrize(
    "gate",
    [
        gates.DReLU(torch.int32),
        gates.ReLU(),
        gates.Equal(3),
        gates.IntervalContainment([(0, 4), (-9, -1)]),
        gates.Spline([(0, 4)], [[1, 2]], torch.int32),
        gates.LookupTable(torch.arange(16)),
        gates.Truncate(7),
        gates.BitDecompose(4, torch.int32),
    ],
    ids=lambda gate: gate.name,
)
def test_tensors_of_any_shape_and_empty_ones(gate):
    for shape in [(2, 3), (0,), (3, 0, 2)]:
        g = torch.Generator().manual_seed(5)
        x = random_ring(shape, gate.ring, g) % 17 - 8
        k0, k1 = gate.deal(shape, generator=g)
        x0, x1 = share(x, g)
        xhat = gate.mask(k0, x0) + gate.mask(k1, x1)
        y = gate.eval(0, k0, xhat) + gate.eval(1, k1, xhat)
        flat = gate.deal((x.numel(),), generator=torch.Generator().manual_seed(5))
        assert y.shape[: len(shape)] == shape
        if x.numel():
            xf0, xf1 = share(x.reshape(-1), g)
            xh = gate.mask(flat[0], xf0) + gate.mask(flat[1], xf1)
            want = gate.eval(0, flat[0], xh) + gate.eval(1, flat[1], xh)
            assert torch.equal(y.reshape(want.shape), want)


def all_gates(ring):
    """One gate of each kind with its plaintext function of a Python int x."""
    n = bits_of(ring)
    table = [(7 * i - 20) % 97 for i in range(16)]
    iv = intervals_for(n, True)
    sp_iv, sp_co = spline_case(n)
    return [
        (gates.DReLU(ring), lambda v: int(v >= 0)),
        (gates.ReLU(ring), lambda v: max(v, 0)),
        (gates.Equal(-1, ring), lambda v: int(v == -1)),
        (gates.IntervalContainment(iv, ring), lambda v: [int(lo <= v <= hi) for lo, hi in iv]),
        (gates.LessThan(3, ring), lambda v: int(v < 3)),
        (gates.LookupTable(table, ring), lambda v: table[v % 16]),
        (gates.Spline(sp_iv, sp_co, ring), lambda v: spline_plain(sp_iv, sp_co, v, n)),
        (gates.Truncate(12, ring), lambda v: v >> 12),
        (gates.Truncate(5, ring, arithmetic=False), lambda v: (v % (1 << n)) >> 5),
        (gates.BitDecompose(None, ring), lambda v: [(v >> i) & 1 for i in range(n)]),
    ]


@pytest.mark.parametrize("ring", RINGS)
def test_every_gate_at_edge_masks(ring):
    """Masks at the edges (r = 0, -1, the sign boundary) with edge inputs, so x + r
    wraps or not in every combination."""
    n = bits_of(ring)
    top = 1 << (n - 1)
    x = torch.tensor(edge_values(n), dtype=ring)
    g = torch.Generator().manual_seed(11)
    for r in [0, 1, -1, top - 1, -top, 1 << 12, -(1 << 12) + 1]:
        for gate, plain in all_gates(ring):
            mask = torch.full_like(x, r)
            k0, k1 = gate.deal(x.shape, generator=g, mask=mask)
            assert torch.equal(k0["r"] + k1["r"], mask)
            x0, x1 = share(x, g)
            xhat = gate.mask(k0, x0) + gate.mask(k1, x1)
            y = gate.eval(0, k0, xhat) + gate.eval(1, k1, xhat)
            want = [plain(v) for v in as_ints(x)]
            want = [
                [signed(w, n) for w in row] if isinstance(row, list) else signed(row, n)
                for row in want
            ]
            assert as_ints(y) == want, (gate.name, r)


def test_a_mask_of_the_wrong_kind_is_refused():
    gate = gates.DReLU()
    with pytest.raises(TypeError, match="mask must be a torch.int64 tensor"):
        gate.deal((2,), mask=torch.zeros(2, dtype=torch.int32))
    with pytest.raises(ValueError, match=r"mask has shape \(3,\), not \(2,\)"):
        gate.deal((2,), mask=torch.zeros(3, dtype=torch.int64))


def test_key_material_travels_as_bytes():
    gate = gates.Truncate(5, torch.int32)
    g = torch.Generator().manual_seed(9)
    x = torch.tensor([-100, 100, 2**31 - 1, -(2**31)], dtype=torch.int32)
    k0, k1 = gate.deal(x.shape, generator=g)
    k1 = gates.GateKey.from_bytes(k1.to_bytes())
    assert k1.party == 1 and k1.gate == "truncate" and k1.shape == (4,)
    x0, x1 = share(x, g)
    xhat = gate.mask(k0, x0) + gate.mask(k1, x1)
    assert as_ints(gate.eval(0, k0, xhat) + gate.eval(1, k1, xhat)) == [-4, 3, 2**26 - 1, -(2**26)]
    assert k0.nbytes > 0


def test_dealer_is_reproducible_with_a_generator_and_fresh_without():
    gate = gates.DReLU()
    a = gate.deal((4,), generator=torch.Generator().manual_seed(1))
    b = gate.deal((4,), generator=torch.Generator().manual_seed(1))
    c, d = gate.deal((4,)), gate.deal((4,))
    assert all(torch.equal(a[0][k], b[0][k]) for k in a[0].tensors)
    assert not torch.equal(c[0]["r"] + c[1]["r"], d[0]["r"] + d[1]["r"])


def test_one_share_of_the_mask_says_nothing_of_it():
    """Each party's tensors alone are uniform: party 0's share of r differs from r."""
    k0, k1 = gates.ReLU().deal((64,), generator=torch.Generator().manual_seed(3))
    r = k0["r"] + k1["r"]
    assert not torch.equal(k0["r"], r) and not torch.equal(k1["r"], r)
    assert torch.equal(k0["w.cws"], k1["w.cws"])  # correction words are common


# -- mistakes -------------------------------------------------------------------------


def dealt(gate=None, shape=(3,)):
    gate = gate or gates.DReLU()
    k0, k1 = gate.deal(shape, generator=torch.Generator().manual_seed(0))
    return gate, k0, k1


def test_wrong_dtype_shape_party_or_gate():
    gate, k0, _ = dealt()
    with pytest.raises(TypeError, match="shares must be torch.int64"):
        gate.mask(k0, torch.zeros(3, dtype=torch.int32))
    with pytest.raises(TypeError, match="shares must be"):
        gate.eval(0, k0, [1, 2, 3])
    with pytest.raises(ValueError, match=r"shares have shape \(4,\), the key \(3,\)"):
        gate.eval(0, k0, torch.zeros(4, dtype=torch.int64))
    with pytest.raises(ValueError, match="match the key's"):
        gate.eval(1, k0, torch.zeros(3, dtype=torch.int64))
    with pytest.raises(ValueError, match="party must be 0 or 1"):
        gate.eval(2, k0, torch.zeros(3, dtype=torch.int64))
    with pytest.raises(ValueError, match="key is for gate 'drelu', not 'relu'"):
        gates.ReLU().eval(0, k0, torch.zeros(3, dtype=torch.int64))


def test_bad_parameters():
    with pytest.raises(TypeError, match="ring must be"):
        gates.DReLU(torch.float32)
    with pytest.raises(ValueError, match="shift must be"):
        gates.Truncate(0)
    with pytest.raises(ValueError, match="shift must be"):
        gates.Truncate(32, torch.int32)
    with pytest.raises(ValueError, match="bits must be"):
        gates.BitDecompose(65)
    with pytest.raises(ValueError, match="not lo <= hi"):
        gates.IntervalContainment([(5, 4)])
    with pytest.raises(ValueError, match="not lo <= hi"):
        gates.IntervalContainment([(0, 2**31)], torch.int32)
    with pytest.raises(ValueError, match="not lo <= hi"):
        gates.IntervalContainment([(-1, 3)], signed=False)
    with pytest.raises(ValueError, match="must not be empty"):
        gates.IntervalContainment([])
    with pytest.raises(TypeError, match="pairs"):
        gates.IntervalContainment([1, 2])
    with pytest.raises(ValueError, match="one row"):
        gates.Spline([(0, 1), (2, 3)], [[1, 2]])
    with pytest.raises(ValueError, match="one row"):
        gates.Spline([(0, 1), (2, 3)], [[1, 2], [3]])
    with pytest.raises(ValueError, match="2\\^m entries"):
        gates.LookupTable(torch.arange(6))
    with pytest.raises(ValueError, match="2\\^m entries"):
        gates.LookupTable(torch.arange(4).reshape(2, 2))
    with pytest.raises(TypeError, match="table must hold integers"):
        gates.LookupTable(torch.zeros(4))
    with pytest.raises(TypeError, match="value must be an int, got float"):
        gates.LookupTable([1, 2, 3.5, 4])
    with pytest.raises(TypeError, match="coeffs must be rows of ints"):
        gates.Spline([(0, 9)], [1, 2])
    with pytest.raises(ValueError, match="c must be at most 18446744073709551616"):
        gates.LessThan(2**64 + 1, signed=False)
    with pytest.raises(ValueError, match="shape must not hold negative sizes"):
        gates.DReLU().deal((2, -1))
    with pytest.raises(ValueError, match="smallest value"):
        gates.LessThan(-(2**63))
    with pytest.raises(ValueError, match="prg must be one of"):
        gates.DReLU(prg="md5")


def test_floats_and_bools_are_not_ints():
    with pytest.raises(TypeError, match="intervals must be"):
        gates.IntervalContainment([(0.5, 3)])
    with pytest.raises(TypeError, match="c must be an int"):
        gates.LessThan(2.5)
    with pytest.raises(TypeError, match="value must be an int, got float"):
        gates.Equal(1.0)
    with pytest.raises(TypeError, match="value must be an int, got float"):
        gates.Spline([(0, 3)], [[1.5]])
    with pytest.raises(TypeError, match="shape must be an int, got float"):
        gates.DReLU().deal((2.0,))
    with pytest.raises(TypeError, match="got bool"):
        gates.DReLU().deal((True,))
    with pytest.raises(TypeError, match="intervals must be"):
        gates.IntervalContainment([(False, True)])
    with pytest.raises(TypeError, match="shift must be an int, got bool"):
        gates.Truncate(True)
    gate, k0, _ = dealt()
    with pytest.raises(ValueError, match="party must be 0 or 1, got False"):
        gate.eval(False, k0, torch.zeros(3, dtype=torch.int64))


@pytest.mark.parametrize("kind", ["numpy", "tensor 0-d", "tensor (1,)"])
def test_bools_of_numpy_and_torch_are_not_ints(kind):
    """As a Python bool: operator.index reads a one-element bool tensor as 0 or 1."""
    if kind == "numpy":
        b = pytest.importorskip("numpy").bool_(True)
    else:
        b = torch.tensor(True) if kind == "tensor 0-d" else torch.tensor([True])
    for name, make in (
        ("value", lambda: gates.Equal(b)),
        ("c", lambda: gates.LessThan(b)),
        ("intervals", lambda: gates.IntervalContainment([(b, 3)])),
        ("intervals", lambda: gates.IntervalContainment([(0, b)])),
        ("value", lambda: gates.LookupTable([b, 1])),
        ("value", lambda: gates.Spline([(0, 3)], [[1, b]])),
        ("shift", lambda: gates.Truncate(b)),
        ("bits", lambda: gates.BitDecompose(b)),
        ("shape", lambda: gates.DReLU().deal((2, b))),
    ):
        with pytest.raises(TypeError, match=name):
            make()
    gate, k0, _ = dealt()
    with pytest.raises(ValueError, match="party must be 0 or 1"):
        gate.eval(b, k0, torch.zeros(3, dtype=torch.int64))


def test_numpy_ints_stand_for_ints():
    np = pytest.importorskip("numpy")
    gate = gates.Truncate(np.int64(2), torch.int32)
    assert gate.shift == 2 and gates.BitDecompose(np.uint8(3)).out_bits == 3
    x = torch.tensor([-9, 9, 100], dtype=torch.int32)
    k0, k1 = gate.deal(x.shape, generator=torch.Generator().manual_seed(2))
    x0, x1 = share(x, torch.Generator().manual_seed(3))
    xhat = gate.mask(k0, x0) + gate.mask(k1, x1)
    y = gate.eval(np.int64(0), k0, xhat) + gate.eval(np.int64(1), k1, xhat)
    assert as_ints(y) == [-3, 2, 25]


def public_variants(ring):
    """Pairs of gates of one kind whose public parameters differ (keys of one would
    give wrong shares on the other), and one more gate equal to the first."""
    other_prg = "chacha"
    return [
        (gates.ReLU(ring), gates.ReLU(ring, other_prg), gates.ReLU(ring)),
        (gates.DReLU(ring), gates.DReLU(ring, other_prg), gates.DReLU(ring)),
        (gates.Equal(0, ring), gates.Equal(1, ring), gates.Equal(0, ring)),
        (
            gates.Spline([(0, 1000)], [[0, 1]], ring),
            gates.Spline([(0, 1000)], [[1, 2]], ring),
            gates.Spline([(0, 1000)], torch.tensor([[0, 1]]), ring),
        ),
        (
            gates.IntervalContainment([(0, 5)], ring),
            gates.IntervalContainment([(0, 5)], ring, signed=False),
            gates.IntervalContainment([(0, 5)], ring),
        ),
        (gates.LessThan(3, ring), gates.LessThan(4, ring), gates.LessThan(3, ring)),
        (
            gates.LookupTable(list(range(16)), ring),
            gates.LookupTable(list(range(1, 17)), ring),
            gates.LookupTable(torch.arange(16), ring),
        ),
        (gates.Truncate(4, ring), gates.Truncate(5, ring), gates.Truncate(4, ring)),
        (
            gates.Truncate(4, ring),
            gates.Truncate(4, ring, arithmetic=False),
            gates.Truncate(4, ring, arithmetic=1),
        ),
        (gates.BitDecompose(8, ring), gates.BitDecompose(5, ring), gates.BitDecompose(8, ring)),
    ]


@pytest.mark.parametrize("ring", [torch.int32, torch.int64], ids=str)
def test_a_key_evaluates_only_on_its_gates_public_parameters(ring):
    x = torch.tensor([-5, 0, 3, 100], dtype=ring)
    x0, x1 = share(x, torch.Generator().manual_seed(1))
    for dealer, other, same in public_variants(ring):
        k0, k1 = dealer.deal(x.shape, generator=torch.Generator().manual_seed(0))
        assert dealer.fingerprint == same.fingerprint != other.fingerprint
        with pytest.raises(ValueError, match="other public parameters"):
            other.mask(k0, x0)
        xhat = dealer.mask(k0, x0) + dealer.mask(k1, x1)
        with pytest.raises(ValueError, match="other public parameters"):
            other.eval(0, k0, xhat)
        # An equal gate made apart (or a key that went through bytes) evaluates.
        k1 = gates.GateKey.from_bytes(k1.to_bytes())
        y = same.eval(0, k0, xhat) + same.eval(1, k1, xhat)
        assert torch.equal(y, dealer.eval(0, k0, xhat) + dealer.eval(1, k1, xhat))
    k0, _ = gates.ReLU(torch.int32).deal((4,))
    with pytest.raises(ValueError, match="other public parameters"):
        gates.ReLU(torch.int64).eval(0, k0, torch.zeros(4, dtype=torch.int64))
    with pytest.raises(TypeError, match="takes a device"):
        k0.to(torch.int64)
    assert k0.to("cpu").fingerprint == k0.fingerprint


def test_a_lookup_table_is_the_gates_own():
    """The table is copied (the caller may reuse its tensor) and taken mod 2^N, from a
    tensor of any integer dtype, a list or a numpy array."""
    np = pytest.importorskip("numpy")
    table = torch.arange(16)
    gate = gates.LookupTable(table)
    table.zero_()
    x = torch.tensor([3, 7, -1, 16])
    x0, x1 = share(x, torch.Generator().manual_seed(4))
    k0, k1 = gate.deal(x.shape, generator=torch.Generator().manual_seed(5))
    xhat = gate.mask(k0, x0) + gate.mask(k1, x1)
    assert as_ints(gate.eval(0, k0, xhat) + gate.eval(1, k1, xhat)) == [3, 7, 15, 0]
    big = [2**64 - 1, 2**63, -(2**65) + 5, 7]  # mod 2^64: -1, -2^63, 5, 7
    for ring, want in ((torch.int64, [-1, -(2**63), 5, 7]), (torch.int32, [-1, 0, 5, 7])):
        assert gates.LookupTable(big, ring).table.tolist() == want
    assert gates.LookupTable(np.arange(4, dtype=np.uint8)).table.tolist() == [0, 1, 2, 3]
    u8 = gates.LookupTable(torch.tensor([255, 1], dtype=torch.uint8), torch.int32)
    assert u8.table.dtype == torch.int32 and u8.table.tolist() == [255, 1]


def test_negative_views_are_read_as_their_values():
    """int64 inputs of 64-bit keys go through a view as int32 words, which must not
    read a negative view's memory (which holds the negated values)."""
    x = torch.tensor([-8, 8, 1000, -(2**63)])
    g = torch.Generator().manual_seed(6)
    for gate, plain in (
        (gates.Truncate(2, arithmetic=False), lambda v: (v % 2**64) >> 2),
        (gates.BitDecompose(4), lambda v: [(v >> i) & 1 for i in range(4)]),
        (gates.Equal(8), lambda v: int(v == 8)),
    ):
        r = random_ring(x.shape, torch.int64, g)
        k0, k1 = gate.deal(x.shape, generator=g, mask=(-r)._neg_view())
        assert torch.equal(k0["r"] + k1["r"], r)
        x0, x1 = share(x, g)
        xhat = gate.mask(k0, x0) + gate.mask(k1, x1)
        neg = (-xhat)._neg_view()
        assert neg.is_neg() and torch.equal(neg, xhat)
        y = gate.eval(0, k0, neg) + gate.eval(1, k1, neg)
        assert y.tolist() == [plain(v) for v in x.tolist()]


def test_run_takes_a_party_object():
    gate, k0, _ = dealt()
    with pytest.raises(TypeError, match="run takes a pyfss.mpc.Party"):
        gate.run(0, k0, torch.zeros(3, dtype=torch.int64))


def test_non_contiguous_shares():
    gate = gates.Truncate(3, torch.int32)
    g = torch.Generator().manual_seed(8)
    x = torch.arange(-6, 6, dtype=torch.int32).reshape(3, 4).t()  # (4, 3), transposed
    k0, k1 = gate.deal(x.shape, generator=g)
    x0, x1 = share(x.contiguous(), g)
    x0, x1 = x0.t().contiguous().t(), x1.t().contiguous().t()  # same values, strided
    assert not x0.is_contiguous()
    xhat = gate.mask(k0, x0) + gate.mask(k1, x1)
    xhat = xhat.t().contiguous().t()
    assert torch.equal(gate.eval(0, k0, xhat) + gate.eval(1, k1, xhat), x >> 3)


def test_bytes_that_are_not_key_material():
    with pytest.raises(ValueError, match="not GateKey.to_bytes"):
        gates.GateKey.from_bytes(b"PYFSSKEY garbage")
    with pytest.raises(ValueError, match="not GateKey.to_bytes"):
        gates.GateKey.from_bytes(b"hello world")
    buf = __import__("io").BytesIO()
    torch.save({"gate": "relu", "party": 3, "tensors": {}}, buf)
    with pytest.raises(ValueError, match="wrong fields"):
        gates.GateKey.from_bytes(buf.getvalue())
    gate, k0, _ = dealt()
    partial = gates.GateKey("drelu", 0, {"r": k0["r"]}, k0.fingerprint)
    with pytest.raises(ValueError, match="'drelu' key material has no tensor 's'"):
        gate.eval(0, partial, torch.zeros(3, dtype=torch.int64))


def test_a_corrupted_key_is_refused_not_misread():
    gate, k0, _ = dealt()
    bad = dict(k0.tensors)
    bad["w.cws"] = bad["w.cws"][..., :-1, :]
    with pytest.raises(TypeError, match="cws"):
        gate.eval(
            0, gates.GateKey("drelu", 0, bad, k0.fingerprint), torch.zeros(3, dtype=torch.int64)
        )


def test_key_tensors_are_checked_when_a_key_is_built():
    """A share of another dtype or shape gave wrong values without an error (a (1,)
    s broadcast, a float s a float64 result): each tensor's dtype, shape (starting
    with r's), device and layout, and the other fields, are checked when a GateKey
    is built, with an error that names the field."""
    gate, k0, k1 = dealt(shape=(5,))
    t, fp = k0.tensors, k0.fingerprint
    without = lambda name: {k: v for k, v in t.items() if k != name}
    for tensors, error, match in (
        (
            {**t, "s": t["s"].int()},
            TypeError,
            "'s' must be a torch.int64 tensor, got a torch.int32",
        ),
        ({**t, "s": t["s"].double()}, TypeError, "'s' must be a torch.int64 tensor"),
        (
            {**t, "s": t["s"][:1]},
            TypeError,
            r"'s' has shape \(1,\), which must start with r's \(5,\)",
        ),
        ({**t, "s": t["s"][0]}, TypeError, r"'s' has shape \(\)"),
        ({**t, "s": t["s"].tolist()}, TypeError, "'s' must be a torch.int64 tensor, got list"),
        ({**t, "s": t["s"].to_sparse()}, TypeError, "'s' must be a dense tensor"),
        ({**t, "s": t["s"].to("meta")}, RuntimeError, "'s' is on meta, r on cpu"),
        ({**t, "r": t["r"].float()}, TypeError, "'r' must be an int32 or int64 tensor"),
        ({**t, "r": t["r"].bool()}, TypeError, "'r' must be an int32 or int64 tensor"),
        ({**t, "w.s0": t["w.s0"].long()}, TypeError, "'w.s0' must be a torch.int32 tensor"),
        ({**t, "w.s0": t["w.s0"][..., :3]}, TypeError, r"'w.s0' must have shape \(\.\.\., 4\)"),
        (
            {**t, "w.cws": t["w.cws"][:, 0]},
            TypeError,
            r"'w.cws' must have shape \(\.\.\., rows, 8\)",
        ),
        (
            {**t, "w.cws": t["w.cws"][..., :4]},
            TypeError,
            r"'w.cws' must have shape \(\.\.\., rows, 8\)",
        ),
        (
            {**t, "w.cws": t["w.cws"].unsqueeze(1).expand(5, 2, -1, 8)},
            TypeError,
            r"'w.cws' must have shape \(\.\.\., rows, 8\) with the batch shape of 'w.s0', \(5,\)",
        ),
        (
            {
                **t,
                "w.s0": t["w.s0"].unsqueeze(1).expand(5, 2, 4),
                "w.cws": t["w.cws"].unsqueeze(1).expand(5, 3, -1, 8),
            },
            TypeError,
            r"'w.cws' has batch shape \(5, 3\), but 'w.s0' has \(5, 2\)",
        ),
        (without("r"), ValueError, "'drelu' key material has no tensor 'r'"),
        (without("w.cws"), ValueError, "has no tensor 'w.cws'"),
        (without("w.s0"), ValueError, "has no tensor 'w.s0'"),
        ({**t, 3: t["s"]}, TypeError, "names must be str, got 3"),
    ):
        with pytest.raises(error, match=match):
            gates.GateKey("drelu", 0, tensors, fp)
    for party in (2, -1, True, torch.tensor(True), "0"):
        with pytest.raises(ValueError, match="party must be 0 or 1"):
            gates.GateKey("drelu", party, t, fp)
    with pytest.raises(TypeError, match="GateKey.gate must be a str, got bytes"):
        gates.GateKey(b"drelu", 0, t, fp)
    with pytest.raises(TypeError, match="GateKey.fingerprint must be a str, got NoneType"):
        gates.GateKey("drelu", 0, t, None)
    with pytest.raises(TypeError, match="GateKey.tensors must be a dict of tensors, got list"):
        gates.GateKey("drelu", 0, list(t.items()), fp)
    # The same tensors in a key built apart evaluate as the dealt key does.
    x = torch.tensor([-6, 5, 0, -1, 2**62])
    x0, x1 = share(x, torch.Generator().manual_seed(2))
    key = gates.GateKey("drelu", 0, dict(t), fp)
    xhat = gate.mask(key, x0) + gate.mask(k1, x1)
    assert as_ints(gate.eval(0, key, xhat) + gate.eval(1, k1, xhat)) == [0, 1, 1, 0, 1]


def changed_layouts(key, ring):
    """(tensors, error, what the message names) for changes to a key's tensors that
    leave each tensor well formed on its own, so that only the gate can tell."""
    t = key.tensors
    other = torch.int32 if ring == torch.int64 else torch.int64
    shares = [n for n in t if not n.endswith((".s0", ".cws"))]
    keys = [n[: -len(".s0")] for n in t if n.endswith(".s0")]
    out = [
        (
            {**{n: t[n].to(other) for n in shares}, **{n: t[n] for n in t if n not in shares}},
            TypeError,
            "'r'",
        ),
        ({**t, "extra": t["r"]}, ValueError, "unknown tensors 'extra'"),
    ]
    for n in shares:
        if n != "r":
            out.append(({**t, n: t[n].unsqueeze(-1)}, TypeError, f"'{n}' must have shape"))
            out.append(({k: v for k, v in t.items() if k != n}, ValueError, f"no tensor '{n}'"))
    for n in keys:
        s0, cws = t[n + ".s0"], t[n + ".cws"]
        out.append(({**t, n + ".cws": cws[..., 1:, :]}, TypeError, f"'{n}.cws' must have shape"))
        wider = {n + ".s0": s0.unsqueeze(-2), n + ".cws": cws.unsqueeze(-3)}
        out.append(({**t, **wider}, TypeError, f"'{n}.s0' must have shape"))
    return out


@pytest.mark.parametrize("ring", RINGS)
def test_key_tensors_are_checked_against_the_gate_before_it_computes(ring, monkeypatch):
    """Tensors each well formed but not of the evaluating gate's layout (another ring,
    a dimension more, keys of another input width or batch, a tensor less or more)
    are refused by mask and eval, naming the tensor, before any DCF or DPF key is
    evaluated."""

    def evaluated(*args, **kwargs):
        raise AssertionError("a key was evaluated before its checks")

    for cls in (pyfss.Dcf, pyfss.Dpf):
        monkeypatch.setattr(cls, "eval", evaluated)
        monkeypatch.setattr(cls, "eval_all", evaluated)
    for gate, _ in all_gates(ring):
        k0, _ = gate.deal((3,), generator=torch.Generator().manual_seed(4))
        xhat = torch.zeros(3, dtype=ring)
        for tensors, error, match in changed_layouts(k0, ring):
            for use in (gate.mask, partial(gate.eval, 0)):
                with pytest.raises(error, match=re.escape(match)):
                    use(gates.GateKey(k0.gate, 0, tensors, k0.fingerprint), xhat)


def saved(**fields):
    buf = io.BytesIO()
    torch.save(fields, buf)
    return buf.getvalue()


def test_loaded_key_tensors_are_checked():
    """from_bytes checks what a built key's fields are checked for, and refuses what
    it does not hold as it refuses other bytes: ValueError, naming the field."""
    _, k0, _ = dealt(shape=(5,))
    t = k0.tensors
    good = {"gate": k0.gate, "party": 0, "fingerprint": k0.fingerprint, "tensors": t}
    assert gates.GateKey.from_bytes(saved(**good)).tensors.keys() == t.keys()
    for change, match in (
        ({"tensors": {**t, "s": t["s"].int()}}, "'s' must be a torch.int64 tensor"),
        ({"tensors": {**t, "s": t["s"].double()}}, "'s' must be a torch.int64 tensor"),
        ({"tensors": {**t, "s": t["s"][:1]}}, r"'s' has shape \(1,\)"),
        ({"tensors": {**t, "w.cws": t["w.cws"][:2]}}, r"'w.cws' has shape \(2, 64, 8\)"),
        ({"tensors": {**t, "s": [1, 2]}}, "'s' must be a torch.int64 tensor, got list"),
        ({"party": True}, "party must be 0 or 1, got True"),
        ({"party": 2}, "party must be 0 or 1, got 2"),
        ({"gate": 5}, "GateKey.gate must be a str"),
        ({"fingerprint": b"x"}, "GateKey.fingerprint must be a str"),
        ({"tensors": [1]}, "GateKey.tensors must be a dict"),
        ({"more": 1}, "wrong fields"),
    ):
        with pytest.raises(ValueError, match=match):
            gates.GateKey.from_bytes(saved(**{**good, **change}))


def pickle_span(blob):
    """Where a torch.save archive's pickle (names, dtypes, shapes) lies in its bytes."""
    entries = sorted(zipfile.ZipFile(io.BytesIO(blob)).infolist(), key=lambda e: e.header_offset)
    i = next(i for i, e in enumerate(entries) if e.filename.endswith("/data.pkl"))
    return entries[i].header_offset, entries[i + 1].header_offset


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch.load on a changed protocol byte
def test_mutated_key_bytes_load_and_evaluate_or_are_refused():
    """Random changes of 1-4 bytes to a key's bytes (as for the schemes' keys, half of
    them in the pickle that holds its names, dtypes and shapes) either load, or raise
    ValueError; a key that loads either evaluates to shares of the gate's output
    shape and ring, or is refused by eval with ValueError or TypeError: never another
    error, nor a result broadcast to another shape or computed in another dtype."""
    for i, gate in enumerate(
        [
            gates.DReLU(torch.int32),
            gates.ReLU(torch.int32),
            gates.Equal(3, torch.int32),
            gates.IntervalContainment([(0, 4), (-9, -1)], torch.int32),
            gates.Spline([(0, 4)], [[1, 2]], torch.int32),
            gates.LookupTable(torch.arange(16), torch.int32),
            gates.Truncate(7, torch.int32),
            gates.BitDecompose(3, torch.int32),
        ]
    ):
        k0, _ = gate.deal((2,), generator=torch.Generator().manual_seed(i))
        tail = gate.eval(0, k0, torch.zeros(2, dtype=torch.int32)).shape[1:]
        blob = k0.to_bytes()
        for key in loaded_mutations(
            blob,
            i,
            150,
            load=gates.GateKey.from_bytes,
            refused=(ValueError,),
            hot=pickle_span(blob),
        ):
            try:
                y = gate.eval(key.party, key, torch.zeros(key.shape, dtype=torch.int32))
            except (ValueError, TypeError):
                continue
            assert y.dtype == torch.int32 and y.shape == (*key.shape, *tail), gate.name


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "gate",
    [gates.DReLU(torch.int32), gates.Spline([(0, 4)], [[1, 2]], torch.int32)],
    ids=lambda gate: gate.name,
)
def test_every_bit_flip_in_the_pickle_of_key_bytes(gate):
    """Each bit flipped in turn where a key's names, dtypes and shapes are, which
    random changes seldom hit in a way that still loads: loaded, the key evaluates to
    shares of the gate's shape and ring, or is refused with ValueError or TypeError."""
    k0, _ = gate.deal((2,), generator=torch.Generator().manual_seed(1))
    tail = gate.eval(0, k0, torch.zeros(2, dtype=torch.int32)).shape[1:]
    blob = k0.to_bytes()
    start, stop = pickle_span(blob)
    loaded = 0
    for i in range(start * 8, stop * 8):
        data = bytearray(blob)
        data[i // 8] ^= 1 << i % 8
        try:
            key = gates.GateKey.from_bytes(bytes(data))
        except ValueError:
            continue
        loaded += 1
        try:
            y = gate.eval(key.party, key, torch.zeros(key.shape, dtype=torch.int32))
        except (ValueError, TypeError):
            continue
        assert y.dtype == torch.int32 and y.shape == (*key.shape, *tail), i
    assert loaded > 0


def test_gates_are_exported():
    assert pyfss.gates is gates


@pytest.mark.skipif(
    not (torch.cuda.is_available() and pyfss.backend_info()["cuda"]["usable"]),
    reason="needs a GPU that pyfss can use",
)
@pytest.mark.parametrize("ring", RINGS)
def test_on_cuda(ring):
    n = bits_of(ring)
    g = torch.Generator().manual_seed(7)
    x = torch.tensor(edge_values(n), dtype=ring)
    x0, x1 = share(x, g)
    for gate, want in [
        (gates.ReLU(ring), [max(v, 0) for v in as_ints(x)]),
        (gates.Truncate(12, ring), [v >> 12 for v in as_ints(x)]),
        (gates.LookupTable(torch.arange(16), ring), [v % 16 for v in as_ints(x)]),
        (gates.Equal(0, ring), [int(v == 0) for v in as_ints(x)]),
        (gates.IntervalContainment([(-2, 2)], ring), [[int(-2 <= v <= 2)] for v in as_ints(x)]),
    ]:
        k0, k1 = gate.deal(x.shape, generator=g, device="cuda")
        xhat = gate.mask(k0, x0.cuda()) + gate.mask(k1, x1.cuda())
        y = gate.eval(0, k0, xhat) + gate.eval(1, k1, xhat)
        assert y.is_cuda and as_ints(y.cpu()) == want, gate.name


def test_readme_example(tmp_path):
    out = run_doc_block("README.md", "## Gates", tmp_path)
    assert out == "[-2251799813685248, -2, 0, 1, 2251799813685247]\n"


@pytest.mark.parametrize(
    "gate",
    [
        gates.DReLU(),
        gates.ReLU(torch.int32),
        gates.Equal(3),
        gates.LookupTable(torch.arange(16)),
        gates.Truncate(4),
    ],
    ids=lambda g: type(g).__name__,
)
@pytest.mark.parametrize("shape", [(), (1,), (5,)])
def test_deal_parties_do_not_share_memory(gate, shape):
    # As for keygen: a party's private tensors must not be views into memory that
    # holds the other party's, which torch.save and pickling would send along. The
    # correction words, the same object in both keys, are public.
    k0, k1 = gate.deal(shape, generator=torch.Generator().manual_seed(3))
    private1 = [t for n, t in k1.tensors.items() if t is not k0.tensors.get(n)]
    for n, t in k0.tensors.items():
        if t is k1.tensors.get(n):
            continue
        for u in private1:
            assert t.untyped_storage().data_ptr() != u.untyped_storage().data_ptr(), n


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch.load on a flipped protocol byte
def test_altered_key_bytes_load_or_raise_value_error():
    """Every bit flip of a key's bytes (a seeded sample of them, all of the first 1024
    bytes, where the archive's structure is) either loads or raises ValueError: torch.load
    on corrupt bytes raises IndexError, KeyError, TypeError, AttributeError and others."""
    blob = bytearray(
        gates.DReLU().deal((2,), generator=torch.Generator().manual_seed(1))[0].to_bytes()
    )
    rng = __import__("random").Random(7)
    positions = list(range(min(1024, len(blob)))) + rng.sample(range(len(blob)), 300)
    loaded = 0
    for i in positions:
        flipped = bytearray(blob)
        flipped[i] ^= 1 << rng.randrange(8)
        try:
            gates.GateKey.from_bytes(bytes(flipped))
            loaded += 1
        except ValueError:
            pass
    assert loaded < len(positions)


def test_fingerprint_is_the_specs_digest():
    """docs/spec.md, "Key material": SHA-256 of the name, N, the PRG and the gate's
    own parameters (repr, or a ring tensor's little-endian bytes), each then a zero
    byte; the first 32 hex digits."""

    def digest(*parts):
        h = hashlib.sha256()
        for p in parts:
            h.update(p if isinstance(p, bytes) else repr(p).encode())
            h.update(b"\0")
        return h.hexdigest()[:32]

    assert gates.DReLU().fingerprint == digest("drelu", 64, "aes128_mmo")
    shift = gates.Truncate(4, torch.int32, "chacha", arithmetic=False)
    assert shift.fingerprint == digest("truncate", 32, "chacha", 4, False)
    table = gates.LookupTable([5, 2**32 - 1, 0, 7], torch.int32)
    assert table.fingerprint == digest("lut", 32, "aes128_mmo", struct.pack("<4i", 5, -1, 0, 7))
    less = gates.LessThan(3, torch.int64, signed=False)  # the interval [0, 2]
    bounds = struct.pack("<q", 0), struct.pack("<q", 2)
    assert less.fingerprint == digest("less_than", 64, "aes128_mmo", False, *bounds)
