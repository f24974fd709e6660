"""Dmpf and Vdmpf: the VDMPF known-answer vectors through both (Dmpf shares the
buckets' trees and output corrections, without cs), reconstruction against the
definition, proofs of tampered keys, serialization and the errors."""

import pytest
import torch
from vectors import block, load_vectors, loaded_mutations, prg_kwargs

import pyfss

MPF_FILES = [
    f"vdmpf_{prg}_{h}.json" for prg in ("chacha", "aes128_mmo") for h in ("sha256", "blake3")
]


def cases():
    return [
        pytest.param(f, case, id=case["id"])
        for f in map(load_vectors, MPF_FILES)
        for case in f["cases"]
    ]


def scheme_for(kind, f, case):
    kw = {
        "group": case["group"],
        "prg": f["prg"]["name"],
        "bucket_bits": case["bucket_bits"],
        **prg_kwargs(f),
    }
    if kind == "vdmpf":
        return pyfss.Vdmpf(case["in_bits"], case["max_points"], hash=f["hash"]["name"], **kw)
    return pyfss.Dmpf(case["in_bits"], case["max_points"], **kw)


def vector_key(kind, case):
    """The key of a case in our layout: the header row (sigma; m_rt), then per bucket
    its tree rows, its output correction word and (vdmpf) its cs in two rows."""
    rows = [case["sigma"] + [case["m_rt"], 0, 0, 0]]
    for b in case["buckets"]:
        rows += b["cws"] + [b["ocw"] + [0, 0, 0, 0]]
        if kind == "vdmpf":
            rows += [b["cs"][0] + b["cs"][1], b["cs"][2] + b["cs"][3]]
    return torch.tensor(rows, dtype=torch.int32)


@pytest.mark.parametrize("kind", ["dmpf", "vdmpf"])
@pytest.mark.parametrize(("f", "case"), cases())
def test_vectors(kind, f, case):
    s = scheme_for(kind, f, case)
    assert s.buckets == case["m"]
    seeds = block(case["s0s"])
    alphas = [int(a) for a in case["alphas"]]
    betas = block(case["betas"])
    if case["group"] == "bytes":
        betas[:, 3] &= ~1  # the reserved bit, which the core refuses and the reference clears
    cws = s.gen(seeds, alphas, betas, sigma=block(case["sigma"]))
    assert torch.equal(cws, vector_key(kind, case))
    xs = torch.tensor([int(x) for x in case["xs"]], dtype=torch.int64)
    pis = []
    for party, want in ((0, case["ys0"]), (1, case["ys1"])):
        out = s.eval(party, seeds[:, party], cws, xs)
        if kind == "vdmpf":
            out, pi = out
            assert pi.tolist() == case["pi"][party]
            pis.append(pi)
        assert out.tolist() == want
    if kind == "vdmpf":
        assert s.verify(*pis) is case["verify"]


def random_points(rng, in_bits, t, avoid=()):
    """t distinct random points of in_bits bits, none in avoid (t must leave room)."""
    points = set()
    while len(points) < t:
        x = int.from_bytes(
            torch.randint(0, 256, (16,), generator=rng).to(torch.uint8).numpy().tobytes()
        )
        if (x := x >> (128 - in_bits)) not in avoid:
            points.add(x)
    return sorted(points)


def points_tensor(in_bits, points):
    return torch.tensor(points, dtype=torch.int64) if in_bits <= 63 else pyfss.to_words(points)


