"""The fss_crypto-style API and its batched forms, on random inputs."""

import io
import os
import subprocess
import sys
import textwrap
import threading

import pytest
import torch

import pyfss

GROUPS = ["bytes", "uint32", "uint64", "uint127"]
PRGS = ["chacha", "aes128_mmo"]


def rand_i32(*shape, gen=None):
    return torch.randint(-(2**31), 2**31, shape, dtype=torch.int32, generator=gen)


def rand_beta(*shape, gen=None):
    """Random betas (..., 4) valid in every group: bit 0 of word 3 is the control bit,
    reserved (must be 0) in the bytes group."""
    beta = rand_i32(*shape, 4, gen=gen)
    beta[..., 3] &= ~1
    return beta


def schemes(in_bits, group, prg):
    yield pyfss.Dpf(in_bits, group, prg)
    yield pyfss.Dcf(in_bits, group, prg, "lt")
    yield pyfss.Dcf(in_bits, group, prg, "gt")


def expected(s, alpha, x):
    if isinstance(s, pyfss.Dpf):
        return x == alpha
    return x < alpha if s.pred == "lt" else x > alpha


def add_shares(y0, y1, group):
    """Group addition of output blocks (..., 4)."""
    if group == "bytes":
        return y0 ^ y1
    if group == "uint32":
        return pyfss.from_int(pyfss.to_int(y0, group) + pyfss.to_int(y1, group), group)
    if group == "uint64":
        return pyfss.from_int(pyfss.to_int(y0, group) + pyfss.to_int(y1, group), group)
    raise AssertionError(group)


def canon(beta, group):
    if group == "bytes":
        return beta
    return pyfss.from_int(pyfss.to_int(beta, group), group)


@pytest.mark.parametrize("prg", PRGS)
@pytest.mark.parametrize("group", ["bytes", "uint32", "uint64"])
def test_shares_reconstruct_everywhere(prg, group):
    g = torch.Generator().manual_seed(1)
    n = 6
    for s in schemes(n, group, prg):
        s0s, beta = rand_i32(2, 4, gen=g), rand_beta(gen=g)
        alpha = int(torch.randint(0, 2**n, (), generator=g))
        cws = s.gen(s0s, alpha, beta)
        assert cws.shape == (n + 1, 8) and cws.dtype == torch.int32
        y0, y1 = s.eval_all(0, s0s[0], cws), s.eval_all(1, s0s[1], cws)
        assert y0.shape == (2**n, 4) and y0.dtype == torch.int32
        total = add_shares(y0, y1, group)
        for x in range(2**n):
            want = (
                canon(beta, group) if expected(s, alpha, x) else torch.zeros(4, dtype=torch.int32)
            )
            assert torch.equal(total[x], want), (s, x, alpha)
        one = s.eval(0, s0s[0], cws, alpha)
        assert one.shape == (4,) and torch.equal(one, y0[alpha])


def test_fss_crypto_script_runs_unchanged():
    """A script written for fss_crypto, with pyfss imported under its name."""
    script = textwrap.dedent(
        """
        import torch
        import pyfss as fss_crypto

        dpf = fss_crypto.Dpf(16, group="uint", prg="chacha")
        s0s = torch.randint(-2**31, 2**31 - 1, (2, 4), dtype=torch.int32)
        beta = torch.tensor([42, 0, 0, 0], dtype=torch.int32)
        cws = dpf.gen(s0s, 1234, beta)
        y0 = dpf.eval(0, s0s[0], cws, 1234)
        y1 = dpf.eval(1, s0s[1], cws, 1234)
        assert int(y0[0]) + int(y1[0]) & 0xFFFFFFFF == 42
        z0, z1 = dpf.eval(0, s0s[0], cws, 7), dpf.eval(1, s0s[1], cws, 7)
        assert int(z0[0]) + int(z1[0]) & 0xFFFFFFFF == 0
        all0, all1 = dpf.eval_all(0, s0s[0], cws), dpf.eval_all(1, s0s[1], cws)
        assert all0.shape == (2**16, 4)

        dcf = fss_crypto.Dcf(16, group="uint", prg="aes128_mmo", pred="lt")
        cws = dcf.gen(s0s, 1000, beta)
        for x, want in ((999, 42), (1000, 0), (5, 42), (60000, 0)):
            y = int(dcf.eval(0, s0s[0], cws, x)[0]) + int(dcf.eval(1, s0s[1], cws, x)[0])
            assert y & 0xFFFFFFFF == want, (x, y)
        try:
            dpf.eval(2, s0s[0], cws, 0)
        except ValueError as e:
            assert str(e).startswith("party must be 0 or 1")
        else:
            raise AssertionError("party 2 accepted")
        print("ok")
        """
    )
    r = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(__file__),
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


