"""Child processes of test_interrupts.py: SIGINT at random instants across calls.

    python interrupt_child.py protocol TRIES
    python interrupt_child.py call_stoppable TRIES
        a fake foreign call that keeps "writing" for a while after its stop flag is
        set, through pyfss/_stoppable.py alone (loaded from its file, no compiled
        core, under whichever CPython runs this) or through pyfss's call_stoppable.
    python interrupt_child.py OP IMPL TRIES
        a long pyfss call (OPS) on the CPU walks IMPL ("" for the default).

Each try sends this process SIGINT at a random instant of the call (or just after
it). A try that raises KeyboardInterrupt checks at once that the call had stopped,
and allocates a canary of the output's size, which must stay as written while the
call's worker threads would still be running. The last line printed is a JSON
summary; any broken promise exits non-zero with a message on stderr.
"""

from __future__ import annotations

import _thread
import importlib.util
import json
import os
import random
import signal
import sys
import time
from pathlib import Path

# The SIGINTs asked for so far, and those the handler has turned into
# KeyboardInterrupt: every try waits until the two agree, so that no signal of one
# try lands in the next.
asked = 0
handled = 0
sent_at = [0.0]


# Whether a SIGINT raises KeyboardInterrupt: only while a try runs its call, so that
# one landing in the bookkeeping after the call is only counted.
armed = False


def on_sigint(signum, frame):
    global handled
    handled += 1
    if armed:
        raise KeyboardInterrupt