@pytest.mark.parametrize("kind", ["dmpf", "vdmpf"])
@pytest.mark.parametrize(
    ("in_bits", "max_points", "t", "group"),
    [
        (1, 2, 2, "uint32"),
        (10, 50, 50, "bytes"),
        (12, 5, 1, "uint64"),
        (64, 20, 17, "uint127"),
        (128, 3, 3, "uint32"),
    ],
)
def test_reconstruct(kind, in_bits, max_points, t, group):
    rng = torch.Generator().manual_seed(in_bits * 1000 + t)
    s = (
        pyfss.Dmpf(in_bits, max_points, group)
        if kind == "dmpf"
        else pyfss.Vdmpf(in_bits, max_points, group)
    )
    alphas = random_points(rng, in_bits, t)
    betas = pyfss.from_int(list(range(1, t + 1)), group if group != "bytes" else "uint32")
    k0, k1 = s.keygen(alphas, betas)
    others = random_points(rng, in_bits, min(10, 2**in_bits - t), set(alphas))
    xs = points_tensor(in_bits, alphas + others)
    outs, pis = [], []
    for key in (k0, k1):
        out = s.eval_key(key, xs)
        if kind == "vdmpf":
            out, pi = out
            pis.append(pi)
        outs.append(out)
    if kind == "vdmpf":
        assert s.verify(*pis)
    want = list(range(1, t + 1)) + [0] * len(others)
    assert values(group, outs[0], outs[1]) == want
    if in_bits <= 12:
        all0, all1 = s.eval_all_key(k0), s.eval_all_key(k1)
        if kind == "vdmpf":
            (all0, q0), (all1, q1) = all0, all1
            assert s.verify(q0, q1)
        want = [0] * (1 << in_bits)
        for j, a in enumerate(alphas):
            want[a] = j + 1
        assert values(group, all0, all1) == want


def values(group, y0, y1):
    """The values that two parties' shares add up to, as Python ints (for bytes, the
    low word of the XOR: the betas here are small)."""
    if group == "bytes":
        return [w & 0xFFFFFFFF for w in (y0 ^ y1)[:, 0].tolist()]
    a, b = pyfss.to_int(y0, group), pyfss.to_int(y1, group)
    bits = {"uint32": 32, "uint64": 64, "uint127": 127}[group]
    if group != "uint127":
        a, b = a.tolist(), b.tolist()
    return [(u + w) % 2**bits for u, w in zip(a, b)]


def test_tampered_key_fails_verification():
    """Over the whole domain every bucket in use is walked, so that a change to any
    part of the key (the PRP key, a bucket's tree row or cs, a dummy bucket's cs)
    changes the proof; over a few points only the buckets they reach count. The tree
    rows changed are level 0's, which party 1 always applies (its root's control bit
    is 1); a deeper row may be one its walk never applies, which changes none of its
    outputs and so no proof. Nor are the trees of dummy buckets ever walked."""
    s = pyfss.Vdmpf(10, 20, "uint32")
    k0, k1 = s.keygen([1, 2, 3, 1000], pyfss.from_int([5, 6, 7, 8], "uint32"))
    _, pi0 = s.eval_all_key(k0)
    _, pi1 = s.eval_all_key(k1)
    assert s.verify(pi0, pi1)
    bucket_rows, rows = s.bucket_bits + 3, s._cws_tail[0]
    last_in_use = 1 + (int(k1.cws[0, 4]) - 1) * bucket_rows  # header word 4: m_rt
    for row, word in (
        (0, 0),
        (1, 2),
        (1 + bucket_rows, 3),
        (bucket_rows, 1),
        (rows - 1, 4),
        (last_in_use, 0),
    ):
        bad = k1.cws.clone()
        bad[row, word] ^= 1 << 3
        _, pi = s.eval_all(1, k1.s0, bad)
        assert not s.verify(pi0, pi), (row, word)
    xs = torch.tensor([1, 2, 3, 1000, 9], dtype=torch.int32)
    (_, p0), (_, p1) = s.eval_key(k0, xs), s.eval_key(k1, xs)
    assert s.verify(p0, p1)
    bad = k1.cws.clone()
    bad[0, 1] ^= 1  # sigma: the inputs go to other buckets
    assert not s.verify(p0, s.eval(1, k1.s0, bad, xs)[1])