@pytest.mark.parametrize("prg", PRGS)
@pytest.mark.parametrize("group", GROUPS)
def test_batched_equals_looped(prg, group):
    g = torch.Generator().manual_seed(2)
    n, k, m = 12, 5, 3
    for s in schemes(n, group, prg):
        s0s, betas = rand_i32(k, 2, 4, gen=g), rand_beta(k, gen=g)
        alphas = torch.randint(0, 2**n, (k,), dtype=torch.int64, generator=g)
        cws = s.gen(s0s, alphas, betas)
        assert cws.shape == (k, n + 1, 8)
        xs = torch.randint(0, 2**n, (k, m), dtype=torch.int32, generator=g)
        for party in (0, 1):
            seeds = s0s[:, party]  # a non-contiguous view: accepted and copied
            y = s.eval(party, seeds, cws, xs)
            assert y.shape == (k, m, 4)
            one_point = s.eval(party, seeds, cws, xs[:, 0])
            assert one_point.shape == (k, 4)
            full = s.eval_all(party, seeds, cws)
            assert full.shape == (k, 2**n, 4)
            for i in range(k):
                single = s.gen(s0s[i], int(alphas[i]), betas[i])
                assert torch.equal(single, cws[i])
                for j in range(m):
                    assert torch.equal(y[i, j], s.eval(party, seeds[i], cws[i], int(xs[i, j])))
                assert torch.equal(one_point[i], y[i, 0])
                assert torch.equal(full[i], s.eval_all(party, seeds[i], cws[i]))


def test_one_key_many_points_and_shared_x():
    s = pyfss.Dpf(10, "uint32")
    s0s = rand_i32(2, 4)
    cws = s.gen(s0s, 77, pyfss.from_int(9, "uint32"))
    xs = torch.arange(1024, dtype=torch.int32).reshape(32, 32)
    y = s.eval(0, s0s[0], cws, xs) + 0
    assert y.shape == (32, 32, 4)
    assert torch.equal(y.reshape(1024, 4), s.eval_all(0, s0s[0], cws))
    # A Python int x evaluates every key of a batch at the same point.
    batch = s.gen(torch.stack([s0s, s0s]), torch.tensor([77, 78]), pyfss.from_int(9, "uint32"))
    shared = s.eval(1, torch.stack([s0s[1], s0s[1]]), batch, 77)
    assert shared.shape == (2, 4)


def test_wide_inputs_in_words():
    n = 100
    s = pyfss.Dpf(n, "uint64", "aes128_mmo")
    alpha = 2**99 + 12345
    s0s = rand_i32(2, 4)
    cws = s.gen(s0s, alpha, pyfss.from_int(5, "uint64"))
    xs = pyfss.to_words([alpha, alpha + 1, 0])
    y = pyfss.to_int(s.eval(0, s0s[0], cws, xs), "uint64") + pyfss.to_int(
        s.eval(1, s0s[1], cws, xs), "uint64"
    )
    assert y.tolist() == [5, 0, 0]
    cws2 = s.gen(s0s, pyfss.to_words(alpha), pyfss.from_int(5, "uint64"))
    assert torch.equal(cws, cws2)


def test_group_helpers_make_int_shares():
    s = pyfss.Dcf(16, "uint", pred="lt")  # "uint" is uint32 at 16 bits, as in fss_crypto
    assert s.out_group == "uint32"
    k0, k1 = s.keygen(30000, pyfss.from_int(-3, "uint32"))
    x = torch.tensor([0, 29999, 30000, 65535], dtype=torch.int32)
    y = pyfss.to_int(s.eval_key(k0, x), "uint32") + pyfss.to_int(s.eval_key(k1, x), "uint32")
    assert y.dtype == torch.int32 and y.tolist() == [-3, -3, 0, 0]
    s64 = pyfss.Dpf(40, "uint")
    assert s64.out_group == "uint64"
    k0, k1 = s64.keygen(2**39, pyfss.from_int(-(2**40), "uint64"))
    y = pyfss.to_int(s64.eval_key(k0, 2**39), "uint64") + pyfss.to_int(
        s64.eval_key(k1, 2**39), "uint64"
    )
    assert y.dtype == torch.int64 and int(y) == -(2**40)


