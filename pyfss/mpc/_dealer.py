"""The dealer: correlated randomness for the two parties, made by a third party.

An item is what one Request describes: a Beaver triple (shares of uniform a, b and of
c = a * b, a @ b or conv2d(a, b), Beaver 1991) or a gate's keys (Gate.deal). The
dealer makes items in a fixed order and each party consumes its halves in that order;
every item carries its request's tag (kind, shapes, parameters, the gate's
fingerprint), and a party that asks for anything else gets a ValueError naming both.

How the halves travel:
- LocalDealer: in-process, for run_local; it deals on the first party's request and
  hands the other party the same item (its ``plan`` records the requests in order);
- serve(plan) on a rank of its own: streams each party its halves over
  torch.distributed, in plan order; the parties read them with DealerRank;
- write_key_files(plan, paths): one file per party, one frame per item; KeyFile reads
  it in order.
The parties count the items' tensor bytes (Party.counters()'s "dealer"), the same
whichever way they came.
"""

from __future__ import annotations

import io
import struct
import threading
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn.functional as F

from .._ring import random_ring, share
from .._validate import integer
from ..gates import Gate

RING = torch.int64
_FRAME = struct.Struct("<q")  # the length of each item's bytes


def _shape(name: str, shape) -> tuple:
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise TypeError(f"{name} must be a sequence of ints, got {type(shape).__name__}")
    shape = tuple(integer(name, n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"{name} must not hold negative sizes, got {shape}")
    return shape


def _pair(name: str, v) -> tuple:
    pair = (v, v) if isinstance(v, int) else tuple(v)
    if len(pair) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {v!r}")
    return tuple(integer(name, n) for n in pair)


@dataclass(frozen=True)
class Request:
    """What a party asks the dealer for: build with Request.mul / matmul / conv2d
    (Beaver triples for x op y, x and y of the given shapes) or Request.gate."""

    kind: str
    shapes: tuple
    params: tuple = ()
    gate: Gate | None = None

    @classmethod
    def mul(cls, x_shape, y_shape) -> Request:
        """A triple for x * y (shapes broadcast as torch does)."""
        return cls._triple("mul", x_shape, y_shape, ())

    @classmethod
    def matmul(cls, x_shape, y_shape) -> Request:
        """A triple for x @ y (torch.matmul's shapes)."""
        return cls._triple("matmul", x_shape, y_shape, ())

    @classmethod
    def conv2d(cls, x_shape, w_shape, stride=1, padding=0) -> Request:
        """A triple for conv2d(x, w, stride=stride, padding=padding), x (N, C, H, W), w
        (O, C, kH, kW)."""
        params = (_pair("stride", stride), _pair("padding", padding))
        if min(params[0]) < 1 or min(params[1]) < 0:
            raise ValueError(f"stride must be positive and padding not negative, got {params}")
        return cls._triple("conv2d", x_shape, w_shape, params)

    @classmethod
    def for_gate(cls, gate: Gate, shape) -> Request:
        """A gate's keys over a tensor of shape."""
        if not isinstance(gate, Gate):
            raise TypeError(f"gate must be a pyfss.gates.Gate, got {type(gate).__name__}")
        return cls("gate", (_shape("shape", shape),), (), gate)

    @classmethod
    def _triple(cls, kind, x_shape, y_shape, params) -> Request:
        r = cls(kind, (_shape("x_shape", x_shape), _shape("y_shape", y_shape)), params)
        try:  # the shapes must fit the operation
            r.apply(*(torch.empty(s, device="meta", dtype=torch.float32) for s in r.shapes))
        except RuntimeError as e:
            raise ValueError(f"shapes {r.shapes} do not fit {kind}: {e}") from None
        return r

    @property
    def tag(self) -> str:
        if self.gate is not None:
            return f"gate {self.gate.name} {self.gate.fingerprint} shape={self.shapes[0]}"
        params = f" stride={self.params[0]} padding={self.params[1]}" if self.params else ""
        return f"{self.kind} x={self.shapes[0]} y={self.shapes[1]}{params}"

    def apply(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The triple's bilinear operation on x and y (in the ring for int64 tensors,
        whose products wrap)."""
        if self.kind == "mul":
            return x * y
        if self.kind == "matmul":
            return torch.matmul(x, y)
        if self.kind == "conv2d":
            return F.conv2d(x, y, stride=self.params[0], padding=self.params[1])
        raise ValueError(f"a {self.kind} request has no bilinear operation")

    def layout(self) -> dict | None:
        """A triple's tensors, name -> shape (a gate's keys GateKey checks itself)."""
        if self.gate is not None:
            return None
        meta = [torch.empty(s, device="meta", dtype=torch.float32) for s in self.shapes]
        return {"a": self.shapes[0], "b": self.shapes[1], "c": tuple(self.apply(*meta).shape)}


class Dealer:
    """Makes items: deal(request) -> (party 0's tensors, party 1's).

    Args:
        generator: a torch.Generator (reproducible, for tests; not cryptographic), or
            None (default) for os.urandom.
        device: where the tensors are made.
    """

    def __init__(self, generator: torch.Generator | None = None, device="cpu"):
        if generator is not None and not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
        self.generator, self.device = generator, torch.device(device)

    def deal(self, request: Request) -> tuple[dict, dict]:
        if not isinstance(request, Request):
            raise TypeError(f"request must be a pyfss.mpc.Request, got {type(request).__name__}")
        if request.gate is not None:
            keys = request.gate.deal(
                request.shapes[0], generator=self.generator, device=self.device
            )
            return keys[0].tensors, keys[1].tensors
        a, b = (random_ring(s, RING, self.generator, self.device) for s in request.shapes)
        halves: tuple[dict, dict] = ({}, {})
        for name, v in (("a", a), ("b", b), ("c", request.apply(a, b))):
            halves[0][name], halves[1][name] = share(v, self.generator)
        return halves


def _check(party: int, index: int, request: Request, tag: str, tensors: dict) -> dict:
    """tensors, if they are the item request asks for."""
    if not isinstance(request, Request):
        raise TypeError(f"request must be a pyfss.mpc.Request, got {type(request).__name__}")
    if tag != request.tag:
        raise ValueError(
            f"party {party} asked the dealer for [{request.tag}], but item {index} is "
            f"[{tag}]: both parties must ask for the dealer's items in its order"
        )
    layout = request.layout()
    if layout is not None:
        got = {k: (t.dtype, tuple(t.shape)) for k, t in tensors.items()}
        if got != {k: (RING, s) for k, s in layout.items()}:
            raise ValueError(f"item {index} [{tag}] holds {got}, not int64 tensors {layout}")
    return tensors


class LocalDealer:
    """The dealer of run_local's two threads: deals each item when the first party asks
    for it and keeps the other half until the other party asks (for the same item, or
    gets a ValueError). ``plan`` lists the requests dealt, in order: what serve and
    write_key_files take to deal the same items elsewhere."""

    def __init__(self, generator: torch.Generator | None = None, device="cpu"):
        self._dealer = Dealer(generator, device)
        self._lock = threading.Lock()
        self.plan: list[Request] = []
        self._taken = [0, 0]
        self._waiting: dict[int, list] = {}  # index -> [tag, half 0, half 1]

    def next(self, party: int, request: Request) -> dict:
        with self._lock:
            i = self._taken[party]
            if i == len(self.plan):
                self._waiting[i] = [request.tag, *self._dealer.deal(request)]
                self.plan.append(request)
            item = self._waiting[i]
            tensors = _check(party, i, request, item[0], item[1 + party])
            self._taken[party] += 1
            if self._taken[1 - party] > i:
                del self._waiting[i]
            return tensors


def _encode(tag: str, tensors: dict) -> bytes:
    buf = io.BytesIO()
    torch.save({"tag": tag, "tensors": {k: t.cpu() for k, t in tensors.items()}}, buf)
    return buf.getvalue()


def _decode(data: bytes, device, where: str) -> tuple[str, dict]:
    try:
        d = torch.load(io.BytesIO(data), map_location=device, weights_only=True)
    except Exception as e:  # noqa: BLE001 (corrupt bytes raise all kinds in torch.load)
        raise ValueError(f"{where} holds no dealer item: {e}") from None
    tag, tensors = (d.get("tag"), d.get("tensors")) if type(d) is dict else (None, None)
    if type(tag) is not str or type(tensors) is not dict:
        raise ValueError(f"{where} holds no dealer item: no tag and tensors")
    if not all(isinstance(t, torch.Tensor) for t in tensors.values()):
        raise ValueError(f"{where} holds no dealer item: not only tensors")
    return tag, tensors


def serve(
    plan, parties=(0, 1), *, group=None, generator: torch.Generator | None = None, device="cpu"
) -> None:
    """The dealer's process: deals each request of plan in order and sends each party
    (ranks parties[0] and parties[1] of group) its half; they read them with
    DealerRank. Each send waits for the party to take it, so a party that asks for
    fewer items than the plan stops the dealer until the group's timeout."""
    dealer = Dealer(generator, device)
    for request in plan:
        halves = dealer.deal(request)
        for rank, tensors in zip(parties, halves):
            data = _encode(request.tag, tensors)
            dist.send(torch.tensor([len(data)], dtype=torch.int64), rank, group=group)
            dist.send(torch.frombuffer(bytearray(data), dtype=torch.uint8), rank, group=group)


