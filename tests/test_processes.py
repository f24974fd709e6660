"""pyfss and the process around it: a forked child is refused instead of hanging, and
Ctrl-C stops a long call within a fraction of a second."""

import ctypes
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time
import types
from typing import ClassVar

import pytest
import torch

import pyfss
from pyfss import _ext

SEEDS = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=torch.int32)

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def wait_exit_code(pid: int, timeout: float) -> int | None:
    """The exit code of child pid, or None (after killing it) if it is still running
    after timeout seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


@needs_fork
def test_forked_child_is_refused_instead_of_hanging():
    s = pyfss.Dpf(8, "uint32")
    cws = s.gen(SEEDS, 3, pyfss.from_int(1, "uint32"))
    xs = torch.tensor([3, 4], dtype=torch.int32)
    batch = SEEDS.expand(2, 2, 4).contiguous()
    betas = pyfss.from_int(1, "uint32").expand(2, 4).contiguous()
    batch_cws, batch_s0 = s.gen(batch, xs, betas), batch[:, 0].contiguous()
    calls = [
        lambda: s.eval(0, SEEDS[0], cws, 3),  # the fast path, straight to the C entry
        lambda: s.eval(0, SEEDS[0], cws, xs),
        lambda: s.gen(SEEDS, 3, pyfss.from_int(1, "uint32")),
        # plain batches, also straight to the C entries
        lambda: s.gen(batch, xs, betas),
        lambda: s.eval(0, batch_s0, batch_cws, xs),
        lambda: s.eval_all(0, SEEDS[0], cws),
        pyfss.backend_info,
        lambda: pyfss.Dpf(8),
    ]
    pid = os.fork()
    if pid == 0:  # the child: exit code 0 if every call was refused as it should be
        code = 0
        try:
            for i, fn in enumerate(calls):
                try:
                    fn()
                    code = 10 + i  # it ran: the refusal is missing
                except RuntimeError as e:
                    if "'spawn' or 'forkserver'" not in str(e):
                        code = 30 + i
                if code:
                    break
        finally:
            os._exit(code)
    code = wait_exit_code(pid, timeout=30)
    assert code is not None, "the forked child hung"
    assert code == 0, f"call {code % 10} in the child: {'ran' if code < 30 else 'other error'}"
    assert s.eval(0, SEEDS[0], cws, 3).shape == (4,)  # the parent is unaffected


@needs_fork
def test_forked_child_exits_normally(tmp_path):
    """A child that exits through sys.exit runs finalizers, which free Go schemes:
    they must not call into Go either."""
    script = textwrap.dedent(
        """
        import os, sys
        import pyfss
        scheme = pyfss.Dcf(8)
        pid = os.fork()
        if pid == 0:
            try:
                pyfss.Dpf(8)
            except RuntimeError:
                sys.exit(3)
            sys.exit(4)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        """
    )
    # From another directory: `python -c` puts the working directory first on
    # sys.path, and the repository root holds the unbuilt source tree.
    r = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["3"]


INTERRUPTED_CALL = """
import signal, sys, time, torch, pyfss
# Python leaves SIGINT ignored when it starts with it ignored, as a shell without job
# control starts background commands (and so this test's parent): take it back.
signal.signal(signal.SIGINT, signal.default_int_handler)
# One key at 2^21 points of 128 bits on the portable walks: seconds of work on any
# CPU (the parent limits Go to one thread), in a few MiB of memory.
s = pyfss.Dcf(128, "bytes", "chacha", impl="portable")
seeds = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=torch.int32)
cws = s.gen(seeds, 2**127, torch.tensor([2, 0, 0, 0], dtype=torch.int32))
xs = torch.randint(-2**31, 2**31, (1 << 21, 4), dtype=torch.int32)
print("started", flush=True)
t = time.perf_counter()
try:
    s.eval(0, seeds[0], cws, xs)
    print("completed", time.perf_counter() - t, flush=True)
except KeyboardInterrupt:
    print("interrupted", time.perf_counter() - t, flush=True)
