"""The CUDA path: needs a GPU and a build with kernels; skipped otherwise (CI has no
GPU). Every DPF/DCF vector on the device, CUDA == CPU on random batches for every
op, group, PRG and predicate, results on a non-default stream, mixing rejected."""

import hashlib

import pytest
import torch
from test_vectors import cases, scheme_for

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
    cws = s.gen(
        seeds, int(case["alpha"]), torch.tensor(case["beta"], dtype=torch.int32, device=CUDA)
    )
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
    seeds = torch.zeros(2, 4, dtype=torch.int32)
    cws = s.gen(seeds, 3, torch.ones(4, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        s.eval(0, seeds[0].to(CUDA), cws, 1)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        s.gen(seeds.to(CUDA), 3, torch.ones(4, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        s.eval(0, seeds[0].to(CUDA), cws.to(CUDA), torch.tensor([1], dtype=torch.int32))
