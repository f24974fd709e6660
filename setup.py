"""Builds the Go core into the extension package pyfss._gofss with gopy.

Project metadata lives in pyproject.toml; this file only adds the build step that
setuptools cannot describe declaratively.
"""

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
# build_support's helpers, standard library only.
sys.path.insert(0, str(ROOT / "build_support"))
import gotool
import nvcc

BINDING = "./gofss/binding"
# Built from the tools module, which pins them apart from the library's go.mod.
GO_TOOLS = ("github.com/go-python/gopy", "golang.org/x/tools/cmd/goimports")
# The Go GPU backend embeds this file when it exists (gofss/cuda/fatbin.go).
FATBIN = Path("gofss", "cuda", "kernels", "pyfss.fatbin")
# gopy names the shared object "_" + name and makes its glue import it from
# the same package; the name must not start with "_", or Go ignores gopy's
# generated Go file.
GOPY_NAME = "gofss"
# Builds the binding's entries that CPython calls without gopy's wrapper.
CPYTHON_TAG = "pyfss_cpython"
PACKAGE = "pyfss._gofss"
GLUE = ("__init__.py", "binding.py", "go.py")
# The glue changes the working directory around its import, which fails when
# that directory no longer exists; the shared object loads without it.
CHDIR_LINE = re.compile(r"^(cwd = os\.getcwd\(\)|currentdir = .*|os\.chdir\(.*\))\n", re.MULTILINE)


def log(msg):
    # Shown by `python -m build` and `pip install -v`; plain pip shows it only on failure.
    print(f"pyfss: {msg}", file=sys.stderr, flush=True)


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


def goflags_with_tag(goflags):
    """goflags with the build tag of the binding's direct entries (cpython.go and
    .c) added to its -tags list, or a -tags flag with the tag alone."""
    flags = goflags.split()
    for i, flag in enumerate(flags):
        if flag.startswith("-tags="):
            flags[i] = f"{flag}{',' if flag != '-tags=' else ''}{CPYTHON_TAG}"
            return " ".join(flags)
    return " ".join([*flags, f"-tags={CPYTHON_TAG}"])


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


def prepare_kernels():
    """Leaves at FATBIN the kernels to embed, or nothing for a CPU-only build, and says
    which. Where kernels are expected, a missing nvcc is an error, not a silent
    CPU-only package."""
    if reason := nvcc.skip_reason():
        (ROOT / FATBIN).unlink(missing_ok=True)
        log(f"building CPU-only, without CUDA kernels: {reason}")
    elif (reason := nvcc.build_fatbin(ROOT / FATBIN)) is None:
        pass  # build_fatbin said whether it compiled or reused the kernels
    elif fatbin_is_current():
        log(f"embedding the prebuilt {FATBIN} ({reason})")
    else:
        raise ExecError(
            f"pyfss: cannot compile the CUDA kernels: {reason}. Install the pinned nvcc "
            f"wheels ({' '.join(nvcc.WHEELS)}), which pip's default build isolation "
            f"does, or set {nvcc.OPT_OUT}=1 to build without kernels."
        )


class BuildGo(build_ext):
    def build_extension(self, ext):
        try:
            go, source = gotool.find()
        except RuntimeError as e:
            raise ExecError(f"pyfss: {e}") from None
        version = ".".join(map(str, gotool.version_of(go)))
        log(f"Go {version} from {source} ({go})")

        tools = Path(self.build_temp).resolve() / "go-tools"
        goenv = gotool.env(go)
        env = {
            **goenv,
            # gopy runs a bare `go` and `goimports`.
            "PATH": os.pathsep.join([str(tools), str(Path(go).parent), goenv.get("PATH", "")]),
            # -trimpath: no paths of the building machine in the binary.
            "GOFLAGS": f"{goflags_with_tag(goenv.get('GOFLAGS', ''))} -buildvcs=false -trimpath",
            # The binding's cpython.c includes Python.h (gopy sets this itself only
            # for its final build).
            "CGO_CFLAGS": f"{goenv.get('CGO_CFLAGS', '-O2 -g')} -I{sysconfig.get_paths()['include']}",
        }
        if allow := ldshared_allow():
            env["CGO_LDFLAGS_ALLOW"] = allow
        run([go, "build", "-o", f"{tools}{os.sep}", *GO_TOOLS], cwd=ROOT / "tools", env=env)

        # gopy refuses an output folder outside the Go module: the build folder is in
        # it, and the leading underscore keeps the generated package out of `go test ./...`.
        gen = Path(os.path.relpath(Path(self.build_temp).resolve() / "_gopy", ROOT))
        gopy = [tools / "gopy", "build", f"-vm={sys.executable}", "-dynamic-link=true", "-no-make"]
        gopy += [f"-name={GOPY_NAME}", f"-output={gen}"]
        prepare_kernels()
        shutil.rmtree(ROOT / gen, ignore_errors=True)
        run([*gopy, BINDING], env=env)

        dest = Path(self.get_ext_fullpath(ext.name))
        shutil.rmtree(dest.parent, ignore_errors=True)
        dest.parent.mkdir(parents=True)
        shutil.copyfile(ROOT / gen / dest.name, dest)
        for name in GLUE:
            glue = CHDIR_LINE.sub("", (ROOT / gen / name).read_text())
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


# setuptools' build folder, which also takes the metadata (egg_info needs it to exist).
(ROOT / "build").mkdir(exist_ok=True)
setup(
    ext_modules=[Extension(f"{PACKAGE}._{GOPY_NAME}", sources=[])],
    cmdclass={"build_ext": BuildGo},
    options={"egg_info": {"egg_base": "build"}},
)