def test_serialization():
    for s in (pyfss.Dmpf(20, 8, "uint64", "aes128_mmo"), pyfss.Vdmpf(20, 8, hash="blake3")):
        k0, k1 = s.keygen([7, 8], pyfss.from_int([1, 2], "uint64"))
        loaded, key = pyfss.load_key(k1.to_bytes())
        assert type(loaded) is type(s) and loaded.params() == s.params()
        assert torch.equal(key.s0, k1.s0) and torch.equal(key.cws, k1.cws) and key.party == 1
        assert s.load_key(k0.to_bytes()).party == 0
        with pytest.raises(ValueError, match="corrupt"):
            pyfss.Key.from_bytes(k0.to_bytes()[:-4])
        other = pyfss.Dmpf(20, 9, "uint64", "aes128_mmo")
        with pytest.raises(ValueError, match="max_points"):
            other.load_key(k0.to_bytes())


@pytest.mark.parametrize("kind", ["dmpf", "vdmpf"])
def test_mutated_key_bytes(kind):
    """Random byte changes to a serialized key, header and rows alike: loading raises
    ValueError or TypeError or gives a key; a loaded key evaluates at every input of
    its domain, and over the whole of it, or raises ValueError."""
    make = pyfss.Vdmpf if kind == "vdmpf" else pyfss.Dmpf
    s = make(8, 4, "uint32", "aes128_mmo")
    _, k1 = s.keygen([3, 200, 17], pyfss.from_int([5, 6, 7], "uint32"))
    for scheme, key in loaded_mutations(k1.to_bytes(), 11):
        xs = torch.arange(1 << min(scheme.in_bits, 8))
        for run, args in ((scheme.eval_key, (key, xs)), (scheme.eval_all_key, (key,))):
            try:
                run(*args)
            except ValueError:
                pass


def test_bad_inputs():
    s = pyfss.Vdmpf(8, 4, "uint32")
    seeds = torch.randint(-(2**31), 2**31, (s.buckets, 2, 4), dtype=torch.int32)
    one = pyfss.from_int([1], "uint32")
    with pytest.raises(ValueError, match="distinct"):
        s.gen(seeds, [3, 4, 3], pyfss.from_int([1, 2, 3], "uint32"))
    with pytest.raises(ValueError, match="max_points"):
        s.gen(seeds, [1, 2, 3, 4, 5], pyfss.from_int([1] * 5, "uint32"))
    with pytest.raises(TypeError, match="at least one point"):
        s.gen(seeds, [], pyfss.from_int([], "uint32"))
    with pytest.raises(ValueError, match="alpha"):
        s.gen(seeds, [256], one)
    # A list of points: each entry an int in the domain (torch.tensor would cut 2.5
    # to 2, take True as 1, and refuse 2^64 without naming alphas).
    two = pyfss.from_int([1, 2], "uint32")
    for bad, error, what in (
        ([3, 2.5], TypeError, "entry 1 is a float"),
        ([True, 3], TypeError, "entry 0 is a bool"),
        ([3, "4"], TypeError, "entry 1 is a str"),
        ([3, 2**64], ValueError, r"alphas must be in \[0, 2\^8\): entry 1 is 18446744073709551616"),
        ([-1, 3], ValueError, "entry 0 is -1"),
        ("34", TypeError, "got str"),
        (3, TypeError, "got int"),
    ):
        with pytest.raises(error, match=what):
            s.gen(seeds, bad, two[: len(bad) if isinstance(bad, list) else 1])
    wide = pyfss.Dmpf(100, 4, "uint32")
    wide_seeds = torch.randint(-(2**31), 2**31, (wide.buckets, 2, 4), dtype=torch.int32)
    with pytest.raises(ValueError, match=r"entry 1 is 1267650600228229401496703205376"):
        wide.gen(wide_seeds, [3, 2**100], two)
    with pytest.raises(TypeError, match="entry 0 is a float"):
        wide.gen(wide_seeds, [3.0, 4], two)
    np = pytest.importorskip("numpy")
    sigma = torch.tensor([5, 6, 7, 8], dtype=torch.int32)
    as_numpy = s.gen(seeds, [np.int64(7), np.uint8(9)], two, sigma=sigma)  # not Python ints
    assert torch.equal(as_numpy, s.gen(seeds, [7, 9], two, sigma=sigma))
    with pytest.raises(TypeError, match="betas"):
        s.gen(seeds, [1, 2], one)
    with pytest.raises(TypeError, match="s0s"):
        s.gen(seeds[1:], [1], one)
    with pytest.raises(TypeError, match="sigma"):
        s.gen(seeds, [1], one, sigma=torch.zeros(3, dtype=torch.int32))
    with pytest.raises(ValueError, match="equal"):
        s.gen(torch.zeros_like(seeds), [1], one)
    k0, _ = s.keygen([1], one)
    with pytest.raises(ValueError, match="x must be"):
        s.eval_key(k0, 256)
    with pytest.raises(TypeError, match="s0"):
        s.eval(0, k0.s0[1:], k0.cws, 1)
    with pytest.raises(TypeError, match="cws"):
        s.eval(0, k0.s0, k0.cws[:-1], 1)
    with pytest.raises(ValueError, match="party"):
        s.eval(2, k0.s0, k0.cws, 1)
    bad = k0.cws.clone()
    bad[0, 4] = s.buckets + 1
    with pytest.raises(ValueError, match="m_rt"):
        s.eval(0, k0.s0, bad, 1)
    _, pi = s.eval_key(k0, 1)
    for wrong in (pi[:3], pi.to(torch.int64), pi.flatten(), [1, 2]):
        with pytest.raises(TypeError, match="pi1"):
            s.verify(pi, wrong)
    # Non-contiguous views and empty batches.
    y, _ = s.eval(0, k0.s0.t().contiguous().t(), k0.cws, torch.arange(10, dtype=torch.int32)[::2])
    assert y.shape == (5, 4)
    y, p = s.eval(0, k0.s0, k0.cws, torch.empty(0, dtype=torch.int32))
    assert y.shape == (0, 4) and p.shape == (4, 4)
    with pytest.raises(ValueError, match="max_points"):
        pyfss.Dmpf(8, 0)