def test_keygen_uses_fresh_seeds_and_serializes():
    s = pyfss.Dcf(20, "uint64", "aes128_mmo", "gt")
    a0, a1 = s.keygen(torch.tensor([5, 6, 7]), pyfss.from_int(torch.tensor([1, 2, 3]), "uint64"))
    b0, _ = s.keygen(torch.tensor([5, 6, 7]), pyfss.from_int(torch.tensor([1, 2, 3]), "uint64"))
    assert not torch.equal(a0.s0, b0.s0)
    assert a0.party == 0 and a1.party == 1 and a0.batch_shape == (3,)
    blob = a0.to_bytes()
    back = s.load_key(blob)
    assert torch.equal(back.s0, a0.s0) and torch.equal(back.cws, a0.cws) and back.party == 0
    scheme, again = pyfss.load_key(blob)
    assert isinstance(scheme, pyfss.Dcf) and scheme.pred == "gt" and scheme.params() == s.params()
    x = torch.tensor([[4], [6], [9]])
    y = pyfss.to_int(scheme.eval_key(again, x), "uint64") + pyfss.to_int(
        s.eval_key(a1, x), "uint64"
    )
    assert y.tolist() == [[0], [0], [3]]


@pytest.mark.parametrize(
    "other",
    [
        lambda: pyfss.Dcf(21, "uint64", "aes128_mmo", "gt"),
        lambda: pyfss.Dcf(20, "uint64", "aes128_mmo", "lt"),
        lambda: pyfss.Dpf(20, "uint64", "aes128_mmo"),
        lambda: pyfss.Dcf(20, "uint64", "chacha", "gt"),
        lambda: pyfss.Dcf(20, "uint64", "aes128_mmo", "gt", aes_keys=[bytes(16)] * 4),
    ],
)
def test_loading_a_key_of_other_parameters_fails(other):
    k0, _ = pyfss.Dcf(20, "uint64", "aes128_mmo", "gt").keygen(1, pyfss.from_int(1, "uint64"))
    with pytest.raises(ValueError, match="other parameters"):
        other().load_key(k0.to_bytes())


def test_corrupt_keys_fail_clearly():
    k0, _ = pyfss.Dpf(8).keygen(1, torch.zeros(4, dtype=torch.int32))
    blob = k0.to_bytes()
    with pytest.raises(ValueError, match="bad magic"):
        pyfss.load_key(b"nonsense" + blob[8:])
    with pytest.raises(ValueError, match="version"):
        pyfss.load_key(blob[:8] + b"\x09\x00" + blob[10:])
    with pytest.raises(ValueError, match="bytes of key data"):
        pyfss.load_key(blob[:-4])


def test_defaults_are_public_constants():
    assert pyfss.DEFAULT_NONCE == (0x12345678, 0x9ABCDEF0 - 2**32)
    assert pyfss.Dpf(8).nonce == pyfss.DEFAULT_NONCE
    assert pyfss.Dpf(8, prg="aes128_mmo").aes_keys == pyfss.DEFAULT_AES_KEYS[:2]
    assert pyfss.Dcf(8, prg="aes128_mmo").aes_keys == pyfss.DEFAULT_AES_KEYS
    custom = pyfss.Dpf(8, nonce=(1, -2))
    assert custom.nonce == (1, -2)
    s0s = rand_i32(2, 4)
    beta = rand_beta()
    assert not torch.equal(custom.gen(s0s, 3, beta), pyfss.Dpf(8).gen(s0s, 3, beta))


def test_keys_work_across_processes(tmp_path):
    """Gen in one process, eval in two others, each rebuilding the scheme."""
    gen = textwrap.dedent(
        f"""
        import pyfss, torch
        s = pyfss.Dcf(24, "uint32", "chacha", "lt", nonce=(11, -22))
        k0, k1 = s.keygen(torch.tensor([100, 200]), pyfss.from_int(torch.tensor([7, 8]), "uint32"))
        open({str(tmp_path / "k0")!r}, "wb").write(k0.to_bytes())
        open({str(tmp_path / "k1")!r}, "wb").write(k1.to_bytes())
        """
    )
    ev = textwrap.dedent(
        """
        import sys, pyfss, torch
        scheme, key = pyfss.load_key(open(sys.argv[1], "rb").read())
        y = pyfss.to_int(scheme.eval_key(key, torch.tensor([[99, 100], [199, 200]], dtype=torch.int32)), "uint32")
        print(y.flatten().tolist())
        """
    )
    subprocess.run([sys.executable, "-c", gen], check=True, cwd=tmp_path)
    outs = [
        subprocess.run(
            [sys.executable, "-c", ev, str(tmp_path / f"k{p}")],
            check=True,
            cwd=tmp_path,
            capture_output=True,
            text=True,
        ).stdout
        for p in (0, 1)
    ]
    y0, y1 = (eval(o) for o in outs)
    assert [(a + b) & 0xFFFFFFFF for a, b in zip(y0, y1)] == [7, 0, 8, 0]


