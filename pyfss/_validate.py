"""Checks of user input, in one place, with messages that name the argument.

The messages begin as fss_crypto's do for the same mistakes, so code written against
fss_crypto keeps catching the same exceptions.
"""

from __future__ import annotations

import operator

import torch

from ._groups import to_words

GROUPS = ("bytes", "uint", "uint32", "uint64", "uint127")
PRGS = ("chacha", "aes128_mmo")
PREDS = ("lt", "gt")

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def in_bits(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"in_bits must be an int, got {type(value).__name__}")
    if not 1 <= value <= 128:
        raise ValueError(f"in_bits must be between 1 and 128, got {value}")
    return value


def choice(name: str, value, allowed: tuple) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def group_for(group: str, bits: int) -> str:
    """Resolves fss_crypto's "uint" to the width it picks for in_bits."""
    if group != "uint":
        return group
    return "uint32" if bits <= 32 else "uint64" if bits <= 64 else "uint127"


def nonce(value) -> tuple[int, int]:
    try:
        words = tuple(value)
    except TypeError:
        raise TypeError(f"nonce must be a pair of ints, got {type(value).__name__}") from None
    if len(words) != 2 or any(isinstance(w, bool) or not isinstance(w, int) for w in words):
        raise ValueError(f"nonce must be a pair of ints, got {value!r}")
    for w in words:
        if not _INT32_MIN <= w <= _INT32_MAX:
            raise ValueError(f"nonce words must be in the int32 range, got {w}")
    return words


def aes_keys(value, count: int) -> tuple[bytes, ...]:
    try:
        keys = tuple(value)
    except TypeError:
        raise TypeError(f"aes_keys must be a sequence of {count} bytes objects") from None
    if len(keys) != count:
        raise ValueError(f"aes_keys must hold {count} keys, got {len(keys)}")
    for k in keys:
        if not isinstance(k, (bytes, bytearray)) or len(k) != 16:
            raise ValueError(f"aes_keys must be 16-byte bytes objects, got {k!r}")
    return tuple(bytes(k) for k in keys)


def party(value) -> int:
    if type(value) is not int or value not in (0, 1):
        raise ValueError(f"party must be 0 or 1, got {value!r}")
    return value


def int32_tensor(name: str, t, tail: tuple, what: str) -> torch.Tensor:
    """t must be an int32 tensor whose shape ends in tail; returns it contiguous.

    Non-contiguous tensors are accepted and copied: a view (a slice, a transpose) is
    as valid an input as the tensor it came from. (Written for speed: it runs on
    every call, and each tensor attribute costs about 0.1 us.)
    """
    if isinstance(t, torch.Tensor):
        shape = t.shape
        n = len(tail)
        if (
            t.dtype is torch.int32
            and len(shape) >= n
            and shape[-1] == tail[-1]
            and (n == 1 or shape[-2] == tail[0])
        ):
            return t if t.is_contiguous() else t.contiguous()
        got = f"shape {tuple(shape)} dtype {t.dtype}"
    else:
        got = type(t).__name__
    raise TypeError(
        f"{name} must be a {what} int32 tensor (with optional leading batch dimensions), got {got}"
    )


CPU = torch.device("cpu")


def device_of(*tensors: torch.Tensor) -> torch.device:
    """The tensors' common device (all on the CPU is the common case, checked first)."""
    for t in tensors:
        if not t.is_cpu:
            break
    else:
        return CPU
    device = tensors[0].device
    if any(t.device != device for t in tensors[1:]):
        found = ", ".join(sorted({str(t.device) for t in tensors}))
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, {found}!"
        )
    return device


def output(out, like: torch.Tensor, shape: tuple) -> torch.Tensor:
    """A new int32 tensor of shape on like's device, or out checked to be one that
    the Go core can write in place."""
    if out is None:
        return like.new_empty(*shape)  # varargs: a size tuple parses 1 us slower
    if (
        not isinstance(out, torch.Tensor)
        or out.dtype is not torch.int32
        or tuple(out.shape) != shape
    ):
        got = (
            f"shape {tuple(out.shape)} dtype {out.dtype}"
            if isinstance(out, torch.Tensor)
            else type(out).__name__
        )
        raise TypeError(f"out must be a {shape} int32 tensor, got {got}")
    if not out.is_contiguous():
        raise TypeError("out must be contiguous: results are written into its memory")
    if out.device != like.device:
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, {like.device}, {out.device}!"
        )
    return out


def batch_match(name: str, t: torch.Tensor, batch: tuple, tail: int) -> None:
    got = t.shape[: t.dim() - tail]
    if got != batch:
        raise TypeError(f"{name} has batch shape {got}, but the keys have batch shape {batch}")


class Inputs:
    """Alpha or x in the form the Go core reads: a scalar (words 0, lo, hi) or a tensor
    of words 32-bit words per input (1: int32, 2: int64, 4: int32 words)."""

    __slots__ = ("hi", "lo", "shape", "tensor", "words")

    def __init__(self, tensor, words, lo, hi, shape):
        self.tensor, self.words, self.lo, self.hi, self.shape = tensor, words, lo, hi, shape

    @property
    def ptr(self) -> int:
        return 0 if self.tensor is None else self.tensor.data_ptr()

    def on_device(self, device, batch: tuple) -> Inputs:
        """The same inputs as a tensor (the GPU kernels take no scalars): a Python int
        becomes one (batch..., 4) words tensor on device."""
        if self.tensor is not None:
            return self
        t = to_words(self.lo | self.hi << 64, device)
        return Inputs(t.expand(*batch, 4).contiguous(), 4, 0, 0, batch)


def inputs(name: str, value, bits: int) -> Inputs:
    """Reads alpha or x: a Python int, or an int32/int64 tensor (see the README for
    which form applies at which in_bits)."""
    if type(value) is not int:  # a Python int is the common case: checked last, directly
        if isinstance(value, bool) or (
            isinstance(value, torch.Tensor) and value.dtype == torch.bool
        ):
            raise TypeError(f"{name} must be an integer or an integer tensor, not bool")
        if isinstance(value, torch.Tensor):
            return tensor_inputs(name, value, bits)
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError(
                f"{name} must be an integer or an integer tensor, got {type(value).__name__}"
            ) from None
    if not 0 <= value < 1 << bits:
        raise ValueError(f"{name} must be in [0, 2^{bits}), got {value}")
    return Inputs(None, 0, value & (2**64 - 1), value >> 64, ())


def tensor_inputs(name: str, value: torch.Tensor, bits: int) -> Inputs:
    if value.dtype == torch.int32 and bits <= 32:
        return Inputs(value.contiguous(), 1, 0, 0, tuple(value.shape))
    if value.dtype == torch.int64 and bits <= 63:
        return Inputs(value.contiguous(), 2, 0, 0, tuple(value.shape))
    if value.dtype == torch.int32 and value.dim() >= 1 and value.shape[-1] == 4:
        return Inputs(value.contiguous(), 4, 0, 0, tuple(value.shape[:-1]))
    raise TypeError(
        f"{name} must be an int32 tensor (in_bits <= 32), an int64 tensor (in_bits <= 63) "
        f"or a (..., 4) int32 tensor of little-endian words, got dtype {value.dtype} "
        f"shape {tuple(value.shape)} for in_bits {bits}"
    )
