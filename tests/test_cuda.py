"""The CUDA path: needs a GPU and a build with kernels; skipped otherwise (CI has no
GPU). Every DPF/DCF vector on the device, CUDA == CPU on random batches for every
op, group, PRG and predicate, results on a non-default stream, mixing rejected, the
same errors as on the CPU, unaligned views and empty batches."""

import hashlib

import pytest
import test_checks
import torch
from test_checks import message
from test_vectors import cases, clamp, scheme_for

import pyfss

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
