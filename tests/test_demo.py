"""`python -m pyfss`: the demo runs, reports its backends and passes its self-check."""

import subprocess
import sys


def test_demo(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "pyfss"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "self-check on cpu: ok" in r.stdout
    assert "aes128_mmo" in r.stdout and "chacha" in r.stdout
    assert "eval_all outputs" in r.stdout
