"""Batched eval on the fused AVX2 walks ("avx2-vaes", "avx2-aesni"), each forced by
name, against the portable walks: every group, DPF and both DCF comparisons, batches
past the walks' groups, several points per key, and crafted keys refused."""

import pytest
import torch

import pyfss

FUSED = ["avx2-vaes", "avx2-aesni"]


def _make(make, group, impl, in_bits=20):
    try:
        return make(in_bits, group, "aes128_mmo", impl=impl)
    except ValueError:
        pytest.skip(f"the {impl} walks do not run on this CPU")


MAKES = [
    pyfss.Dpf,
    lambda *a, **kw: pyfss.Dcf(*a, pred="lt", **kw),
    lambda *a, **kw: pyfss.Dcf(*a, pred="gt", **kw),
]


@pytest.mark.parametrize("impl", FUSED)
@pytest.mark.parametrize("group", ["bytes", "uint32", "uint64", "uint127"])
@pytest.mark.parametrize("make", MAKES)
def test_fused_eval_matches_portable(impl, make, group):
    fast, portable = _make(make, group, impl), _make(make, group, "portable")
    assert fast.impl == impl
    g = torch.Generator().manual_seed(41)
    for keys, points in ((257, 1), (9, 3), (40, 7)):
        s0s = torch.randint(-(2**31), 2**31, (keys, 2, 4), dtype=torch.int32, generator=g)
        alpha = torch.randint(0, 2**20, (keys,), generator=g)
        beta = torch.randint(-(2**31), 2**31, (keys, 4), dtype=torch.int32, generator=g)
        beta[:, 3] &= ~1
        cws = portable.gen(s0s, alpha, beta)
        xs = torch.randint(0, 2**20, (keys, points), generator=g)
        xs[:, 0] = alpha
        for p in (0, 1):
            got = fast.eval(p, s0s[:, p], cws, xs)
            assert torch.equal(got, portable.eval(p, s0s[:, p], cws, xs)), (keys, points, p)


@pytest.mark.parametrize("impl", FUSED)
def test_fused_eval_refuses_crafted_keys(impl):
    fast = _make(pyfss.Dpf, "uint64", impl)
    g = torch.Generator().manual_seed(43)
    s0s = torch.randint(-(2**31), 2**31, (64, 2, 4), dtype=torch.int32, generator=g)
    alpha = torch.randint(0, 2**20, (64,), generator=g)
    cws = fast.gen(s0s, alpha, torch.ones(64, 4, dtype=torch.int32))
    bad = cws.clone()
    bad[37, 3, 4] = 2  # a tr word other than 0 or 1, in the middle of the batch
    with pytest.raises(ValueError, match="row 3"):
        fast.eval(0, s0s[:, 0], bad, alpha)
    bad = cws.clone()
    bad[63, 20, 3] |= 1  # the last key's output correction word's control bit
    with pytest.raises(ValueError, match="last row"):
        fast.eval(1, s0s[:, 1], bad, alpha)
    dcf = _make(lambda *a, **kw: pyfss.Dcf(*a, pred="lt", **kw), "uint64", impl)
    cws = dcf.gen(s0s, alpha, torch.ones(64, 4, dtype=torch.int32))
    cws[5, 20, 0] = 1  # a last word's first block, which a Gen leaves zero
    with pytest.raises(ValueError, match="last row"):
        dcf.eval(0, s0s[:, 0], cws, alpha)
