"""The CUDA path: needs a GPU and a build with kernels; skipped otherwise (CI has no
GPU). Every DPF/DCF/Half-Tree DPF/Grotto DCF/VDPF/VDMPF vector on the device, CUDA == CPU on
random batches for every op, group, PRG and predicate, results on a non-default
stream, mixing rejected, the same errors as on the CPU, unaligned views and empty
batches."""

import hashlib

import pytest
import test_checks
import torch
from test_checks import message
from test_mpf import cases as mpf_cases
from test_mpf import scheme_for as mpf_scheme
from test_mpf import vector_key
from test_vdpf import cases as vdpf_cases
from test_vdpf import inputs as vdpf_inputs
from test_vdpf import scheme as vdpf_scheme
from test_vectors import cases, clamp, scheme_for
from test_vectors_halftree_grotto import cases as other_cases
from vectors import GROTTO_FILES, HALF_TREE_FILES, prg_kwargs

import pyfss
from pyfss import _validate

usable = torch.cuda.is_available() and pyfss.backend_info()["cuda"]["usable"]
pytestmark = pytest.mark.skipif(
    not usable,
    reason="needs a CUDA GPU and pyfss built with nvcc: " + pyfss.backend_info()["cuda"]["reason"],
)
CUDA = "cuda"


@pytest.mark.parametrize(("f", "case"), list(cases()))
def test_vectors_on_gpu(f, case):
    s = scheme_for(f, case)
    seeds = torch.tensor(case["seeds"], dtype=torch.int32, device=CUDA)
    beta = torch.tensor(case["beta"], dtype=torch.int32, device=CUDA)
    if case["group"] == "bytes" and case["beta"][3] & 1:
        with pytest.raises(ValueError, match="beta: key 0: bit 0 of word 3 is reserved"):
            s.gen(seeds, int(case["alpha"]), beta)
        beta = clamp(beta)
    cws = s.gen(seeds, int(case["alpha"]), beta)
    assert cws.device.type == "cuda"
    assert cws.tolist() == case["cws"]
    for e in case["evals"]:
        for p, want in enumerate((e["y0"], e["y1"])):
            assert s.eval(p, seeds[p], cws, int(e["x"])).tolist() == want
    if "eval_all" in case:
        for p in (0, 1):
            out = s.eval_all(p, seeds[p], cws).cpu()
            assert (
                hashlib.sha256(out.numpy().tobytes()).hexdigest() == case["eval_all"]["sha256"][p]
            )


def schemes():
    for prg in ("chacha", "aes128_mmo"):
        for group in ("bytes", "uint32", "uint64", "uint127"):
            for n in (1, 9, 20, 100):
                yield pyfss.Dpf(n, group, prg)
                yield pyfss.Dcf(n, group, prg, "lt")
                yield pyfss.Dcf(n, group, prg, "gt")
                yield pyfss.HalfTreeDpf(n, group, prg)


