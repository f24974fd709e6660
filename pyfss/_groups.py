"""Between integers and blocks: output blocks of the arithmetic groups, and inputs
wider than 64 bits.

Two encodings of integers into (..., 4) int32 blocks are in use:
- the group encoding of outputs and betas (from_int, to_int): uint32 in word 0,
  uint64 in words 0-1, uint127 in words 0-2 and, shifted up by one, word 3 (bit 0 of
  word 3 is the control bit, never part of a value);
- the plain little-endian encoding of inputs alpha and x (to_words): 128 bits in
  words 0-3.

uint32 and uint64 shares add up modulo 2^32 or 2^64, which is what int32 and int64
tensor addition does (two's complement wraps around), so to_int turns their output
blocks into tensors that can be added, subtracted and fed to other MPC code
directly. uint127 has no tensor type: to_int gives Python ints.
"""

from __future__ import annotations

import torch

_WIDTHS = {"uint32": 32, "uint64": 64, "uint127": 127}
_MASK32 = 0xFFFFFFFF


def to_int(y: torch.Tensor, group: str):
    """Output blocks (..., 4) int32 -> the group elements they encode (the group
    encoding; see the module docstring).

    uint32: an int32 tensor (...) and uint64: an int64 tensor (...), in two's
    complement (a uint32 share of 2^32 - 1 reads as -1); shares add up as tensors.
    uint127: a Python int in [0, 2^127) for one block, else nested lists of them;
    shares add up modulo 2^127."""
    if not isinstance(y, torch.Tensor) or y.dtype != torch.int32 or y.dim() < 1 or y.shape[-1] != 4:
        raise TypeError("y must be a (..., 4) int32 tensor of output blocks")
    if group == "uint32":
        return y[..., 0].clone()
    if group == "uint64":
        return y[..., :2].contiguous().view(torch.int64).squeeze(-1)
    if group == "uint127":
        return _uint127_values(y.tolist())
    raise ValueError(f"group must be one of {tuple(_WIDTHS)} for to_int, got {group!r}")


def from_int(values, group: str) -> torch.Tensor:
    """Integers -> (..., 4) int32 blocks of the group encoding (see the module
    docstring), e.g. to use as beta. values are a Python int, a (nested) sequence of
    Python ints or an int32/int64 tensor, taken modulo 2^32, 2^64 or 2^127 (negative
    values included, so -1 is the group's largest element)."""
    if group not in _WIDTHS:
        raise ValueError(f"group must be one of {tuple(_WIDTHS)} for from_int, got {group!r}")
    if isinstance(values, bool) or (
        isinstance(values, torch.Tensor) and values.dtype == torch.bool
    ):
        raise TypeError("values must be integers, not bool")
    if isinstance(values, torch.Tensor):
        if values.dtype not in (torch.int32, torch.int64):
            raise TypeError(f"values must be an int32 or int64 tensor, got {values.dtype}")
        return _tensor_blocks(values, group)
    if isinstance(values, int):
        return torch.tensor(_int_words(values % (1 << _WIDTHS[group])), dtype=torch.int32)
    items = _items(values)
    if not items:
        return torch.empty(0, 4, dtype=torch.int32)
    return torch.stack([from_int(v, group) for v in items])


def to_words(values, device="cpu") -> torch.Tensor:
    """Python ints in [0, 2^128) -> (..., 4) int32 words of the plain little-endian
    encoding (word i holds bits 32i..32i+31, as int32), the form of alpha and x tensors
    above in_bits 32 (the only one above 63). values is an int or a (nested) sequence of ints. Not the group
    encoding of outputs: for betas and shares use from_int / to_int."""
    if isinstance(values, int) and not isinstance(values, bool):
        if not 0 <= values < 2**128:
            raise ValueError(f"values must be in [0, 2^128), got {values}")
        words = [_signed((values >> (32 * i)) & _MASK32) for i in range(4)]
        return torch.tensor(words, dtype=torch.int32, device=device)
    items = _items(values)
    if not items:
        return torch.empty(0, 4, dtype=torch.int32, device=device)
    return torch.stack([to_words(v, device) for v in items])


def _tensor_blocks(values: torch.Tensor, group: str) -> torch.Tensor:
    # Sign-extended to 64 bits: the low words of v mod 2^64, and for uint127 the
    # high ones too (all ones for a negative value, whose top 31 bits sit in word 3
    # shifted up by one: -2).
    wide = values.to(torch.int64).unsqueeze(-1).contiguous().view(torch.int32)  # low, high
    out = torch.zeros(*values.shape, 4, dtype=torch.int32, device=values.device)
    out[..., 0] = wide[..., 0]
    if group != "uint32":
        out[..., 1] = wide[..., 1]
    if group == "uint127":
        sign = (values < 0).to(torch.int32)
        out[..., 2] = -sign
        out[..., 3] = -2 * sign
    return out


def _int_words(v: int) -> list[int]:
    """The four int32 words of the group encoding of 0 <= v < 2^127 (of a smaller
    group's element too: its high words are 0)."""
    words = [v & _MASK32, (v >> 32) & _MASK32, (v >> 64) & _MASK32, (v >> 96) << 1]
    return [_signed(w) for w in words]


def _uint127_values(blocks: list):
    """Blocks as nested lists of int32 words -> the uint127 values, nested alike."""
    if blocks and isinstance(blocks[0], int):
        w = [x & _MASK32 for x in blocks]
        return w[0] | w[1] << 32 | w[2] << 64 | (w[3] >> 1) << 96
    return [_uint127_values(b) for b in blocks]


def _items(values) -> list:
    if isinstance(values, (str, bytes, bytearray, bool)):
        raise TypeError(f"values must be ints or sequences of ints, got {type(values).__name__}")
    try:
        return list(values)
    except TypeError:
        raise TypeError(
            f"values must be ints or sequences of ints, got {type(values).__name__}"
        ) from None


def _signed(w: int) -> int:
    return w - (1 << 32) if w >= 1 << 31 else w
