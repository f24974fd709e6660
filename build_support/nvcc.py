"""Compile the CUDA kernels in cuda/ into the fatbin that the Go library embeds.

The fatbin holds machine code for sm_80 (A100) and sm_90 (H100/H200) and PTX for
compute_90, which the driver compiles for newer GPUs. nvcc is the one that the pinned
``nvidia-cuda-nvcc`` wheel (WHEELS) installs into the running Python environment, a
build requirement on Linux x86_64, or failing that the one on PATH. Without nvcc
``build_fatbin`` returns the reason instead of raising, for the caller to report.

A fatbin is compiled once for each state of what it is made from (``cache_key``): a
stamp beside it holds that key, and a build whose key matches reuses the fatbin.

Usage: ``python build_support/nvcc.py [--out PATH]``. Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CUDA_DIR = ROOT / "cuda"
FATBIN = ROOT / "gofss" / "cuda" / "kernels" / "pyfss.fatbin"

# nvcc from PyPI: the CUDA kernels compile on machines without a CUDA toolkit. All parts
# pinned together: an unpinned nvvm newer than ptxas emits PTX that ptxas rejects.
WHEELS = (
    "nvidia-cuda-nvcc==13.0.88",
    "nvidia-nvvm==13.0.88",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-cuda-runtime==13.0.96",
    "nvidia-cuda-cccl==13.0.85",
)
# Set (to anything but 0) to build without the kernels.
OPT_OUT = "PYFSS_NO_CUDA"

# SASS for the architectures PyTorch users run most, PTX for everything newer.
GENCODE = (
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=[sm_90,compute_90]",
)
# The flags that shape the fatbin (not the include paths, which name the build's
# environment, nor --threads).
FLAGS = ("--fatbin", "-std=c++17", *GENCODE)


def log(msg: str) -> None:
    # stderr, flushed: the build's front ends show it as it comes.
    print(f"pyfss: {msg}", file=sys.stderr, flush=True)


def _site_dirs() -> list[Path]:
    """Directories where pip may have put the nvidia wheels of this interpreter,
    build isolation environments included (those are only on sys.path)."""
    dirs = [sysconfig.get_paths()[k] for k in ("purelib", "platlib")]
    dirs += site.getsitepackages() + [site.getusersitepackages()] + sys.path
    seen: list[Path] = []
    for d in dirs:
        p = Path(d) if d else None
        if p and p.is_dir() and p not in seen:
            seen.append(p)
    return seen


def _wheel_nvccs() -> list[Path]:
    # nvidia-cuda-nvcc 13.x installs a toolkit tree under nvidia/cu13/.
    return [
        p
        for d in _site_dirs()
        for p in sorted(d.glob("nvidia/*/bin/nvcc"))
        if os.access(p, os.X_OK)
    ]


def skip_reason() -> str | None:
    """Why this build leaves the kernels out (the opt-out, or a platform other than
    Linux x86_64, the only one whose kernel build is tested); None when it compiles
    them."""
    if os.environ.get(OPT_OUT, "") not in ("", "0"):
        return f"{OPT_OUT} is set"
    system, machine = platform.system(), platform.machine()
    if (system, machine) != ("Linux", "x86_64"):
        return f"CUDA kernels are built on Linux x86_64 only, not {system} {machine}"
    return None


def find_nvcc() -> str | None:
    """Path of nvcc: from the nvidia-cuda-nvcc wheel, else on PATH; None if neither.
    The pinned wheel goes first, since an older toolkit on PATH may not know sm_90."""
    wheels = _wheel_nvccs()
    return str(wheels[0]) if wheels else shutil.which("nvcc")


def _wheel_includes(nvcc: str) -> list[str]:
    """-I flags for the headers of the nvidia-cuda-runtime and nvidia-cuda-cccl wheels
    when nvcc came from a wheel. Those wheels may install beside nvcc's own tree or in
    their own (nvidia/cuda_runtime, nvidia/cuda_cccl); a system toolkit has its own
    headers, and mixing in a wheel's could mismatch them."""
    if Path(nvcc) not in _wheel_nvccs():
        return []
    flags: list[str] = []
    for d in _site_dirs():
        for inc in sorted(d.glob("nvidia/*/include")):
            for p in (inc, inc / "cccl"):
                if p.is_dir() and f"-I{p}" not in flags:
                    flags.append(f"-I{p}")
    return flags


