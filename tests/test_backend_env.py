"""PYFSS_AES128_BACKEND and PYFSS_CHACHA_BACKEND force a PRG backend for the whole
process (tests and benchmarks comparing paths); backend_info() reports it, every
backend gives the same answers, and a name the CPU cannot run stops the import with
an error that says so, rather than measuring another path."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

import pyfss

# Prints backend_info()'s PRG part and a DPF's outputs, with fixed seeds.
CHILD = textwrap.dedent(
    """
    import json, torch, pyfss
    prg = {prg!r}
    dpf = pyfss.Dpf(12, group="uint64", prg=prg)
    s0s = torch.arange(8, dtype=torch.int32).reshape(2, 4)
    cws = dpf.gen(s0s, 1234, pyfss.from_int(7, "uint64"))
    out = dpf.eval_all(0, s0s[0], cws)
    print(json.dumps({{"prg": pyfss.backend_info()["prg"][prg], "out": out.sum(0).tolist()}}))
    """
)


def run_child(env_var: str, prg: str, value: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_BACKEND")}
    if value is not None:
        env[env_var] = value
    return subprocess.run(
        [sys.executable, "-c", CHILD.format(prg=prg)],
        env=env,
        cwd=tempfile.gettempdir(),  # not a source checkout, whose pyfss has no extension
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("env_var", "prg"), [("PYFSS_AES128_BACKEND", "aes128_mmo"), ("PYFSS_CHACHA_BACKEND", "chacha")]
)
def test_env_selects_backend(env_var: str, prg: str) -> None:
    default = run_child(env_var, prg, None)
    assert default.returncode == 0, default.stderr
    want = json.loads(default.stdout)
    available = pyfss.backend_info()["prg"][prg]["available"]
    assert want["prg"]["active"] == available[0]
    for name in available:
        got = run_child(env_var, prg, name)
        assert got.returncode == 0, got.stderr
        child = json.loads(got.stdout)
        assert child["prg"]["active"] == name
        assert child["out"] == want["out"], name


@pytest.mark.parametrize("value", ["no-such-backend", "vaes-avx512"])
def test_env_refuses_unknown_or_unsupported(value: str) -> None:
    available = pyfss.backend_info()["prg"]["aes128_mmo"]["available"]
    if value in available:
        pytest.skip(f"this CPU runs {value}")
    got = run_child("PYFSS_AES128_BACKEND", "aes128_mmo", value)
    assert got.returncode != 0
    # An exception at import, not a Go panic that kills the interpreter.
    assert f"ImportError: pyfss: PYFSS_AES128_BACKEND={value}: aes128:" in got.stderr
    assert "goroutine" not in got.stderr
    assert "this CPU runs: " + ", ".join(available) in got.stderr
