"""PYFSS_AES128_BACKEND and PYFSS_CHACHA_BACKEND force a PRG backend for the whole
process (tests and benchmarks comparing paths); backend_info() reports it, every
backend gives the same answers, and a name the CPU cannot run stops the import with
an error that says so, rather than measuring another path. PYFSS_SCATTER_BACKEND,
PYFSS_BLAKE3_BACKEND and PYFSS_SHA256_BACKEND do the same for the multi-point
schemes' appends and VDPF's hashes."""

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


# Prints backend_info()'s scatter part and a digest of a Dmpf's full-domain shares:
# in_bits 16 has four regions, so the shares go through the queues' appends.
SCATTER_CHILD = textwrap.dedent(
    """
    import hashlib, json, torch, pyfss
    m = pyfss.Dmpf(16, 20, "uint64", "aes128_mmo")
    alphas = torch.arange(20, dtype=torch.int32) * 3271
    betas = pyfss.from_int(list(range(1, 21)), "uint64")
    seeds = torch.arange(m.buckets * 8, dtype=torch.int32).reshape(m.buckets, 2, 4)
    cws = m.gen(seeds, alphas, betas, sigma=torch.tensor([5, 6, 7, 8], dtype=torch.int32))
    out = m.eval_all(0, seeds[:, 0].contiguous(), cws)
    digest = hashlib.sha256(out.numpy().tobytes()).hexdigest()
    print(json.dumps({"scatter": pyfss.backend_info()["scatter"], "out": digest}))
    """
)


def run_scatter_child(value: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_BACKEND")}
    if value is not None:
        env["PYFSS_SCATTER_BACKEND"] = value
    return subprocess.run(
        [sys.executable, "-c", SCATTER_CHILD],
        env=env,
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_env_selects_scatter_backend() -> None:
    """PYFSS_SCATTER_BACKEND picks the appends of Dmpf's eval_all (the amd64 routine
    or the portable loop), and both give the same shares."""
    default = run_scatter_child(None)
    assert default.returncode == 0, default.stderr
    want = json.loads(default.stdout)
    available = pyfss.backend_info()["scatter"]["available"]
    assert want["scatter"]["active"] == available[0]
    for name in available:
        got = run_scatter_child(name)
        assert got.returncode == 0, got.stderr
        child = json.loads(got.stdout)
        assert child["scatter"]["active"] == name
        assert child["out"] == want["out"], name
    refused = run_scatter_child("no-such-backend")
    assert refused.returncode != 0
    assert "ImportError: pyfss: PYFSS_SCATTER_BACKEND=no-such-backend: scatter:" in refused.stderr


# Prints backend_info()'s hashes part and digests of a Vdpf batch's full-domain
# proofs and of prove over its pieces at every input, for each hash: eight keys, so
# that the proof chains step side by side where BLAKE3 has lanes, and one.
HASH_CHILD = textwrap.dedent(
    """
    import hashlib, json, torch, pyfss
    digests = {}
    for hash in ("sha256", "blake3"):
        v = pyfss.Vdpf(9, "uint64", "aes128_mmo", hash)
        s0s = torch.arange(8 * 8, dtype=torch.int32).reshape(8, 2, 4)
        cws = v.gen(s0s, torch.arange(8, dtype=torch.int32) * 61, pyfss.from_int(list(range(1, 9)), "uint64"))
        h = hashlib.sha256()
        for keys in (slice(0, 8), slice(3, 4)):
            y, pi = v.eval_all(1, s0s[keys, 1].contiguous(), cws[keys].contiguous())
            _, pieces = v.eval(1, s0s[keys, 1].contiguous(), cws[keys].contiguous(), torch.arange(512, dtype=torch.int32).expand(y.shape[0], 512).contiguous())
            for t in (y, pi, v.prove(pieces, cws[keys].contiguous())):
                h.update(t.numpy().tobytes())
        digests[hash] = h.hexdigest()
    print(json.dumps({"hashes": pyfss.backend_info()["hashes"], "out": digests}))
    """
)


def run_hash_child(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.endswith("_BACKEND")}
    return subprocess.run(
        [sys.executable, "-c", HASH_CHILD],
        env={**base, **env},
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("hash", ["blake3", "sha256"])
def test_env_selects_hash_backend(hash: str) -> None:
    """PYFSS_BLAKE3_BACKEND and PYFSS_SHA256_BACKEND pick VDPF's hash routines, and
    every one this CPU runs gives the same shares and proofs; an unknown name stops the
    import."""
    var = f"PYFSS_{hash.upper()}_BACKEND"
    default = run_hash_child({})
    assert default.returncode == 0, default.stderr
    want = json.loads(default.stdout)
    available = pyfss.backend_info()["hashes"][hash]["available"]
    assert want["hashes"][hash]["active"] == available[0]
    for name in available:
        got = run_hash_child({var: name})
        assert got.returncode == 0, got.stderr
        child = json.loads(got.stdout)
        assert child["hashes"][hash]["active"] == name
        assert child["out"] == want["out"], name
    refused = run_hash_child({var: "no-such-backend"})
    assert refused.returncode != 0
    assert f"ImportError: pyfss: {var}=no-such-backend: {hash}:" in refused.stderr