class DealerRank:
    """A party's dealer on rank ``rank`` of group, running serve."""

    def __init__(self, rank: int, group=None, device="cpu"):
        self.rank, self.group, self.device = integer("rank", rank), group, device
        self._index = 0

    def next(self, party: int, request: Request) -> dict:
        n = torch.empty(1, dtype=torch.int64)
        dist.recv(n, self.rank, group=self.group)
        data = torch.empty(int(n[0]), dtype=torch.uint8)
        dist.recv(data, self.rank, group=self.group)
        tag, tensors = _decode(data.numpy().tobytes(), self.device, f"dealer item {self._index}")
        self._index += 1
        return _check(party, self._index - 1, request, tag, tensors)


def write_key_files(plan, paths, *, generator: torch.Generator | None = None) -> None:
    """Deals each request of plan in order and appends each half to its party's file
    (paths[0], paths[1]), one frame per item, so no more than one item is in memory."""
    if len(paths) != 2:
        raise ValueError(f"paths must name two files, one per party, got {len(paths)}")
    dealer = Dealer(generator)
    with open(paths[0], "wb") as f0, open(paths[1], "wb") as f1:
        for request in plan:
            for f, tensors in zip((f0, f1), dealer.deal(request)):
                data = _encode(request.tag, tensors)
                f.write(_FRAME.pack(len(data)) + data)


class KeyFile:
    """A party's dealer items from a file of write_key_files, read in order."""

    def __init__(self, path, device="cpu"):
        self.path, self.device = path, device
        self._file = open(path, "rb")  # noqa: SIM115 (read item by item, closed at the end)
        self._index = 0

    def next(self, party: int, request: Request) -> dict:
        where = f"{self.path!s} at item {self._index}"
        head = self._file.read(_FRAME.size)
        if not head:
            self._file.close()
            raise ValueError(f"{where}: no more items, [{request.tag}] asked for")
        (n,) = _FRAME.unpack(head) if len(head) == _FRAME.size else (-1,)
        data = self._file.read(n) if n >= 0 else b""
        if n < 0 or len(data) != n:
            raise ValueError(f"{where}: the file is cut short")
        tag, tensors = _decode(data, self.device, where)
        self._index += 1
        return _check(party, self._index - 1, request, tag, tensors)
