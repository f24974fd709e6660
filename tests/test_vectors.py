"""Every DPF and DCF known-answer case, through the Python API."""

import pytest
import torch
from vectors import TREE_FILES, block, check_eval_all, load_vectors

import pyfss


def scheme_for(f, case):
    prg = f["prg"]
    kw = {}
    if prg["name"] == "chacha":
        kw["nonce"] = tuple(prg["nonce"])
    else:
        kw["aes_keys"] = [bytes.fromhex(h) for h in prg["aes_keys_hex"]]
    if f["scheme"] == "dpf":
        return pyfss.Dpf(case["in_bits"], case["group"], prg["name"], **kw)
    return pyfss.Dcf(case["in_bits"], case["group"], prg["name"], f["pred"], **kw)


def cases():
    for name in TREE_FILES:
        f = load_vectors(name)
        for case in f["cases"]:
            yield pytest.param(f, case, id=case["id"])


def clamp(beta):
    """beta with the control bit (bit 0 of word 3) cleared: the element of the bytes
    group that Gen encodes when given beta."""
    out = beta.clone()
    out[3] &= ~1
    return out


@pytest.mark.parametrize(("f", "case"), list(cases()))
def test_case(f, case):
    s = scheme_for(f, case)
    seeds = block(case["seeds"])
    beta = block(case["beta"])
    if case["group"] == "bytes" and case["beta"][3] & 1:
        # The vectors' bytes-group betas with the reserved bit set: refused now, and
        # their clamped form gives the vectors' correction words.
        with pytest.raises(ValueError, match="beta: key 0: bit 0 of word 3 is reserved"):
            s.gen(seeds, int(case["alpha"]), beta)
        beta = clamp(beta)
    cws = s.gen(seeds, int(case["alpha"]), beta)
    assert cws.tolist() == case["cws"]

    for e in case["evals"]:
        x = int(e["x"])
        for party, want in enumerate((e["y0"], e["y1"])):
            assert s.eval(party, seeds[party], cws, x).tolist() == want, (party, x)

    check_eval_all(s, case, seeds, cws)


@pytest.mark.parametrize("name", TREE_FILES)
def test_batched_points_reproduce_vectors(name):
    """All eval points of a case in one call, in each of the input forms that the
    case's in_bits allows: int32 values up to 32 bits, int64 up to 63, int32 words
    (..., 4) above 32."""
    f = load_vectors(name)
    for case in f["cases"]:
        s = scheme_for(f, case)
        n = case["in_bits"]
        seeds = block(case["seeds"])
        cws = torch.tensor(case["cws"], dtype=torch.int32)
        xs = [int(e["x"]) for e in case["evals"]]
        forms = []
        if n > 32:
            forms.append(pyfss.to_words(xs))
        else:
            forms.append(
                torch.tensor([x - 2**32 if x >= 2**31 else x for x in xs], dtype=torch.int32)
            )
        if n <= 63:
            forms.append(torch.tensor(xs, dtype=torch.int64))
        for party, key in ((0, "y0"), (1, "y1")):
            want = [e[key] for e in case["evals"]]
            for x in forms:
                assert s.eval(party, seeds[party], cws, x).tolist() == want, (case["id"], x.dtype)