def fail(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
    os._exit(3)


def settle() -> None:
    """Waits for every SIGINT asked for to be handled."""
    deadline = time.monotonic() + 5
    while handled < asked:
        time.sleep(0.001)
        if time.monotonic() > deadline:
            fail("a SIGINT was never handled")


def kill_after(delay: float) -> None:
    global asked
    asked += 1

    def send():
        time.sleep(delay)
        sent_at[0] = time.monotonic()
        os.kill(os.getpid(), signal.SIGINT)

    _thread.start_new_thread(send, ())  # Thread.start would wait, interruptibly


def tries(n: int, call, took: float, check_stopped, canary_bytes: int) -> dict:
    """n tries of call(), each sent SIGINT after a random part of took seconds (up to
    1.2 of it, so that some land after the call)."""
    interrupted = completed = 0
    latency = 0.0  # the longest from a SIGINT to its KeyboardInterrupt
    global armed
    for _ in range(n):
        armed = True
        kill_after(random.uniform(0, 1.2 * took))
        try:
            call()
            armed = False
            completed += 1
        except KeyboardInterrupt:
            armed = False
            latency = max(latency, time.monotonic() - sent_at[0])
            interrupted += 1
            check_stopped()
            canary = bytearray(b"\x5a" * canary_bytes)
            time.sleep(0.02)  # the time a worker that ran on would take to write into it
            if canary.count(0x5A) != canary_bytes:
                fail("the canary allocated after the interrupt was written to")
        settle()
    return {"interrupted": interrupted, "completed": completed, "latency": latency}


# -- the waiting alone, over a fake foreign call ----------------------------------


def fake_calls(n: int, through: str) -> dict:
    """Tries of a fake foreign call that runs about 20 ms, polling its stop flag, and
    goes on "writing" for 5 ms after it has seen the flag set: through _stoppable
    alone (loaded from its file, no compiled core needed), or through
    pyfss._ext.call_stoppable, the way every long pyfss call goes."""
    running = [False]

    def foreign_call(stopped) -> int:
        running[0] = True
        try:
            for _ in range(40):
                if stopped():
                    time.sleep(0.005)
                    raise KeyboardInterrupt
                time.sleep(0.0005)
            return 1
        finally:
            running[0] = False

    if through == "protocol":
        path = Path(__file__).resolve().parent.parent / "pyfss" / "_stoppable.py"
        spec = importlib.util.spec_from_file_location("_stoppable", path)
        assert spec is not None and spec.loader is not None
        stoppable = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(stoppable)
        flag = [False]

        def call():
            flag[0] = False
            stoppable.run_stoppable(
                lambda: foreign_call(lambda: flag[0]), lambda: flag.__setitem__(0, True), 0.05
            )
    else:
        from pyfss import _ext

        def fake_go(address: int) -> int:
            control = _ext.Control.from_address(address)
            return foreign_call(lambda: control.stop != 0)

        def call():
            _ext.call_stoppable(fake_go)

    def check_stopped():
        if running[0]:
            fail("KeyboardInterrupt was raised while the call still ran")

    return tries(n, call, timed(call), check_stopped, 1 << 16)


# -- pyfss calls -------------------------------------------------------------------


def seeds(torch, *shape):
    s = torch.randint(-(2**31), 2**31, (*shape, 2, 4), dtype=torch.int32)
    s[..., 1, 0] = s[..., 0, 0] ^ 1  # the two parties' seeds differ
    return s


def make_op(name: str, impl: str):
    """(call, output bytes) of a pyfss call long enough to run in a worker thread
    (pyfss._ext.STOPPABLE_WORK): about 0.1 to 0.5 s."""
    import torch

    import pyfss

    kw = {"impl": impl} if impl else {}
    beta = torch.tensor([5, 0, 0, 0], dtype=torch.int32)
    if name in ("dpf", "dcf", "halftree"):
        cls = {"dpf": pyfss.Dpf, "dcf": pyfss.Dcf, "halftree": pyfss.HalfTreeDpf}[name]
        scheme = cls(22, "bytes", "chacha", **kw)
        k0, _ = scheme.keygen(12345, beta)
        return lambda: scheme.eval_all_key(k0), 16 << 22
    if name == "vdpf":
        scheme = pyfss.Vdpf(21, "bytes", "chacha", **kw)
        k0, _ = scheme.keygen(12345, beta)
        return lambda: scheme.eval_all_key(k0), 16 << 21
    if name == "vdpf_prove":
        # One key's chain of 2^21 pieces: a sequence of hashes that the fold takes
        # one after another.
        scheme = pyfss.Vdpf(16, "bytes", "chacha", **kw)
        k0, _ = scheme.keygen(12345, beta)
        pieces = torch.randint(-(2**31), 2**31, (1 << 21, 4, 4), dtype=torch.int32)
        return lambda: scheme.prove(pieces, k0.cws), 1 << 16
    if name in ("dmpf", "vdmpf"):
        cls = {"dmpf": pyfss.Dmpf, "vdmpf": pyfss.Vdmpf}[name]
        scheme = cls(20, 64, "bytes", "chacha", **kw)
        betas = torch.arange(64 * 4, dtype=torch.int32).reshape(64, 4) << 1  # word 3's bit 0 clear
        k0, _ = scheme.keygen(list(range(0, 64 << 14, 1 << 14)), betas)
        return lambda: scheme.eval_all_key(k0), 16 << 20
    if name == "grotto":
        scheme = pyfss.GrottoDcf(18, "chacha")
        k0, _ = scheme.keygen(12345)
        s0, cws = k0.s0.expand(16, *k0.s0.shape).contiguous(), k0.cws.expand(16, *k0.cws.shape)
        cws = cws.contiguous()
        return lambda: scheme.preprocess(0, s0, cws), 16 << 18 >> 3
    if name == "gate":
        gate = pyfss.gates.DReLU(prg="chacha")
        shape = (1 << 17,)
        k0, _ = gate.deal(shape)
        xhat = torch.randint(-(2**62), 2**62, shape, dtype=torch.int64)
        return lambda: gate.eval(0, k0, xhat), 8 << 17
    raise SystemExit(f"unknown op {name}")


def pyfss_calls(name: str, impl: str, n: int) -> dict:
    call, nbytes = make_op(name, impl)
    first = call()
    took = min(timed(call) for _ in range(3))
    result = tries(n, call, took, lambda: None, nbytes)
    # The scheme still answers as before: an interrupted call left nothing behind.
    again = call()
    same = [bool((a == b).all()) for a, b in zip(_tensors(first), _tensors(again), strict=True)]
    if not all(same):
        fail("after the interrupted calls, the call gave another result")
    return {**result, "took": took}


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def _tensors(x):
    return list(x) if isinstance(x, tuple) else [x]


def main() -> None:
    # Python leaves SIGINT ignored when it starts with it ignored, as a shell without
    # job control starts background commands: take it over.
    signal.signal(signal.SIGINT, on_sigint)
    random.seed(int.from_bytes(os.urandom(8), "little"))
    if sys.argv[1] in ("protocol", "call_stoppable"):
        result = fake_calls(int(sys.argv[2]), sys.argv[1])
    else:
        result = pyfss_calls(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