def test_two_threads_evaluate_at_once():
    s = pyfss.Dpf(16, "uint32", "chacha")
    s0s = rand_i32(64, 2, 4)
    alphas = torch.randint(0, 2**16, (64,))
    cws = s.gen(s0s, alphas, pyfss.from_int(1, "uint32").expand(64, 4))
    want = [s.eval(p, s0s[:, p], cws, alphas) for p in (0, 1)]
    errors = []

    def work(p):
        try:
            for _ in range(200):
                assert torch.equal(s.eval(p, s0s[:, p], cws, alphas), want[p])
        except Exception as e:  # noqa: BLE001 - reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(p,)) for p in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    total = pyfss.to_int(want[0], "uint32") + pyfss.to_int(want[1], "uint32")
    assert total.tolist() == [1] * 64


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads RSS from /proc")
def test_many_small_calls_do_not_leak():
    s = pyfss.Dpf(8, "uint32")
    s0s = rand_i32(2, 4)
    beta = rand_i32(4)
    cws = s.gen(s0s, 3, beta)
    bad_x = torch.tensor([300], dtype=torch.int32)
    for _ in range(2000):  # warm up allocators
        s.eval(0, s0s[0], cws, 3)
    before = rss_bytes()
    for i in range(100_000):
        s.eval(i & 1, s0s[i & 1], cws, i & 255)
        if i % 10 == 0:
            try:
                s.eval(0, s0s[0], cws, bad_x)  # the Go error path, too
            except ValueError:
                pass
    grown = rss_bytes() - before
    assert grown < 8 * 2**20, f"RSS grew by {grown / 2**20:.1f} MiB over 1e5 calls"


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads RSS from /proc")
def test_one_key_entries_do_not_leak():
    # The one-key entries (keygen's, gen's, eval_one and gen_one, refused too, or
    # handing the call back), 300,000 calls each: a leak of a few bytes a call
    # (KeyGen's bare error return once leaked 26 through gopy) shows as MiB.
    from pyfss import _cuda, _schemes

    s = pyfss.Dpf(20, "uint64", "aes128_mmo")
    beta = torch.tensor([1, 2, 3, 4], dtype=torch.int32)
    seeds = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=torch.int32)
    cws = torch.empty(s._cws_tail, dtype=torch.int32)
    h, c, p, b = s._handle, cws.data_ptr(), seeds.data_ptr(), beta.data_ptr()
    p1 = seeds[1].data_ptr()

    def refused():  # an error's message crosses as malloc'd memory the entry frees
        try:
            _schemes._small_keygen(h, c, p, p1, 2**20, 0, b)
        except RuntimeError:
            return
        raise AssertionError("alpha outside the domain was accepted")

    tail, s0 = s._cws_tail, seeds[0].clone()
    good = s.gen(seeds, 12345, beta)
    bad = good.clone()
    bad[3, 5] = 7  # words 4-7 of a DPF row are (0 or 1, 0, 0, 0)
    negated = (-s0)._neg_view()

    def refused_one(call, *args):
        def run():  # the output made, then the core's refusal: both freed
            try:
                call(*args)
            except RuntimeError:
                return
            raise AssertionError("a bad key was accepted")

        return run

    calls = {
        "keygen": lambda: _schemes._small_keygen(h, c, p, p1, 12345, 0, b),
        "gen": lambda: _schemes._small_gen(h, _cuda.HOST, 0, c, p, 0, 0, 12345, 0, b, 1, 0),
        "refused keygen": refused,
        "eval_one": lambda: _schemes._small_eval_one(h, 1, s0, good, 77, tail, 20),
        "gen_one": lambda: _schemes._small_gen_one(h, seeds, beta, 12345, tail, 20),
        "refused eval_one": refused_one(_schemes._small_eval_one, h, 0, s0, bad, 77, tail, 20),
        "refused gen_one": refused_one(_schemes._small_gen_one, h, seeds, beta, 12345, (21, 7), 20),
        "eval_one, not plain": lambda: _schemes._small_eval_one(h, 0, negated, good, 77, tail, 20),
    }
    for name, call in calls.items():
        for _ in range(100_000):  # warm up allocators, Go's heap among them
            call()
        before = rss_bytes()
        for _ in range(300_000):
            call()
        grown = rss_bytes() - before
        assert grown < 2 * 2**20, f"{name}: RSS grew by {grown / 2**20:.1f} MiB over 3e5 calls"


