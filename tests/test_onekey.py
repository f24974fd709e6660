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


@pytest.mark.parametrize("impl", [None, "portable"])
def test_one_key_keygen_reconstructs(impl):
    """keygen's single-key call (seeds drawn by the core): the parties' shares add up
    to beta at alpha and to 0 elsewhere, with fresh seeds each call."""
    s = pyfss.Dpf(20, "uint64", "aes128_mmo", impl=impl)
    beta = torch.tensor([5, -7, 0, 0], dtype=torch.int32)
    k0, k1 = s.keygen(999, beta)
    assert k0.party == 0 and k1.party == 1 and k0.params == s.params()
    assert k0.s0.shape == (4,) and k0.cws.shape == (21, 8)
    assert not torch.equal(k0.s0, s.keygen(999, beta)[0].s0)
    for x, want in ((999, beta), (998, torch.zeros(4, dtype=torch.int32))):
        y = (s.eval_key(k0, x).view(torch.int64) + s.eval_key(k1, x).view(torch.int64)).view(
            torch.int32
        )
        assert torch.equal(y[:2], want[:2]), x
    k0.params["in_bits"] = 3  # each key owns its parameters
    assert k1.params["in_bits"] == 20 and s.params()["in_bits"] == 20


def test_one_key_gen_and_keygen_refuse_bad_input():
    s = pyfss.Dpf(20, "bytes", "aes128_mmo")
    seeds = torch.tensor([[1, 2, 3, 4], [1, 2, 3, 5]], dtype=torch.int32)  # equal once clamped
    beta = torch.tensor([1, 2, 3, 4], dtype=torch.int32)
    with pytest.raises(ValueError, match="seeds are equal"):
        s.gen(seeds, 3, beta)
    seeds[1, 0] = 9
    with pytest.raises(ValueError, match="reserved"):
        s.gen(seeds, 3, beta.clone().fill_(1))  # bytes beta with its control bit set
    with pytest.raises(ValueError, match="reserved"):
        s.keygen(3, torch.tensor([1, 1, 1, 1], dtype=torch.int32))
    for bad in (-1, 2**20):
        with pytest.raises(ValueError, match="alpha"):
            s.gen(seeds, bad, beta)
        with pytest.raises(ValueError, match="alpha"):
            s.keygen(bad, beta)
    with pytest.raises(TypeError):
        s.keygen(3, beta.to(torch.int64))
    with pytest.raises(TypeError):
        s.gen(seeds.to(torch.int64), 3, beta)
    # Non-contiguous or offset tensors take the general path, with the same result.
    wide = torch.zeros(2, 8, dtype=torch.int32)
    wide[:, ::2] = seeds
    assert torch.equal(s.gen(wide[:, ::2], 3, beta), s.gen(seeds, 3, beta))
    pair = torch.cat([beta, beta])
    assert torch.equal(s.gen(seeds, 3, pair[4:]), s.gen(seeds, 3, beta))


def test_one_key_keygen_makes_the_keys_key_makes():
    """keygen's single-key call builds its Keys without Key.__init__: the same
    fields, values and class, equally frozen."""
    import dataclasses

    s = pyfss.Dpf(20, "uint64", "aes128_mmo")
    k0, k1 = s.keygen(5, torch.tensor([1, 2, 0, 0], dtype=torch.int32))
    for k in (k0, k1):
        assert type(k) is pyfss.Key
        made = pyfss.Key(k.params, k.party, k.s0, k.cws)
        assert vars(k).keys() == vars(made).keys()
        for f in dataclasses.fields(pyfss.Key):
            assert getattr(k, f.name) is getattr(made, f.name), f.name
        with pytest.raises(dataclasses.FrozenInstanceError):
            k.party = 1 - k.party
        assert pyfss.Key.from_bytes(k.to_bytes()).party == k.party
    assert (k0.party, k1.party) == (0, 1)