"""


def test_ctrl_c_stops_a_long_call_quickly(tmp_path):
    env = {**os.environ, "GOMAXPROCS": "1"}
    p = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED_CALL],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    lines = queue.Queue()

    def read():
        for line in p.stdout:
            lines.put((time.monotonic(), line.split()))

    threading.Thread(target=read, daemon=True).start()
    try:
        _, first = lines.get(timeout=120)
        assert first == ["started"]
        time.sleep(1)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        got, line = lines.get(timeout=60)
    finally:
        p.kill()
        p.wait()
    assert line[0] == "interrupted", f"the call {line[0]} after {line[1]} s"
    assert got - sent < 0.5, f"KeyboardInterrupt came {got - sent:.2f} s after SIGINT"


def test_a_call_whose_stop_flag_is_set_raises_keyboard_interrupt():
    s = pyfss.Dpf(12, "uint32")
    cws = s.gen(SEEDS, 3, pyfss.from_int(1, "uint32"))
    out = torch.empty(1 << 12, 4, dtype=torch.int32)
    s0 = SEEDS[0].clone()
    control = _ext.Control(stop=1)
    args = (s._handle, -1, 0, out.data_ptr(), 0, s0.data_ptr(), 1, cws.data_ptr(), 0, 1 << 12, 0)
    with pytest.raises(KeyboardInterrupt):
        _ext.call(pyfss.lib.EvalAll, *args, ctypes.addressof(control))
    control.stop = 0
    _ext.call(pyfss.lib.EvalAll, *args, ctypes.addressof(control))
    assert control.done == 1 << 12, "the core counts the outputs it finished"
    assert torch.equal(out, s.eval_all(0, s0, cws))


class FakeTqdm:
    """Records what pyfss tells a tqdm bar."""

    bars: ClassVar[list] = []

    def __init__(self, total, **kw):
        self.total, self.n, self.updates, self.closed = total, 0, 0, False
        FakeTqdm.bars.append(self)

    def update(self, k):
        self.n += k
        self.updates += 1

    def close(self):
        self.closed = True


@pytest.mark.parametrize("bits", [12, 21])
def test_eval_all_progress_with_tqdm(monkeypatch, bits):
    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeTqdm))
    FakeTqdm.bars.clear()
    s = pyfss.Dpf(bits, "uint32", "aes128_mmo")
    cws = s.gen(SEEDS, 5, pyfss.from_int(1, "uint32"))
    y = s.eval_all(0, SEEDS[0], cws, progress=True)
    (bar,) = FakeTqdm.bars
    assert (bar.total, bar.n, bar.closed) == (1 << bits, 1 << bits, True)
    assert torch.equal(y, s.eval_all(0, SEEDS[0], cws))


def test_eval_all_progress_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `import tqdm` fails, as without it
    s = pyfss.Dcf(12, "uint64")
    cws = s.gen(SEEDS, 5, pyfss.from_int(1, "uint64"))
    y = s.eval_all(1, SEEDS[1], cws, progress=True)
    assert "4096/4096 outputs (100%)" in capsys.readouterr().err
    assert torch.equal(y, s.eval_all(1, SEEDS[1], cws))


@pytest.mark.parametrize("scheme", ["Dmpf", "Vdmpf"])
def test_mpf_eval_all_progress(monkeypatch, capsys, scheme):
    """Dmpf and Vdmpf eval_all show progress too: a batch of two keys, one call each,
    fills one bar with both keys' outputs (in_bits 16: the shares go through the
    per-region queues); without tqdm, a line on stderr."""
    s = getattr(pyfss, scheme)(16, 20, "uint64", "aes128_mmo")
    seeds = torch.arange(2 * s.buckets * 8, dtype=torch.int32).reshape(2, s.buckets, 2, 4)
    alphas = [3271 * i for i in range(20)]  # the same points for both keys
    betas = pyfss.from_int(list(range(1, 41)), "uint64").reshape(2, 20, 4)
    cws = s.gen(seeds, alphas, betas)
    s0 = seeds[..., 1, :].contiguous()
    want = s.eval_all(1, s0, cws)
    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeTqdm))
    FakeTqdm.bars.clear()
    got = s.eval_all(1, s0, cws, progress=True)
    (bar,) = FakeTqdm.bars
    assert (bar.total, bar.n, bar.closed) == (2 << 16, 2 << 16, True)
    monkeypatch.setitem(sys.modules, "tqdm", None)
    plain = s.eval_all(1, s0, cws, progress=True)
    assert "131072/131072 outputs (100%)" in capsys.readouterr().err
    for y in (got, plain):
        if scheme == "Vdmpf":
            assert torch.equal(y[0], want[0]) and torch.equal(y[1], want[1])
        else:
            assert torch.equal(y, want)


def test_long_calls_give_the_same_results_from_any_thread():
    """Above STOPPABLE_WORK, the main thread hands the call to a worker thread; other
    threads call directly."""
    s = pyfss.Dcf(21, "uint32", "aes128_mmo")
    assert 1 << s.in_bits > _ext.STOPPABLE_WORK
    cws = s.gen(SEEDS, 12345, pyfss.from_int(7, "uint32"))
    from_main = s.eval_all(1, SEEDS[1], cws)
    from_other = []
    t = threading.Thread(target=lambda: from_other.append(s.eval_all(1, SEEDS[1], cws)))
    t.start()
    t.join()
    assert torch.equal(from_main, from_other[0])
    total = pyfss.to_int(from_main, "uint32") + pyfss.to_int(s.eval_all(0, SEEDS[0], cws), "uint32")
    assert torch.equal(total, (torch.arange(1 << 21) < 12345).to(torch.int32) * 7)
