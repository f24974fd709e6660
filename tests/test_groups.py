"""from_int / to_int speak each group's encoding; to_words the plain input encoding.
Expected words are written out by hand from the encodings in pyfss/_groups.py."""

import pytest
import torch

import pyfss

I32 = torch.int32
SEEDS = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=I32)


def words(*w):
    return torch.tensor(w, dtype=I32)


@pytest.mark.parametrize(
    ("value", "group", "want"),
    [
        (2**65, "uint64", words(0, 0, 0, 0)),
        (2**65 + 7, "uint64", words(7, 0, 0, 0)),
        (2**64 - 1, "uint64", words(-1, -1, 0, 0)),
        (-1, "uint64", words(-1, -1, 0, 0)),
        (-(2**64) - 2, "uint64", words(-2, -1, 0, 0)),
        (2**32 + 5, "uint32", words(5, 0, 0, 0)),
        (-1, "uint32", words(-1, 0, 0, 0)),
        (2**126 + 12345, "uint127", words(12345, 0, 0, -(2**31))),
        (2**127 + 7, "uint127", words(7, 0, 0, 0)),
        (2**96 + 2**64 + 3, "uint127", words(3, 0, 1, 2)),
        (-1, "uint127", words(-1, -1, -1, -2)),
    ],
)
def test_from_int_reduces_python_ints_modulo_the_group(value, group, want):
    assert torch.equal(pyfss.from_int(value, group), want)


def test_from_int_of_tensors_and_sequences():
    t = torch.tensor([-1, 5])
    assert torch.equal(
        pyfss.from_int(t, "uint127"), torch.stack([words(-1, -1, -1, -2), words(5, 0, 0, 0)])
    )
    assert torch.equal(
        pyfss.from_int(t.to(I32), "uint64"), torch.stack([words(-1, -1, 0, 0), words(5, 0, 0, 0)])
    )
    assert torch.equal(
        pyfss.from_int([[2**126], [1]], "uint127"),
        torch.stack([words(0, 0, 0, -(2**31)), words(1, 0, 0, 0)])[:, None],
    )
    assert pyfss.from_int([], "uint32").shape == (0, 4)
    with pytest.raises(ValueError, match="group must be one of"):
        pyfss.from_int(1, "bytes")
    with pytest.raises(TypeError, match="not bool"):
        pyfss.from_int(True, "uint32")


def test_to_int_of_uint127_gives_python_ints():
    assert pyfss.to_int(words(12345, 0, 0, -(2**31)), "uint127") == 2**126 + 12345
    assert pyfss.to_int(words(-1, -1, -1, -1), "uint127") == 2**127 - 1  # control bit ignored
    assert pyfss.to_int(torch.stack([words(1, 0, 0, 0), words(0, 0, 1, 2)]), "uint127") == [
        1,
        2**64 + 2**96,
    ]
    assert pyfss.to_int(torch.zeros(0, 4, dtype=I32), "uint127") == []


@pytest.mark.parametrize("cls", [pyfss.Dpf, pyfss.Dcf])
def test_uint127_shares_reconstruct_to_the_python_int(cls):
    value = 2**126 + 12345
    s = cls(16, "uint127", "aes128_mmo")
    k0, k1 = s.keygen(100, pyfss.from_int(value, "uint127"))
    x = torch.tensor([99, 100, 101], dtype=I32)
    y0 = pyfss.to_int(s.eval_key(k0, x), "uint127")
    y1 = pyfss.to_int(s.eval_key(k1, x), "uint127")
    got = [(a + b) % 2**127 for a, b in zip(y0, y1)]
    want = [0, value, 0] if cls is pyfss.Dpf else [value, 0, 0]
    assert got == want


def test_to_words_is_the_plain_little_endian_encoding():
    assert torch.equal(pyfss.to_words(2**100 + 2**32 + 1), words(1, 1, 0, 16))
    assert torch.equal(pyfss.to_words(2**128 - 1), words(-1, -1, -1, -1))
    # Not the uint127 group encoding, which moves the top word up by one bit.
    assert torch.equal(pyfss.from_int(2**100, "uint127"), words(0, 0, 0, 32))
