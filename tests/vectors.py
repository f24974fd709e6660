import hashlib
import json
import random
from pathlib import Path

import pytest
import torch

import pyfss

VECTORS = Path(__file__).resolve().parent.parent / "gofss" / "testdata" / "vectors"

TREE_FILES = [
    "dpf_chacha.json",
    "dpf_aes128_mmo.json",
    "dcf_lt_chacha.json",
    "dcf_lt_aes128_mmo.json",
    "dcf_gt_chacha.json",
    "dcf_gt_aes128_mmo.json",
]

HALF_TREE_FILES = ["half_tree_dpf_chacha.json", "half_tree_dpf_aes128_mmo.json"]
GROTTO_FILES = ["grotto_dcf_chacha.json", "grotto_dcf_aes128_mmo.json"]


def prg_kwargs(f):
    """The public PRG parameters of a vector file, as the constructors take them."""
    prg = f["prg"]
    if prg["name"] == "chacha":
        return {"nonce": tuple(prg["nonce"])}
    return {"aes_keys": [bytes.fromhex(h) for h in prg["aes_keys_hex"]]}


def load_vectors(name):
    path = VECTORS / name
    if not path.exists():
        pytest.fail(f"known-answer vectors missing: {path}")
    return json.loads(path.read_text())


def block(words):
    return torch.tensor(words, dtype=torch.int32)


def check_eval_all(s, case, seeds, cws):
    """A case's eval_all answers, where it has them: each party's output shape, the
    SHA-256 of its memory image, its first and last blocks."""
    if "eval_all" not in case:
        return
    ea = case["eval_all"]
    for party in (0, 1):
        out = s.eval_all(party, seeds[party], cws)
        assert out.shape == (ea["n"], 4)
        assert hashlib.sha256(out.numpy().tobytes()).hexdigest() == ea["sha256"][party]
        assert out[: len(ea["first"][party])].tolist() == ea["first"][party]
        assert out[-len(ea["last"][party]) :].tolist() == ea["last"][party]


cuda = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)"
)


def loaded_mutations(
    blob: bytes,
    seed: int,
    count: int = 300,
    *,
    load=pyfss.load_key,
    refused: tuple = (ValueError, TypeError),
    hot: tuple[int, int] | None = None,
):
    """What load (by default pyfss.load_key: (scheme, key)) makes of each of count
    random changes of 1-4 bytes to a serialized key that it accepts; the others must
    raise one of refused. With hot, a byte range (start, stop), half the changes flip
    a bit in it: a format's structure (a pickle's names, dtypes and shapes), which a
    random byte mostly breaks, and a flipped bit turns into another structure that
    loads. Ends by checking that some loaded, so that a caller's checks of them ran."""
    rng = random.Random(seed)
    loaded = 0
    for _ in range(count):
        data = bytearray(blob)
        for _ in range(rng.randint(1, 4)):
            if hot is not None and rng.random() < 0.5:
                data[rng.randrange(*hot)] ^= 1 << rng.randrange(8)
            else:
                data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            made = load(bytes(data))
        except refused:
            continue
        loaded += 1
        yield made
    assert loaded > 0
