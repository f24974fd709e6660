"""Vdpf: every known-answer case through the Python API, keys and their bytes,
batches, and bad arguments."""

import hashlib
import json
import struct

import pytest
import torch
from vectors import block, load_vectors, loaded_mutations, prg_kwargs

import pyfss

VDPF_FILES = [
    "vdpf_chacha_sha256.json",
    "vdpf_chacha_blake3.json",
    "vdpf_aes128_mmo_sha256.json",
    "vdpf_aes128_mmo_blake3.json",
]


def cases():
    for name in VDPF_FILES:
        f = load_vectors(name)
        assert len(f["cases"]) == 40
        for case in f["cases"]:
            yield pytest.param(f, case, id=case["id"])


def scheme(f, case):
    h = dict(f["hash"])
    return pyfss.Vdpf(
        case["in_bits"],
        case["group"],
        f["prg"]["name"],
        h.pop("name"),
        hash_keys=h,
        **prg_kwargs(f),
    )


def inputs(points, in_bits):
    """The points as one tensor: int64 values where they fit, else int32 words."""
    return torch.tensor(points) if in_bits <= 63 else pyfss.to_words(points)


@pytest.mark.parametrize(("f", "case"), list(cases()))
def test_vdpf_case(f, case):
    s = scheme(f, case)
    n = case["in_bits"]
    seeds = block(case["seeds"])
    beta = block(case["beta"])
    if case["group"] == "bytes" and case["beta"][3] & 1:
        beta[3] &= ~1  # the element the reference's Gen encodes (the binding refuses the bit)
    cws = s.gen(seeds, int(case["alpha"]), beta)
    # Our key: the reference's rows, then ocw and cs two blocks to a row.
    cs = case["cs"]
    want = [*case["cws"], [*case["ocw"], 0, 0, 0, 0], cs[0] + cs[1], cs[2] + cs[3]]
    assert cws.tolist() == want

    xs = inputs([int(e["x"]) for e in case["evals"]], n)
    pis = []
    for party in (0, 1):
        y, pieces = s.eval(party, seeds[party], cws, xs)
        assert y.tolist() == [e[f"y{party}"] for e in case["evals"]]
        assert pieces.tolist() == [e[f"pi_tilde{party}"] for e in case["evals"]]
        e0 = case["evals"][0]
        y1, piece1 = s.eval(party, seeds[party], cws, int(e0["x"]))
        assert (y1.tolist(), piece1.tolist()) == (e0[f"y{party}"], e0[f"pi_tilde{party}"])
        pis.append(s.prove(pieces, cws))
        # The key three times over in a batch: their chains step side by side
        # (blake3 with AVX2), each the known proof.
        three = s.prove(pieces.expand(3, *pieces.shape), cws.expand(3, *cws.shape))
        assert three.tolist() == [case["prove"][f"pi{party}"]] * 3
    assert pis[0].tolist() == case["prove"]["pi0"]
    assert pis[1].tolist() == case["prove"]["pi1"]
    assert s.verify(pis[0], pis[1]).item() is case["prove"]["verify"]

    tm = case["tampered"]
    bad = cws.clone()
    bad[tm["cw_index"], tm["word"]] ^= tm["xor"]
    _, pieces = s.eval(tm["party"], seeds[tm["party"]], bad, xs)
    pi1 = s.prove(pieces, bad)
    assert pi1.tolist() == tm["pi1"]
    assert s.verify(pis[0], pi1).item() is tm["verify"]

    if "eval_all" not in case:
        return
    ea = case["eval_all"]
    proofs = []
    for party in (0, 1):
        out, pi = s.eval_all(party, seeds[party], cws)
        assert out.shape == (ea["n"], 4)
        assert hashlib.sha256(out.numpy().tobytes()).hexdigest() == ea["sha256"][party]
        assert out[: len(ea["first"][party])].tolist() == ea["first"][party]
        assert pi.tolist() == ea["pi"][party]
        proofs.append(pi)
    assert s.verify(*proofs).item() is ea["verify"]

    # The key in a batch of 17, at 0, 7 and 16 among others: the batch's proof
    # chains step side by side in groups (with blake3 where the CPU has AVX2), and
    # each key's shares and proof are still its own.
    at = [0, 7, 16]
    batch_seeds = torch.randint(-(2**31), 2**31, (17, 2, 4), dtype=torch.int32)
    batch_seeds[at] = seeds
    batch = s.gen(batch_seeds, 0, beta.expand(17, 4).contiguous())
    batch[at] = cws
    for party in (0, 1):
        out, pi = s.eval_all(party, batch_seeds[:, party], batch)
        for i in range(17):
            if i in at:
                assert pi[i].tolist() == ea["pi"][party]
                digest = hashlib.sha256(out[i].numpy().tobytes()).hexdigest()
                assert digest == ea["sha256"][party]
            else:
                alone = s.eval_all(party, batch_seeds[i, party], batch[i])
                assert torch.equal(out[i], alone[0]) and torch.equal(pi[i], alone[1])


