"""Between output blocks and integer tensors, for the arithmetic groups.

A share of the uint32 group is word 0 of its block; of uint64, words 0 and 1 (low,
high). Shares add up modulo 2^32 or 2^64, which is what int32 and int64 tensor
addition does (two's complement wraps around), so to_int turns output blocks into
tensors that can be added, subtracted and fed to other MPC code directly.
"""

from __future__ import annotations

import torch


def to_int(y: torch.Tensor, group: str) -> torch.Tensor:
    """(..., 4) int32 output blocks -> (...) int32 (group uint32) or int64 (uint64)
    shares. The values are the group elements in two's complement: a uint32 share of
    2^32 - 1 reads as -1."""
    if not isinstance(y, torch.Tensor) or y.dtype != torch.int32 or y.dim() < 1 or y.shape[-1] != 4:
        raise TypeError("y must be a (..., 4) int32 tensor of output blocks")
    if group == "uint32":
        return y[..., 0].clone()
    if group == "uint64":
        return y[..., :2].contiguous().view(torch.int64).squeeze(-1)
    raise ValueError(f"group must be one of ('uint32', 'uint64') for to_int, got {group!r}")


def from_int(values, group: str) -> torch.Tensor:
    """Integers (a Python int or an int32/int64 tensor) -> (..., 4) int32 blocks of
    the uint32 or uint64 group, e.g. to use as beta. Values are taken modulo 2^32 or
    2^64."""
    if group not in ("uint32", "uint64"):
        raise ValueError(f"group must be one of ('uint32', 'uint64') for from_int, got {group!r}")
    if isinstance(values, bool) or (
        isinstance(values, torch.Tensor) and values.dtype == torch.bool
    ):
        raise TypeError("values must be integers, not bool")
    if isinstance(values, int):
        values = torch.tensor(values - 2**64 if values >= 2**63 else values, dtype=torch.int64)
    if not isinstance(values, torch.Tensor) or values.dtype not in (torch.int32, torch.int64):
        raise TypeError("values must be an int or an int32/int64 tensor")
    out = torch.zeros(*values.shape, 4, dtype=torch.int32, device=values.device)
    wide = (
        values.to(torch.int64).unsqueeze(-1).contiguous().view(torch.int32)
    )  # (..., 2): low, high
    out[..., 0] = wide[..., 0]
    if group == "uint64":
        out[..., 1] = wide[..., 1]
    return out


def to_words(values, device="cpu") -> torch.Tensor:
    """Python ints in [0, 2^128) -> (..., 4) int32 little-endian words, the input
    form for in_bits > 63. values is an int or a (nested) sequence of ints."""
    if isinstance(values, int) and not isinstance(values, bool):
        if not 0 <= values < 2**128:
            raise ValueError(f"values must be in [0, 2^128), got {values}")
        words = [(values >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
        return torch.tensor(
            [w - 2**32 if w >= 2**31 else w for w in words], dtype=torch.int32, device=device
        )
    try:
        items = list(values)
    except TypeError:
        raise TypeError(
            f"values must be ints or sequences of ints, got {type(values).__name__}"
        ) from None
    if not items:
        return torch.empty(0, 4, dtype=torch.int32, device=device)
    return torch.stack([to_words(v, device) for v in items])