def test_batch_errors_name_the_key():
    """The core sees one key of a batch at a time: its errors name the key, then
    the bucket or point within it."""
    s = pyfss.Dmpf(8, 4)
    seeds = torch.randint(-(2**31), 2**31, (3, s.buckets, 2, 4), dtype=torch.int32)
    alphas = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=torch.int32)
    betas = torch.zeros(3, 2, 4, dtype=torch.int32)
    equal = seeds.clone()
    equal[2, 1, 1] = equal[2, 1, 0]
    with pytest.raises(ValueError, match="^key 2: s0s: bucket 1: the two seeds are equal"):
        s.gen(equal, alphas, betas)
    reserved = betas.clone()
    reserved[1, 1, 3] = 1
    with pytest.raises(ValueError, match="^key 1: beta: point 1: bit 0 of word 3 is reserved"):
        s.gen(seeds, alphas, reserved)
    with pytest.raises(ValueError, match="^s0s: bucket 1: "):
        s.gen(equal[2], alphas[2], betas[2])  # one key: no key to name
    cws = s.gen(seeds, alphas, betas)
    xs = torch.tensor([[1, 2], [3, 4], [5, 300]], dtype=torch.int32)
    with pytest.raises(ValueError, match=r"^key 2: x must be in \[0, 2\^8\): entry 1"):
        s.eval(0, seeds[:, :, 0], cws, xs)
    with pytest.raises(ValueError, match="bucket_bits"):
        pyfss.Dmpf(32, 1024, bucket_bits=3)
    with pytest.raises(ValueError, match="hash"):
        pyfss.Vdmpf(8, 4, hash="md5")


