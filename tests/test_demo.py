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
    assert "HalfTreeDpf aes128_mmo" in r.stdout and "Vdpf aes128_mmo" in r.stdout


def run_demo(tmp_path, *args, code=None):
    """python -m pyfss with args, from a directory outside the source tree; code runs
    first (runpy then runs the module as -m would)."""
    cmd = [sys.executable, "-m", "pyfss", *args]
    if code is not None:
        cmd = [
            sys.executable,
            "-c",
            f"{code}; import runpy; runpy.run_module('pyfss', run_name='__main__')",
        ]
        cmd += list(args)
    return subprocess.run(
        cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False
    )


def test_demo_help_runs_nothing(tmp_path):
    r = run_demo(tmp_path, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage:")
    assert "--device" in r.stdout and "--quick" in r.stdout
    assert "self-check on cpu" not in r.stdout


def test_demo_quick_on_cpu_needs_no_numpy(tmp_path):
    # A None entry in sys.modules makes `import numpy` fail, as in an install without it.
    r = run_demo(
        tmp_path, "--quick", "--device", "cpu", code="import sys; sys.modules['numpy'] = None"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "self-check on cpu: ok" in r.stdout
    assert "eval_all outputs" not in r.stdout


def test_demo_refuses_cuda_without_a_gpu(tmp_path):
    import torch

    import pyfss

    if pyfss.backend_info()["cuda"]["usable"] and torch.cuda.is_available():
        r = run_demo(tmp_path, "--quick", "--device", "cuda")
        assert r.returncode == 0 and "self-check on cuda: ok" in r.stdout, r.stdout + r.stderr
        return
    r = run_demo(tmp_path, "--quick", "--device", "cuda")
    assert r.returncode == 2
    assert "CUDA is not usable here" in r.stderr


def test_self_check_covers_every_scheme_and_catches_wrong_answers():
    import copy
    import json
    from importlib import resources

    from pyfss.__main__ import check_cases

    text = resources.files("pyfss").joinpath("data/selfcheck.json").read_text()
    entries = json.loads(text)["cases"]
    kinds = {e["scheme"] for e in entries}
    assert kinds == {"dpf", "dcf", "half_tree_dpf", "grotto_dcf"}
    new = [e for e in entries if e["scheme"] in ("half_tree_dpf", "grotto_dcf")]
    assert check_cases(new, "cpu") == []
    # One wrong word in each case's expected keys, or in one expected output.
    broken = copy.deepcopy(new)
    broken[0]["case"]["cws"][0][0] ^= 1
    broken[1]["case"]["ocw"][1] ^= 1 << 7
    broken[2]["case"]["evals"][3]["y1"] = not broken[2]["case"]["evals"][3]["y1"]
    broken[3]["case"]["eval_all"]["sha256"][0] = "0" * 64
    assert check_cases(broken, "cpu") == [e["case"]["id"] for e in new]


def test_self_check_covers_dmpf_and_vdmpf_and_catches_wrong_answers():
    import copy
    import json
    from importlib import resources

    from pyfss.__main__ import mpf_check

    text = resources.files("pyfss").joinpath("data/selfcheck_mpf.json").read_text()
    entries = json.loads(text)["cases"]
    assert mpf_check(entries) == []
    case_id = entries[0]["case"]["id"]
    wrong_share = copy.deepcopy(entries)
    wrong_share[0]["case"]["ys1"][3][0] ^= 1
    assert mpf_check(wrong_share) == [f"{case_id} (Dmpf)", f"{case_id} (Vdmpf)"]
    wrong_cs = copy.deepcopy(entries)  # only Vdmpf's keys hold the buckets' cs
    wrong_cs[0]["case"]["buckets"][5]["cs"][0][0] ^= 1
    assert mpf_check(wrong_cs) == [f"{case_id} (Vdmpf)"]
    wrong_proof = copy.deepcopy(entries)
    wrong_proof[0]["case"]["pi"][0][2][1] ^= 1 << 30
    assert mpf_check(wrong_proof) == [f"{case_id} (Vdmpf)"]
