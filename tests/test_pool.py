"""The output pool: large CPU outputs in memory pyfss reuses. A reused mapping still
holds an earlier output's bytes, so every test here first poisons it: an element the
core did not write would show."""

import io
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import torch

import pyfss
from pyfss import _pool

I32 = torch.int32
POISON = 0x5A5A5A5A


@pytest.fixture(autouse=True)
def fresh_pool():
    """Each test starts with an empty pool at the default limit and leaves it so."""
    limit = pyfss.output_pool()["max_idle_bytes"]
    pyfss.output_pool(0)
    pyfss.output_pool(256 << 20)
    yield
    pyfss.output_pool(0)
    pyfss.output_pool(limit)


def seeds(k: int, gen: torch.Generator) -> torch.Tensor:
    return torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=I32, generator=gen)


def dpf_case(gen):
    dpf = pyfss.Dpf(20, "uint64")
    k = 1 << 12  # 2.6 MiB of correction words
    s0s = seeds(k, gen)
    alphas = torch.randint(0, 1 << 20, (k,), dtype=I32, generator=gen)
    betas = torch.randint(0, 1 << 30, (k, 4), dtype=I32, generator=gen)
    betas[:, 3] &= ~1  # valid in the bytes group too (Vdpf below)
    cws = dpf.gen(s0s, alphas, betas)
    return dpf, s0s, alphas, betas, cws


def grotto_case(gen):
    g = pyfss.GrottoDcf(23)
    s0s = seeds(1, gen)
    return g, g.gen(s0s, torch.tensor([12345], dtype=torch.int64)), s0s


def make_calls():
    """name -> (a fresh call, the same call into out=, or None where there is no
    out=), each on a fixed key, every output at least the pool's 1 MiB."""
    gen = torch.Generator().manual_seed(5)
    dpf, s0s, alphas, betas, cws = dpf_case(gen)
    xs = torch.randint(0, 1 << 20, (1 << 12, 16), dtype=I32, generator=gen)
    g, gcws, gs0s = grotto_case(gen)
    vdpf = pyfss.Vdpf(16)
    vs0s = seeds(1 << 10, gen)
    vcws = vdpf.gen(
        vs0s, torch.randint(0, 1 << 16, (1 << 10,), dtype=I32, generator=gen), betas[: 1 << 10]
    )
    vxs = torch.randint(0, 1 << 16, (1 << 10, 16), dtype=I32, generator=gen)  # 1 MiB of pieces
    return {
        "gen": (lambda: dpf.gen(s0s, alphas, betas), lambda o: dpf.gen(s0s, alphas, betas, out=o)),
        "eval": (
            lambda: dpf.eval(0, s0s[:, 0], cws, xs),
            lambda o: dpf.eval(0, s0s[:, 0], cws, xs, out=o),
        ),
        "eval_all": (
            lambda: dpf.eval_all(1, s0s[7, 1], cws[7]),
            lambda o: dpf.eval_all(1, s0s[7, 1], cws[7], out=o),
        ),
        "grotto_eval_all": (lambda: g.eval_all(0, gs0s[:, 0], gcws), None),
        "vdpf_eval_pieces": (lambda: vdpf.eval(0, vs0s[:, 0], vcws, vxs)[1], None),
    }


CALLS = ["gen", "eval", "eval_all", "grotto_eval_all", "vdpf_eval_pieces"]


def poisoned(t: torch.Tensor) -> None:
    t.view(torch.uint8).fill_(POISON & 0xFF)


@pytest.mark.parametrize("name", CALLS)
def test_reused_memory_is_overwritten_whole(name):
    fresh, into = make_calls()[name]
    first = fresh()
    assert first.nbytes >= _pool.MIN_BYTES
    expect = first.clone()
    poisoned(first)
    before = pyfss.output_pool()
    del first
    assert pyfss.output_pool()["idle_bytes"] > before["idle_bytes"]
    again = fresh()
    after = pyfss.output_pool()
    assert after["reused"] == before["reused"] + 1, "the poisoned mapping was not reused"
    assert torch.equal(again, expect)
    if into is not None:  # and both equal the same call into memory the pool never had
        assert torch.equal(into(torch.zeros_like(expect)), expect)