@pytest.mark.parametrize("kind", ["dmpf", "vdmpf"])
def test_batched_keys(kind):
    """A batch of keys (leading dimensions of s0s, alphas, betas, sigma) is the keys
    made one at a time; eval and eval_all of the batch are each key's, and every key
    reconstructs to its own points."""
    s = pyfss.Dmpf(9, 6, "uint32") if kind == "dmpf" else pyfss.Vdmpf(9, 6, "uint32")
    rng = torch.Generator().manual_seed(5)
    batch, t = (2, 3), 4
    seeds = torch.randint(
        -(2**31), 2**31, (*batch, s.buckets, 2, 4), generator=rng, dtype=torch.int32
    )
    alphas = torch.stack([torch.randperm(512, generator=rng)[:t] for _ in range(6)]).view(*batch, t)
    betas = pyfss.from_int(torch.randint(1, 1000, (*batch, t), generator=rng), "uint32")
    sigma = torch.randint(-(2**31), 2**31, (*batch, 4), generator=rng, dtype=torch.int32)
    cws = s.gen(seeds, alphas, betas, sigma=sigma)
    assert cws.shape == (*batch, *s._cws_tail)
    xs = torch.randint(0, 512, (*batch, 7), generator=rng)
    xs[..., :t] = alphas
    ys = [s.eval(p, seeds[..., p, :], cws, xs) for p in (0, 1)]
    alls = [s.eval_all(p, seeds[..., p, :], cws) for p in (0, 1)]
    if kind == "vdmpf":
        (ys[0], pi0), (ys[1], pi1) = ys
        (alls[0], q0), (alls[1], q1) = alls
        assert pi0.shape == q0.shape == (*batch, 4, 4)
    for i in range(2):
        for j in range(3):
            one = s.gen(seeds[i, j], alphas[i, j], betas[i, j], sigma=sigma[i, j])
            assert torch.equal(one, cws[i, j])
            for p in (0, 1):
                y = s.eval(p, seeds[i, j, :, p], one, xs[i, j])
                y_all = s.eval_all(p, seeds[i, j, :, p], one)
                if kind == "vdmpf":
                    (y, pi), (y_all, q) = y, y_all
                    assert torch.equal(pi, (pi0, pi1)[p][i, j])
                    assert torch.equal(q, (q0, q1)[p][i, j])
                assert torch.equal(y, ys[p][i, j]) and torch.equal(y_all, alls[p][i, j])
            if kind == "vdmpf":
                assert s.verify(pi0[i, j], pi1[i, j]) and s.verify(q0[i, j], q1[i, j])
            want = [0] * 512
            for a, b in zip(alphas[i, j].tolist(), pyfss.to_int(betas[i, j], "uint32").tolist()):
                want[a] = b
            assert values("uint32", alls[0][i, j], alls[1][i, j]) == want
            assert values("uint32", ys[0][i, j], ys[1][i, j]) == [
                want[x] for x in xs[i, j].tolist()
            ]
    # One point for every key of the batch, and one list of points for all of them.
    y = s.eval(0, seeds[..., 0, :], cws, 5)
    assert (y[0] if kind == "vdmpf" else y).shape == (*batch, 4)
    same = s.gen(seeds, [1, 2], betas[..., :2, :])
    assert torch.equal(
        same[1, 2, 1:], s.gen(seeds[1, 2], [1, 2], betas[1, 2, :2], sigma=same[1, 2, 0, :4])[1:]
    )
    k0, k1 = s.keygen(alphas, betas)
    assert k0.s0.shape == (*batch, s.buckets, 4) and k1.cws.shape == cws.shape
    _, key = pyfss.load_key(k1.to_bytes())
    assert torch.equal(key.cws, k1.cws) and key.s0.shape == k1.s0.shape