@pytest.mark.parametrize("hash", ["sha256", "blake3"])
def test_batches_keys_and_bytes(hash):
    s = pyfss.Vdpf(10, "uint", "aes128_mmo", hash)
    betas = torch.tensor([[3, 0, 0, 0], [4, 0, 0, 0], [5, 0, 0, 0]], dtype=torch.int32).reshape(
        3, 1, 4
    )
    alphas = torch.tensor([[7], [0], [1023]], dtype=torch.int32)
    k0, k1 = s.keygen(alphas, betas)
    assert k0.cws.shape == (3, 1, 13, 8)
    xs = torch.randint(0, 1024, (3, 1, 2, 5), dtype=torch.int32)
    xs[:, 0, 0, 0] = alphas[:, 0]
    (y0, p0), (y1, p1) = s.eval_key(k0, xs), s.eval_key(k1, xs)
    assert p0.shape == (3, 1, 2, 5, 4, 4)
    total = (y0 + y1)[..., 0]
    assert total[:, 0, 0, 0].tolist() == [3, 4, 5]
    assert torch.equal(total != 0, xs == alphas[..., None, None])
    pi0, pi1 = s.prove(p0, k0.cws), s.prove(p1, k1.cws)
    assert pi0.shape == (3, 1, 4, 4)
    assert s.verify(pi0, pi1).tolist() == [[True], [True], [True]]
    # One key at a time gives the same pieces and proofs.
    for i in range(3):
        y, p = s.eval(0, k0.s0[i, 0], k0.cws[i, 0], xs[i, 0])
        assert torch.equal(y, y0[i, 0]) and torch.equal(p, p0[i, 0])
        assert torch.equal(s.prove(p, k0.cws[i, 0]), pi0[i, 0])
    # eval_all's proofs agree between the parties and its shares are eval's.
    (a0, q0), (a1, q1) = s.eval_all_key(k0), s.eval_all_key(k1)
    assert a0.shape == (3, 1, 1024, 4) and q0.shape == (3, 1, 4, 4)
    assert s.verify(q0, q1).all()
    for i in range(3):
        assert torch.equal(a0[i, 0, xs[i, 0].long()], y0[i, 0])
    assert torch.equal(((a0 + a1)[..., 0] != 0).nonzero()[:, 2], alphas.flatten().long())
    # A changed correction word in key 1 of party 1: only that key fails.
    bad = k1.cws.clone()
    bad[1, 0, 0, 1] ^= 1 << 9
    _, pb = s.eval(1, k1.s0, bad, xs)
    assert s.verify(pi0, s.prove(pb, bad)).tolist() == [[True], [False], [True]]
    _, qb = s.eval_all(1, k1.s0, bad)
    assert s.verify(q0, qb).tolist() == [[True], [False], [True]]
    # Keys travel as bytes with their hash.
    s2, key = pyfss.load_key(k0.to_bytes())
    assert isinstance(s2, pyfss.Vdpf) and s2.params() == s.params() and s2.hash == hash
    assert torch.equal(key.cws, k0.cws)
    other = pyfss.Vdpf(10, "uint", "aes128_mmo", "blake3" if hash == "sha256" else "sha256")
    with pytest.raises(ValueError, match=r"\(hash differ\)"):
        other.load_key(k0.to_bytes())


