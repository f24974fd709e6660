"""Two parties in threads of one process, connected by queues: for tests and
prototypes. The messages are the ones torch.distributed would carry, counted the same
way."""

from __future__ import annotations

import queue
import threading
import time

import torch

from ._dealer import LocalDealer
from ._party import Party

#: How often a waiting party looks whether its peer has failed (seconds).
_POLL = 0.05


class PeerFailed(RuntimeError):
    """Raised in a party waiting for a message when its peer has raised."""


class _QueueWire:
    def __init__(self, party: int, inbox, outbox, failed: threading.Event, timeout: float):
        self.party, self.inbox, self.outbox = party, inbox, outbox
        self.failed, self.timeout = failed, timeout
        self.device = None

    def send(self, wire: torch.Tensor) -> None:
        self.outbox.put(wire.clone())  # the sender may change its tensor afterwards

    def recv(self, shape: tuple, dtype: torch.dtype) -> torch.Tensor:
        deadline = time.monotonic() + self.timeout
        peer = 1 - self.party
        while True:
            try:
                got = self.inbox.get(timeout=_POLL)
                break
            except queue.Empty:
                if self.failed.is_set():
                    raise PeerFailed(
                        f"party {peer} failed while party {self.party} waited"
                    ) from None
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"party {self.party} got no message from party {peer} within "
                        f"{self.timeout} s: the peer is stuck or waits for something else"
                    ) from None
        if got.dtype != dtype or tuple(got.shape) != shape:
            raise ValueError(
                f"party {self.party} expected a {dtype} tensor of shape {shape} from party "
                f"{peer}, got {got.dtype} {tuple(got.shape)}: the parties are out of step"
            )
        return got

    def exchange(self, wire: torch.Tensor) -> torch.Tensor:
        self.send(wire)
        return self.recv(tuple(wire.shape), wire.dtype)


def run_local(fn, *, dealer=None, timeout: float = 60.0) -> tuple:
    """Runs fn(party) for parties 0 and 1 (pyfss.mpc.Party) in two threads and returns
    their results (r0, r1). An exception in either thread is raised here (the other
    party, waiting for it, stops with PeerFailed); a party that waits more than timeout
    seconds for a message raises TimeoutError.

    dealer: a LocalDealer (default: a new one drawing from os.urandom) shared by the
    two, or a pair of sources, one per party (e.g. two KeyFile)."""
    if dealer is None:
        dealer = LocalDealer()
    sources = tuple(dealer) if isinstance(dealer, (tuple, list)) else (dealer, dealer)
    if len(sources) != 2:
        raise ValueError(f"dealer must be one source or a pair, got {len(sources)}")
    if not timeout > 0:
        raise ValueError(f"timeout must be positive, got {timeout!r}")
    boxes: tuple[queue.Queue, queue.Queue] = (queue.Queue(), queue.Queue())
    failed = threading.Event()
    results: list = [None, None]
    errors: list[BaseException | None] = [None, None]

    def main(b: int) -> None:
        wire = _QueueWire(b, boxes[b], boxes[1 - b], failed, timeout)
        try:
            results[b] = fn(Party._over(b, wire, sources[b]))
        except BaseException as e:  # noqa: BLE001 (raised in the caller's thread below)
            errors[b] = e
            failed.set()

    threads = [threading.Thread(target=main, args=(b,), name=f"party {b}") for b in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    raised = [e for e in errors if e is not None]
    if raised:
        # The first party's own error, not its peer's reaction to it.
        raise next((e for e in raised if not isinstance(e, PeerFailed)), raised[0])
    return results[0], results[1]
