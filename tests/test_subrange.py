"""eval_all over a range [start, stop) of the domain: the slice of the whole call, for
every tree scheme, group and PRG, with out=, progress, and refused bad ranges."""

import sys
import types
from typing import ClassVar

import pytest
import torch

import pyfss
from pyfss import _schemes

N = 9  # a domain of 512: the walk's leaves come in tiles of 2^11, the runs are partial
GROUPS = ["bytes", "uint32", "uint64", "uint127"]
PRGS = ["chacha", "aes128_mmo"]
MAKERS = {
    "dpf": lambda n, g, p: pyfss.Dpf(n, g, p),
    "dcf_lt": lambda n, g, p: pyfss.Dcf(n, g, p, "lt"),
    "dcf_gt": lambda n, g, p: pyfss.Dcf(n, g, p, "gt"),
    "half_tree_dpf": lambda n, g, p: pyfss.HalfTreeDpf(n, g, p),
}
# Aligned and not, at the ends, across the middle, of one input and of none.
RANGES = [
    (0, 512),
    (0, 0),
    (0, 1),
    (511, 512),
    (1, 511),
    (128, 256),
    (255, 257),
    (3, 300),
    (200, 200),
    (256, 512),
]


def keys(s, k, gen):
    seeds = torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=torch.int32, generator=gen)
    beta = torch.randint(-(2**31), 2**31, (k, 4), dtype=torch.int32, generator=gen)
    beta[..., 3] &= ~1  # bytes: the control bit is reserved
    alphas = torch.randint(0, 1 << s.in_bits, (k,), generator=gen)
    return seeds, s.gen(seeds, alphas, beta)


@pytest.mark.parametrize("prg", PRGS)
@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("scheme", list(MAKERS))
def test_range_is_the_slice_of_the_whole_call(scheme, group, prg):
    gen = torch.Generator().manual_seed(hash((scheme, group, prg)) % 2**32)
    s = MAKERS[scheme](N, group, prg)
    seeds, cws = keys(s, 3, gen)
    for party in (0, 1):
        full = s.eval_all(party, seeds[:, party], cws)
        randoms = [sorted(torch.randint(0, 513, (2,), generator=gen).tolist()) for _ in range(4)]
        for start, stop in RANGES + randoms:
            got = s.eval_all(party, seeds[:, party], cws, start=start, stop=stop)
            assert got.shape == (3, stop - start, 4)
            assert torch.equal(got, full[:, start:stop]), (party, start, stop)
        # One key, unbatched, and each bound alone.
        one = s.eval_all(party, seeds[1, party], cws[1], start=100, stop=400)
        assert torch.equal(one, full[1, 100:400])
        assert torch.equal(s.eval_all(party, seeds[:, party], cws, start=500), full[:, 500:])
        assert torch.equal(s.eval_all(party, seeds[:, party], cws, stop=7), full[:, :7])


def test_shares_of_a_range_reconstruct_the_function_there():
    s = pyfss.Dpf(16, "uint64")
    k0, k1 = s.keygen(40000, pyfss.from_int(99, "uint64"))
    total = pyfss.to_int(s.eval_all_key(k0, start=1 << 15, stop=1 << 16), "uint64")
    total += pyfss.to_int(s.eval_all_key(k1, start=1 << 15, stop=1 << 16), "uint64")
    want = torch.zeros(1 << 15, dtype=torch.int64)
    want[40000 - (1 << 15)] = 99
    assert torch.equal(total, want)


def test_out_takes_the_range_shape():
    s = pyfss.Dcf(12, "uint64", "aes128_mmo")
    gen = torch.Generator().manual_seed(5)
    seeds, cws = keys(s, 4, gen)
    full = s.eval_all(1, seeds[:, 1], cws)
    out = torch.empty(4, 1000, 4, dtype=torch.int32)
    assert s.eval_all(1, seeds[:, 1], cws, start=1001, stop=2001, out=out) is out
    assert torch.equal(out, full[:, 1001:2001])
    # An unaligned out is written through a temporary.
    buf = torch.empty(4 * 1000 * 4 + 1, dtype=torch.int32)
    odd = buf[1:].view(4, 1000, 4)
    assert s.eval_all(1, seeds[:, 1], cws, start=3, stop=1003, out=odd) is odd
    assert torch.equal(odd, full[:, 3:1003])
    wrong_shape = torch.empty(4, 1 << 12, 4, dtype=torch.int32)
    with pytest.raises(TypeError, match=r"out must be a \(4, 1000, 4\) int32 tensor"):
        s.eval_all(1, seeds[:, 1], cws, start=0, stop=1000, out=wrong_shape)
    strided = torch.empty(4, 4, 4, dtype=torch.int32).transpose(0, 1)
    with pytest.raises(TypeError, match="out must be contiguous"):
        s.eval_all(1, seeds[:, 1], cws, start=0, stop=4, out=strided)
    over_cws = cws.view(-1)[: 4 * 13 * 4].view(4, 13, 4)
    with pytest.raises(RuntimeError, match="out overlaps cws"):
        s.eval_all(1, seeds[:, 1], cws, start=0, stop=13, out=over_cws)
    empty = torch.empty(4, 0, 4, dtype=torch.int32)
    assert s.eval_all(1, seeds[:, 1], cws, start=9, stop=9, out=empty) is empty


