"""SharedTensor's non-linear functions between two parties in threads, against
float64 torch on dense grids of their documented ranges (docs/mpc.md gives the
bounds asserted here), out of range, and their costs."""

import math

import pytest
import torch
import torch.nn.functional as F

from pyfss import gates
from pyfss.mpc import LocalDealer, SharedTensor, run_local

FRAC = 16
ULP = 2.0**-FRAC
D = torch.float64


def on_grid(x):
    """x as the fixed-point values the parties hold (the reference's input)."""
    return torch.round(torch.as_tensor(x, dtype=D) * 2**FRAC) / 2**FRAC


def secure(fn, x, truncation="local", seed=0):
    """fn on party 0's x; the opened result and party 0's counters for fn alone."""

    def both(party):
        xs = SharedTensor.from_secret(party, x if party.party == 0 else None, truncation=truncation)
        before = party.counters()["total"]
        y = fn(xs)
        after = party.counters()["total"]
        return y.reveal(), {k: after[k] - before[k] for k in after}

    (y0, c0), (y1, _) = run_local(both, dealer=LocalDealer(torch.Generator().manual_seed(seed)))
    assert torch.equal(y0, y1)
    return y0, c0


def span(lo, hi, n):
    return torch.linspace(lo, hi, n, dtype=D)


def octaves(lo, hi, n):
    return torch.logspace(lo, hi, n, base=2, dtype=D)


# name, method, reference, grid of the documented range, absolute error bound
ABSOLUTE = [
    ("exp", SharedTensor.exp, torch.exp, span(-16, 0, 4097), 6e-5),
    ("sigmoid", SharedTensor.sigmoid, torch.sigmoid, span(-16, 16, 4097), 6e-5),
    ("tanh", SharedTensor.tanh, torch.tanh, span(-8, 8, 4097), 1.2e-4),
    ("gelu", SharedTensor.gelu, F.gelu, span(-10, 10, 4097), 6e-5),
]
# name, method, reference, range, relative bound (plus 2 ulps absolute)
RELATIVE = [
    ("reciprocal", SharedTensor.reciprocal, torch.reciprocal, 1e-4),
    ("rsqrt", SharedTensor.rsqrt, torch.rsqrt, 1e-3),
]


@pytest.mark.parametrize("name, method, ref, grid, bound", ABSOLUTE, ids=[a[0] for a in ABSOLUTE])
def test_absolute_error_on_the_range(name, method, ref, grid, bound):
    ends = [grid[0].item(), grid[-1].item()]
    # the range's ends, zero, and one ulp either side of each end
    edges = torch.tensor([e + d * ULP for e in ends for d in (-1, 0, 1)] + [0.0], dtype=D)
    x = torch.cat([grid, edges]).clamp(grid[0], grid[-1])
    y, _ = secure(method, x)
    err = (y - ref(on_grid(x))).abs()
    assert err.max() <= bound, (err.max(), x[err.argmax()])


@pytest.mark.parametrize("name, method, ref, bound", RELATIVE, ids=[r[0] for r in RELATIVE])
@pytest.mark.parametrize("truncation", ["local", "exact"])
def test_relative_error_on_the_range(name, method, ref, bound, truncation):
    edges = torch.tensor([2.0**-10, 2.0**-10 + ULP, 1.0, 2.0**14 - ULP, 2.0**14], dtype=D)
    x = torch.cat([octaves(-10, 14, 4001), edges])
    y, _ = secure(method, x, truncation)
    want = ref(on_grid(x))
    assert ((y - want).abs() <= bound * want + 2 * ULP).all()


def test_breakpoints_one_ulp_either_side():
    # exp's and sigmoid's pieces meet at multiples of 1/64: cross every one of them
    centre = span(-16, 0, 16 * 64 + 1)
    x = torch.cat([centre - ULP, centre, centre + ULP]).clamp(-16, 0)
    y, _ = secure(SharedTensor.exp, x)
    assert (y - torch.exp(on_grid(x))).abs().max() <= 6e-5
    x = torch.cat([x, -x])
    y, _ = secure(SharedTensor.sigmoid, x)
    assert (y - torch.sigmoid(on_grid(x))).abs().max() <= 6e-5


def test_out_of_range():
    big = [16 + ULP, 17.0, 1000.0, 2.0**40]
    x = torch.tensor(big + [-v for v in big], dtype=D)
    y, _ = secure(SharedTensor.sigmoid, x)
    assert torch.equal(y, (x > 0).to(D))  # clamped to 0 and 1
    half = [8 + ULP, 9.0, 500.0, 2.0**39]
    y, _ = secure(SharedTensor.tanh, torch.tensor(half + [-v for v in half], dtype=D))
    assert torch.equal(y, torch.tensor([1.0] * 4 + [-1.0] * 4, dtype=D))
    # exp: 1 above 0 (clamped), 0 below -16
    y, _ = secure(SharedTensor.exp, torch.tensor([ULP, 0.5, 3.0, 1e6, -16 - ULP, -40.0, -1e6]))
    assert torch.equal(y, torch.tensor([1.0, 1, 1, 1, 0, 0, 0], dtype=D))
    # gelu has no range: past |x| = 8 it is relu(x) exactly
    x = torch.tensor([8.5, -8.5, 1e3, -1e3, 2.0**40, -(2.0**40)], dtype=D)
    y, _ = secure(SharedTensor.gelu, x)
    assert (y - F.gelu(x)).abs().max() <= 6e-5
    # reciprocal and rsqrt: 0 outside [2^-10, 2^14], 0 and negative x included
    x = torch.tensor([0.0, ULP, 2.0**-10 - ULP, -1.0, -(2.0**-10), 2.0**14 + ULP, 1e6], dtype=D)
    for method in (SharedTensor.reciprocal, SharedTensor.rsqrt):
        y, _ = secure(method, x)
        assert torch.equal(y, torch.zeros_like(x))


