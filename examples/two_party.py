"""The secure ReLU of secure_relu.py run by three processes that talk over a network.

The processes form a torch.distributed group on 127.0.0.1 (gloo backend):
    dealer   (this process) makes the correlated randomness, DCF keys and shares of the
             mask r, and sends each party its part, the keys in their serialized form
             (Key.to_bytes(), as uint8 tensors). It also plays the client: it owns the
             int64 values x, sends one additive share to each party and reconstructs
             1{x >= 0} and ReLU(x) from the parties' output shares. Its keys do not
             depend on x, so a dealer in a process of its own would send the same.
    party 0, party 1 exchange their shares of x + r (one round) and evaluate locally.
The parties are spawned with torch.multiprocessing's "spawn" start method (the Go core's
threads do not survive fork). Every message is logged by its sender; the log, printed at
the end, shows that only keys, shares and the masked x + r cross the wire. Each message
gives up after --timeout seconds, so the run ends by itself.

Run:  python examples/two_party.py [--shape 64 64] [--prg aes128_mmo] [--device auto]

Prints the messages sent (sender, receiver, what, bytes), the parties' time to evaluate,
and checks the reconstructed outputs against plaintext, ending with "ok" (exit status 0)
or "MISMATCH" (exit status 1). About 5 s, most of it starting the processes.
"""

from __future__ import annotations

import argparse
import pickle
import socket
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from secure_relu import (
    Correlation,
    deal,
    make_dcf,
    masked_share,
    pick_device,
    relu_shares,
    sample_values,
    share,
)

import pyfss

DEALER, PARTY = 0, (1, 2)
NAMES = ("dealer", "party 0", "party 1")


class Wire:
    """Point-to-point messages over torch.distributed, each logged by its sender."""

    def __init__(self, rank: int):
        self.rank = rank
        self.sent = []

    def send(self, t: torch.Tensor, dst: int, what: str) -> None:
        t = t.cpu().contiguous()  # gloo moves CPU tensors
        dist.send(t, dst)
        self.sent.append((self.rank, dst, what, t.numel() * t.element_size()))

    def recv(self, shape, dtype, src: int) -> torch.Tensor:
        t = torch.empty(shape, dtype=dtype)
        dist.recv(t, src)
        return t

    def send_bytes(self, data: bytes, dst: int, what: str) -> None:
        dist.send(torch.tensor([len(data)], dtype=torch.int64), dst)
        dist.send(torch.frombuffer(bytearray(data), dtype=torch.uint8), dst)
        self.sent.append((self.rank, dst, what, 8 + len(data)))

    def recv_bytes(self, src: int) -> bytes:
        n = self.recv(1, torch.int64, src)
        return bytes(self.recv(int(n), torch.uint8, src).tolist())

    def exchange(self, t: torch.Tensor, peer: int, what: str) -> torch.Tensor:
        """Sends t to peer while receiving the peer's tensor of the same shape."""
        t = t.cpu().contiguous()
        req = dist.isend(t, peer)
        got = self.recv(t.shape, t.dtype, peer)
        req.wait()
        self.sent.append((self.rank, peer, what, t.numel() * t.element_size()))
        return got


def dealer(wire: Wire, x: torch.Tensor, prg: str, device) -> tuple[torch.Tensor, torch.Tensor]:
    """Deals, hands out the shares of x, and returns the reconstructed 1{x >= 0}, ReLU(x)."""
    for b, (c, x_b) in enumerate(zip(deal(make_dcf(prg), x.shape, device), share(x))):
        wire.send_bytes(c.key.to_bytes(), PARTY[b], "DCF keys (Key.to_bytes)")
        wire.send(torch.stack([c.r, c.s, c.rs]), PARTY[b], "shares of r, msb(r), r*msb(r)")
        wire.send(x_b, PARTY[b], f"x_{b} (share of x)")
    out = sum(wire.recv((2, *x.shape), torch.int64, p) for p in PARTY)
    return out[0], out[1]