def test_out_tensors_are_written_in_place():
    s = pyfss.Dcf(12, "uint64", "aes128_mmo")
    k = 9
    s0s, betas = rand_i32(k, 2, 4), rand_i32(k, 4)
    alphas = torch.randint(0, 2**12, (k,))
    cws = torch.empty(k, 13, 8, dtype=torch.int32)
    assert s.gen(s0s, alphas, betas, out=cws) is cws
    assert torch.equal(cws, s.gen(s0s, alphas, betas))
    xs = torch.randint(0, 2**12, (k, 3))
    y = torch.empty(k, 3, 4, dtype=torch.int32)
    assert s.eval(1, s0s[:, 1], cws, xs, out=y) is y
    assert torch.equal(y, s.eval(1, s0s[:, 1], cws, xs))
    one = torch.empty(4, dtype=torch.int32)
    assert torch.equal(s.eval(0, s0s[0, 0], cws[0], 5, out=one), s.eval(0, s0s[0, 0], cws[0], 5))
    full = torch.empty(k, 2**12, 4, dtype=torch.int32)
    assert s.eval_all(0, s0s[:, 0], cws, out=full) is full
    assert torch.equal(full, s.eval_all(0, s0s[:, 0], cws))

    with pytest.raises(TypeError, match=r"out must be a \(9, 3, 4\) int32 tensor"):
        s.eval(1, s0s[:, 1], cws, xs, out=torch.empty(9, 3, 4, dtype=torch.int64))
    with pytest.raises(TypeError, match="out must be a"):
        s.eval(1, s0s[:, 1], cws, xs, out=torch.empty(9, 4, 4, dtype=torch.int32))
    with pytest.raises(TypeError, match="out must be contiguous"):
        s.eval(1, s0s[:, 1], cws, xs, out=torch.empty(3, 9, 4, dtype=torch.int32).transpose(0, 1))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        s.eval_all(
            0, s0s[0, 0], cws[0], out=torch.empty(2**12, 4, dtype=torch.int32, device="meta")
        )


def _shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _keygens():
    """(name, keygen) for every scheme: one key the fss_crypto way (an int point, a
    (4,) value), a batch of one and a batch of three."""
    beta, betas = torch.tensor([1, 2, 3, 4], dtype=torch.int32), rand_i32(3, 4)
    for s in (
        pyfss.Dpf(12, "uint64", "aes128_mmo"),
        pyfss.Dcf(12, "uint64", "chacha"),
        pyfss.HalfTreeDpf(12, "uint64"),
        pyfss.Vdpf(12, "uint64", "aes128_mmo"),
    ):
        name = type(s).__name__
        yield f"{name} one", lambda s=s: s.keygen(5, beta)
        yield f"{name} batch 1", lambda s=s: s.keygen(torch.tensor([5]), beta[None])
        yield f"{name} batch 3", lambda s=s: s.keygen(torch.tensor([5, 6, 7]), betas)
    g = pyfss.GrottoDcf(12)
    yield "GrottoDcf one", lambda: g.keygen(5)
    yield "GrottoDcf batch 3", lambda: g.keygen(torch.tensor([5, 6, 7]))
    for cls in (pyfss.Dmpf, pyfss.Vdmpf):
        m = cls(12, 4, "uint64", "aes128_mmo")
        yield f"{cls.__name__} one", lambda m=m: m.keygen(torch.tensor([3]), beta[None])
        yield (
            f"{cls.__name__} four",
            lambda m=m: m.keygen(torch.tensor([3, 9, 1, 7]), rand_i32(4, 4)),
        )


@pytest.mark.parametrize(
    "name,keygen", list(_keygens()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_keygen_parties_do_not_share_memory(name, keygen):
    # torch.save, pickling and torch.multiprocessing send a tensor's whole storage: a
    # party's seeds viewed into one tensor of both parties' would hand the other's
    # seeds (and so the function) to whoever receives this party's key.
    k0, k1 = keygen()
    assert not _shares_memory(k0.s0, k1.s0), name
    buf = io.BytesIO()
    torch.save(k0.s0, buf)
    assert k1.s0.numpy().tobytes() not in buf.getvalue(), name
    assert not torch.equal(k0.s0, k1.s0), name