def test_softmax_against_torch():
    torch.manual_seed(0)
    for shape, dim in [((3, 10), 1), ((4, 5, 6), 0), ((2, 33), -1), ((7,), 0)]:
        x = torch.randn(shape, dtype=D) * 4
        for truncation in ("local", "exact"):
            y, _ = secure(lambda t, d=dim: t.softmax(d), x, truncation)
            assert (y - torch.softmax(on_grid(x), dim)).abs().max() <= 2e-4
    # far apart: exp of differences below -16 is 0
    x = torch.tensor([[0.0, -20.0, 30.0, 29.0]], dtype=D)
    y, _ = secure(lambda t: t.softmax(1), x)
    assert (y - torch.softmax(x, 1)).abs().max() <= 2e-4


@pytest.mark.parametrize("affine", ["none", "public", "shared"])
def test_layer_norm_against_torch(affine):
    torch.manual_seed(1)
    x = torch.randn(3, 4, 8, dtype=D) * 3 + 1
    w, b = torch.randn(4, 8, dtype=D), torch.randn(4, 8, dtype=D)

    def fn(t):
        if affine == "none":
            return t.layer_norm((4, 8))
        if affine == "public":
            return t.layer_norm((4, 8), w, b, eps=1e-3)
        ws = SharedTensor.from_secret(t.party, w if t.party.party == 1 else None, owner=1)
        bs = SharedTensor.from_secret(t.party, b if t.party.party == 1 else None, owner=1)
        return t.layer_norm((4, 8), ws, bs, eps=1e-3)

    y, _ = secure(fn, x)
    eps = 1e-5 if affine == "none" else 1e-3
    scale = torch.ones(4, 8, dtype=D) if affine == "none" else w.abs()
    want = F.layer_norm(
        on_grid(x), (4, 8), None if affine == "none" else w, None if affine == "none" else b, eps
    )
    assert ((y - want).abs() <= 1e-4 * (scale + 1)).all()


def test_costs_match_the_counters():
    n = 64
    x = span(-4, 0, n)
    trunc = {s: gates.Truncate(s).deal((1,))[0].nbytes for s in (34, 39, 43, 44)}
    trunc16 = gates.Truncate(FRAC).deal((1,))[0].nbytes
    relu = gates.ReLU().deal((1,))[0].nbytes

    def spline(m, degree, shift):
        return 2104 * m * (degree + 1) + 8 + trunc[shift]

    # Spline gate (m pieces) and Truncate: 2 rounds, 8 bytes each way per element each
    for method, m, shift, extra in [
        (SharedTensor.exp, 19, 44, 0),
        (SharedTensor.sigmoid, 26, 43, 0),
        (SharedTensor.tanh, 26, 43, 0),
        (SharedTensor.gelu, 28, 44, relu),
    ]:
        _, c = secure(method, x)
        per = 8 * (3 if extra else 2)
        assert c == {
            "rounds": 2,
            "sent": per * n,
            "received": per * n,
            "dealer": n * (spline(m, 2, shift) + extra),
        }, method
    # Newton steps: Beaver products (16 bytes each way, 24 dealer bytes per element)
    x = octaves(-2, 4, n)
    for method, shift, products, local_rounds, exact_rounds, truncations in [
        (SharedTensor.reciprocal, 34, 4, 6, 10, 4),
        (SharedTensor.rsqrt, 39, 6, 8, 16, 8),
    ]:
        for truncation, rounds in (("local", local_rounds), ("exact", exact_rounds)):
            _, c = secure(method, x, truncation)
            exact = truncation == "exact"
            sent = 16 * n + 16 * n * products + (8 * n * truncations if exact else 0)
            dealer = n * (spline(32, 1, shift) + 24 * products)
            dealer += n * trunc16 * truncations if exact else 0
            assert c == {"rounds": rounds, "sent": sent, "received": sent, "dealer": dealer}


def test_bad_arguments_are_named():
    def both(party):
        x = SharedTensor.from_secret(party, torch.ones(2, 3) if party.party == 0 else None)
        with pytest.raises(ValueError, match="normalized_shape must be the input's last dims"):
            x.layer_norm(2)
        with pytest.raises(ValueError, match="eps must be a non-negative number"):
            x.layer_norm(3, eps=-1.0)
        with pytest.raises(TypeError, match="normalized_shape"):
            x.layer_norm(3.0)
        with pytest.raises(ValueError, match="dim must be in"):
            x.softmax(2)
        coarse = SharedTensor(party, x.share, frac_bits=24)
        with pytest.raises(ValueError, match=r"exp needs frac_bits in \[8, 20\], got 24"):
            coarse.exp()
        return math.nan

    run_local(both)