@pytest.mark.parametrize("s", list(schemes()), ids=repr)
def test_gpu_equals_cpu(s):
    g = torch.Generator().manual_seed(s.in_bits)
    k, m = 300, 7
    seeds = torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=torch.int32, generator=g)
    betas = torch.randint(-(2**31), 2**31, (k, 4), dtype=torch.int32, generator=g)
    betas[:, 3] &= ~1  # reserved in the bytes group
    if s.in_bits <= 32:
        alphas = torch.randint(0, 2**s.in_bits, (k,), generator=g)
        xs = torch.randint(0, 2**s.in_bits, (k, m), generator=g)
    else:
        alphas = pyfss.to_words(
            [int(torch.randint(0, 2**62, (), generator=g)) << (s.in_bits - 62) for _ in range(k)]
        )
        xs = torch.randint(-(2**31), 2**31, (k, m, 4), dtype=torch.int32, generator=g)
        xs[..., 3] &= (1 << (s.in_bits - 96)) - 1 if s.in_bits > 96 else 0
    cpu = s.gen(seeds, alphas, betas)
    gpu = s.gen(seeds.to(CUDA), alphas.to(CUDA), betas.to(CUDA))
    assert torch.equal(gpu.cpu(), cpu)
    for p in (0, 1):
        s0 = seeds[:, p].contiguous()
        assert torch.equal(s.eval(p, s0.to(CUDA), gpu, xs.to(CUDA)).cpu(), s.eval(p, s0, cpu, xs))
        assert torch.equal(s.eval(p, s0[0].to(CUDA), gpu[0], 1).cpu(), s.eval(p, s0[0], cpu[0], 1))
        if s.in_bits <= 12:
            assert torch.equal(s.eval_all(p, s0.to(CUDA), gpu).cpu(), s.eval_all(p, s0, cpu))
            assert torch.equal(
                s.eval_all(p, s0[0].to(CUDA), gpu[0]).cpu(), s.eval_all(p, s0[0], cpu[0])
            )


def test_non_default_stream():
    s = pyfss.Dpf(20, "uint32", "aes128_mmo")
    k = 1 << 16
    seeds = torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=torch.int32)
    alphas = torch.randint(0, 2**20, (k,))
    cws = s.gen(seeds, alphas, pyfss.from_int(1, "uint32").expand(k, 4))
    want = s.eval(0, seeds[:, 0].contiguous(), cws, alphas)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        d_seeds, d_cws, d_alphas = (
            t.to(CUDA, non_blocking=True) for t in (seeds[:, 0].contiguous(), cws, alphas)
        )
        got = s.eval(0, d_seeds, d_cws, d_alphas)
        full = s.eval_all(1, d_seeds[0], d_cws[0])
    stream.synchronize()
    assert torch.equal(got.cpu(), want)
    assert torch.equal(full.cpu(), s.eval_all(1, seeds[0, 0].contiguous(), cws[0]))