def nvcc_command(nvcc: str, source: Path, out_path: Path) -> list[str]:
    threads = min(len(GENCODE) + 1, os.cpu_count() or 1)  # nvcc runs one job per target
    return [
        nvcc,
        *FLAGS,
        f"--threads={threads}",
        *_wheel_includes(nvcc),
        "-o",
        str(out_path),
        str(source),
    ]


def cache_key(nvcc: str) -> str:
    """A digest of what the fatbin is made from: the files in cuda/, nvcc's version,
    the pinned wheels (their headers too) and FLAGS."""
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False)
    h = hashlib.sha256("\0".join([version.stdout, *WHEELS, *FLAGS]).encode())
    for p in sorted(CUDA_DIR.iterdir()):
        if p.is_file():
            h.update(f"\0{p.name}\0".encode() + p.read_bytes())
    return h.hexdigest()


def stamp_path(out: Path) -> Path:
    # Hidden: go:embed leaves it out of the library, as it does "_" files.
    return out.with_name(f".{out.name}.key")


def _stamp(key: str, out: Path) -> str:
    # The fatbin's own digest too, so that a fatbin replaced by hand is not reused.
    return f"{key} {hashlib.sha256(out.read_bytes()).hexdigest()}\n"


def is_current(out: Path, key: str) -> bool:
    """Whether out is the fatbin that a build with this key made."""
    try:
        return stamp_path(out).read_text() == _stamp(key, out)
    except OSError:
        return False


def build_fatbin(out_path: str | os.PathLike[str] = FATBIN) -> str | None:
    """Compile every cuda/*.cu into one fatbin at out_path, unless the fatbin there
    was made from the same sources, nvcc and flags; say which on stderr.

    Returns None on success, or the reason the kernels cannot be built here (no nvcc),
    so that the caller can build CPU-only and say why. A failing compilation raises
    RuntimeError with nvcc's output: that is a bug, not a missing tool.
    """
    nvcc = find_nvcc()
    if nvcc is None:
        return (
            "nvcc not found: neither from the nvidia-cuda-nvcc wheel in this Python "
            "environment nor on PATH"
        )
    sources = sorted(CUDA_DIR.glob("*.cu"))
    if not sources:
        raise RuntimeError(f"no .cu files in {CUDA_DIR}")
    out = Path(out_path)
    key = cache_key(nvcc)
    if is_current(out, key):
        log(f"reusing the CUDA kernels in {out} (sources, nvcc and flags unchanged)")
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    stamp_path(out).unlink(missing_ok=True)
    archs = ", ".join(a for g in GENCODE for a in g.rpartition("code=")[2].strip("[]").split(","))
    log(f"compiling the CUDA kernels in cuda/ for {archs} (1 to 2 minutes on 2 cores)")
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        # One translation unit, so that all kernels land in one module.
        unit = Path(tmp) / "pyfss_kernels.cu"
        unit.write_text("".join(f'#include "{s}"\n' for s in sources))
        partial = Path(tmp) / out.name
        cmd = nvcc_command(nvcc, unit, partial)
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(
                f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
            )
        # Replace the old fatbin only with a complete new one. The leading "_" keeps a
        # leftover out of go:embed, the suffix keeps it out of git.
        staged = out.with_name(f"_{out.stem}.tmp{out.suffix}")
        shutil.copyfile(partial, staged)
        os.replace(staged, out)
    stamp_path(out).write_text(_stamp(key, out))
    log(f"compiled the CUDA kernels into {out} in {time.monotonic() - start:.0f} s")
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(FATBIN), help="fatbin to write (default: %(default)s)")
    args = parser.parse_args(argv)
    reason = build_fatbin(args.out)
    if reason is not None:
        print(reason, file=sys.stderr)
        return 1
    print(f"{args.out}: {Path(args.out).stat().st_size} bytes, nvcc {find_nvcc()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
