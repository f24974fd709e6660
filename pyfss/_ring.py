"""Ring elements as torch tensors, shared by the gates and the MPC layer: uniform
int32 / int64 values (the rings Z_2^32 and Z_2^64), additive shares and a tensor's
bytes."""

from __future__ import annotations

import ctypes
import math
import os

import torch


def random_ring(shape, dtype: torch.dtype, generator: torch.Generator | None = None, device="cpu"):
    """Uniform int32 / int64 values: from generator (reproducible, not cryptographic)
    or, by default, from os.urandom."""
    if dtype not in (torch.int32, torch.int64):
        raise TypeError(f"dtype must be torch.int32 or torch.int64, got {dtype}")
    words = (*shape, 2 if dtype == torch.int64 else 1)
    n = math.prod(words)
    if generator is not None:
        t = torch.randint(-(2**31), 2**31, words, dtype=torch.int32, generator=generator)
    elif n:
        t = torch.frombuffer(bytearray(os.urandom(4 * n)), dtype=torch.int32).reshape(words)
    else:
        t = torch.empty(words, dtype=torch.int32)
    return t.view(dtype).squeeze(-1).to(device)


def share(x: torch.Tensor, generator: torch.Generator | None = None):
    """Additive shares (x0, x1) of an int32 / int64 tensor x, x0 uniform (from
    generator, else os.urandom), x1 = x - x0 (wrapping, as the ring Z_2^N does)."""
    x0 = random_ring(x.shape, x.dtype, generator, x.device)
    return x0, x - x0


def tensor_bytes(t: torch.Tensor) -> bytes:
    """The bytes of t's values in memory order (row-major, native byte order)."""
    t = t.detach().cpu().resolve_neg().resolve_conj().contiguous()
    return ctypes.string_at(t.data_ptr(), nbytes(t)) if t.numel() else b""


def nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()
