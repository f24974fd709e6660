"""HalfTreeDpf and GrottoDcf through the Python API: reconstruction against plaintext,
batching, serialization, reference layout, and errors."""

import pytest
import torch

import pyfss


def seed_pairs(*batch, gen=None):
    return torch.randint(-(2**31), 2**31, (*batch, 2, 4), dtype=torch.int32, generator=gen)


def add(y0, y1, group):
    if group == "bytes":
        return y0 ^ y1
    return pyfss.from_int(pyfss.to_int(y0, group) + pyfss.to_int(y1, group), group)


# -- HalfTreeDpf ------------------------------------------------------------------------


@pytest.mark.parametrize("prg", ["chacha", "aes128_mmo"])
@pytest.mark.parametrize("group", ["bytes", "uint32", "uint64"])
@pytest.mark.parametrize("in_bits", [1, 2, 5, 6])
def test_half_tree_reconstructs_over_the_whole_domain(in_bits, group, prg):
    s = pyfss.HalfTreeDpf(in_bits, group, prg)
    gen = torch.Generator().manual_seed(in_bits)
    beta = pyfss.from_int(123456789, group if group != "bytes" else "uint32")
    for alpha in range(1 << in_bits):
        seeds = seed_pairs(gen=gen)
        cws = s.gen(seeds, alpha, beta)
        assert cws.shape == ((in_bits + 2) // 2, 8)
        total = add(s.eval_all(0, seeds[0], cws), s.eval_all(1, seeds[1], cws), group)
        x = torch.arange(1 << in_bits)
        want = torch.where((x == alpha)[:, None], beta, torch.zeros(4, dtype=torch.int32))
        assert torch.equal(total, want), alpha
        points = torch.stack([s.eval(p, seeds[p], cws, x) for p in (0, 1)])
        assert torch.equal(add(points[0], points[1], group), want)


def test_half_tree_batched_equals_looped_and_reference_round_trips():
    s = pyfss.HalfTreeDpf(9, "uint64")
    gen = torch.Generator().manual_seed(1)
    seeds = seed_pairs(2, 3, gen=gen)
    alphas = torch.randint(0, 512, (2, 3), generator=gen)
    betas = pyfss.from_int(torch.arange(6).reshape(2, 3) + 10, "uint64")
    cws = s.gen(seeds, alphas, betas)
    assert cws.shape == (2, 3, 5, 8)
    xs = torch.randint(0, 512, (2, 3, 7), generator=gen)
    y = s.eval(1, seeds[..., 1, :], cws, xs)
    for i in range(2):
        for j in range(3):
            one = s.gen(seeds[i, j], int(alphas[i, j]), betas[i, j])
            assert torch.equal(one, cws[i, j])
            assert torch.equal(s.eval(1, seeds[i, j, 1], one, xs[i, j]), y[i, j])
    rows, ocw = s.to_reference(cws)
    assert rows.shape == (2, 3, 9, 8) and ocw.shape == (2, 3, 4)
    assert torch.equal(s.from_reference(rows, ocw), cws)
    # Views at odd offsets are as good as the tensors they come from.
    wide = torch.zeros(2 * 3 * 9 * 8 + 1, dtype=torch.int32)
    wide[1:] = rows.reshape(-1)
    assert torch.equal(s.from_reference(wide[1:].view(2, 3, 9, 8), ocw), cws)


def test_half_tree_from_reference_refuses_keys_gen_cannot_make():
    s = pyfss.HalfTreeDpf(4, "uint32")
    rows, ocw = s.to_reference(s.gen(seed_pairs(), 3, pyfss.from_int(5, "uint32")))
    bad = ocw.clone()
    bad[3] |= 1
    with pytest.raises(ValueError, match="ocw: the control bit must be clear"):
        s.from_reference(rows, bad)
    with pytest.raises(TypeError, match=r"rows must be a \(in_bits, 8\) = \(4, 8\) int32"):
        s.from_reference(rows[:3], ocw)


def test_half_tree_keys_serialize_and_load_with_their_hash_key():
    s = pyfss.HalfTreeDpf(7, "uint32", hash_key=[1, 2, 3, 4])
    assert s.hash_key == (1, 2, 3, 4)
    assert pyfss.HalfTreeDpf(7).hash_key == pyfss.DEFAULT_HASH_KEY
    k0, k1 = s.keygen(77, pyfss.from_int(9, "uint32"))
    assert k0.cws.shape == (4, 8)
    loaded, key = pyfss.load_key(k0.to_bytes())
    assert isinstance(loaded, pyfss.HalfTreeDpf) and loaded.params() == s.params()
    assert torch.equal(key.cws, k0.cws) and torch.equal(key.s0, k0.s0)
    total = pyfss.to_int(loaded.eval_all_key(key), "uint32") + pyfss.to_int(
        s.eval_all_key(k1), "uint32"
    )
    assert torch.equal(total, (torch.arange(128) == 77).to(torch.int32) * 9)
    other = pyfss.HalfTreeDpf(7, "uint32", hash_key=torch.tensor([1, 2, 3, 5], dtype=torch.int32))
    with pytest.raises(ValueError, match=r"other parameters \(hash_key differ\)"):
        other.load_key(k0.to_bytes())
    with pytest.raises(ValueError, match="other parameters"):
        pyfss.Dpf(7, "uint32").load_key(k0.to_bytes())


@pytest.mark.parametrize(
    ("hash_key", "error", "message"),
    [
        ([1, 2, 3], ValueError, "hash_key must be 4 ints"),
        ([1, 2, 3, 2**31], ValueError, "int32 range"),
        ("abcd", TypeError, "hash_key must be a"),
        (torch.zeros(4, dtype=torch.int64), TypeError, r"\(4,\) int32 tensor"),
    ],
)
def test_half_tree_refuses_bad_hash_keys(hash_key, error, message):
    with pytest.raises(error, match=message):
        pyfss.HalfTreeDpf(8, hash_key=hash_key)


def test_half_tree_refuses_dpf_shaped_keys_and_overlapping_out():
    s = pyfss.HalfTreeDpf(8, "uint32")
    seeds = seed_pairs()
    with pytest.raises(TypeError, match=r"cws must be a \(cw_rows, 8\) = \(5, 8\) int32"):
        s.eval(0, seeds[0], torch.zeros(9, 8, dtype=torch.int32), 3)
    cws = s.gen(seeds, 3, pyfss.from_int(5, "uint32"))
    buf = torch.zeros(40, dtype=torch.int32)
    buf[:8] = seeds.reshape(-1)
    with pytest.raises(RuntimeError, match="out overlaps s0s"):
        s.gen(buf[:8].view(2, 4), 3, pyfss.from_int(5, "uint32"), out=buf.view(5, 8))
    with pytest.raises(ValueError, match="x must be in"):
        s.eval(0, seeds[0], cws, 256)


# -- GrottoDcf --------------------------------------------------------------------------


@pytest.mark.parametrize("prg", ["chacha", "aes128_mmo"])
@pytest.mark.parametrize("in_bits", [1, 3, 7])
def test_grotto_reconstructs_over_the_whole_domain(in_bits, prg):
    s = pyfss.GrottoDcf(in_bits, prg)
    n = 1 << in_bits
    alphas = torch.arange(n)
    seeds = seed_pairs(n, gen=torch.Generator().manual_seed(in_bits))
    cws = s.gen(seeds, alphas)  # a key per alpha
    assert cws.shape == (n, in_bits + 1, 8)
    pre = [s.preprocess(p, seeds[:, p], cws) for p in (0, 1)]
    assert pre[0].shape == (n, s.parity_words) and pre[0].dtype == torch.int64
    x = torch.arange(n).expand(n, n)
    want = x >= alphas[:, None]
    assert torch.equal(s.eval(pre[0], x) ^ s.eval(pre[1], x), want)
    every = [s.eval_all(p, seeds[:, p], cws) for p in (0, 1)]
    assert every[0].dtype == torch.bool
    assert torch.equal(every[0] ^ every[1], want)
    # Every interval [lo, hi] of the domain, one key at a time.
    lo, hi = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
    keep = lo <= hi
    lo, hi = lo[keep], hi[keep]
    for a in range(n):
        got = s.eval_interval(pre[0][a], lo, hi) ^ s.eval_interval(pre[1][a], lo, hi)
        assert torch.equal(got, (lo <= a) & (a <= hi)), a


def test_grotto_scalar_bounds_and_batches():
    s = pyfss.GrottoDcf(10)
    k0, k1 = s.keygen(torch.tensor([[100, 900]]))
    pre = [s.preprocess(k.party, k.s0, k.cws) for k in (k0, k1)]
    assert pre[0].shape == (1, 2, 16)
    got = s.eval_interval(pre[0], 50, torch.tensor([[[99, 100, 950]] * 2])) ^ s.eval_interval(
        pre[1], 50, torch.tensor([[[99, 100, 950]] * 2])
    )
    assert got.tolist() == [[[False, True, True], [False, False, True]]]
    y = s.eval(pre[0], 500) ^ s.eval(pre[1], 500)
    assert y.shape == (1, 2) and y.tolist() == [[True, False]]
    # A key serializes and loads as a GrottoDcf key.
    loaded, key = pyfss.load_key(k0.to_bytes())
    assert isinstance(loaded, pyfss.GrottoDcf)
    assert torch.equal(loaded.preprocess(0, key.s0, key.cws), pre[0])


def test_grotto_empty_batches_and_misaligned_views():
    s = pyfss.GrottoDcf(8)
    assert s.gen(seed_pairs(0), 5).shape == (0, 9, 8)
    pre = s.preprocess(
        0, torch.zeros(0, 4, dtype=torch.int32), torch.zeros(0, 9, 8, dtype=torch.int32)
    )
    assert pre.shape == (0, 4)
    assert s.eval(pre, torch.zeros(0, 3, dtype=torch.int64)).shape == (0, 3)
    seeds = seed_pairs()
    cws = s.gen(seeds, 77)
    want = s.preprocess(1, seeds[1], cws)
    wide = torch.zeros(5, dtype=torch.int64)
    wide[1:] = want
    x = torch.arange(256)
    assert torch.equal(s.eval(wide[1:], x), s.eval(want, x))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda s, pre: s.eval(pre.int(), 3),
            TypeError,
            r"pre must be a \(parity_words,\) = \(4,\) int64",
        ),
        (lambda s, pre: s.eval(pre, 256), ValueError, r"x must be in \[0, 2\^8\)"),
        (lambda s, pre: s.eval(pre, torch.tensor([3, 256])), ValueError, "x must be in"),
        (lambda s, pre: s.eval_interval(pre, 5, 4), ValueError, "an interval needs lo <= hi"),
        (
            lambda s, pre: s.eval_interval(pre, torch.tensor([1, 2]), torch.tensor([3])),
            TypeError,
            "lo and hi must have the same shape",
        ),
        (
            lambda s, pre: s.eval(pre[None], torch.tensor([[3], [4]])),
            TypeError,
            "keys' batch shape",
        ),
        (
            lambda s, pre: s.preprocess(
                2, torch.zeros(4, dtype=torch.int32), torch.zeros(9, 8, dtype=torch.int32)
            ),
            ValueError,
            "party must be 0 or 1",
        ),
        (
            lambda s, pre: s.gen(torch.zeros(2, 4, dtype=torch.int32), 3),
            ValueError,
            "the two seeds are equal",
        ),
    ],
)
def test_grotto_bad_inputs_fail_clearly(call, error, message):
    s = pyfss.GrottoDcf(8)
    seeds = seed_pairs()
    pre = s.preprocess(0, seeds[0], s.gen(seeds, 9))
    with pytest.raises(error, match=message):
        call(s, pre)


