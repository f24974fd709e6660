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
