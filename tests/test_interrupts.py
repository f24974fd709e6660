"""Ctrl-C at random instants of long calls (interrupt_child.py runs them): a call that
raises KeyboardInterrupt has stopped writing into its buffers, for every scheme, on
the portable walks and the fastest, and under every CPython the package supports."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pyfss

CHILD = Path(__file__).with_name("interrupt_child.py")


def run_child(python: str, cwd: Path, *args: str) -> dict:
    # From a temporary directory: the repository root holds the unbuilt source tree.
    r = subprocess.run(
        [python, str(CHILD), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=cwd,
    )
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr[-3000:]}"
    return json.loads(r.stdout.splitlines()[-1])


def find_python(version: str) -> str | None:
    """An interpreter of that minor version: python3.N on PATH, else one of pyenv's."""
    if version == f"{sys.version_info.major}.{sys.version_info.minor}":
        return sys.executable
    found = shutil.which(f"python{version}")
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = [found] if found else []
    candidates += sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"))
    for python in candidates:
        ok = subprocess.run([python, "-c", "pass"], capture_output=True, check=False)
        if ok.returncode == 0:
            return python
    return None


@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13", "3.14"])
def test_the_waiting_protocol_under_each_cpython(version, tmp_path):
    """The protocol alone, with a fake foreign call: in 3.10-3.12 an interrupted
    Thread.join can report a thread that still runs as finished."""
    python = find_python(version)
    if python is None:
        pytest.skip(f"no CPython {version} here")
    got = run_child(python, tmp_path, "protocol", "150")
    assert got["interrupted"] >= 50, got


def test_call_stoppable_returns_only_once_the_call_has(tmp_path):
    """pyfss's own call_stoppable, over a fake Go call that goes on writing after it
    has seen its stop flag."""
    got = run_child(sys.executable, tmp_path, "call_stoppable", "150")
    assert got["interrupted"] >= 50, got


OPS = ["dpf", "dcf", "halftree", "vdpf", "vdpf_prove", "dmpf", "vdmpf", "grotto", "gate"]


@pytest.mark.parametrize("impl", ["portable", ""], ids=["portable", "fastest"])
@pytest.mark.parametrize("op", OPS)
def test_sigint_at_random_instants(op, impl, tmp_path):
    """Each child makes 25 calls, each sent SIGINT at a random instant; every
    interrupted call must raise KeyboardInterrupt soon (below), with its workers
    stopped (a canary of the output's size allocated at once stays as written), the
    child exits cleanly and the call gives the same result afterwards."""
    if impl == "portable" and op in ("grotto", "gate"):
        pytest.skip("Grotto and the gates take no impl: they run the default walks")
    got = run_child(sys.executable, tmp_path, op, impl, "25")
    # Most signals land inside the call (up to 1.2 times its length): if none did,
    # the test would prove nothing.
    assert got["interrupted"] >= 10, got
    # Within 0.2 s; on a machine slowed down by other work (the call taking over 0.8 s,
    # where 0.1 to 0.5 s is usual) within a quarter of the call: a call that ran on to
    # its end would still be caught.
    assert got["latency"] < max(0.2, got["took"] / 4), got


def test_the_fastest_walks_are_not_the_portable_ones():
    """The "fastest" runs above take the default walks: on this CPU, not the
    portable ones (else they would test one path twice)."""
    scheme = pyfss.Dpf(20, "bytes", "chacha")
    if scheme.impl == "portable":
        pytest.skip("this CPU has only the portable walks")
    assert pyfss.Dpf(20, "bytes", "chacha", impl="portable").impl == "portable"
