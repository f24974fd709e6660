"""Builds the Go core into the extension package pyfss._gofss with gopy.

Project metadata lives in pyproject.toml; this file only adds the build step that
setuptools cannot describe declaratively.
"""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import ExecError

ROOT = Path(__file__).resolve().parent
BINDING = "./gofss/binding"
# Built from the tools module, which pins them apart from the library's go.mod.
GO_TOOLS = ("github.com/go-python/gopy", "golang.org/x/tools/cmd/goimports")
# gopy refuses an output folder outside the Go module; the leading underscore
# keeps the generated Go package out of `go test ./...`.
GEN = Path("gofss", "binding", "_gen")
# The Go GPU backend embeds this file when it exists (gofss/cuda/fatbin.go).
FATBIN = Path("gofss", "cuda", "kernels", "pyfss.fatbin")
# gopy names the shared object "_" + name and makes its glue import it from
# the same package; the name must not start with "_", or Go ignores gopy's
# generated Go file.
GOPY_NAME = "gofss"
PACKAGE = "pyfss._gofss"
GLUE = ("__init__.py", "binding.py", "go.py")
# The glue changes the working directory around its import, which fails when
# that directory no longer exists; the shared object loads without it.
CHDIR_LINE = re.compile(r"^(cwd = os\.getcwd\(\)|currentdir = .*|os\.chdir\(.*\))\n", re.MULTILINE)


def run(cmd, cwd=ROOT, env=None):
    try:
        subprocess.run(cmd, check=True, cwd=cwd, env=env)
    except (OSError, subprocess.CalledProcessError) as e:
        raise ExecError(f"pyfss: `{' '.join(map(str, cmd[:2]))}` failed: {e}") from e


def ldshared_allow():
    """CGO_LDFLAGS_ALLOW admitting exactly the flags gopy's -dynamic-link copies
    from Python's LDSHARED into a #cgo directive (Debian's -fwrapv and friends),
    since cgo rejects flags outside its allow list there."""
    flags = (sysconfig.get_config_var("LDSHARED") or "").split()[1:]
    patterns = [re.escape(f) for f in flags if f != "-bundle"]
    if own := os.environ.get("CGO_LDFLAGS_ALLOW"):
        patterns.append(f"(?:{own})")
    return "^(?:" + "|".join(patterns) + ")$" if patterns else None


def build_fatbin():
    """Compiles the CUDA kernels; returns None on success or why it did not."""
    script = ROOT / "build_support" / "nvcc.py"
    if not script.exists():
        return f"{script.relative_to(ROOT)} is missing"
    spec = importlib.util.spec_from_file_location("pyfss_build_nvcc", script)
    nvcc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nvcc)
    return nvcc.build_fatbin(str(ROOT / FATBIN))


def fatbin_is_current():
    """Whether a fatbin built earlier (`python build_support/nvcc.py`, with nvcc from
    another environment than pip's isolated build) is newer than every kernel source."""
    fatbin = ROOT / FATBIN
    sources = list((ROOT / "cuda").glob("*.cu*"))
    return (
        fatbin.is_file()
        and sources
        and fatbin.stat().st_mtime >= max(p.stat().st_mtime for p in sources)
    )


class BuildGo(build_ext):
    def build_extension(self, ext):
        if shutil.which("go") is None:
            raise ExecError("pyfss: the Go toolchain is required to build (no `go` on PATH)")

        tools = Path(self.build_temp).resolve() / "go-tools"
        # gopy runs a bare `goimports`, so both go on PATH.
        run(
            ["go", "build", "-buildvcs=false", "-o", f"{tools}{os.sep}", *GO_TOOLS],
            cwd=ROOT / "tools",
        )
        env = {
            **os.environ,
            "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
            "GOFLAGS": f"{os.environ.get('GOFLAGS', '')} -buildvcs=false".strip(),
        }
        if allow := ldshared_allow():
            env["CGO_LDFLAGS_ALLOW"] = allow

        gopy = [tools / "gopy", "build", f"-vm={sys.executable}", "-dynamic-link=true", "-no-make"]
        gopy += [f"-name={GOPY_NAME}", f"-output={GEN}"]
        if (reason := build_fatbin()) is not None:
            if fatbin_is_current():
                print(f"pyfss: embedding the prebuilt {FATBIN} ({reason})", file=sys.stderr)
            else:
                # A stale fatbin from an earlier build must not be embedded instead.
                (ROOT / FATBIN).unlink(missing_ok=True)
                print(f"pyfss: building without CUDA kernels: {reason}", file=sys.stderr)
        shutil.rmtree(ROOT / GEN, ignore_errors=True)
        run([*gopy, BINDING], env=env)

        dest = Path(self.get_ext_fullpath(ext.name))
        shutil.rmtree(dest.parent, ignore_errors=True)
        dest.parent.mkdir(parents=True)
        shutil.copyfile(ROOT / GEN / dest.name, dest)
        for name in GLUE:
            glue = CHDIR_LINE.sub("", (ROOT / GEN / name).read_text())
            if "os.chdir" in glue:
                raise ExecError(f"pyfss: unexpected os.chdir left in gopy's {name}")
            (dest.parent / name).write_text(glue)

    def copy_extensions_to_source(self):
        # Editable installs: the glue must sit beside the object, so the whole
        # generated package is copied, not just the object as setuptools does.
        src = Path(self.build_lib, *PACKAGE.split("."))
        dst = Path(self.get_finalized_command("build_py").get_package_dir(PACKAGE))
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst)


setup(
    ext_modules=[Extension(f"{PACKAGE}._{GOPY_NAME}", sources=[])],
    cmdclass={"build_ext": BuildGo},
)
