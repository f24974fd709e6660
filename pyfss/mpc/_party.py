"""One of two parties on additive shares: opening masked values and exchanging shares,
with every message counted (rounds, bytes each way, bytes from the dealer), overall
and per named layer.

Over torch.distributed, the caller sets up the process group
(``torch.distributed.init_process_group``, e.g. under torchrun): gloo moves CPU
tensors, NCCL CUDA tensors; other ranks of the group (say a dealer) may exist,
``peer`` names the other party's rank. ``run_local`` (pyfss.mpc) connects two parties
in threads of one process instead.

    party = Party(rank)              # party index = rank (0 or 1), peer = 1 - rank
    xhat = party.open(gate.mask(key, x_share))
    party.bytes_sent, party.rounds, party.counters()
"""

from __future__ import annotations

import contextlib

import torch
import torch.distributed as dist

from .._ring import nbytes, tensor_bytes
from .._validate import integer
from .._validate import party as _party
from ..gates import GateKey
from ._dealer import Request

#: The counters of one layer (and of the total), in the order tables show them.
COUNTERS = ("rounds", "sent", "received", "dealer")
TOTAL = "total"


class Party:
    """One of the two parties of a computation on additive shares.

    Args:
        party: this party's index, 0 or 1 (default: its rank in group).
        peer: the other party's rank in group (default: 1 - party).
        group: the process group (default: the default group).
        dealer: where correlated randomness comes from (a pyfss.mpc.DealerRank or
            KeyFile), for ``fetch`` and ``gate_key``; None if the computation needs none.
    """

    def __init__(
        self, party: int | None = None, *, peer: int | None = None, group=None, dealer=None
    ):
        index = _party(dist.get_rank(group) if party is None else party)
        self.peer = 1 - index if peer is None else peer
        self.group = group
        self._setup(index, _DistWire(self.peer, group), dealer)

    @classmethod
    def _over(cls, party: int, wire, dealer) -> Party:
        """A party whose messages go over wire (exchange / send / recv)."""
        self = cls.__new__(cls)
        self.peer, self.group = 1 - party, None
        self._setup(party, wire, dealer)
        return self

    def _setup(self, party: int, wire, dealer) -> None:
        self.party = party
        self._wire = wire
        self.dealer = dealer
        self.device = wire.device
        self.bytes_sent = self.bytes_received = self.dealer_bytes = 0
        self.rounds = 0
        self._layers: list[str] = []
        self._per_layer: dict[str, dict] = {}

    def open(self, share: torch.Tensor) -> torch.Tensor:
        """The sum of this party's share and the peer's: one round, each party sending
        its share."""
        return share + self.exchange(share)

    def exchange(self, t: torch.Tensor) -> torch.Tensor:
        """Sends t to the peer while receiving the peer's tensor of the same shape and
        dtype (one round); returns it on t's device."""
        wire = self._on_wire(t)
        got = self._wire.exchange(wire)
        self._count(rounds=1, sent=nbytes(wire), received=nbytes(got))
        return got.to(t.device)

    def send(self, t: torch.Tensor) -> None:
        """One-way message to the peer (counted, not a round of the online phase)."""
        wire = self._on_wire(t)
        self._wire.send(wire)
        self._count(sent=nbytes(wire))

    def recv(self, shape, dtype: torch.dtype, device="cpu") -> torch.Tensor:
        got = self._wire.recv(tuple(shape) if hasattr(shape, "__len__") else (shape,), dtype)
        self._count(received=nbytes(got))
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
        return tensor_bytes(self.recv(n, torch.uint8)) if n else b""

    # -- the dealer ------------------------------------------------------------------

    def fetch(self, request) -> dict:
        """This party's half of the dealer's next item, which must be what request
        (a pyfss.mpc.Request) describes: its tensors by name."""
        if self.dealer is None:
            raise ValueError(f"party {self.party} has no dealer to ask for {request.tag}")
        tensors = self.dealer.next(self.party, request)
        self._count(dealer=sum(nbytes(t) for t in tensors.values()))
        return tensors

    def gate_key(self, gate, shape):
        """This party's GateKey for gate over a tensor of shape, from the dealer."""
        shape = tuple(integer("shape", n) for n in shape)
        tensors = self.fetch(Request.for_gate(gate, shape))
        return GateKey(gate.name, self.party, tensors, gate.fingerprint)

    # -- counters --------------------------------------------------------------------

    @contextlib.contextmanager
    def layer(self, name: str):
        """Counts what is sent and received inside the block under name too (nested
        layers as "outer/inner"), beside the totals."""
        if not isinstance(name, str) or not name or "/" in name:
            raise ValueError(f"layer name must be a non-empty str without '/', got {name!r}")
        if name == TOTAL and not self._layers:
            raise ValueError(f"layer name {TOTAL!r} is the totals' own")
        self._layers.append(name)
        self._per_layer.setdefault("/".join(self._layers), dict.fromkeys(COUNTERS, 0))
        try:
            yield self
        finally:
            self._layers.pop()

    def stats(self) -> dict:
        return {"rounds": self.rounds, "sent": self.bytes_sent, "received": self.bytes_received}

    def counters(self) -> dict:
        """{"total": {...}, layer: {...}, ...}: rounds, bytes sent to and received from
        the peer, and bytes of the dealer's items (their tensors, without framing)."""
        total = {**self.stats(), "dealer": self.dealer_bytes}
        return {TOTAL: total, **{k: dict(v) for k, v in self._per_layer.items()}}

    def table(self) -> str:
        """counters() as a text table, one row per layer and the total last."""
        rows = list(self.counters().items())
        rows.append(rows.pop(0))
        width = max(len("layer"), *(len(name) for name, _ in rows))
        lines = [f"{'layer':<{width}}" + "".join(f" {c:>12}" for c in COUNTERS)]
        for name, c in rows:
            lines.append(f"{name:<{width}}" + "".join(f" {c[k]:>12}" for k in COUNTERS))
        return "\n".join(lines)

    def _count(self, rounds=0, sent=0, received=0, dealer=0) -> None:
        self.rounds += rounds
        self.bytes_sent += sent
        self.bytes_received += received
        self.dealer_bytes += dealer
        for depth in range(1, len(self._layers) + 1):  # an outer layer counts its inner ones
            c = self._per_layer["/".join(self._layers[:depth])]
            c["rounds"] += rounds
            c["sent"] += sent
            c["received"] += received
            c["dealer"] += dealer

    def _on_wire(self, t: torch.Tensor) -> torch.Tensor:
        return t.detach().to(self.device or "cpu").contiguous()


class _DistWire:
    """Messages to the peer's rank over torch.distributed."""

    def __init__(self, peer: int, group):
        self.peer, self.group = peer, group
        # NCCL moves tensors on this process's GPU, gloo on the CPU.
        self.device = torch.device("cuda") if dist.get_backend(group) == "nccl" else None

    def exchange(self, wire: torch.Tensor) -> torch.Tensor:
        got = torch.empty_like(wire)
        sending = dist.isend(wire, self.peer, group=self.group)
        dist.recv(got, self.peer, group=self.group)
        if sending is not None:  # None only for a rank outside the group
            sending.wait()
        return got

    def send(self, wire: torch.Tensor) -> None:
        dist.send(wire, self.peer, group=self.group)

    def recv(self, shape: tuple, dtype: torch.dtype) -> torch.Tensor:
        got = torch.empty(shape, dtype=dtype, device=self.device or "cpu")
        dist.recv(got, self.peer, group=self.group)
        return got