def test_results_against_the_definition_on_reused_memory():
    """Not only equal to an earlier call: eval_all of both parties' keys on poisoned,
    reused memory reconstructs the point function."""
    dpf = pyfss.Dpf(20, "uint64")
    s0s = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=I32)
    beta = pyfss.from_int(99, "uint64")
    cws = dpf.gen(s0s, 777, beta)
    for _ in range(3):
        y0, y1 = dpf.eval_all(0, s0s[0], cws), dpf.eval_all(1, s0s[1], cws)
        total = pyfss.to_int(y0, "uint64") + pyfss.to_int(y1, "uint64")
        assert int(total[777]) == 99
        total[777] = 0
        assert not total.any()
        poisoned(y0)
        poisoned(y1)
        del y0, y1
    assert pyfss.output_pool()["reused"] >= 4


def test_storage_holds_the_tensor_alone():
    """The mapping is rounded up to 2 MiB; what lies past the tensor (an earlier
    output's bytes) must not travel with it."""
    dpf, s0s, alphas, betas, _ = dpf_case(torch.Generator().manual_seed(6))
    cws = dpf.gen(s0s, alphas, betas)
    assert cws.nbytes % (2 << 20)  # the mapping has room past the tensor
    assert cws.untyped_storage().nbytes() == cws.nbytes
    buf = io.BytesIO()
    torch.save(cws, buf)
    assert len(buf.getvalue()) < cws.nbytes + 4096
    assert torch.equal(torch.load(io.BytesIO(buf.getvalue())), cws)


def test_pooled_outputs_cannot_grow_but_can_be_shared():
    dpf, s0s, alphas, betas, _ = dpf_case(torch.Generator().manual_seed(7))
    cws = dpf.gen(s0s, alphas, betas)
    expect = cws.clone()
    with pytest.raises(RuntimeError, match="not resizable"):
        # On an alias: torch leaves a tensor whose resize_ failed with the new sizes.
        cws.view(-1).resize_(cws.numel() * 2)
    idle = pyfss.output_pool()["idle_bytes"]
    cws.share_memory_()  # moves the data into shared memory, as torch.multiprocessing does
    assert cws.is_shared() and torch.equal(cws, expect)
    assert pyfss.output_pool()["idle_bytes"] > idle  # the mapping came back


def test_small_and_cuda_outputs_are_torch_allocations():
    mapped = pyfss.output_pool()["mapped"]
    dpf = pyfss.Dpf(20, "uint64")
    s0s = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=I32)
    cws = dpf.gen(s0s, 7, pyfss.from_int(1, "uint64"))
    y = dpf.eval(0, s0s[0], cws, torch.arange(1000, dtype=I32))
    assert cws.untyped_storage().resizable() and y.untyped_storage().resizable()
    assert pyfss.output_pool()["mapped"] == mapped
    assert _pool.empty(torch.empty(0, device="meta"), (1 << 20,), I32).device.type == "meta"


def test_a_refused_mapping_falls_back_to_torch(monkeypatch):
    def refuse(*args):
        raise OSError(12, "Cannot allocate memory")

    fresh, into = make_calls()["eval_all"]
    expect = into(torch.zeros(1 << 20, 4, dtype=I32))
    monkeypatch.setattr(_pool.mmap, "mmap", refuse)
    y = fresh()
    assert y.untyped_storage().resizable()  # torch's own allocation
    assert torch.equal(y, expect)


def test_refused_huge_page_advice_keeps_the_pool(monkeypatch):
    """A kernel without transparent huge pages refuses the advice (EINVAL): the
    output still comes from the pool, on 4 KiB pages."""
    fresh, into = make_calls()["eval_all"]
    expect = into(torch.zeros(1 << 20, 4, dtype=I32))
    monkeypatch.setattr(_pool.mmap, "MADV_HUGEPAGE", 0x7FFF, raising=False)  # no such advice
    y = fresh()
    assert not y.untyped_storage().resizable()  # the pool's
    assert torch.equal(y, expect)


