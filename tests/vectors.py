import json
from pathlib import Path

import pytest
import torch

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


cuda = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)"
)
