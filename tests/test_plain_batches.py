"""Calls of the usual forms (CPU int32 tensors, a batch of keys at one int32 point
each or one key at a vector of points, no out), which go straight to the core's C
entry points (_Scheme._plain_gen and _plain_eval), and a batch's keygen (one call,
KeyGens), against the general path (forced with out=), the one-key calls and gen:
the same outputs, the same refusals, and the general path for every other form."""

import re

import pytest
import torch

import pyfss
from pyfss import _schemes
from pyfss import _validate as v

N = 20

SCHEMES = {
    "dpf": pyfss.Dpf,
    "dcf_lt": lambda *a, **kw: pyfss.Dcf(*a, pred="lt", **kw),
    "dcf_gt": lambda *a, **kw: pyfss.Dcf(*a, pred="gt", **kw),
    "half_tree_dpf": pyfss.HalfTreeDpf,
}


def keys(s, k: int, g: torch.Generator):
    """Seeds (k, 2, 4), alphas (k,) and betas (k, 4) for k keys of s."""
    s0s = torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=torch.int32, generator=g)
    alphas = torch.randint(0, 2**s.in_bits, (k,), dtype=torch.int32, generator=g)
    betas = torch.randint(-(2**31), 2**31, (k, 4), dtype=torch.int32, generator=g)
    betas[:, 3] &= ~1  # the bytes group's reserved bit
    return s0s, alphas, betas


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("prg", ["aes128_mmo", "chacha"])
@pytest.mark.parametrize("group", ["bytes", "uint32", "uint64", "uint127"])
def test_plain_batches_match_the_general_path(scheme, prg, group):
    s = SCHEMES[scheme](N, group, prg)
    g = torch.Generator().manual_seed(41)
    for k in (1, 3, 64):
        s0s, alphas, betas = keys(s, k, g)
        cws = s.gen(s0s, alphas, betas)
        assert torch.equal(cws, s.gen(s0s, alphas, betas, out=torch.empty_like(cws)))
        xs = alphas.clone()
        xs[1::2] = torch.randint(0, 2**N, (k // 2,), dtype=torch.int32, generator=g)
        for party in (0, 1):
            s0 = s0s[:, party].contiguous()
            y = s.eval(party, s0, cws, xs)
            out = torch.empty(k, 4, dtype=torch.int32)
            assert torch.equal(y, s.eval(party, s0, cws, xs, out=out))
            for j in range(k):
                assert torch.equal(y[j], s.eval(party, s0[j], cws[j], int(xs[j])))
            # One key at the k points.
            y = s.eval(party, s0[0], cws[0], xs)
            assert torch.equal(y, s.eval(party, s0[0], cws[0], xs, out=out))
            for j in range(k):
                assert torch.equal(y[j], s.eval(party, s0[0], cws[0], int(xs[j])))


def _refusal(fn, *args, **kwargs):
    """The type and message of the error fn(*args, **kwargs) raises."""
    with pytest.raises((ValueError, TypeError)) as e:
        fn(*args, **kwargs)
    return type(e.value), str(e.value)


def test_plain_batches_refuse_what_the_general_path_refuses():
    s = pyfss.Dpf(N, "uint64", "aes128_mmo")
    s0s, alphas, betas = keys(s, 4, torch.Generator().manual_seed(42))
    cws = s.gen(s0s, alphas, betas)
    s0 = s0s[:, 1].contiguous()
    out = torch.empty(4, 4, dtype=torch.int32)

    bad = cws.clone()
    bad[2, 5, 4] = 2  # key 2: a tr word other than 0 or 1
    far = alphas.clone()
    far[3] = 2**N  # outside the domain
    for cws_, xs in ((bad, alphas), (cws, far)):
        plain = _refusal(s.eval, 1, s0, cws_, xs)
        assert plain == _refusal(s.eval, 1, s0, cws_, xs, out=out), plain

    same = s0s.clone()
    same[1, 1] = same[1, 0]  # key 1: equal seeds
    gen_out = torch.empty_like(cws)
    for seeds, a in ((same, alphas), (s0s, far)):
        plain = _refusal(s.gen, seeds, a, betas)
        assert plain == _refusal(s.gen, seeds, a, betas, out=gen_out), plain


def test_plain_batches_skip_the_general_path(monkeypatch):
    """The plain calls never reach the general path's output check, and every other
    form still does (which shows the patch works)."""
    s = pyfss.Dpf(N, "uint64", "aes128_mmo")
    s0s, alphas, betas = keys(s, 5, torch.Generator().manual_seed(43))
    want = s.gen(s0s, alphas, betas, out=torch.empty(5, N + 1, 8, dtype=torch.int32))
    s0 = s0s[:, 0].contiguous()

    def general(*args, **kwargs):
        raise AssertionError("the general path ran")

    monkeypatch.setattr(v, "output", general)
    cws = s.gen(s0s, alphas, betas)
    assert torch.equal(cws, want)
    assert s.eval(0, s0, cws, alphas).shape == (5, 4)
    assert s.eval(0, s0[0], cws[0], alphas).shape == (5, 4)  # one key at 5 points
    others = [
        lambda: s.eval(0, s0, cws, alphas.long()),  # int64 points
        lambda: s.eval(0, s0, cws, alphas[:, None]),  # several points per key
        lambda: s.eval(0, s0s[:, 0], cws, alphas),  # a strided view
        lambda: s.eval(0, s0[None], cws[None], alphas[None]),  # two batch dimensions
        lambda: s.gen(s0s, 7, betas),  # one alpha for every key
        lambda: s.gen(s0s[:0], alphas[:0], betas[:0]),  # no keys
    ]
    for call in others:
        with pytest.raises(AssertionError, match="general path"):
            call()
    # Work above what runs without Ctrl-C's worker thread goes the general way too.
    monkeypatch.setattr(_schemes, "STOPPABLE_WORK", 4 * N)
    with pytest.raises(AssertionError, match="general path"):
        s.eval(0, s0, cws, alphas)


KEYGEN_SCHEMES = {
    **{name: make for name, make in SCHEMES.items() if name != "dcf_gt"},
    "vdpf": pyfss.Vdpf,
}


@pytest.mark.parametrize("scheme", KEYGEN_SCHEMES)
@pytest.mark.parametrize("group", ["bytes", "uint64"])
def test_batched_keygen_is_gen_on_fresh_seeds(scheme, group):
    """A batch's keygen on the CPU (one call: the core draws the seeds): each pair's
    keys are what gen makes from the seeds they carry, for any batch shape and an
    int or a tensor alpha; each call draws new seeds."""
    s = KEYGEN_SCHEMES[scheme](12, group, "aes128_mmo")
    g = torch.Generator().manual_seed(44)
    for batch in ((), (1,), (5,), (2, 3)):
        alphas = torch.randint(0, 2**12, batch, dtype=torch.int32, generator=g)
        betas = torch.randint(-(2**31), 2**31, (*batch, 4), dtype=torch.int32, generator=g)
        betas[..., 3] &= ~1
        for alpha in (alphas, 77):
            k0, k1 = s.keygen(alpha, betas)
            assert k0.s0.shape == (*batch, 4) and k1.party == 1 and k0.cws is k1.cws
            assert k0.cws.shape == (*batch, *s._cws_tail)
            seeds = torch.stack([k0.s0, k1.s0], -2)
            assert torch.equal(k0.cws, s.gen(seeds, alpha, betas)), (batch, alpha)
            again, _ = s.keygen(alpha, betas)
            assert not torch.equal(again.s0, k0.s0)


def test_batched_keygen_refuses_what_gen_refuses():
    s = pyfss.Dpf(12, "bytes", "aes128_mmo")
    alphas = torch.tensor([1, 2, 3], dtype=torch.int32)
    betas = torch.zeros(3, 4, dtype=torch.int32)
    seeds = torch.arange(24, dtype=torch.int32).reshape(3, 2, 4)
    far = torch.tensor([1, 2**12, 3], dtype=torch.int32)
    reserved = betas.clone()
    reserved[1, 3] = 1  # the bytes group's reserved bit
    for a, b in ((far, betas), (alphas, reserved), (alphas[:2], betas)):
        with pytest.raises((ValueError, TypeError)) as gen_error:
            s.gen(seeds, a, b)
        with pytest.raises(type(gen_error.value), match=re.escape(str(gen_error.value))):
            s.keygen(a, b)