def test_grotto_parameters():
    with pytest.raises(ValueError, match="between 1 and 40 for grotto_dcf"):
        pyfss.GrottoDcf(41)
    with pytest.raises(ValueError, match="nonce is a parameter of chacha"):
        pyfss.GrottoDcf(8, "aes128_mmo", nonce=(1, 2))
    assert pyfss.GrottoDcf(8).params()["group"] == "bytes"
    assert pyfss.GrottoDcf(8).parity_words == 4
    assert pyfss.GrottoDcf(12).parity_words == 64


# -- devices: CPU and CUDA (tests/test_cuda.py); others refused before the core ------


def test_other_devices_are_refused_by_name():
    meta = {"dtype": torch.int32, "device": "meta"}
    got = "pyfss runs on cpu and cuda tensors, got a tensor on meta"
    h = pyfss.HalfTreeDpf(8)
    with pytest.raises(RuntimeError, match=got):
        h.eval(0, torch.zeros(4, **meta), torch.zeros(5, 8, **meta), 3)
    with pytest.raises(RuntimeError, match=got):
        h.gen(torch.zeros(2, 4, **meta), 3, torch.zeros(4, **meta))
    g = pyfss.GrottoDcf(8)
    with pytest.raises(RuntimeError, match=got):
        g.eval(torch.zeros(4, dtype=torch.int64, device="meta"), 3)
    with pytest.raises(RuntimeError, match=got):
        g.eval_all(0, torch.zeros(4, **meta), torch.zeros(9, 8, **meta))