def test_empty_ranges_and_batches():
    s = pyfss.HalfTreeDpf(10, "uint32")
    gen = torch.Generator().manual_seed(6)
    seeds, cws = keys(s, 2, gen)
    assert s.eval_all(0, seeds[:, 0], cws, start=1024, stop=1024).shape == (2, 0, 4)
    assert s.eval_all(0, seeds[:, 0], cws, start=0, stop=0).shape == (2, 0, 4)
    none = torch.empty(0, 2, 4, dtype=torch.int32)
    assert s.eval_all(0, none[:, 0], cws[:0], start=5, stop=10).shape == (0, 5, 4)


@pytest.mark.parametrize(
    ("start", "stop", "error", "match"),
    [
        (5, 4, ValueError, r"0 <= start <= stop <= 2\^10, got start=5, stop=4"),
        (0, 1025, ValueError, r"got start=0, stop=1025"),
        (-1, 4, ValueError, r"got start=-1, stop=4"),
        (1025, None, ValueError, r"got start=1025, stop=1024"),
        (None, -3, ValueError, r"got start=0, stop=-3"),
        (2**64, 2**64 + 1, ValueError, "got start=18446744073709551616"),
        (1.0, 4, TypeError, "start must be an int, got float"),
        (0, "4", TypeError, "stop must be an int, got str"),
        (True, 4, TypeError, "start must be an int, got bool"),
        (0, torch.tensor([1, 2]), TypeError, "stop must be an int, got Tensor"),
    ],
)
def test_bad_ranges_are_refused(start, stop, error, match):
    s = pyfss.Dpf(10, "bytes")
    seeds, cws = keys(s, 1, torch.Generator().manual_seed(7))
    with pytest.raises(error, match=match):
        s.eval_all(0, seeds[0, 0], cws[0], start=start, stop=stop)


def test_int_like_bounds_are_taken():
    s = pyfss.Dpf(10, "bytes")
    seeds, cws = keys(s, 1, torch.Generator().manual_seed(8))
    full = s.eval_all(0, seeds[0, 0], cws[0])
    got = s.eval_all(0, seeds[0, 0], cws[0], start=torch.tensor(10), stop=torch.tensor(20))
    assert torch.equal(got, full[10:20])


def test_grotto_dcf_has_no_range():
    """Its share at x is the parity of the leaves at 0 .. x: a range would walk the
    domain below it anyway."""
    g = pyfss.GrottoDcf(8)
    k0, _ = g.keygen(5)
    with pytest.raises(TypeError, match="start"):
        g.eval_all(0, k0.s0, k0.cws, start=0, stop=4)  # type: ignore[call-arg]


def test_long_range_calls_run_stoppable(monkeypatch):
    """Above STOPPABLE_WORK a call runs in a worker thread that Ctrl-C can stop; the
    range travels the same way."""
    monkeypatch.setattr(_schemes, "STOPPABLE_WORK", 0)
    s = pyfss.Dcf(11, "uint32")
    seeds, cws = keys(s, 2, torch.Generator().manual_seed(9))
    full = s.eval_all(0, seeds[:, 0], cws)
    assert torch.equal(s.eval_all(0, seeds[:, 0], cws, start=77, stop=1500), full[:, 77:1500])


class FakeTqdm:
    """Records what pyfss tells a tqdm bar."""

    bars: ClassVar[list] = []

    def __init__(self, total, **kw):
        self.total, self.n, self.closed = total, 0, False
        FakeTqdm.bars.append(self)

    def update(self, k):
        self.n += k

    def close(self):
        self.closed = True


def test_progress_counts_the_range(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeTqdm))
    FakeTqdm.bars.clear()
    s = pyfss.Dpf(14, "uint64")
    seeds, cws = keys(s, 3, torch.Generator().manual_seed(10))
    y = s.eval_all(1, seeds[:, 1], cws, start=3, stop=9000, progress=True)
    (bar,) = FakeTqdm.bars
    assert (bar.total, bar.n, bar.closed) == (3 * 8997, 3 * 8997, True)
    assert torch.equal(y, s.eval_all(1, seeds[:, 1], cws)[:, 3:9000])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_refuses_a_range():
    s = pyfss.Dpf(10, "uint32")
    seeds, cws = keys(s, 1, torch.Generator().manual_seed(11))
    with pytest.raises(ValueError, match="runs on the CPU only"):
        s.eval_all(0, seeds[0, 0].cuda(), cws[0].cuda(), start=0, stop=5)
    whole = s.eval_all(0, seeds[0, 0].cuda(), cws[0].cuda(), start=0, stop=1 << 10)
    assert torch.equal(whole.cpu(), s.eval_all(0, seeds[0, 0], cws[0]))
