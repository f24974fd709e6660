"""The emulated AVX-512 check's verdicts (build_support/avx512emu.py): it gates CI, so a
guest that failed, stopped early or ran none of the AVX-512 paths must fail it."""

import importlib.util
import re
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "build_support" / "avx512emu.py"


@pytest.fixture(scope="module")
def emu():
    spec = importlib.util.spec_from_file_location("avx512emu", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUNS = (("aes128", "gofss/internal/aes128", "x"), ("gofss", "gofss", "y"))
CPU = "=== CPU avx512bw avx512f avx512vl vaes vpclmulqdq"


def guest(*lines):
    return "\n".join(lines) + "\n"


def test_a_clean_guest_passes(emu):
    out = guest(CPU, "=== END 0 rc=0", "=== END 1 rc=0", "=== GUEST DONE")
    assert emu.check(out, RUNS) == []


@pytest.mark.parametrize(
    ("lines", "want"),
    [
        ((CPU, "=== END 0 rc=0", "=== END 1 rc=1", "=== GUEST DONE"), r"gofss .*exit status 1"),
        ((CPU, "=== END 0 rc=0", "=== GUEST DONE"), r"gofss .*did not finish"),
        ((CPU, "=== END 0 rc=0", "=== END 1 rc=0"), r"the guest did not finish"),
        (("=== CPU avx2", "=== END 0 rc=0", "=== END 1 rc=0", "=== GUEST DONE"), r"lacks AVX-512"),
        (("=== END 0 rc=0", "=== END 1 rc=0", "=== GUEST DONE"), r"lacks AVX-512"),
        # A run's marker inside another run's output does not count for it.
        ((CPU, "=== END 0 rc=0", "x=== END 1 rc=0", "=== GUEST DONE"), r"gofss .*did not finish"),
    ],
)
def test_a_failed_guest_fails(emu, lines, want):
    problems = emu.check(guest(*lines), RUNS)
    assert len(problems) == 1 and re.search(want, problems[0]), problems


def test_each_path_needs_a_passing_subtest(emu):
    every = guest(
        "--- PASS: TestA/vaes-avx512 (0.01s)",
        "    --- PASS: TestB/dpf-n1/avx512-vaes (0.01s)",
        "--- PASS: TestC/avx512/keys=3 (0.00s)",
        "--- PASS: TestD/avx512-shiftrot (0.00s)",
    )
    assert emu.untested_paths([every]) == []
    # Across guests.
    assert emu.untested_paths(every.splitlines(keepends=True)) == []
    # A skip or failure is not a pass, and "avx512-vaes" or "avx512-shiftrot" is not
    # the "avx512" path.
    partial = guest(
        "--- SKIP: TestA/vaes-avx512 (0.00s)",
        "--- FAIL: TestC/avx512 (0.00s)",
        "--- PASS: TestB/avx512-vaes (0.01s)",
        "--- PASS: TestD/avx512-shiftrot/mul2 (0.01s)",
    )
    assert emu.untested_paths([partial]) == [
        "no test of vaes-avx512 passed",
        "no test of avx512 passed",
    ]
    # Each ChaCha backend needs its own.
    assert emu.untested_paths([every.replace("avx512-shiftrot", "avx2")]) == [
        "no test of avx512-shiftrot passed"
    ]


def test_only_chooses_the_level_that_names_the_path(emu):
    assert emu.only("a|b", 2) == "/^(a|b)$"
    assert emu.only("a", 3, "TestX|TestY") == "^(TestX|TestY)$//^(a)$"
    # Every guest run names a package with tests and a pattern Go can split by level.
    for runs in emu.GUESTS:
        for name, pkg, pattern in runs:
            assert (SCRIPT.parent.parent / pkg).is_dir(), pkg
            assert pattern and all(re.compile(p) for p in pattern.split("/") if p)
