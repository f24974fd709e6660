"""Every Half-Tree DPF and Grotto DCF known-answer case, through the Python API."""

import hashlib

import pytest
import torch
from vectors import (
    GROTTO_FILES,
    HALF_TREE_FILES,
    block,
    check_eval_all,
    load_vectors,
    prg_kwargs,
)

import pyfss


def cases(files):
    for name in files:
        f = load_vectors(name)
        for case in f["cases"]:
            yield pytest.param(f, case, id=case["id"])


@pytest.mark.parametrize(("f", "case"), list(cases(HALF_TREE_FILES)))
def test_half_tree_case(f, case):
    s = pyfss.HalfTreeDpf(
        case["in_bits"], case["group"], f["prg"]["name"], hash_key=f["hash_key"], **prg_kwargs(f)
    )
    seeds = block(case["seeds"])
    beta = block(case["beta"])
    if case["group"] == "bytes" and case["beta"][3] & 1:
        with pytest.raises(ValueError, match="beta: key 0: bit 0 of word 3 is reserved"):
            s.gen(seeds, int(case["alpha"]), beta)
        beta[3] &= ~1  # the element the reference's Gen encodes
    cws = s.gen(seeds, int(case["alpha"]), beta)
    rows, ocw = s.to_reference(cws)
    assert rows.tolist() == case["cws"]
    assert ocw.tolist() == case["ocw"]
    # The vectors' keys, converted, are the keys Gen made.
    assert torch.equal(s.from_reference(block(case["cws"]), block(case["ocw"])), cws)

    for e in case["evals"]:
        x = int(e["x"])
        for party, want in enumerate((e["y0"], e["y1"])):
            assert s.eval(party, seeds[party], cws, x).tolist() == want, (party, x)
    points = [int(e["x"]) for e in case["evals"]]
    # All points in one call, as int64 values where they fit, else int32 words.
    xs = torch.tensor(points) if case["in_bits"] <= 63 else pyfss.to_words(points)
    for party, key in ((0, "y0"), (1, "y1")):
        assert s.eval(party, seeds[party], cws, xs).tolist() == [e[key] for e in case["evals"]]

    check_eval_all(s, case, seeds, cws)


def bits(t):
    return "".join("1" if b else "0" for b in t.tolist())


@pytest.mark.parametrize(("f", "case"), list(cases(GROTTO_FILES)))
def test_grotto_case(f, case):
    s = pyfss.GrottoDcf(case["in_bits"], f["prg"]["name"], **prg_kwargs(f))
    seeds = block(case["seeds"])
    cws = s.gen(seeds, int(case["alpha"]))
    assert cws.tolist() == case["cws"]

    pre = [s.preprocess(p, seeds[p], cws) for p in (0, 1)]
    xs = torch.tensor([int(e["x"]) for e in case["evals"]])
    for party, key in ((0, "y0"), (1, "y1")):
        assert s.eval(pre[party], xs).tolist() == [e[key] for e in case["evals"]]
        assert s.eval(pre[party], int(case["evals"][0]["x"])).item() is case["evals"][0][key]
    last = (1 << case["in_bits"]) - 1
    assert [s.eval(pre[p], last).item() for p in (0, 1)] == case["parity_root"]

    ea = case["eval_all"]
    for party in (0, 1):
        out = s.eval_all(party, seeds[party], cws)
        assert out.shape == (ea["n"],) and out.dtype == torch.bool
        assert hashlib.sha256(out.numpy().tobytes()).hexdigest() == ea["sha256"][party]
        assert bits(out[: len(ea["first_bits"][party])]) == ea["first_bits"][party]
        assert bits(out[-len(ea["last_bits"][party]) :]) == ea["last_bits"][party]