def test_mixing_devices_is_rejected():
    s = pyfss.Dcf(8)
    seeds = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=torch.int32)
    cws = s.gen(seeds, 3, torch.ones(4, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        s.eval(0, seeds[0].to(CUDA), cws, 1)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        s.gen(seeds.to(CUDA), 3, torch.ones(4, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        s.eval(0, seeds[0].to(CUDA), cws.to(CUDA), torch.tensor([1], dtype=torch.int32))


@pytest.mark.parametrize(
    ("name", "n", "group", "mutate"),
    test_checks.GEN_CASES,
    ids=[c[0] for c in test_checks.GEN_CASES],
)
def test_gen_refuses_what_the_cpu_refuses(name, n, group, mutate):
    s = pyfss.Dcf(n, group)
    s0s, alphas, betas = mutate(*test_checks.random_gen_args(n, seed=n))
    for alpha in test_checks.input_forms(n, alphas, (test_checks.K,)):
        want = message(s.gen, s0s, alpha, betas)
        assert message(s.gen, s0s.to(CUDA), alpha.to(CUDA), betas.to(CUDA)) == want


@pytest.mark.parametrize(
    ("cls", "name", "mutate"),
    test_checks.CWS_CASES,
    ids=[f"{c[0].__name__}-{c[1]}" for c in test_checks.CWS_CASES],
)
def test_eval_refuses_what_the_cpu_refuses(cls, name, mutate):
    n = 16
    s, s0, cws = test_checks.make_keys(cls, n, "uint64")
    bad = mutate(cws, n)
    xs = torch.randint(0, 2**n, (test_checks.K, 3))
    want = message(s.eval, 0, s0, bad, xs)
    assert message(s.eval, 0, s0.to(CUDA), bad.to(CUDA), xs.to(CUDA)) == want
    want = message(s.eval_all, 1, s0, bad)
    assert message(s.eval_all, 1, s0.to(CUDA), bad.to(CUDA)) == want
    xs[2, 1] = 2**n
    want = message(s.eval, 0, s0, cws, xs)
    assert message(s.eval, 0, s0.to(CUDA), cws.to(CUDA), xs.to(CUDA)) == want


def off16(t: torch.Tensor) -> torch.Tensor:
    """A contiguous CUDA copy of int32 t whose address is 4 bytes past a 16-byte boundary."""
    buf = torch.zeros(t.numel() + 4, dtype=torch.int32, device=CUDA)
    start = (4 - buf.data_ptr() % 16 // 4) % 4 + 1
    view = buf[start : start + t.numel()].view(t.shape)
    view.copy_(t)
    assert view.data_ptr() % 16 == 4
    return view


def test_unaligned_views_and_out():
    s = pyfss.Dpf(10, "uint64", "aes128_mmo")
    k = 5
    seeds = torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=torch.int32)
    betas = pyfss.from_int(torch.arange(k), "uint64")
    alphas = torch.randint(0, 2**10, (k,), dtype=torch.int32)
    cws = s.gen(seeds, alphas, betas)
    s0 = seeds[:, 0].contiguous()
    xs = torch.randint(0, 2**10, (k, 3), dtype=torch.int32)
    assert torch.equal(
        s.gen(off16(seeds.to(CUDA)), off16(alphas.to(CUDA)), off16(betas.to(CUDA))).cpu(), cws
    )
    d_cws = off16(cws.to(CUDA))
    y = s.eval(0, off16(s0.to(CUDA)), d_cws, off16(xs.to(CUDA)))
    assert torch.equal(y.cpu(), s.eval(0, s0, cws, xs))
    out = off16(torch.zeros(k, 1 << 10, 4, dtype=torch.int32, device=CUDA))
    assert s.eval_all(1, s0.to(CUDA), d_cws, out=out) is out
    assert torch.equal(out.cpu(), s.eval_all(1, s0, cws))


def test_empty_batches():
    s = pyfss.Dcf(12, "uint32")
    z = torch.zeros(0, 2, 4, dtype=torch.int32, device=CUDA)
    cws = s.gen(
        z,
        torch.zeros(0, dtype=torch.int32, device=CUDA),
        torch.zeros(0, 4, dtype=torch.int32, device=CUDA),
    )
    assert cws.shape == (0, 13, 8) and cws.is_cuda
    assert s.eval(0, z[:, 0], cws, 3).shape == (0, 4)
    assert s.eval_all(0, z[:, 0], cws).shape == (0, 1 << 12, 4)


def test_memory_cached_by_torch_stays_available():
    """A freed tensor's block stays in torch's cache, used to the driver: the memory
    check of eval_all counts it, or it would refuse after large earlier calls."""
    dev = torch.device(CUDA)
    size = 1 << 30
    if torch.cuda.mem_get_info(dev)[0] < 2 * size:
        pytest.skip("needs 2 GiB free on the GPU")
    x = torch.empty(size, dtype=torch.uint8, device=dev)
    held = _validate.available_memory(dev)
    del x
    # Other processes on the GPU may move the driver's figure meanwhile.
    assert _validate.available_memory(dev) - held > size - (256 << 20)


@pytest.mark.parametrize(("f", "case"), list(other_cases(HALF_TREE_FILES)))
def test_half_tree_vectors_on_gpu(f, case):
    n = case["in_bits"]
    s = pyfss.HalfTreeDpf(
        n, case["group"], f["prg"]["name"], hash_key=f["hash_key"], **prg_kwargs(f)
    )
    seeds = torch.tensor(case["seeds"], dtype=torch.int32, device=CUDA)
    beta = clamp(torch.tensor(case["beta"], dtype=torch.int32, device=CUDA))
    cws = s.gen(seeds, int(case["alpha"]), beta)
    assert cws.device.type == CUDA
    rows, ocw = s.to_reference(cws)
    assert (rows.tolist(), ocw.tolist()) == (case["cws"], case["ocw"])
    points = [int(e["x"]) for e in case["evals"]]
    xs = torch.tensor(points) if n <= 63 else pyfss.to_words(points)
    for p, key in ((0, "y0"), (1, "y1")):
        assert s.eval(p, seeds[p], cws, xs.to(CUDA)).tolist() == [e[key] for e in case["evals"]]
        if "eval_all" in case:
            out = s.eval_all(p, seeds[p], cws).cpu()
            assert (
                hashlib.sha256(out.numpy().tobytes()).hexdigest() == case["eval_all"]["sha256"][p]
            )


@pytest.mark.parametrize(("f", "case"), list(other_cases(GROTTO_FILES)))
def test_grotto_vectors_on_gpu(f, case):
    n = case["in_bits"]
    s = pyfss.GrottoDcf(n, f["prg"]["name"], **prg_kwargs(f))
    seeds = torch.tensor(case["seeds"], dtype=torch.int32, device=CUDA)
    cws = s.gen(seeds, int(case["alpha"]))
    assert cws.device.type == CUDA and cws.tolist() == case["cws"]
    xs = torch.tensor([int(e["x"]) for e in case["evals"]], device=CUDA)
    his = torch.arange(1 << n, device=CUDA)
    shares = []
    for p, key in ((0, "y0"), (1, "y1")):
        pre = s.preprocess(p, seeds[p], cws)
        assert pre.device.type == CUDA
        assert s.eval(pre, xs).tolist() == [e[key] for e in case["evals"]]
        assert s.eval(pre, (1 << n) - 1).item() is case["parity_root"][p]
        out = s.eval_all(p, seeds[p], cws)
        assert out.shape == (1 << n,) and out.dtype == torch.bool
        assert (
            hashlib.sha256(out.cpu().numpy().tobytes()).hexdigest() == case["eval_all"]["sha256"][p]
        )
        shares.append(s.eval_interval(pre, his // 3, his))
    alpha = int(case["alpha"])
    want = (his // 3 <= alpha) & (alpha <= his)
    assert torch.equal(shares[0] ^ shares[1], want)


@pytest.mark.parametrize("n", [1, 5, 6, 7, 8, 13, 16, 21])
@pytest.mark.parametrize("prg", ["chacha", "aes128_mmo"])
def test_grotto_gpu_equals_cpu(n, prg):
    s = pyfss.GrottoDcf(n, prg)
    g = torch.Generator().manual_seed(n)
    k, m = 50, 7
    seeds = torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=torch.int32, generator=g)
    alphas = torch.randint(0, 2**n, (k,), generator=g)
    xs = torch.randint(0, 2**n, (k, m), generator=g)
    los = torch.randint(0, 2**n, (k, m), generator=g)
    his = torch.maximum(los, xs)
    cpu = s.gen(seeds, alphas)
    gpu = s.gen(seeds.to(CUDA), alphas.to(CUDA))
    assert torch.equal(gpu.cpu(), cpu)
    for p in (0, 1):
        s0 = seeds[:, p].contiguous()
        pre = s.preprocess(p, s0, cpu)
        d_pre = s.preprocess(p, s0.to(CUDA), gpu)
        assert torch.equal(d_pre.cpu(), pre)
        assert torch.equal(s.preprocess(p, s0[3].to(CUDA), gpu[3]).cpu(), pre[3])
        assert torch.equal(s.eval(d_pre, xs.to(CUDA)).cpu(), s.eval(pre, xs))
        assert torch.equal(s.eval(d_pre, 1).cpu(), s.eval(pre, 1))
        d_int = s.eval_interval(d_pre, los.to(CUDA).int(), his.to(CUDA))
        assert torch.equal(d_int.cpu(), s.eval_interval(pre, los, his))
        assert torch.equal(
            s.eval_interval(d_pre, 0, his.to(CUDA)).cpu(), s.eval_interval(pre, 0, his)
        )
        if n <= 16:
            assert torch.equal(s.eval_all(p, s0.to(CUDA), gpu).cpu(), s.eval_all(p, s0, cpu))


def test_grotto_refuses_what_the_cpu_refuses():
    n = 12
    s = pyfss.GrottoDcf(n)
    seeds = torch.randint(-(2**31), 2**31, (4, 2, 4), dtype=torch.int32)
    same = seeds.clone()
    same[2, 1] = same[2, 0]
    alphas = torch.tensor([1, 2, 3, 2**n])
    for bad_seeds, bad_alphas in ((same, alphas % 2**n), (seeds, alphas)):
        want = message(s.gen, bad_seeds, bad_alphas)
        assert message(s.gen, bad_seeds.to(CUDA), bad_alphas.to(CUDA)) == want
    cws = s.gen(seeds, alphas % 2**n)
    s0 = seeds[:, 0].contiguous()
    bad = cws.clone()
    bad[1, 3, 5] = 7  # words 4-7 of a DPF row are (0 or 1, 0, 0, 0)
    want = message(s.preprocess, 0, s0, bad)
    assert message(s.preprocess, 0, s0.to(CUDA), bad.to(CUDA)) == want
    pre = s.preprocess(0, s0, cws)
    xs = torch.tensor([[1, 2], [3, 4], [5, 2**n], [7, 8]])
    assert message(s.eval, pre.to(CUDA), xs.to(CUDA)) == message(s.eval, pre, xs)
    los = torch.tensor([[1, 2], [3, 4], [5, 9], [7, 8]])
    want = message(s.eval_interval, pre, los, los - 1)
    assert message(s.eval_interval, pre.to(CUDA), los.to(CUDA), (los - 1).to(CUDA)) == want


def test_half_tree_eval_refuses_what_the_cpu_refuses():
    n = 16
    s = pyfss.HalfTreeDpf(n, "uint32")
    seeds = torch.randint(-(2**31), 2**31, (4, 2, 4), dtype=torch.int32)
    cws = s.gen(seeds, torch.tensor([1, 2, 3, 4]), pyfss.from_int(torch.arange(4), "uint32"))
    s0 = seeds[:, 0].contiguous()
    for at in ((2, 8, 1), (1, 8, 5)):  # a word of the output correction word, the padding
        bad = cws.clone()
        bad[at] = 4
        want = message(s.eval, 0, s0, bad, 3)
        assert message(s.eval, 0, s0.to(CUDA), bad.to(CUDA), 3) == want
        assert message(s.eval_all, 1, s0.to(CUDA), bad.to(CUDA)) == message(s.eval_all, 1, s0, bad)


def test_grotto_empty_batches_and_unaligned_keys():
    s = pyfss.GrottoDcf(10)
    z = torch.zeros(0, 2, 4, dtype=torch.int32, device=CUDA)
    cws = s.gen(z, torch.zeros(0, dtype=torch.int32, device=CUDA))
    assert cws.shape == (0, 11, 8) and cws.device.type == CUDA
    assert s.preprocess(0, z[:, 0], cws).shape == (0, s.parity_words)
    assert s.eval_all(0, z[:, 0], cws).shape == (0, 1 << 10)
    seeds = torch.randint(-(2**31), 2**31, (3, 2, 4), dtype=torch.int32)
    cpu = s.gen(seeds, torch.tensor([5, 6, 7]))
    s0 = seeds[:, 1].contiguous()
    pre = s.preprocess(1, off16(s0.to(CUDA)), off16(cpu.to(CUDA)))
    assert torch.equal(pre.cpu(), s.preprocess(1, s0, cpu))


def test_grotto_keygen_on_gpu():
    s = pyfss.GrottoDcf(9)
    alphas = torch.tensor([0, 5, 511], device=CUDA)
    keys = s.keygen(alphas)
    assert all(k.s0.device.type == CUDA and k.cws.device.type == CUDA for k in keys)
    shares = [s.eval_all(k.party, k.s0, k.cws) for k in keys]
    x = torch.arange(512, device=CUDA)
    assert torch.equal(shares[0] ^ shares[1], x >= alphas[:, None])


@pytest.mark.parametrize(("f", "case"), list(vdpf_cases()))
def test_vdpf_vectors_on_gpu(f, case):
    """Gen's keys, the shares and proof pieces on the device; the proofs folded (on
    the CPU) from the device's pieces."""
    s = vdpf_scheme(f, case)
    seeds = torch.tensor(case["seeds"], dtype=torch.int32, device=CUDA)
    beta = torch.tensor(case["beta"], dtype=torch.int32, device=CUDA)
    if case["group"] == "bytes" and case["beta"][3] & 1:
        beta = clamp(beta)
    cws = s.gen(seeds, int(case["alpha"]), beta)
    assert cws.is_cuda
    cs = case["cs"]
    assert cws.tolist() == [*case["cws"], [*case["ocw"], 0, 0, 0, 0], cs[0] + cs[1], cs[2] + cs[3]]
    xs = vdpf_inputs([int(e["x"]) for e in case["evals"]], case["in_bits"]).to(CUDA)
    for party in (0, 1):
        y, pieces = s.eval(party, seeds[party], cws, xs)
        assert y.is_cuda and pieces.is_cuda
        assert y.tolist() == [e[f"y{party}"] for e in case["evals"]]
        assert pieces.tolist() == [e[f"pi_tilde{party}"] for e in case["evals"]]
        pi = s.prove(pieces, cws)
        assert pi.is_cuda and pi.tolist() == case["prove"][f"pi{party}"]
    tm = case["tampered"]
    bad = cws.clone()
    bad[tm["cw_index"], tm["word"]] ^= tm["xor"]
    _, pieces = s.eval(tm["party"], seeds[tm["party"]], bad, xs)
    assert s.prove(pieces, bad).tolist() == tm["pi1"]


def vdpf_schemes():
    for prg in ("chacha", "aes128_mmo"):
        for group in ("bytes", "uint32", "uint64", "uint127"):
            for hash in ("sha256", "blake3"):
                for n in (1, 20, 100):
                    yield pyfss.Vdpf(n, group, prg, hash)


@pytest.mark.parametrize("s", list(vdpf_schemes()), ids=lambda s: f"{s!r}")
def test_vdpf_gpu_equals_cpu(s):
    g = torch.Generator().manual_seed(s.in_bits)
    k, m = 200, 5
    seeds = torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=torch.int32, generator=g)
    betas = torch.randint(-(2**31), 2**31, (k, 4), dtype=torch.int32, generator=g)
    betas[:, 3] &= ~1
    if s.in_bits <= 32:
        alphas = torch.randint(0, 2**s.in_bits, (k,), generator=g)
        xs = torch.randint(0, 2**s.in_bits, (k, m), generator=g)
        xs[:, 0] = alphas  # every key's proof piece at its alpha too
    else:
        alphas = pyfss.to_words(
            [int(torch.randint(0, 2**62, (), generator=g)) << (s.in_bits - 62) for _ in range(k)]
        )
        xs = torch.randint(-(2**31), 2**31, (k, m, 4), dtype=torch.int32, generator=g)
        xs[..., 3] &= (1 << (s.in_bits - 96)) - 1 if s.in_bits > 96 else 0
        xs[:, 0] = alphas
    cpu = s.gen(seeds, alphas, betas)
    gpu = s.gen(seeds.to(CUDA), alphas.to(CUDA), betas.to(CUDA))
    assert torch.equal(gpu.cpu(), cpu)
    proofs = []
    for p in (0, 1):
        s0 = seeds[:, p].contiguous()
        y, pieces = s.eval(p, s0.to(CUDA), gpu, xs.to(CUDA))
        want_y, want_pieces = s.eval(p, s0, cpu, xs)
        assert torch.equal(y.cpu(), want_y) and torch.equal(pieces.cpu(), want_pieces)
        y1, piece1 = s.eval(p, s0[0].to(CUDA), gpu[0], xs[0, :1].to(CUDA))
        assert torch.equal(y1.cpu(), want_y[0, :1]) and torch.equal(
            piece1.cpu(), want_pieces[0, :1]
        )
        proofs.append(s.prove(pieces, gpu))
    assert s.verify(*proofs).all()


def test_vdpf_refuses_what_the_cpu_refuses():
    s = pyfss.Vdpf(16, "uint64", "aes128_mmo", "blake3")
    k0, _ = s.keygen(torch.arange(3), pyfss.from_int(1, "uint64").expand(3, 4))
    xs = torch.randint(0, 2**16, (3, 2))
    bad = k0.cws.clone()
    bad[1, 4, 5] = 1  # a DPF row's unused word
    want = message(s.eval, 0, k0.s0, bad, xs)
    assert message(s.eval, 0, k0.s0.to(CUDA), bad.to(CUDA), xs.to(CUDA)) == want
    bad = k0.cws.clone()
    bad[2, 16, 3] |= 1  # the output correction word's control bit
    want = message(s.eval, 0, k0.s0, bad, xs)
    assert message(s.eval, 0, k0.s0.to(CUDA), bad.to(CUDA), xs.to(CUDA)) == want
    xs[2, 1] = 2**16
    want = message(s.eval, 0, k0.s0, k0.cws, xs)
    assert message(s.eval, 0, k0.s0.to(CUDA), k0.cws.to(CUDA), xs.to(CUDA)) == want
    with pytest.raises(ValueError, match="eval_all with proofs runs on the CPU"):
        s.eval_all(0, k0.s0[0].to(CUDA), k0.cws[0].to(CUDA))
    # Empty batches, and a non-contiguous key batch.
    z = torch.zeros(0, 2, 4, dtype=torch.int32, device=CUDA)
    cws = s.gen(z, torch.zeros(0, dtype=torch.int32, device=CUDA), z[:, 0])
    y, pieces = s.eval(0, z[:, 0], cws, 3)
    assert y.shape == (0, 4) and pieces.shape == (0, 4, 4) and pieces.is_cuda
    wide = torch.zeros(3, 19, 16, dtype=torch.int32, device=CUDA)
    wide[..., ::2] = k0.cws.to(CUDA)
    y, pieces = s.eval(0, k0.s0.to(CUDA), wide[..., ::2], xs[:, :1].to(CUDA))
    want_y, want_pieces = s.eval(0, k0.s0, k0.cws, xs[:, :1])
    assert torch.equal(y.cpu(), want_y) and torch.equal(pieces.cpu(), want_pieces)


@pytest.mark.parametrize("kind", ["dmpf", "vdmpf"])
@pytest.mark.parametrize(("f", "case"), mpf_cases())
def test_mpf_vectors_on_gpu(kind, f, case):
    """The vectors' keys evaluated on the device: the shares, and Vdmpf's proofs
    folded (on the CPU) from the device's buckets and pieces."""
    s = mpf_scheme(kind, f, case)
    seeds = torch.tensor(case["s0s"], dtype=torch.int32, device=CUDA)
    cws = vector_key(kind, case).to(CUDA)
    xs = torch.tensor([int(x) for x in case["xs"]], dtype=torch.int64, device=CUDA)
    for party, want in ((0, case["ys0"]), (1, case["ys1"])):
        out = s.eval(party, seeds[:, party], cws, xs)
        if kind == "vdmpf":
            out, pi = out
            assert pi.is_cuda and pi.tolist() == case["pi"][party]
        assert out.is_cuda and out.tolist() == want


def mpf_schemes():
    for prg in ("chacha", "aes128_mmo"):
        for group in ("bytes", "uint32", "uint64", "uint127"):
            for n in (1, 9, 20, 62):
                yield pyfss.Dmpf(n, 6, group, prg)
                for hash in ("sha256", "blake3"):
                    yield pyfss.Vdmpf(n, 6, group, prg, hash=hash)


@pytest.mark.parametrize("s", list(mpf_schemes()), ids=repr)
def test_mpf_gpu_equals_cpu(s):
    g = torch.Generator().manual_seed(s.in_bits)
    top = 2 ** min(s.in_bits, 62)
    alphas = torch.randint(0, top, (6,), generator=g).unique().tolist()
    betas = torch.randint(1, 100, (len(alphas), 4), dtype=torch.int32, generator=g)
    betas[:, 3] &= ~1  # reserved in the bytes group
    k0, k1 = s.keygen(alphas, betas)
    xs = torch.randint(0, top, (50, 3), generator=g)
    xs.view(-1)[: len(alphas)] = torch.tensor(alphas)
    for key in (k0, k1):
        for x in (xs, xs[:, 1], int(xs[2, 2]), xs[:0]):
            want = s.eval_key(key, x)
            on = x.to(CUDA) if isinstance(x, torch.Tensor) else x
            got = s.eval(key.party, key.s0.to(CUDA), key.cws.to(CUDA), on)
            shape = (*x.shape, 4) if isinstance(x, torch.Tensor) else (4,)
            out = torch.full(shape, -1, dtype=torch.int32, device=CUDA)
            into = s.eval(key.party, key.s0.to(CUDA), key.cws.to(CUDA), on, out=out)
            if isinstance(s, pyfss.Vdmpf):
                (want, want_pi), (got, pi), (into, _) = want, got, into
                assert torch.equal(pi.cpu(), want_pi)
            assert torch.equal(got.cpu(), want)
            assert into is out and torch.equal(out.cpu(), want)


def test_mpf_refuses_what_the_cpu_refuses():
    s = pyfss.Vdmpf(10, 5, "uint64", "aes128_mmo")
    k0, _ = s.keygen([1, 2], torch.ones(2, 4, dtype=torch.int32))
    s0, xs = k0.s0.to(CUDA), torch.arange(7, device=CUDA)
    for row, word, value in ((0, 4, 0), (0, 5, 1), (3, 6, 1), (1 + s.bucket_bits, 3, 1)):
        bad = k0.cws.clone()
        bad[row, word] = value
        want = message(s.eval, 0, k0.s0, bad, xs.cpu())
        assert message(s.eval, 0, s0, bad.to(CUDA), xs) == want
    far = xs.clone()
    far[3] = 1 << 10
    assert message(s.eval, 0, s0, k0.cws.to(CUDA), far) == message(
        s.eval, 0, k0.s0, k0.cws, far.cpu()
    )
    with pytest.raises(ValueError, match="eval_all runs on the CPU"):
        s.eval_all(0, s0, k0.cws.to(CUDA))
    with pytest.raises(ValueError, match="gen runs on the CPU"):
        on = {"dtype": torch.int32, "device": CUDA}
        s.gen(
            torch.zeros(s.buckets, 2, 4, **on),
            [1],
            torch.ones(1, 4, **on),
            sigma=torch.zeros(4, **on),
        )
    with pytest.raises(RuntimeError, match="same device"):
        s.eval(0, s0, k0.cws, xs)
    wide = pyfss.Dmpf(63, 3, "uint32")
    w0, _ = wide.keygen([5], torch.ones(1, 4, dtype=torch.int32))
    with pytest.raises(ValueError, match="in_bits <= 62"):
        wide.eval(0, w0.s0.to(CUDA), w0.cws.to(CUDA), torch.arange(3, device=CUDA))