def party(wire: Wire, b: int, shape, device) -> float:
    """Runs party b; returns its time for the local evaluation."""
    # The party rebuilds the scheme from the public parameters stored with the key.
    dcf, key = pyfss.load_key(wire.recv_bytes(DEALER), device)
    r, s, rs = wire.recv((3, *shape), torch.int64, DEALER).to(device)
    c = Correlation(key, r, s, rs)
    x_b = wire.recv(shape, torch.int64, DEALER).to(device)
    mine = masked_share(x_b, c)
    xhat = mine + wire.exchange(mine, PARTY[1 - b], f"x_{b} + r_{b} (masked share)").to(device)
    t = time.perf_counter()
    drelu, relu = relu_shares(dcf, b, c, xhat)
    out = torch.stack([drelu, relu]).cpu()
    elapsed = time.perf_counter() - t
    wire.send(out, DEALER, "shares of 1{x >= 0} and ReLU(x)")
    return elapsed


def worker(rank: int, port: int, shape, prg: str, device_name: str, timeout: float, x=None):
    """One process of the group. The dealer's (x given) returns, by rank, what each
    process sent and its result."""
    dist.init_process_group(
        "gloo",
        init_method=f"tcp://127.0.0.1:{port}",
        rank=rank,
        world_size=3,
        timeout=timedelta(seconds=timeout),
    )
    try:
        wire, device = Wire(rank), pick_device(device_name)
        if rank == DEALER:
            result = dealer(wire, x, prg, device)
        else:
            result = party(wire, PARTY.index(rank), shape, device)
        # The parties' reports reach the dealer as pickled bytes after the protocol,
        # so they are not in the log they carry (torch.distributed's object
        # collectives would do the same but need numpy).
        if rank != DEALER:
            wire.send_bytes(pickle.dumps((wire.sent, result)), DEALER, "report")
            return None
        reports = [None] * 3
        reports[DEALER] = (wire.sent, result)
        for p in PARTY:
            reports[p] = pickle.loads(wire.recv_bytes(p))
        return reports
    finally:
        dist.destroy_process_group()


def spawned(index: int, *common) -> None:
    """Entry point of the parties: start_processes numbers them from 0."""
    worker(PARTY[index], *common)


def wait_for(procs, timeout: float) -> None:
    """Joins the parties, raising the error of one that failed, or TimeoutError."""
    deadline = time.monotonic() + timeout
    while not procs.join(max(deadline - time.monotonic(), 0)):
        if time.monotonic() >= deadline:
            raise TimeoutError(f"the parties did not finish within {timeout} s")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", type=int, nargs="+", default=[64, 64], help="value tensor shape")
    ap.add_argument("--prg", choices=["aes128_mmo", "chacha"], default="aes128_mmo")
    ap.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    ap.add_argument("--seed", type=int, default=0, help="seed of the values (not of the masks)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds before a stuck step fails")
    args = ap.parse_args(argv)

    x = sample_values(args.shape, "cpu", args.seed)
    port = free_port()
    common = (port, args.shape, args.prg, args.device, args.timeout)
    t = time.perf_counter()
    procs = mp.start_processes(spawned, args=common, nprocs=2, join=False, start_method="spawn")
    try:
        reports = worker(DEALER, *common, x=x)
        wait_for(procs, args.timeout)
    except Exception:
        procs.join(5)  # raises a failed party's own error, which says more than a broken link
        raise
    finally:
        for p in procs.processes:
            if p.is_alive():
                p.terminate()
    elapsed = time.perf_counter() - t

    n = x.numel()
    print(
        f"secure ReLU on {n} int64 values {tuple(x.shape)}, 3 processes, gloo on 127.0.0.1:{port}"
    )
    print("messages sent:")
    for sent, _ in reports:
        for src, dst, what, size in sent:
            print(f"  {NAMES[src]:>7} -> {NAMES[dst]:<7}  {what:<34} {size:>10} bytes")
    for b, p in enumerate(PARTY):
        print(f"party {b}: DCF evaluation and local arithmetic in {reports[p][1] * 1e3:.1f} ms")
    print(f"total, including starting the parties: {elapsed:.1f} s")
    drelu, relu = reports[DEALER][1]
    ok_d = int((drelu == (x >= 0).to(torch.int64)).sum())
    ok_r = int((relu == x.clamp(min=0)).sum())
    print(f"1{{x >= 0}}: {ok_d}/{n} match plaintext; ReLU(x): {ok_r}/{n} match plaintext")
    ok = ok_d == n and ok_r == n
    print("ok" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