def test_empty_batches():
    s = pyfss.Vdpf(5)
    cws = torch.empty(0, 8, 8, dtype=torch.int32)
    s0 = torch.empty(0, 4, dtype=torch.int32)
    y, p = s.eval(0, s0, cws, torch.empty(0, 3, dtype=torch.int32))
    assert y.shape == (0, 3, 4) and p.shape == (0, 3, 4, 4)
    assert s.prove(p, cws).shape == (0, 4, 4)
    assert s.verify(
        torch.empty(0, 4, 4, dtype=torch.int32), torch.empty(0, 4, 4, dtype=torch.int32)
    ).shape == (0,)
    a, q = s.eval_all(0, s0, cws)
    assert a.shape == (0, 32, 4) and q.shape == (0, 4, 4)


def test_hash_parameters():
    s = pyfss.Vdpf(4, hash="blake3", hash_keys={"hash_iv": [[1, 2, 3, 4], [5, 6, 7, 8]]})
    assert s.hash_keys["hash_iv"] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert s.hash_keys["xor_hash_iv"] == pyfss.DEFAULT_VDPF_HASHES["blake3"]["xor_hash_iv"]
    assert pyfss.Vdpf(4).hash_keys == pyfss.DEFAULT_VDPF_HASHES["sha256"]
    key = torch.tensor([9, 8, 7, 6], dtype=torch.int32)
    assert pyfss.Vdpf(4, hash_keys={"hash_key": key}).hash_keys["hash_key"] == [9, 8, 7, 6]
    # Different hash keys give different proofs for the same key.
    a, b = pyfss.Vdpf(4), pyfss.Vdpf(4, hash_keys={"hash_key": [1, 2, 3, 4]})
    k0, _ = a.keygen(3, torch.tensor([1, 2, 3, 4], dtype=torch.int32))
    _, p = a.eval_key(k0, torch.arange(16))
    assert not a.verify(a.prove(p, k0.cws), b.prove(p, k0.cws)).item()


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"hash": "md5"}, ValueError, "hash must be one of"),
        ({"hash_keys": [1, 2]}, TypeError, "hash_keys must be a dict"),
        ({"hash_keys": {"hash_iv": [[1, 2, 3, 4]] * 2}}, ValueError, "sha256 takes xor_hash_key"),
        ({"hash_keys": {"hash_key": [1, 2, 3]}}, ValueError, "hash_key must be a block of 4 words"),
        ({"hash_keys": {"hash_key": [1, 2, 3, 2**32]}}, ValueError, "must fit in 32 bits"),
        ({"hash_keys": {"hash_key": "abcd"}}, ValueError, "params"),
        ({"hash_keys": {"salt": [1, 2, 3, 4]}}, ValueError, 'unknown field "salt"'),
        ({"impl": "avx512"}, ValueError, "impl"),
    ],
)
def test_bad_parameters(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        pyfss.Vdpf(8, **kwargs)


def test_bad_calls():
    s = pyfss.Vdpf(8, "uint32")
    k0, _ = s.keygen(5, torch.tensor([1, 0, 0, 0], dtype=torch.int32))
    _, p = s.eval_key(k0, torch.arange(4, dtype=torch.int32))
    pi = s.prove(p, k0.cws)
    with pytest.raises(ValueError, match="party must be 0 or 1"):
        s.eval(2, k0.s0, k0.cws, 1)
    with pytest.raises(ValueError, match=r"x must be in \[0, 2\^8\)"):
        s.eval(0, k0.s0, k0.cws, 256)
    with pytest.raises(TypeError, match=r"cws must be a \(cw_rows, 8\) = \(11, 8\)"):
        s.eval(0, k0.s0, k0.cws[:-1], 1)
    with pytest.raises(TypeError, match="pieces must be a"):
        s.prove(p.to(torch.int64), k0.cws)
    with pytest.raises(TypeError, match="pieces must be a"):
        s.prove(p[..., :3], k0.cws)
    with pytest.raises(TypeError, match="leading dimensions must be the keys' batch shape"):
        s.prove(p[:1], k0.cws.expand(2, 11, 8))
    with pytest.raises(TypeError, match="pi0 must be a"):
        s.verify(pi[:3], pi)
    with pytest.raises(TypeError, match="pi1 has batch shape"):
        s.verify(pi, pi.expand(2, 4, 4))
    with pytest.raises(ValueError, match="not a DPF output correction word"):
        bad = k0.cws.clone()
        bad[8, 4] = 1
        s.eval_key(pyfss.Key(k0.params, 0, k0.s0, bad), 1)
    with pytest.raises(ValueError, match="too large|at most in_bits"):
        pyfss.Vdpf(41).eval_all(0, k0.s0, torch.zeros(44, 8, dtype=torch.int32))
    # Views and non-contiguous tensors are read as what they hold.
    wide = torch.zeros(11, 16, dtype=torch.int32)
    wide[:, ::2] = k0.cws
    _, q = s.eval(0, k0.s0, wide[:, ::2], torch.arange(4, dtype=torch.int32))
    assert torch.equal(q, p)
    assert s.verify(s.prove(p.transpose(-1, -2).contiguous().transpose(-1, -2), k0.cws), pi).item()


def vdpf_key_blob(hash="blake3"):
    s = pyfss.Vdpf(8, "uint32", "chacha", hash)
    k0, _ = s.keygen(3, pyfss.from_int(5, "uint32"))
    return s, k0.to_bytes()


def with_header(blob, change):
    """blob's key with change(header) applied to its JSON header."""
    (length,) = struct.unpack_from("<I", blob, 10)
    header = json.loads(blob[14 : 14 + length])
    change(header)
    raw = json.dumps(header).encode()
    return blob[:10] + struct.pack("<I", len(raw)) + raw + blob[14 + length :]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda h: h["params"].pop("hash"), "params.hash is missing"),
        (lambda h: h["params"].__setitem__("hash", "blake3"), "params: .*cannot unmarshal"),
        (lambda h: h["params"]["hash"].__setitem__("salt", 1), 'unknown field "salt"'),
        (lambda h: h["params"]["hash"].pop("hash_iv"), "params.hash must be"),
        (lambda h: h["params"]["hash"].__setitem__("name", "sha256"), "sha256 takes xor_hash_key"),
        (lambda h: h["params"].__setitem__("scheme", "dpf"), r"unknown fields \['hash'\]"),
    ],
)
def test_crafted_key_headers(change, message):
    _, blob = vdpf_key_blob()
    with pytest.raises(ValueError, match=message):
        pyfss.load_key(with_header(blob, change))


