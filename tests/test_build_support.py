"""The build: the fatbin cache (with a stand-in for nvcc), and what a build leaves in the
checkout."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def nvcc(tmp_path, monkeypatch):
    """build_support/nvcc.py with cuda/ in tmp_path and an nvcc that logs each compile."""
    spec = importlib.util.spec_from_file_location("pyfss_nvcc", ROOT / "build_support/nvcc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cuda = tmp_path / "cuda"
    cuda.mkdir()
    (cuda / "kernels.cu").write_text('#include "dpf.cuh"\n')
    (cuda / "dpf.cuh").write_text("// kernels\n")
    fake = tmp_path / "nvcc"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "if '--version' in sys.argv:\n"
        "    sys.exit(print('nvcc stand-in 1.0'))\n"
        "open(sys.argv[sys.argv.index('-o') + 1], 'w').write(' '.join(sys.argv))\n"
        f"open({str(tmp_path / 'compiles')!r}, 'a').write('x')\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr(module, "CUDA_DIR", cuda)
    monkeypatch.setattr(module, "find_nvcc", lambda: str(fake))
    return module


def test_fatbin_compiled_once_per_state_of_its_inputs(nvcc, tmp_path, monkeypatch, capfd):
    out = tmp_path / "kernels" / "pyfss.fatbin"

    def build() -> int:
        """Builds out; the number of compiles so far."""
        assert nvcc.build_fatbin(out) is None
        compiles = tmp_path / "compiles"
        return len(compiles.read_text()) if compiles.exists() else 0

    assert build() == 1
    assert "compiled the CUDA kernels" in capfd.readouterr().err
    assert build() == 1
    assert "reusing the CUDA kernels" in capfd.readouterr().err

    (tmp_path / "cuda" / "dpf.cuh").write_text("// kernels, changed\n")
    assert build() == 2
    assert build() == 2
    monkeypatch.setattr(nvcc, "FLAGS", (*nvcc.FLAGS, "-lineinfo"))
    assert build() == 3
    monkeypatch.setattr(nvcc, "WHEELS", ("nvidia-cuda-nvcc==99.0",))
    assert build() == 4
    out.write_text("not what nvcc wrote")
    assert build() == 5
    nvcc.stamp_path(out).unlink()
    assert build() == 6
    assert build() == 6


# What a build may add to a checkout: setuptools' folder (the metadata and gopy's output
# too), the kernels' cache, and bytecode; git ignores all of them.
BUILD_LEFTOVERS = re.compile(
    r"!! (build/|(.+/)?__pycache__/|gofss/cuda/kernels/(pyfss\.fatbin|\.pyfss\.fatbin\.key))"
)


def test_build_leaves_the_checkout_clean(tmp_path):
    """A wheel built in a copy of the checkout adds only ignored build folders to it and
    warns nothing about MANIFEST.in."""
    uv = shutil.which("uv")
    if uv is None or shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs uv, git and a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    src = tmp_path / "src"
    kernels = Path("gofss", "cuda", "kernels")
    # The kernels' cache too, so that the build reuses it instead of compiling.
    cache = [kernels / "pyfss.fatbin", kernels / ".pyfss.fatbin.key"]
    for rel in [Path(os.fsdecode(n)) for n in filter(None, listed.split(b"\0"))] + cache:
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)

    def status() -> set[str]:
        args = ["git", "status", "--porcelain", "--ignored"]
        out = subprocess.run(args, cwd=src, capture_output=True, text=True, check=True).stdout
        return set(out.splitlines())

    subprocess.run(["git", "init", "-q"], cwd=src, check=True)
    subprocess.run(["git", "add", "-A"], cwd=src, check=True)
    before = status()
    build = subprocess.run(
        [uv, "build", "--wheel", "--python", sys.executable, "-o", tmp_path / "dist", "."],
        cwd=src,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-4000:]
    for warning in ("no previously-included", "no files found matching"):
        assert warning not in build.stdout + build.stderr
    assert sorted(s for s in status() - before if not BUILD_LEFTOVERS.fullmatch(s)) == []
