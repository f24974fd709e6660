"""The installed package: one extension object that loads and describes itself."""

import importlib.metadata
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pyfss


def test_backend_info_describes_the_build():
    info = pyfss.backend_info()
    assert set(info) >= {"version", "go_version", "goos", "goarch"}
    assert info["go_version"].startswith("go")
    assert info["goos"] == platform.system().lower()
    for prg in ("aes128_mmo", "chacha"):
        path = info["prg"][prg]
        assert path["active"] in path["available"]
        assert path["walks"] in set(pyfss.IMPLS)
        if path["active"] == "generic":
            assert path["walks"] == "portable"
        if path["walks"] == "avx512-vaes":
            assert prg == "aes128_mmo" and path["active"] == "vaes-avx512"
        if path["walks"] == "aesni":  # its own one-key routines, over any AES-NI backend
            assert prg == "aes128_mmo" and path["active"] in {"aesni", "vaes256"}
        if path["walks"].startswith("avx2-"):  # the fused Eval walks of the backend's class
            want = {"avx2-vaes": "vaes256", "avx2-aesni": "aesni"}[path["walks"]]
            assert prg == "aes128_mmo" and path["active"] == want
    assert info["huge_pages"] in {"always", "madvise", "never", "unsupported"}
    if platform.system() != "Linux":
        assert info["huge_pages"] == "unsupported"


def cpu_flags() -> set[str]:
    """The CPU's feature flags as Linux lists them (empty elsewhere)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {
        f
        for line in text.splitlines()
        if line.startswith("flags")
        for f in line.split(":", 1)[1].split()
    }


def test_backend_info_says_which_scatter_runs():
    """The multi-point schemes' full-domain appends: the amd64 routine wherever it
    can run (it needs BMI2), unless the environment asked for another."""
    info = pyfss.backend_info()
    scatter = info["scatter"]
    # A build without assembly (-tags purego) has only the portable paths.
    assembly = info["prg"]["aes128_mmo"]["available"] != ["generic"]
    assert scatter["active"] in scatter["available"]
    assert scatter["available"][-1] == "generic"
    if os.environ.get("PYFSS_SCATTER_BACKEND"):
        assert scatter["active"] == os.environ["PYFSS_SCATTER_BACKEND"]
    elif not assembly or platform.machine() not in {"x86_64", "AMD64"}:
        assert scatter["active"] == "generic"
    elif platform.system() == "Linux":
        assert scatter["active"] == ("prefetch" if "bmi2" in cpu_flags() else "generic")


def test_backend_info_says_which_hashes_run():
    """VDPF's hashes: BLAKE3's AVX-512 routines where the CPU has AVX512VL, else its
    AVX2 ones, else Go; SHA-256 with the SHA extensions where the CPU has them, else
    crypto/sha256; unless the environment asked for another."""
    info = pyfss.backend_info()
    assembly = info["prg"]["aes128_mmo"]["available"] != ["generic"]
    flags = cpu_flags()
    expected = {
        "blake3": "avx512"
        if {"avx512f", "avx512vl"} <= flags
        else "avx2"
        if "avx2" in flags
        else "generic",
        "sha256": "sha-ni" if {"sha_ni", "ssse3", "sse4_1"} <= flags else "generic",
    }
    for hash_name, want in expected.items():
        got = info["hashes"][hash_name]
        assert got["active"] in got["available"]
        assert got["available"][-1] == "generic"
        forced = os.environ.get(f"PYFSS_{hash_name.upper()}_BACKEND")
        if forced:
            assert got["active"] == forced
        elif not assembly or platform.machine() not in {"x86_64", "AMD64"}:
            assert got["active"] == "generic"
        elif platform.system() == "Linux":
            assert got["active"] == want, hash_name


def test_go_core_matches_package_version():
    assert pyfss.lib.Version() == pyfss.__version__
    assert pyfss.backend_info()["version"] == pyfss.__version__
    assert importlib.metadata.version("pyfss") == pyfss.__version__


def test_exactly_one_extension_object():
    package = Path(pyfss.__file__).parent
    objects = [p for p in package.rglob("*") if p.suffix in {".so", ".pyd", ".dylib"}]
    assert len(objects) == 1, objects
    assert objects[0].parent == package / "_gofss"


def test_missing_extension_says_how_to_build(tmp_path):
    source = Path(pyfss.__file__).parent
    unbuilt = tmp_path / "pyfss"
    unbuilt.mkdir()
    for module in source.glob("*.py"):
        (unbuilt / module.name).write_bytes(module.read_bytes())
    # -S: without site-packages neither the installed pyfss nor an editable
    # install's finder can answer, so the copy without an extension is imported.
    result = subprocess.run(
        [sys.executable, "-S", "-c", "import pyfss"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "pyfss._gofss" in result.stderr
    assert "pip install ." in result.stderr


def test_import_is_silent(tmp_path):
    """A plain install (no extras) imports without a word on stderr: torch warns on
    import when numpy is missing, so numpy is one of pyfss's own requirements."""
    plain = [r for r in importlib.metadata.requires("pyfss") or [] if "extra ==" not in r]
    assert "numpy" in {re.split(r"[^\w.-]", r, maxsplit=1)[0] for r in plain}
    result = subprocess.run(
        [sys.executable, "-c", "import pyfss"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
