"""Child processes for the tests: a Python code block of the docs, or a script run
on several ranks under torchrun, from a temporary folder (the repository root holds
the unbuilt source tree)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_doc_block(doc: str, heading: str, cwd: Path) -> str:
    """Runs the first ```python block after heading in doc (a path from the repository
    root); returns what it printed, failing the test if it failed."""
    text = (ROOT / doc).read_text()
    block = re.search(re.escape(heading) + r"\n.*?```python\n(.*?)```", text, re.DOTALL)
    assert block is not None, f"{doc} has no python block after {heading!r}"
    r = subprocess.run(
        [sys.executable, "-c", block.group(1)],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def run_ranks(script: str, tmp: Path, ranks: int, *args: str, timeout: float = 300) -> list:
    """Runs script on ranks processes under torchrun, with tmp and args as its
    arguments; each rank writes its report to tmp/rank<N>.json, returned in rank order."""
    path = tmp / "ranks.py"
    path.write_text(script)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            str(ranks),
        ]
        + [str(path), str(tmp), *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp,
        timeout=timeout,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return [json.loads((tmp / f"rank{b}.json").read_text()) for b in range(ranks)]
