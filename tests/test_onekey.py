"""One key per call (fss_crypto's calls) on the "aesni" walks against the portable
walks: every group, both comparisons, through the single-key fast path and small
batches."""

import pytest
import torch

import pyfss

needs_aesni = pytest.mark.skipif(
    "aesni" not in pyfss.IMPLS, reason="no one-key AES-NI walks in this build"
)


def _make(make, group, impl):
    try:
        return make(20, group, "aes128_mmo", impl=impl)
    except ValueError:
        pytest.skip("the aesni walks do not run on this CPU")


@needs_aesni
@pytest.mark.parametrize("group", ["bytes", "uint32", "uint64", "uint127"])
@pytest.mark.parametrize(
    "make",
    [
        pyfss.Dpf,
        lambda *a, **kw: pyfss.Dcf(*a, pred="lt", **kw),
        lambda *a, **kw: pyfss.Dcf(*a, pred="gt", **kw),
    ],
)
def test_one_key_matches_portable(make, group):
    one, portable = _make(make, group, "aesni"), _make(make, group, "portable")
    assert one.impl == "aesni"
    g = torch.Generator().manual_seed(31)
    for _ in range(20):
        s0s = torch.randint(-(2**31), 2**31, (2, 4), dtype=torch.int32, generator=g)
        beta = torch.randint(-(2**31), 2**31, (4,), dtype=torch.int32, generator=g)
        beta[3] &= ~1
        alpha = int(torch.randint(0, 2**20, (), generator=g))
        cws = one.gen(s0s, alpha, beta)
        assert torch.equal(cws, portable.gen(s0s, alpha, beta))
        for x in (alpha, alpha ^ 1, int(torch.randint(0, 2**20, (), generator=g))):
            for p in (0, 1):
                assert torch.equal(one.eval(p, s0s[p], cws, x), portable.eval(p, s0s[p], cws, x))
        xs = torch.randint(0, 2**20, (3,), generator=g)  # a small batch, still one key at a time
        assert torch.equal(one.eval(1, s0s[1], cws, xs), portable.eval(1, s0s[1], cws, xs))


@needs_aesni
def test_one_key_eval_refuses_crafted_keys():
    one = _make(pyfss.Dpf, "uint64", "aesni")
    s0s = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=torch.int32)
    cws = one.gen(s0s, 77, torch.tensor([9, 9, 9, 0], dtype=torch.int32))
    bad = cws.clone()
    bad[3, 4] = 2  # a tr word other than 0 or 1
    with pytest.raises(ValueError, match="row 3"):
        one.eval(0, s0s[0], bad, 77)
    bad = cws.clone()
    bad[20, 3] |= 1  # the output correction word's control bit
    with pytest.raises(ValueError, match="last row"):
        one.eval(1, s0s[1], bad, 77)