def test_batched_keys_bad_shapes():
    s = pyfss.Dmpf(8, 4, "uint32")
    seeds = torch.randint(-(2**31), 2**31, (2, s.buckets, 2, 4), dtype=torch.int32)
    alphas = torch.tensor([[1, 2], [3, 4]])
    betas = pyfss.from_int([[1, 2], [3, 4]], "uint32")
    cws = s.gen(seeds, alphas, betas)
    with pytest.raises(TypeError, match="betas"):
        s.gen(seeds, alphas, betas[0])
    with pytest.raises(TypeError, match="alphas"):
        s.gen(seeds, alphas[:1], betas)
    with pytest.raises(TypeError, match="alphas"):
        s.gen(seeds, alphas.view(2, 1, 2), betas)
    with pytest.raises(TypeError, match="sigma"):
        s.gen(seeds, alphas, betas, sigma=torch.zeros(4, dtype=torch.int32))
    with pytest.raises(TypeError, match="s0s"):
        s.gen(seeds.to(torch.int64), alphas, betas)
    with pytest.raises(ValueError, match="distinct"):
        s.gen(seeds, torch.tensor([[1, 2], [3, 3]]), betas)
    with pytest.raises(TypeError, match="cws"):
        s.eval(0, seeds[..., 0, :], cws[0], 1)
    with pytest.raises(TypeError, match="x has shape"):
        s.eval(0, seeds[..., 0, :], cws, torch.tensor([1, 2, 3]))
    with pytest.raises(TypeError, match="cws"):
        s.eval_all(0, seeds[:1, :, 0], cws)
    with pytest.raises(TypeError, match="betas"):
        s.keygen([1], torch.tensor([1, 2, 3, 4], dtype=torch.int32))
    # Empty batches; non-contiguous batched seeds.
    empty = s.gen(seeds[:0], alphas[:0], betas[:0])
    assert empty.shape == (0, *s._cws_tail)
    assert s.eval(0, seeds[:0, :, 0], empty, torch.zeros(0, 3, dtype=torch.int64)).shape == (
        0,
        3,
        4,
    )
    assert s.eval_all(1, seeds[:0, :, 1], empty).shape == (0, 256, 4)
    y = s.eval(0, seeds[:, :, 0], cws, alphas)  # a strided view of the seeds
    assert torch.equal(y, s.eval(0, seeds[:, :, 0].contiguous(), cws, alphas))


def test_batched_keys_wide_inputs():
    """Batches whose points take the words form (in_bits above 63): each key's points
    and inputs are its own rows of words."""
    s = pyfss.Dmpf(70, 3, "uint64")
    seeds = torch.randint(-(2**31), 2**31, (2, s.buckets, 2, 4), dtype=torch.int32)
    alphas = pyfss.to_words([[2**69 + 5, 7], [3, 2**68]])
    betas = pyfss.from_int([[1, 2], [3, 4]], "uint64")
    sigma = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=torch.int32)
    cws = s.gen(seeds, alphas, betas, sigma=sigma)
    xs = pyfss.to_words([[2**69 + 5, 7, 3], [3, 2**68, 7]])
    y0, y1 = (s.eval(p, seeds[..., p, :], cws, xs) for p in (0, 1))
    for i in range(2):
        assert torch.equal(cws[i], s.gen(seeds[i], alphas[i], betas[i], sigma=sigma[i]))
    assert values("uint64", y0[0], y1[0]) == [1, 2, 0]
    assert values("uint64", y0[1], y1[1]) == [3, 4, 0]


def test_batched_keys_int32_inputs():
    """int32 points (in_bits <= 32, 4 bytes each) in a batch: each key reads its own."""
    s = pyfss.Vdmpf(16, 3, "uint32")
    seeds = torch.randint(-(2**31), 2**31, (3, s.buckets, 2, 4), dtype=torch.int32)
    alphas = torch.tensor([[1, 65535], [2, 3], [40000, 9]], dtype=torch.int32)
    betas = pyfss.from_int([[5, 6], [7, 8], [9, 10]], "uint32")
    cws = s.gen(seeds, alphas, betas)
    xs = torch.tensor([[65535, 2, 1], [3, 1, 2], [9, 40000, 3]], dtype=torch.int32)
    (y0, p0), (y1, p1) = (s.eval(p, seeds[..., p, :], cws, xs) for p in (0, 1))
    assert [values("uint32", y0[i], y1[i]) for i in range(3)] == [[6, 0, 5], [8, 0, 7], [10, 9, 0]]
    assert all(s.verify(p0[i], p1[i]) for i in range(3))


def junk_unaligned(shape: tuple) -> torch.Tensor:
    """A contiguous int32 tensor of shape full of junk that starts 4 bytes past an
    8-byte boundary, where the core cannot write directly."""
    n = torch.Size(shape).numel()
    buf = torch.full((n + 2,), -0x21524111, dtype=torch.int32)
    start = 1 if buf.data_ptr() % 8 == 0 else 2
    view = buf[start : start + n].view(shape)
    assert view.data_ptr() % 8 == 4
    return view


