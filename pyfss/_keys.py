"""One party's key(s) with the public parameters they need, and their byte format.

Format (version 1), all integers little-endian:
    8 bytes   magic b"PYFSSKEY"
    2 bytes   format version (1)
    4 bytes   length L of the header (at most MAX_HEADER)
    L bytes   header: UTF-8 JSON {"params": {...}, "party": 0|1, "batch": [...]}
              params: the complete parameter record (see _params), party: an
              integer, batch: the batch shape, a list of non-negative integers
    16*K*S    the party's seeds, K = prod(batch) keys of S blocks of 4 int32: S = 1,
              but for dmpf and vdmpf the key's buckets (one seed each)
    32*K*R    the correction words, R rows of 8 int32 per key: the scheme's
              correction-word rows (in_bits + 1; (in_bits + 2) // 2 for
              half_tree_dpf), as the Go core gives them
Both sides check every field: to_bytes writes only keys that load, and loading
refuses anything else with a ValueError naming the field.
"""

from __future__ import annotations

import ctypes
import json
import math
import struct
import sys
from dataclasses import dataclass

import torch

from . import _validate as v
from ._params import Handle

MAGIC = b"PYFSSKEY"
VERSION = 1
#: A header is about 200 bytes; a longer one is not a key's.
MAX_HEADER = 1 << 16
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
        return tuple(self.s0.shape[: self.s0.dim() - len(_seed_tail(self.params))])

    def to_bytes(self) -> bytes:
        """The key in the format above. Refuses (ValueError, TypeError) a Key that
        would not load: parameters, party, or tensors of another dtype or shape."""
        try:
            v.params_record(self.params)
            v.party(self.party)
            rows = (Handle(self.params).cw_rows, 8)
            tail = _seed_tail(self.params)
            v.int32_tensor("s0", self.s0, tail, str(tail))
            v.int32_tensor("cws", self.cws, rows, f"(cw_rows, 8) = {rows}")
            v.batch_match("cws", self.cws, self.batch_shape, 2)
        except (ValueError, TypeError) as e:
            raise type(e)(f"Key.to_bytes: {e}") from None
        header = json.dumps(
            {"params": self.params, "party": v.party(self.party), "batch": list(self.batch_shape)},
            sort_keys=True,
        ).encode()
        body = [_PREFIX.pack(MAGIC, VERSION, len(header)), header]
        for t in (self.s0, self.cws):
            t = v.dense(t.detach().cpu())
            body.append(ctypes.string_at(t.data_ptr(), 4 * t.numel()) if t.numel() else b"")
        return b"".join(body)

    @classmethod
    def from_bytes(cls, data: bytes, device="cpu") -> Key:
        """Parses to_bytes() output, checking every field; the tensors are placed on
        device."""
        data = bytes(data)
        if len(data) < _PREFIX.size or data[:8] != MAGIC:
            raise ValueError("not a pyfss key: bad magic bytes")
        _, version, hlen = _PREFIX.unpack_from(data)
        if version != VERSION:
            raise ValueError(
                f"unsupported pyfss key format version {version} (this build reads {VERSION})"
            )
        try:
            params, party, batch = _read_header(data[_PREFIX.size : _PREFIX.size + hlen], hlen)
        except ValueError as e:
            raise ValueError(f"corrupt pyfss key header: {e}") from None
        k, rows = math.prod(batch), Handle(params).cw_rows
        tail = _seed_tail(params)
        # torch computes strides in int64: a shape whose element count (zero dimensions
        # taken as one) reaches 2^63 cannot be made, even empty.
        if math.prod(max(d, 1) for d in batch) * max(8 * rows, math.prod(tail)) >= 1 << 62:
            raise ValueError(f"corrupt pyfss key header: batch {list(batch)} is too large")
        seeds = k * math.prod(tail) // 4
        body = data[_PREFIX.size + hlen :]
        if len(body) != 16 * seeds + 32 * k * rows:
            raise ValueError(
                f"corrupt pyfss key: {len(body)} bytes of key data, expected {16 * seeds + 32 * k * rows}"
            )
        words = (
            torch.frombuffer(bytearray(body), dtype=torch.int32)
            if body
            else torch.empty(0, dtype=torch.int32)  # frombuffer refuses an empty buffer
        )
        s0 = words[: 4 * seeds].reshape(*batch, *tail)
        cws = words[4 * seeds :].reshape(*batch, rows, 8)
        return cls(params, party, s0.to(device), cws.to(device))


_new_instance = object.__new__


def made_key(params: dict, party: int, s0: torch.Tensor, cws: torch.Tensor) -> Key:
    """Key(params, party, s0, cws) for a one-key keygen: a frozen dataclass's __init__
    sets each field through object.__setattr__, 0.45 us a Key against 0.18 for
    writing them into the new instance's dict, as here. The same fields, still
    frozen; a test checks this against Key()."""
    k = _new_instance(Key)
    d = k.__dict__
    d["params"] = params
    d["party"] = party
    d["s0"] = s0
    d["cws"] = cws
    return k


def _seed_tail(params) -> tuple:
    """The shape of one key's seeds: (4,), or (buckets, 4) for dmpf and vdmpf."""
    buckets = Handle(params).buckets if params.get("scheme") in ("dmpf", "vdmpf") else None
    return (4,) if buckets is None else (buckets, 4)


def _read_header(raw: bytes, length: int) -> tuple[dict, int, tuple]:
    """(params, party, batch) from the header's bytes; ValueError naming the field."""
    if length > MAX_HEADER:
        raise ValueError(f"its length {length} is over {MAX_HEADER} bytes")
    try:
        header = json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as e:  # UnicodeDecodeError and JSONDecodeError among them
        raise ValueError(f"not JSON: {e}") from None
    return v.key_header(header)
