"""A process allowed one CPU: Go would run it with one P, which its monitor thread
takes back from the Python thread after every call and keeps polling for, each
wake-up preempting the caller. The extension gives Go a second, idle P there, with
calls still on one goroutine; a GOMAXPROCS the user set is left as it is."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

# Pins itself to one CPU (or not) before loading pyfss, then reports what Go got
# and whether a full-domain evaluation, large enough to spread, still reconstructs.
CHILD = textwrap.dedent(
    """
    import json, os, sys
    if sys.argv[1] == "pin":
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    import torch, pyfss
    info = pyfss.backend_info()
    s = pyfss.Dpf(18, "uint64", "aes128_mmo")
    k0, k1 = s.keygen(12345, torch.tensor([7, 0, 0, 0], dtype=torch.int32))
    y = s.eval_all_key(k0).view(torch.int64) + s.eval_all_key(k1).view(torch.int64)
    want = torch.zeros_like(y)
    want[12345, 0] = 7
    print(json.dumps({"gomaxprocs": info["gomaxprocs"], "workers": info["workers"],
                      "ok": bool(torch.equal(y, want))}))
    """
)


def run_child(pin: bool, gomaxprocs: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "GOMAXPROCS"}
    if gomaxprocs is not None:
        env["GOMAXPROCS"] = gomaxprocs
    r = subprocess.run(
        [sys.executable, "-c", CHILD, "pin" if pin else "all"],
        env=env,
        cwd=tempfile.gettempdir(),  # not a source checkout, whose pyfss has no extension
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity (Linux)"
)


def test_one_cpu_gets_a_second_idle_p():
    assert run_child(pin=True) == {"gomaxprocs": 2, "workers": 1, "ok": True}


def test_gomaxprocs_set_by_the_user_wins():
    assert run_child(pin=True, gomaxprocs="1") == {"gomaxprocs": 1, "workers": 1, "ok": True}
    assert run_child(pin=True, gomaxprocs="3") == {"gomaxprocs": 3, "workers": 3, "ok": True}


def cpus_for_go() -> float:
    """The CPUs Go sizes GOMAXPROCS by: the affinity mask, bounded by a cgroup quota."""
    cpus = float(len(os.sched_getaffinity(0)))
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()
    except (OSError, ValueError):
        return cpus
    return cpus if quota == "max" else min(cpus, int(quota) / int(period))


def test_more_cpus_are_left_alone():
    if cpus_for_go() < 2:
        pytest.skip("needs two CPUs for Go")
    got = run_child(pin=False)
    assert got["gomaxprocs"] >= 2 and got["workers"] == got["gomaxprocs"]
    assert got["ok"]
