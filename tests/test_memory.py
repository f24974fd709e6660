"""Tensors wherever they live: views at addresses the core cannot use directly, out=
sharing memory with an input, empty batches."""

import pytest
import torch

import pyfss

I32 = torch.int32
K, M, N = 3, 5, 10


def unaligned(t: torch.Tensor) -> torch.Tensor:
    """A contiguous int32 copy of t that starts 4 bytes past an 8-byte boundary, as a
    slice such as buf[1:5] does."""
    buf = torch.zeros(t.numel() + 2, dtype=I32)
    start = 1 if buf.data_ptr() % 8 == 0 else 2
    view = buf[start : start + t.numel()].view(t.shape)
    view.copy_(t)
    assert view.is_contiguous() and view.data_ptr() % 8 == 4
    return view


def negated(t: torch.Tensor) -> torch.Tensor:
    """A negative view that shows t's values: torch's lazy negation, whose memory
    holds -t. Read through its address, it gives the wrong values."""
    view = (-t)._neg_view()
    assert view.is_neg() and torch.equal(view, t)
    return view


def batch(scheme, gen):
    s0s = torch.randint(-(2**31), 2**31, (K, 2, 4), dtype=I32, generator=gen)
    betas = torch.randint(-(2**31), 2**31, (K, 4), dtype=I32, generator=gen)
    betas[:, 3] &= ~1  # valid in the bytes group too
    alphas = torch.randint(0, 2**N, (K,), dtype=I32, generator=gen)
    xs = torch.randint(0, 2**N, (K, M), dtype=I32, generator=gen)
    return s0s, alphas, betas, xs


SCHEMES = [
    lambda: pyfss.Dpf(N, "uint64", "aes128_mmo"),
    lambda: pyfss.Dcf(N, "bytes", "chacha", "gt"),
]


@pytest.mark.parametrize("view", [unaligned, negated])
@pytest.mark.parametrize("make", SCHEMES)
def test_views_are_read_as_the_values_they_show(make, view):
    s = make()
    s0s, alphas, betas, xs = batch(s, torch.Generator().manual_seed(1))
    cws = s.gen(s0s, alphas, betas)
    s0 = s0s[:, 0].contiguous()
    y, full = s.eval(0, s0, cws, xs), s.eval_all(0, s0, cws)

    assert torch.equal(s.gen(view(s0s), alphas, betas), cws)
    assert torch.equal(s.gen(s0s, view(alphas), view(betas)), cws)
    # One key (fss_crypto's call): each tensor a view alone, since each is checked.
    one = (s0s[0], int(alphas[0]), betas[0])
    for i in (0, 2):
        args = list(one)
        args[i] = view(args[i])
        assert torch.equal(s.gen(*args), cws[0])
    k0, k1 = s.keygen(int(alphas[0]), view(betas[0]))  # the key of these seeds and beta
    assert torch.equal(k0.cws, s.gen(torch.stack([k0.s0, k1.s0]), int(alphas[0]), betas[0]))
    out = view(torch.zeros_like(cws))
    assert s.gen(s0s, alphas, betas, out=out) is out and torch.equal(out, cws)

    assert torch.equal(s.eval(0, view(s0), view(cws), view(xs)), y)
    want = s.eval(0, s0[1], cws[1], 7)
    assert torch.equal(s.eval(0, view(s0[1]), cws[1], 7), want)
    assert torch.equal(s.eval(0, s0[1], view(cws[1]), 7), want)
    out = view(torch.zeros_like(y))
    assert s.eval(0, s0, cws, xs, out=out) is out and torch.equal(out, y)

    assert torch.equal(s.eval_all(0, view(s0), view(cws)), full)
    out = view(torch.zeros_like(full))
    assert s.eval_all(0, s0, cws, out=out) is out and torch.equal(out, full)


def test_negative_views_in_every_scheme_and_in_keys():
    # Every scheme reads its tensors through the same checks; a call of each kind,
    # with each tensor a negative view, against the same call on plain tensors.
    gen = torch.Generator().manual_seed(4)
    seeds = torch.randint(-(2**31), 2**31, (2, 4), dtype=I32, generator=gen)
    xs = torch.arange(0, 2**N, 37, dtype=I32)

    s = pyfss.Vdpf(N, hash="blake3")
    cws = s.gen(seeds, 5, torch.tensor([1, 2, 3, 4], dtype=I32))
    y, pieces = s.eval(0, seeds[0], cws, xs)
    for got, want in zip(s.eval(0, negated(seeds[0]), negated(cws), negated(xs)), (y, pieces)):
        assert torch.equal(got, want)
    pi = s.prove(pieces, cws)
    assert torch.equal(s.prove(negated(pieces), negated(cws)), pi)
    assert s.verify(negated(pi), pi).item()

    s = pyfss.Dmpf(N, 4, "uint32")
    mseeds = torch.randint(-(2**31), 2**31, (s.buckets, 2, 4), dtype=I32, generator=gen)
    betas, sigma = pyfss.from_int([7, 8], "uint32"), torch.tensor([1, 2, 3, 4], dtype=I32)
    cws = s.gen(mseeds, [3, 900], betas, sigma=sigma)
    assert torch.equal(s.gen(negated(mseeds), [3, 900], negated(betas), sigma=negated(sigma)), cws)
    y = s.eval(0, mseeds[:, 0], cws, xs)
    assert torch.equal(s.eval(0, negated(mseeds[:, 0]), negated(cws), negated(xs)), y)

    s = pyfss.GrottoDcf(N)
    cws = s.gen(seeds, 77)
    pre = s.preprocess(1, seeds[1], cws)
    assert torch.equal(s.preprocess(1, negated(seeds[1]), negated(cws)), pre)
    assert torch.equal(s.eval(negated(pre), xs.long()), s.eval(pre, xs.long()))

    # A key holding negative views serializes the values it shows.
    s = pyfss.Dpf(N)
    k0, _ = s.keygen(5, torch.tensor([1, 2, 3, 4], dtype=I32))
    view = type(k0)(k0.params, k0.party, negated(k0.s0), negated(k0.cws))
    assert view.to_bytes() == k0.to_bytes()


