"""Two parties over torch.distributed: opening masked values and exchanging shares,
with every message counted (bytes each way, rounds).

The caller sets up the process group (``torch.distributed.init_process_group``, e.g.
under torchrun): gloo moves CPU tensors, NCCL CUDA tensors; other ranks of the group
(say a dealer) may exist, ``peer`` names the other party's rank.

    party = Party(rank)              # party index = rank (0 or 1), peer = 1 - rank
    xhat = party.open(gate.mask(key, x_share))
    party.bytes_sent, party.rounds
"""

from __future__ import annotations

import ctypes
import math
import os

import torch
import torch.distributed as dist

from ._validate import party as _party

__all__ = ["Party", "random_ring", "share"]


class Party:
    """One of the two parties of a computation on additive shares.

    Args:
        party: this party's index, 0 or 1 (default: its rank in group).
        peer: the other party's rank in group (default: 1 - party).
        group: the process group (default: the default group).
    """

    def __init__(self, party: int | None = None, *, peer: int | None = None, group=None):
        self.party = _party(dist.get_rank(group) if party is None else party)
        self.peer = 1 - self.party if peer is None else peer
        self.group = group
        # NCCL moves tensors on this process's GPU, gloo on the CPU.
        self.device = torch.device("cuda") if dist.get_backend(group) == "nccl" else None
        self.bytes_sent = self.bytes_received = 0
        self.rounds = 0

    def open(self, share: torch.Tensor) -> torch.Tensor:
        """The sum of this party's share and the peer's: one round, each party sending
        its share."""
        return share + self.exchange(share)

    def exchange(self, t: torch.Tensor) -> torch.Tensor:
        """Sends t to the peer while receiving the peer's tensor of the same shape and
        dtype (one round); returns it on t's device."""
        wire = self._wire(t)
        got = torch.empty_like(wire)
        sending = dist.isend(wire, self.peer, group=self.group)
        dist.recv(got, self.peer, group=self.group)
        if sending is not None:  # None only for a rank outside the group
            sending.wait()
        self.rounds += 1
        self.bytes_sent += _size(wire)
        self.bytes_received += _size(got)
        return got.to(t.device)

    def send(self, t: torch.Tensor) -> None:
        """One-way message to the peer (counted, not a round of the online phase)."""
        wire = self._wire(t)
        dist.send(wire, self.peer, group=self.group)
        self.bytes_sent += _size(wire)

    def recv(self, shape, dtype: torch.dtype, device="cpu") -> torch.Tensor:
        got = torch.empty(shape, dtype=dtype, device=self.device or "cpu")
        dist.recv(got, self.peer, group=self.group)
        self.bytes_received += _size(got)
        return got.to(device)

    def send_bytes(self, data: bytes) -> None:
        """bytes (or any contiguous buffer: its bytes) to the peer (e.g.
        GateKey.to_bytes()), preceded by their count."""
        octets = memoryview(data).cast("B")  # before anything is sent: a str raises here
        self.send(torch.tensor([len(octets)], dtype=torch.int64))
        if octets:
            self.send(torch.frombuffer(bytearray(octets), dtype=torch.uint8))

    def recv_bytes(self) -> bytes:
        n = int(self.recv(1, torch.int64)[0])
        return _tensor_bytes(self.recv(n, torch.uint8)) if n else b""

    def stats(self) -> dict:
        return {"rounds": self.rounds, "sent": self.bytes_sent, "received": self.bytes_received}

    def _wire(self, t: torch.Tensor) -> torch.Tensor:
        return t.detach().to(self.device or "cpu").contiguous()


def share(x: torch.Tensor, generator: torch.Generator | None = None):
    """Additive shares (x0, x1) of an int32 / int64 tensor x, x0 uniform (from
    generator, else os.urandom), x1 = x - x0 (wrapping, as the ring Z_2^N does)."""
    x0 = random_ring(x.shape, x.dtype, generator, x.device)
    return x0, x - x0


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


def _tensor_bytes(t: torch.Tensor) -> bytes:
    """The bytes of t's values in memory order (row-major, native byte order)."""
    t = t.detach().cpu().resolve_neg().resolve_conj().contiguous()
    return ctypes.string_at(t.data_ptr(), _size(t)) if t.numel() else b""


def _size(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()
