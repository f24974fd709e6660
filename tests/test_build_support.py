"""The build: the fatbin cache, with a stand-in for nvcc."""

import importlib.util
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