def carve(buf: torch.Tensor, offset: int, shape: tuple) -> torch.Tensor:
    """The int32 view of shape that starts offset words into buf."""
    n = torch.Size(shape).numel()
    return buf[offset : offset + n].view(shape)


OVERLAP = (
    "some elements of the input tensor and the written-to tensor refer to a single memory location"
)


@pytest.mark.parametrize("make", SCHEMES)
def test_out_overlapping_an_input_is_refused(make):
    s = make()
    s0s, alphas, betas, xs = batch(s, torch.Generator().manual_seed(2))
    cws = s.gen(s0s, alphas, betas)
    s0 = s0s[:, 0].contiguous()
    rows = N + 1

    # Each input placed inside, or straddling the end of, the memory out covers.
    buf = torch.zeros(1 << 16, dtype=I32)
    out = carve(buf, 0, (K, rows, 8))
    for name, offset, t in (("s0s", 8, s0s), ("beta", out.numel() - 4, betas)):
        placed = carve(buf, offset, t.shape)
        placed.copy_(t)
        args = (placed, alphas, betas) if name == "s0s" else (s0s, alphas, placed)
        with pytest.raises(RuntimeError, match=f"{OVERLAP}: out overlaps {name}"):
            s.gen(*args, out=out)
    placed = carve(buf, out.numel() - 1, alphas.shape)
    placed.copy_(alphas)
    with pytest.raises(RuntimeError, match=f"{OVERLAP}: out overlaps alpha"):
        s.gen(s0s, placed, betas, out=out)

    out = carve(buf, 0, (K, M, 4))
    for name, offset, t in (("s0", 4, s0), ("cws", 40, cws), ("x", out.numel() - 1, xs)):
        placed = carve(buf, offset, t.shape)
        placed.copy_(t)
        args = {"s0": s0, "cws": cws, "x": xs} | {name: placed}
        with pytest.raises(RuntimeError, match=f"{OVERLAP}: out overlaps {name}"):
            s.eval(0, args["s0"], args["cws"], args["x"], out=out)

    out = carve(buf, 0, (K, 1 << N, 4))
    for name, t in (("s0", s0), ("cws", cws)):
        placed = carve(buf, 100, t.shape)
        placed.copy_(t)
        args = {"s0": s0, "cws": cws} | {name: placed}
        with pytest.raises(RuntimeError, match=f"{OVERLAP}: out overlaps {name}"):
            s.eval_all(0, args["s0"], args["cws"], out=out)


def test_out_next_to_an_input_in_one_buffer_is_fine():
    s = pyfss.Dpf(N, "uint32")
    s0s, alphas, betas, xs = batch(s, torch.Generator().manual_seed(3))
    cws = s.gen(s0s, alphas, betas)
    buf = torch.zeros(1 << 12, dtype=I32)
    out = carve(buf, 0, (K, M, 4))
    s0 = carve(buf, out.numel(), (K, 4))  # starts where out ends
    s0.copy_(s0s[:, 1])
    assert torch.equal(s.eval(1, s0, cws, xs, out=out), s.eval(1, s0s[:, 1], cws, xs))


@pytest.mark.parametrize("make", SCHEMES)
@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_empty_batches(make, shape):
    s = make()
    s0s = torch.zeros(*shape, 2, 4, dtype=I32)
    betas = torch.zeros(*shape, 4, dtype=I32)
    cws = s.gen(s0s, torch.zeros(shape, dtype=torch.int64), betas)
    assert cws.shape == (*shape, N + 1, 8)
    assert s.gen(s0s, 5, betas).shape == (*shape, N + 1, 8)
    s0 = s0s[..., 0, :]
    assert s.eval(0, s0, cws, 5).shape == (*shape, 4)
    assert s.eval(0, s0, cws, torch.zeros(*shape, 7, dtype=I32)).shape == (*shape, 7, 4)
    assert s.eval_all(1, s0, cws).shape == (*shape, 1 << N, 4)

    k0, k1 = s.keygen(torch.zeros(shape, dtype=torch.int64), betas)
    assert k0.s0.shape == (*shape, 4) and k1.cws.shape == (*shape, N + 1, 8)
    scheme, back = pyfss.load_key(k1.to_bytes())
    assert scheme.params() == s.params()
    assert back.party == 1 and back.s0.shape == (*shape, 4) and back.cws.shape == cws.shape


def test_keys_with_no_points_give_empty_outputs():
    s = pyfss.Dcf(N, "uint32")
    s0s, alphas, betas, _ = batch(s, torch.Generator().manual_seed(4))
    cws = s.gen(s0s, alphas, betas)
    assert s.eval(0, s0s[:, 0], cws, torch.zeros(K, 0, dtype=I32)).shape == (K, 0, 4)