def test_limit_unmaps_what_exceeds_it():
    fresh, _ = make_calls()["eval_all"]
    ys = [fresh() for _ in range(3)]  # 16 MiB each
    del ys
    info = pyfss.output_pool()
    assert info["idle_bytes"] == 48 << 20
    info = pyfss.output_pool(20 << 20)
    assert info["max_idle_bytes"] == 20 << 20 and info["idle_bytes"] == 16 << 20
    ys = [fresh() for _ in range(3)]
    del ys
    info = pyfss.output_pool()
    assert info["idle_bytes"] == 16 << 20 and info["unmapped"] >= 4


def test_sizes_no_call_asks_for_age_out():
    calls = make_calls()
    big, small = calls["eval_all"][0], calls["gen"][0]  # 16 MiB, 2.6 MiB (4 MiB mapped)
    pyfss.output_pool(16 << 20)
    del calls
    y = big()
    del y  # the pool is full with one size
    y = small()
    del y  # the oldest goes to make room
    assert pyfss.output_pool()["idle_bytes"] == 4 << 20
    reused = pyfss.output_pool()["reused"]
    assert small().shape[0] == 1 << 12
    assert pyfss.output_pool()["reused"] == reused + 1


def test_limit_zero_turns_the_pool_off():
    pyfss.output_pool(0)
    fresh, _ = make_calls()["eval_all"]
    mapped = pyfss.output_pool()["mapped"]
    y = fresh()
    assert y.untyped_storage().resizable()  # torch's own allocation
    assert pyfss.output_pool()["mapped"] == mapped


@pytest.mark.parametrize(
    "bad, error",
    [(-1, ValueError), (1.5, TypeError), (True, TypeError), ("1", TypeError)],
)
def test_bad_limits_are_refused(bad, error):
    with pytest.raises(error, match="max_idle_bytes"):
        pyfss.output_pool(bad)
    assert pyfss.output_pool()["max_idle_bytes"] == 256 << 20


def run_python(script: str, tmp_path, **env):
    # From another directory: the repository root holds the unbuilt source tree.
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env={**os.environ, **env},
    )


def test_limit_from_the_environment(tmp_path):
    script = "import pyfss; print(pyfss.output_pool()['max_idle_bytes'])"
    r = run_python(script, tmp_path, PYFSS_OUTPUT_POOL_BYTES="12345")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["12345"]
    for bad in ("-5", "lots"):
        r = run_python(script, tmp_path, PYFSS_OUTPUT_POOL_BYTES=bad)
        assert r.returncode != 0 and "PYFSS_OUTPUT_POOL_BYTES must be a byte count" in r.stderr


def test_outputs_alive_at_exit_leave_quietly(tmp_path):
    script = """
        import torch, pyfss
        dpf = pyfss.Dpf(20)
        s0s = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=torch.int32)
        cws = dpf.gen(s0s, 5, torch.tensor([1, 2, 3, 4], dtype=torch.int32))
        kept = [dpf.eval_all(0, s0s[0], cws) for _ in range(3)]
        del kept[0]
        print(pyfss.output_pool()["reused"] + pyfss.output_pool()["mapped"])
    """
    r = run_python(script, tmp_path)
    assert r.returncode == 0 and r.stdout.split() == ["3"], r.stderr
    assert r.stderr == ""


def test_threads_share_the_pool():
    fresh, _ = make_calls()["eval_all"]
    expect = fresh()
    errors = []

    def work():
        try:
            for _ in range(8):
                y = fresh()
                if not torch.equal(y, expect):
                    errors.append("wrong output")
                poisoned(y)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    info = pyfss.output_pool()
    assert info["idle_bytes"] <= info["max_idle_bytes"] and info["reused"] > 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_can_take_the_lock_another_thread_held():
    """A thread that holds the pool's lock at the fork does not exist in the child;
    the child must still be able to give memory back and ask for it."""
    held, release = threading.Event(), threading.Event()

    def hold():
        with _pool._lock:
            held.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    try:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                y = _pool.empty(torch.empty(0), (1 << 20,), I32)
                del y
                code = 0 if pyfss.output_pool()["idle_bytes"] >= 4 << 20 else 2
            finally:
                os._exit(code)
    finally:
        release.set()
        holder.join()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung on the pool's lock")
