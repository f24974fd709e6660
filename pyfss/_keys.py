"""One party's key(s) with the public parameters they need, and their byte format.

Format (version 1), all integers little-endian:
    8 bytes   magic b"PYFSSKEY"
    2 bytes   format version (1)
    4 bytes   length L of the header
    L bytes   header: UTF-8 JSON {"params": {...}, "party": 0|1, "batch": [...]}
    16*K      the party's seeds, K = prod(batch) blocks of 4 int32
    32*K*(n+1) the correction words, (n + 1) rows of 8 int32 per key
"""

from __future__ import annotations

import ctypes
import json
import math
import struct
import sys
from dataclasses import dataclass

import torch

MAGIC = b"PYFSSKEY"
VERSION = 1
_PREFIX = struct.Struct("<8sHI")

# Tensors are written as their memory image, which is the little-endian format only
# on little-endian hosts (all that PyTorch ships for).
assert sys.byteorder == "little", "pyfss keys are written on little-endian hosts only"


@dataclass(frozen=True)
class Key:
    """One party's key, or a batch of keys (leading dimensions of s0 and cws)."""

    params: dict
    party: int
    s0: torch.Tensor
    cws: torch.Tensor

    @property
    def batch_shape(self) -> tuple:
        return tuple(self.s0.shape[:-1])

    def to_bytes(self) -> bytes:
        header = json.dumps(
            {"params": self.params, "party": self.party, "batch": list(self.batch_shape)},
            sort_keys=True,
        ).encode()
        body = [_PREFIX.pack(MAGIC, VERSION, len(header)), header]
        for t in (self.s0, self.cws):
            t = t.detach().to("cpu", torch.int32).contiguous()
            body.append(ctypes.string_at(t.data_ptr(), 4 * t.numel()))
        return b"".join(body)

    @classmethod
    def from_bytes(cls, data: bytes, device="cpu") -> Key:
        """Parses to_bytes() output; the tensors are placed on device."""
        data = bytes(data)
        if len(data) < _PREFIX.size or data[:8] != MAGIC:
            raise ValueError("not a pyfss key: bad magic bytes")
        _, version, hlen = _PREFIX.unpack_from(data)
        if version != VERSION:
            raise ValueError(
                f"unsupported pyfss key format version {version} (this build reads {VERSION})"
            )
        try:
            header = json.loads(data[_PREFIX.size : _PREFIX.size + hlen])
            params, party, batch = header["params"], header["party"], tuple(header["batch"])
            rows = params["in_bits"] + 1
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"corrupt pyfss key header: {e}") from None
        k = math.prod(batch)
        body = data[_PREFIX.size + hlen :]
        if len(body) != 16 * k + 32 * k * rows:
            raise ValueError(
                f"corrupt pyfss key: {len(body)} bytes of key data, expected {16 * k + 32 * k * rows}"
            )
        words = torch.frombuffer(bytearray(body), dtype=torch.int32)
        s0 = words[: 4 * k].reshape(*batch, 4)
        cws = words[4 * k :].reshape(*batch, rows, 8)
        return cls(params, party, s0.to(device), cws.to(device))