def test_other_hash_keys_load_into_their_own_scheme():
    s, blob = vdpf_key_blob()
    other = with_header(blob, lambda h: h["params"]["hash"]["hash_iv"][0].__setitem__(0, 9))
    s2, _ = pyfss.load_key(other)
    assert s2.hash_keys["hash_iv"][0][0] == 9
    with pytest.raises(ValueError, match=r"\(hash differ\)"):
        s.load_key(other)


def test_mutated_key_bytes():
    """Random byte changes to a serialized key: loading raises ValueError or TypeError
    or gives a key; a loaded key evaluates or raises ValueError."""
    _, blob = vdpf_key_blob("sha256")
    for s, key in loaded_mutations(blob, 5):
        try:
            s.eval_key(key, torch.arange(1 << min(s.in_bits, 8)))
        except ValueError:
            pass


def test_eval_out():
    """eval and eval_all write the shares into out, as Dpf's do: the same shares as
    a fresh tensor, out returned; out of another shape or dtype, non-contiguous, or
    sharing memory with an input is refused."""
    s = pyfss.Vdpf(8, "uint64")
    k0, _ = s.keygen(torch.tensor([3, 200]), pyfss.from_int([5, 6], "uint64"))
    xs = torch.tensor([[1, 3, 200], [4, 200, 0]])
    want, want_pieces = s.eval_key(k0, xs)
    out = torch.full((2, 3, 4), -1, dtype=torch.int32)
    y, pieces = s.eval(0, k0.s0, k0.cws, xs, out=out)
    assert y is out and torch.equal(out, want) and torch.equal(pieces, want_pieces)
    want_all, want_pi = s.eval_all_key(k0)
    out_all = torch.full((2, 256, 4), -1, dtype=torch.int32)
    y, pi = s.eval_all(0, k0.s0, k0.cws, out=out_all)
    assert y is out_all and torch.equal(out_all, want_all) and torch.equal(pi, want_pi)
    # A view at an offset the core cannot use directly: written through a copy.
    buf = torch.zeros(2 * 3 * 4 + 1, dtype=torch.int32)
    view = buf[1:].view(2, 3, 4)
    assert torch.equal(s.eval(0, k0.s0, k0.cws, xs, out=view)[0], want) and buf[0] == 0

    for call, (a, b) in (
        (lambda o: s.eval(0, k0.s0, k0.cws, xs, out=o), (2, 3)),
        (lambda o: s.eval_all(0, k0.s0, k0.cws, out=o), (2, 256)),
    ):
        for bad, match in (
            (torch.empty(a, b, 5, dtype=torch.int32), "out must be a"),
            (torch.empty(a, b, 4, dtype=torch.int64), "out must be a"),
            ([0] * (a * b * 4), "out must be a"),
            (torch.empty(b, a, 4, dtype=torch.int32).transpose(0, 1), "out must be contiguous"),
        ):
            with pytest.raises(TypeError, match=match):
                call(bad)
    shared = torch.zeros(2 * 256 * 4, dtype=torch.int32)
    with pytest.raises(RuntimeError, match="out overlaps x"):
        x_in = shared[:6].view(2, 3)
        s.eval(0, k0.s0, k0.cws, x_in, out=shared[:24].view(2, 3, 4))
    s0_in = shared[:8].view(2, 4)
    s0_in.copy_(k0.s0)
    with pytest.raises(RuntimeError, match="out overlaps s0"):
        s.eval_all(0, s0_in, k0.cws, out=shared.view(2, 256, 4))
    with pytest.raises(RuntimeError, match="out overlaps cws"):
        s.eval(0, k0.s0, k0.cws, xs, out=k0.cws.view(-1)[:24].view(2, 3, 4))


@pytest.mark.parametrize("hash_name", ["sha256", "blake3"])
def test_equal_seeds_pass_verification_as_specified(hash_name):
    """docs/spec.md section 15, "What verification does not catch": XH hashes the
    clamped leaf seed alone, so keys with one seed for both parties and every level's
    control-bit corrections 1 give equal proofs while their shares add up to -ocw or
    ocw at every input. This pins the documented gap (the vectors fix the proofs)."""
    n = 4
    s = pyfss.Vdpf(n, "uint32", hash=hash_name)
    seed = torch.tensor([11, 22, 33, 44], dtype=torch.int32)
    cws = torch.zeros(n + 3, 8, dtype=torch.int32)
    cws[:n, 3] = 1  # tl = 1 (scw = 0)
    cws[:n, 4] = 1  # tr = 1
    cws[n, 0] = 7  # ocw
    (y0, pi0), (y1, pi1) = s.eval_all(0, seed, cws), s.eval_all(1, seed, cws)
    assert bool(s.verify(pi0, pi1))
    sums = [(a + b) % 2**32 for a, b in zip(y0[:, 0].tolist(), y1[:, 0].tolist())]
    assert set(sums) == {7, 2**32 - 7}  # no point function