@pytest.mark.parametrize("kind", ["dmpf", "vdmpf"])
def test_out(kind):
    """out= for eval and eval_all: written over (junk, aligned or not), returned, and
    the same shares and proofs as without it; refused when it is the wrong tensor or
    shares memory with an argument."""
    s = pyfss.Dmpf(9, 6, "uint64") if kind == "dmpf" else pyfss.Vdmpf(9, 6, "uint64")
    rng = torch.Generator().manual_seed(11)
    batch, t = (2,), 5
    seeds = torch.randint(
        -(2**31), 2**31, (*batch, s.buckets, 2, 4), generator=rng, dtype=torch.int32
    )
    alphas = torch.stack([torch.randperm(512, generator=rng)[:t] for _ in range(2)])
    betas = pyfss.from_int(torch.randint(1, 10**6, (*batch, t), generator=rng), "uint64")
    cws = s.gen(seeds, alphas, betas)
    s0 = seeds[..., 1, :].contiguous()
    xs = torch.randint(0, 512, (*batch, 33), generator=rng)

    def split(r):
        return r if kind == "vdmpf" else (r, None)

    for call, shape in (
        (lambda **kw: s.eval(1, s0, cws, xs, **kw), (*batch, 33, 4)),
        (lambda **kw: s.eval(1, s0[0], cws[0], 77, **kw), (4,)),
        (lambda **kw: s.eval_all(1, s0, cws, **kw), (*batch, 512, 4)),
    ):
        want, want_pi = split(call())
        for out in (torch.full(shape, -1, dtype=torch.int32), junk_unaligned(shape)):
            got, pi = split(call(out=out))
            assert got is out and torch.equal(out, want)
            assert pi is None or torch.equal(pi, want_pi)
        with pytest.raises(TypeError, match="out must be a"):
            call(out=torch.empty(shape, dtype=torch.int64))
        with pytest.raises(TypeError, match="out must be a"):
            call(out=torch.empty(*shape[:-1], 5, dtype=torch.int32))
        with pytest.raises(TypeError, match="out must be contiguous"):
            call(out=torch.empty(*shape[:-1], 8, dtype=torch.int32)[..., ::2])

    # The shares still reconstruct the points when written through out=.
    other = torch.zeros(*batch, 512, 4, dtype=torch.int32)
    split(s.eval_all(0, seeds[..., 0, :].contiguous(), cws, out=other))
    mine = split(s.eval_all(1, s0, cws))[0]
    for i in range(2):
        want = [0] * 512
        for a, b in zip(alphas[i].tolist(), pyfss.to_int(betas[i], "uint64").tolist()):
            want[a] = b
        assert values("uint64", other[i], mine[i]) == want

    # out sharing memory with an argument: refused, as torch refuses it.
    overlap = "refer to a single memory location: out overlaps"
    buf = torch.zeros(1 << 14, dtype=torch.int32)
    out = buf[: 2 * 33 * 4].view(*batch, 33, 4)
    for name, offset, t in (("s0", 8, s0), ("cws", 64, cws), ("xs", out.numel() - 1, xs.int())):
        placed = buf[offset : offset + t.numel()].view(t.shape)
        placed.copy_(t)
        args = {"s0": s0, "cws": cws, "xs": xs} | {name: placed}
        with pytest.raises(RuntimeError, match=f"{overlap} {name}"):
            s.eval(1, args["s0"], args["cws"], args["xs"], out=out)
    out = buf[: 2 * 512 * 4].view(*batch, 512, 4)
    for name, t in (("s0", s0), ("cws", cws)):
        placed = buf[100 : 100 + t.numel()].view(t.shape)
        placed.copy_(t)
        args = {"s0": s0, "cws": cws} | {name: placed}
        with pytest.raises(RuntimeError, match=f"{overlap} {name}"):
            s.eval_all(1, args["s0"], args["cws"], out=out)

    # An empty batch writes nothing and returns out.
    none = torch.empty(0, 512, 4, dtype=torch.int32)
    got = split(s.eval_all(1, s0[:0], cws[:0], out=none))[0]
    assert got is none
