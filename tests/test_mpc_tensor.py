"""SharedTensor between two parties in threads, against the same fixed-point
computation in the clear (int64 torch arithmetic, which wraps as Z_2^64 does)."""

import pytest
import torch
import torch.nn.functional as F

from pyfss import gates
from pyfss.mpc import LocalDealer, SharedTensor, decode, encode, run_local, share

FRAC = 16
I64 = torch.int64
# Encodings at the ring's edges and near zero.
EDGE = [0, 1, -1, 2**62, -(2**62), 2**63 - 1, -(2**63), 12345, -12345, 2**47, -(2**47)]


def edges(shape):
    """EDGE repeated to fill shape."""
    n = torch.Size(shape).numel()
    return torch.tensor(EDGE * (n // len(EDGE) + 1), dtype=I64)[:n].reshape(shape)


def gen(seed):
    return torch.Generator().manual_seed(seed)


def fx(v):
    """Plaintext fixed-point encoding."""
    return torch.round(torch.as_tensor(v, dtype=torch.float64) * 2**FRAC).to(I64)


def rand(shape, seed, scale=100.0):
    return fx((torch.rand(shape, generator=gen(seed), dtype=torch.float64) * 2 - 1) * scale)


def run(program, *rings, truncation="exact", seed=0):
    """program(*shared) -> SharedTensor in both parties, each ring tensor shared
    beforehand; the opened int64 result (both parties must agree)."""
    shares = [share(t, gen(seed + 100 + i)) for i, t in enumerate(rings)]

    def both(party):
        xs = [SharedTensor(party, s[party.party], truncation=truncation) for s in shares]
        return program(*xs).reveal_ring()

    r0, r1 = run_local(both, dealer=LocalDealer(gen(seed)), timeout=60)
    assert torch.equal(r0, r1)
    return r0


def assert_truncated(got, product, truncation):
    """got is product >> FRAC, exactly or, locally, within one ulp above."""
    want = product >> FRAC
    if truncation == "exact":
        assert torch.equal(got, want)
    else:
        assert ((got - want) == 0).logical_or((got - want) == 1).all(), (got - want).unique()


SHAPES = [(), (0,), (7,), (2, 3, 4), (0, 5)]


@pytest.mark.parametrize("shape", SHAPES)
def test_add_sub_neg_at_the_edges(shape):
    x = edges(shape)
    y = torch.roll(x.flatten(), 1).reshape(shape) if x.numel() else x
    got = run(lambda a, b: a + b, x, y)
    assert torch.equal(got, x + y)
    assert torch.equal(run(lambda a, b: a - b, x, y), x - y)
    assert torch.equal(run(lambda a: -a, x), -x)


def test_public_operands():
    x = torch.tensor(EDGE, dtype=I64)
    c = torch.linspace(-3, 3, len(EDGE), dtype=torch.float64)
    assert torch.equal(run(lambda a: a + 2.5, x), x + fx(2.5))
    assert torch.equal(run(lambda a: 3 + a, x), x + (3 << FRAC))
    assert torch.equal(run(lambda a: a - c, x), x - fx(c))
    assert torch.equal(run(lambda a: 1.5 - a, x), fx(1.5) - x)
    assert torch.equal(run(lambda a: a * 3, x), x * 3)  # an int: no truncation
    assert torch.equal(run(lambda a: a * torch.tensor(-2), x), x * -2)
    assert torch.equal(run(lambda a: a * 0.75, x), (x * fx(0.75)) >> FRAC)
    assert torch.equal(run(lambda a: c * a, x), (fx(c) * x) >> FRAC)


@pytest.mark.parametrize("truncation", ["exact", "local"])
@pytest.mark.parametrize("xs, ys", [((), ()), ((0,), (0,)), ((50,), (50,)), ((4, 5), (5,))])
def test_mul_of_shared(truncation, xs, ys):
    x, y = rand(xs, 1), rand(ys, 2)
    assert_truncated(run(lambda a, b: a * b, x, y, truncation=truncation), x * y, truncation)


def test_exact_mul_at_the_edges_wraps_as_the_ring():
    x = torch.tensor(EDGE, dtype=I64)
    y = torch.tensor(EDGE[::-1], dtype=I64)
    assert torch.equal(run(lambda a, b: a * b, x, y), (x * y) >> FRAC)


@pytest.mark.parametrize("truncation", ["exact", "local"])
@pytest.mark.parametrize(
    "xs, ys",
    [((2, 3), (3, 4)), ((5,), (5,)), ((2, 3, 4), (4, 5)), ((0, 3), (3, 2)), ((3, 0), (0, 2))],
)
def test_matmul(truncation, xs, ys):
    x, y = rand(xs, 3), rand(ys, 4)
    got = run(lambda a, b: a @ b, x, y, truncation=truncation)
    assert_truncated(got, x @ y, truncation)
    w = torch.rand(ys, generator=gen(5), dtype=torch.float64)
    assert_truncated(run(lambda a: a @ w, x, truncation=truncation), x @ fx(w), truncation)


@pytest.mark.parametrize("shared_weight", [True, False])
def test_linear(shared_weight):
    x, w, b = rand((3, 6), 6), rand((4, 6), 7, 1.0), rand((4,), 8)
    want = ((x @ w.T) >> FRAC) + b
    if shared_weight:
        got = run(lambda a, ww, bb: a.linear(ww, bb), x, w, b)
    else:
        wf, bf = decode(w), decode(b)
        got = run(lambda a: a.linear(wf, bf), x)
    assert torch.equal(got, want)


@pytest.mark.parametrize("stride, padding", [(1, 0), ((2, 1), (1, 0)), (2, 2)])
@pytest.mark.parametrize("shared_weight", [True, False])
def test_conv2d(stride, padding, shared_weight):
    x, w, b = rand((2, 3, 6, 5), 9), rand((4, 3, 3, 2), 10, 1.0), rand((4,), 11)
    want = (F.conv2d(x, w, stride=stride, padding=padding) >> FRAC) + b.reshape(-1, 1, 1)
    if shared_weight:
        got = run(lambda a, ww, bb: a.conv2d(ww, bb, stride, padding), x, w, b)
    else:
        wf, bf = decode(w), decode(b)
        got = run(lambda a: a.conv2d(wf, bf, stride, padding), x)
    assert torch.equal(got, want)


@pytest.mark.parametrize("shape", SHAPES)
def test_relu_and_comparisons_at_the_edges(shape):
    x = edges(shape)
    assert torch.equal(run(lambda a: a.relu(), x), x.clamp(min=0))
    one = 1 << FRAC
    y = rand(shape, 12, 1e-3)  # near zero: comparisons of close values
    small = rand(shape, 13, 1e-3)
    for op, want in [
        (lambda a, b: a >= b, small >= y),
        (lambda a, b: a <= b, small <= y),
        (lambda a, b: a > b, small > y),
        (lambda a, b: a < b, small < y),
    ]:
        assert torch.equal(run(op, small, y), want.to(I64) * one)
    assert torch.equal(run(lambda a: a >= 0, x), (x >= 0).to(I64) * one)
    assert torch.equal(run(lambda a: a < 0.5, small), (small < fx(0.5)).to(I64) * one)


def test_local_ops():
    x = rand((2, 3, 4), 14)
    assert torch.equal(run(lambda a: a.sum(), x), x.sum())
    assert torch.equal(run(lambda a: a.sum(1, keepdim=True), x), x.sum(1, keepdim=True))
    assert torch.equal(run(lambda a: a.reshape(4, 6), x), x.reshape(4, 6))
    assert torch.equal(run(lambda a: a.view(-1), x), x.view(-1))
    assert torch.equal(run(lambda a: a.transpose(0, 2), x), x.transpose(0, 2))
    assert torch.equal(run(lambda a: a.flatten(1), x), x.flatten(1))
    assert torch.equal(run(lambda a: a[1, :, 2], x), x[1, :, 2])


def test_local_truncation_fails_as_often_as_the_bound_says():
    """Shares of z wrap around 2^64 with probability |z| / 2^64; then the local
    truncation is off by about 2^(64 - FRAC). Below that, one ulp at most."""
    n = 4000
    for z, low, high in [(2**62, 800, 1200), (2**40, 0, 0)]:
        x = torch.full((n,), z, dtype=I64)
        got = run(lambda a: a.truncate("local"), x, truncation="local")
        err = got - (x >> FRAC)
        wrong = (err != 0) & (err != 1)
        assert low <= int(wrong.sum()) <= high
        assert (err[wrong].abs() > 2 ** (62 - FRAC)).all()


def test_counters_match_the_protocol():
    n = 10
    x, y = rand((n,), 15), rand((n,), 16)
    xs, ys = share(x, gen(17)), share(y, gen(18))
    key_bytes = gates.Truncate(FRAC).deal((n,))[0].nbytes
    relu_bytes = gates.ReLU().deal((n,))[0].nbytes

    def both(party):
        b = party.party
        a, c = SharedTensor(party, xs[b]), SharedTensor(party, ys[b])
        with party.layer("mul"):
            a * c  # local truncation: no message
        with party.layer("mul_exact"):
            SharedTensor(party, xs[b], truncation="exact") * c
        with party.layer("matmul"):
            a.reshape(2, 5) @ c.reshape(5, 2)
        with party.layer("relu"):
            a.relu()
        with party.layer("reveal_to_0"):
            a.reveal(to=0)
        return party.counters()

    c0, c1 = run_local(both, dealer=LocalDealer(gen(19)))
    eight = 8
    assert c0["mul"] == {
        "rounds": 1,
        "sent": 2 * n * eight,
        "received": 2 * n * eight,
        "dealer": 3 * n * eight,
    }
    assert c0["mul_exact"] == {
        "rounds": 2,
        "sent": 3 * n * eight,
        "received": 3 * n * eight,
        "dealer": 3 * n * eight + key_bytes,
    }
    assert c0["matmul"] == {
        "rounds": 1,
        "sent": 20 * eight,
        "received": 20 * eight,
        "dealer": (10 + 10 + 4) * eight,
    }
    assert c0["relu"] == {
        "rounds": 1,
        "sent": n * eight,
        "received": n * eight,
        "dealer": relu_bytes,
    }
    assert c0["reveal_to_0"] == {"rounds": 1, "sent": 0, "received": n * eight, "dealer": 0}
    assert c1["reveal_to_0"] == {"rounds": 1, "sent": n * eight, "received": 0, "dealer": 0}
    assert c0["total"]["rounds"] == 6


def test_from_secret_and_reveal_to_one():
    v = torch.tensor([[1.5, -2.25], [0.0, 1e-5]], dtype=torch.float64)

    def both(party):
        x = SharedTensor.from_secret(party, v if party.party == 1 else None, owner=1)
        p = SharedTensor.from_public(party, [0.5, 0.5])
        return x.reveal(to=0), (x + p).reveal(), party.counters()["total"]

    (r0, s0, _), (r1, s1, c1) = run_local(both)
    assert torch.equal(r0, decode(fx(v))) and r1 is None
    assert torch.equal(s0, s1) and torch.equal(s0, decode(fx(v) + fx(0.5)))
    # The shape's length, the shape, the share; the share to party 0; the opened sum.
    assert c1["sent"] == 8 + 2 * 8 + 4 * 8 + 4 * 8 + 4 * 8
    assert c1["rounds"] == 2


def test_encode_decode():
    v = torch.tensor([0.0, -1.5, 2.0**-17, 2.0**46, -(2.0**47) + 1], dtype=torch.float64)
    assert torch.equal(encode(v), fx(v))
    assert torch.equal(encode(torch.tensor([3, -4])), torch.tensor([3 << FRAC, -4 << FRAC]))
    assert torch.equal(encode(2.0, 4), torch.tensor(32))
    assert torch.equal(decode(fx(v)), torch.round(v * 2**FRAC) / 2**FRAC)
    for bad in [2.0**47, float("nan"), float("inf"), torch.tensor([2**47])]:
        with pytest.raises(ValueError, match="outside the fixed-point range"):
            encode(bad)
    with pytest.raises(TypeError, match="x must hold real numbers"):
        encode(torch.tensor([True]))
    with pytest.raises(ValueError, match="frac_bits must be in"):
        encode(1.0, 63)
    with pytest.raises(TypeError, match="t must be an int64 tensor"):
        decode(torch.tensor([1.0]))


def test_bad_arguments_are_named():
    def both(party):
        with pytest.raises(TypeError, match="share must be an int64 tensor"):
            SharedTensor(party, torch.zeros(2, dtype=torch.int32))
        with pytest.raises(TypeError, match="party must be a pyfss.mpc.Party"):
            SharedTensor(party.party, torch.zeros(2, dtype=I64))
        with pytest.raises(ValueError, match="truncation must be one of"):
            SharedTensor(party, torch.zeros(2, dtype=I64), truncation="round")
        a = SharedTensor(party, torch.zeros(2, dtype=I64))
        with pytest.raises(ValueError, match="16 and 8 fractional bits"):
            a + SharedTensor(party, torch.zeros(2, dtype=I64), frac_bits=8)
        with pytest.raises(TypeError, match="other must be a number or a numeric tensor"):
            a * True
        with pytest.raises(TypeError, match="unsupported operand"):
            a + "1"
        with pytest.raises(ValueError, match="to must be 0, 1 or None"):
            a.reveal(to=2)

    run_local(both)


# -- max, argmax and pooling --------------------------------------------------------


def first_argmax(x, dim):
    """The first index of the maximum along dim (the rule SharedTensor.argmax keeps)."""
    n = x.shape[dim]
    pos = torch.arange(n).reshape([-1] + [1] * (x.dim() - 1 - dim % x.dim()))
    at_max = x == x.max(dim, keepdim=True).values
    return torch.where(at_max, pos, n).min(dim).values


def max_inputs():
    """Random values (both signs, up to 2^61), many ties, all negative, and edge
    sizes along the last dim: 1, 2, odd, a power of two, and one above."""
    wide = torch.randint(-(2**61), 2**61, (3, 9), generator=gen(20))
    ties = torch.randint(-2, 2, (6, 10), generator=gen(21)) << FRAC
    negative = -rand((4, 5), 22).abs() - 1
    return [wide, ties, negative, rand((3, 1), 23), rand((5, 2), 24), rand((2, 16), 25)]


@pytest.mark.parametrize("x", max_inputs())
@pytest.mark.parametrize("dim", [-1, 0])
def test_max_and_argmax_along_a_dim(x, dim):
    assert torch.equal(run(lambda a: a.max(dim), x), x.max(dim).values)
    want = first_argmax(x, dim)
    assert torch.equal(run(lambda a: a.argmax(dim), x), want << FRAC)
    got = run(lambda a: a.argmax(dim, keepdim=True), x)
    assert torch.equal(got, want.unsqueeze(dim) << FRAC)
    assert torch.equal(run(lambda a: a.max(dim, keepdim=True), x), x.max(dim, keepdim=True).values)


def test_ties_go_to_the_first_index():
    x = torch.tensor([[5, 5, 5], [1, 7, 7], [7, 1, 7], [0, 0, 0]], dtype=I64) << FRAC
    assert run(lambda a: a.argmax(1), x).tolist() == [0, 1 << FRAC, 0, 0]


def test_max_of_everything_and_of_one_element():
    x = rand((3, 4, 5), 26)
    assert torch.equal(run(lambda a: a.max(), x), x.max())
    assert torch.equal(run(lambda a: a.argmax(), x), first_argmax(x.flatten(), 0) << FRAC)
    got = run(lambda a: a.argmax(keepdim=True), x)
    assert got.shape == (1, 1, 1) and int(got) == int(first_argmax(x.flatten(), 0)) << FRAC
    one = rand((), 27)
    assert torch.equal(run(lambda a: a.max(), one), one)
    assert torch.equal(run(lambda a: a.max(0), one), one)
    assert torch.equal(run(lambda a: a.argmax(0), one), torch.tensor(0))


def test_max_and_argmax_cost_what_the_docs_say():
    import math

    rows = 3
    relu_bytes = gates.ReLU().deal((1,))[0].nbytes
    for n in (1, 2, 3, 5, 8, 10):
        x = share(rand((rows, n), n), gen(28))

        def both(party, x=x):
            a = SharedTensor(party, x[party.party])
            with party.layer("max"):
                a.max(1)
            with party.layer("argmax"):
                a.argmax(1)
            return party.counters()

        c, _ = run_local(both, dealer=LocalDealer(gen(29)))
        levels = math.ceil(math.log2(n))
        pairs, later = rows * (n - 1), rows * (n - 1 - n // 2)  # later: past the first level
        assert c["max"] == {
            "rounds": levels,
            "sent": 8 * pairs,
            "received": 8 * pairs,
            "dealer": relu_bytes * pairs,
        }
        assert c["argmax"] == {
            "rounds": levels + (levels > 1),
            "sent": 8 * pairs + 16 * later,
            "received": 8 * pairs + 16 * later,
            "dealer": relu_bytes * pairs + 24 * later,
        }


POOLS = [
    ((2, 3, 8, 8), 2, None, 0),
    ((1, 2, 7, 9), 3, 2, 1),
    ((2, 1, 5, 6), (2, 3), (1, 2), (1, 0)),
    ((3, 4, 4), 4, 1, 2),
    ((1, 1, 1, 1), 1, None, 0),
]


@pytest.mark.parametrize("shape, kernel, stride, padding", POOLS)
def test_max_pool2d(shape, kernel, stride, padding):
    x = rand(shape, 30)
    x[..., 0, :] = -rand(shape[:-2] + shape[-1:], 31).abs() - 1  # negatives beside the padding
    got = run(lambda a: a.max_pool2d(kernel, stride, padding), x)
    want = F.max_pool2d(x.double(), kernel, stride, padding)  # exact: values below 2^53
    assert torch.equal(got, want.to(I64))


@pytest.mark.parametrize("include", [True, False])
@pytest.mark.parametrize("shape, kernel, stride, padding", POOLS)
def test_avg_pool2d(shape, kernel, stride, padding, include):
    x = rand(shape, 32)
    sums = F.avg_pool2d(x.double(), kernel, stride, padding, divisor_override=1).to(I64)
    ones = torch.ones(1, 1, *shape[-2:], dtype=torch.float64)
    count = F.avg_pool2d(ones, kernel, stride, padding, divisor_override=1)[0, 0]
    if include:
        count = torch.full_like(count, float(torch.tensor(kernel).expand(2).prod()))
    got = run(lambda a: a.avg_pool2d(kernel, stride, padding, count_include_pad=include), x)
    assert torch.equal(got, (sums * fx(1 / count)) >> FRAC)


def test_pooling_and_max_refuse_bad_arguments():
    def both(party):
        a = SharedTensor(party, torch.zeros(1, 2, 4, 4, dtype=I64))
        with pytest.raises(ValueError, match="padding at most half the kernel"):
            a.max_pool2d(2, padding=2)
        with pytest.raises(ValueError, match="kernel_size and stride must be positive"):
            a.avg_pool2d(2, stride=0)
        with pytest.raises(ValueError, match="larger than the padded input"):
            a.max_pool2d(7, padding=1)
        with pytest.raises(ValueError, match="pooling takes"):
            a[0, 0].max_pool2d(2)
        with pytest.raises(ValueError, match="dim must be in"):
            a.max(4)
        with pytest.raises(ValueError, match="non-empty dimension"):
            a[:, :0].argmax(1)
        with pytest.raises(ValueError, match="kernel_size must be an int or a pair"):
            a.max_pool2d((1, 2, 3))

    run_local(both)
