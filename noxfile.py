"""Sessions: `nox -s tests`, `nox -s lint`, `nox -s demo`, `nox -s bench`."""

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["lint", "tests"]
# Reinstalling torch into a fresh venv takes minutes; pyfss itself is rebuilt on
# every run because pip always builds a local directory anew.
nox.options.reuse_venv = "yes"


def install(session, extras="test"):
    session.install(f".[{extras}]")


def run_installed(session, *args):
    # `python -m` puts the working directory first on sys.path: from the
    # repository root it would import the source tree, which has no extension.
    with session.chdir(session.create_tmp()):
        session.run(*args)


# nvcc from PyPI: the CUDA kernels compile on machines without a CUDA toolkit (CI).
# All parts pinned: an unpinned nvvm newer than ptxas emits PTX that ptxas rejects.
NVCC_WHEELS = (
    "nvidia-cuda-nvcc==13.0.88",
    "nvidia-nvvm==13.0.88",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-cuda-runtime==13.0.96",
    "nvidia-cuda-cccl==13.0.85",
)


@nox.session
def tests(session):
    """Kernels compiled; Go tests (fast paths, then the portable path); pytest."""
    session.install(*NVCC_WHEELS)
    session.run("python", "build_support/nvcc.py")
    session.run("go", "test", "./...", external=True)
    session.run("go", "test", "-tags", "purego", "./gofss/...", external=True)
    install(session)
    session.run("pytest", "tests", *session.posargs)


@nox.session
def lint(session):
    unformatted = session.run("gofmt", "-l", "gofss", "tools", external=True, silent=True)
    if unformatted.strip():
        session.error(f"gofmt would change:\n{unformatted}")
    session.run("go", "vet", "./...", external=True)
    session.install("ruff==0.17.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def demo(session):
    install(session)
    run_installed(session, "python", "-m", "pyfss")


@nox.session
def bench(session):
    """Go fast paths against the portable ones, Python against Go, a throughput plot:
    tables printed and written with the plot to docs/ (or --out DIR)."""
    install(session, "test,bench")
    session.run("python", "benchmarks/bench.py", *session.posargs)
