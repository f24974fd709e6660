"""Two-server PIR (as in pir.py) over a database split across the ranks of torchrun.

A server whose database does not fit in one machine's memory runs as N ranks, each
holding one slice of the rows, [lo, hi). For a query key, every rank evaluates the key
on its slice only (eval_all with start=lo, stop=hi: the same shares as the matching
slice of the whole call, at the cost of that slice), takes the inner product of those
shares with its rows, and one reduction (a sum, to rank 0) makes the server's answer.
The client adds the two servers' answers, as in pir.py.

Here one torchrun job plays the client (rank 0) and both servers, one after the
other, on the same ranks, so that the script is self-contained. In a deployment the
two servers are run by parties that do not collude: each runs the server part as a
torchrun job of its own, on its own machines, and only ever sees its own key.

The ranks share nothing but what torch.distributed carries (gloo, on the CPU), so the
same script runs on one machine or across several. Each rank makes its slice of the
database itself, from the row numbers (a real server would load it from its storage);
the client can thus compute the records it expects and check the answer.

Run, on one machine with 4 processes:
    torchrun --standalone --nproc-per-node 4 examples/pir_sharded.py --log-rows 22
across 2 machines (run on each, with its --node-rank, HOST the first machine):
    torchrun --nnodes 2 --node-rank 0 --nproc-per-node 4 --master-addr HOST \\
        --master-port 29500 examples/pir_sharded.py --log-rows 24
or without torchrun, as one process holding the whole database.

Rank 0 prints each rank's slice and time, checks the records retrieved against the
database rows, and ends with "ok" (exit status 0) or "MISMATCH" (exit status 1).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

import pyfss

CLIENT = 0  # the rank that plays the client

# The database generator's mixing constants (splitmix64's), as int64.
_GOLDEN = 0x9E3779B97F4A7C15 - 2**64
_MIX1 = 0xBF58476D1CE4E5B9 - 2**64
_MIX2 = 0x94D049BB133111EB - 2**64


def database_rows(seed: int, lo: int, hi: int) -> torch.Tensor:
    """Rows lo .. hi-1 of the database, (hi - lo, 4) int32: a function of the seed and
    the row numbers alone, so that every rank makes its own slice."""
    x = torch.arange(lo, hi, dtype=torch.int64).unsqueeze(-1) * 4 + torch.arange(4)
    x = x * _GOLDEN + seed  # int64 arithmetic wraps around, as splitmix64's does
    x = (x ^ ((x >> 30) & (2**34 - 1))) * _MIX1
    x = (x ^ ((x >> 27) & (2**37 - 1))) * _MIX2
    x = x ^ ((x >> 31) & (2**33 - 1))
    return wrap_int32(x)


def wrap_int32(x: torch.Tensor) -> torch.Tensor:
    """x mod 2^32 as int32 (two's complement)."""
    x = x & 0xFFFFFFFF
    return (x - ((x >> 31) << 32)).to(torch.int32)


def shard(rows: int, world: int, rank: int) -> tuple[int, int]:
    """The rows [lo, hi) that rank holds: contiguous slices as even as can be. (Any
    bounds do; slices of 2^d rows from a multiple of 2^d evaluate fastest.)"""
    return rows * rank // world, rows * (rank + 1) // world


def make_queries(log_rows: int, indices: list[int], prg: str) -> tuple[bytes, bytes]:
    """The client: one batch of DPF keys per server for the wanted record indices
    (f(x) = 1 at the index, uint32), serialized as they would be sent."""
    dpf = pyfss.Dpf(log_rows, "uint32", prg)
    ones = pyfss.from_int(torch.ones(len(indices), dtype=torch.int32), "uint32")
    k0, k1 = dpf.keygen(torch.tensor(indices, dtype=torch.int64), ones)
    return k0.to_bytes(), k1.to_bytes()


def partial_answer(rows: torch.Tensor, lo: int, query: bytes) -> torch.Tensor:
    """A rank of a server: (K, 4) int32, the inner product mod 2^32 of its key's
    shares at rows lo .. lo+len(rows)-1 with those rows."""
    dpf, key = pyfss.load_key(query)
    shares = dpf.eval_all_key(key, start=lo, stop=lo + len(rows))  # (K, hi - lo, 4)
    shares = pyfss.to_int(shares, "uint32")  # (K, hi - lo)
    return (shares.unsqueeze(-1) * rows).sum(dim=-2, dtype=torch.int32)


def broadcast_bytes(data: bytes | None, src: int) -> bytes:
    """data from rank src to every rank, as tensors (no object collectives)."""
    n = torch.tensor([len(data) if data is not None else 0], dtype=torch.int64)
    dist.broadcast(n, src)
    buf = torch.empty(int(n), dtype=torch.uint8)
    if data is not None:
        buf = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    dist.broadcast(buf, src)
    return bytes(buf.tolist()) if data is None else data


def server_answer(rows: torch.Tensor, lo: int, query: bytes) -> tuple[torch.Tensor, float]:
    """One server on every rank: the partial answers, summed to the client's rank in
    one reduction (in int64, so that the sum of the ranks' parts cannot overflow).
    Returns the answer (meaningful on the client's rank) and this rank's time."""
    t = time.perf_counter()
    part = partial_answer(rows, lo, query).to(torch.int64)
    elapsed = time.perf_counter() - t
    dist.reduce(part, CLIENT, op=dist.ReduceOp.SUM)
    return wrap_int32(part), elapsed


def init_group(timeout: float) -> None:
    """The process group torchrun describes in the environment, or one of a single
    process without it."""
    if "RANK" in os.environ:
        dist.init_process_group("gloo", timeout=timedelta(seconds=timeout))
    else:
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log-rows", type=int, default=20, help="the database has 2^LOG_ROWS records")
    ap.add_argument("--queries", type=int, default=4, help="records fetched in one batch")
    ap.add_argument("--prg", choices=["aes128_mmo", "chacha"], default="aes128_mmo")
    ap.add_argument("--seed", type=int, default=1, help="seed of the database's contents")
    ap.add_argument("--timeout", type=float, default=120, help="seconds before a stuck step fails")
    args = ap.parse_args(argv)

    init_group(args.timeout)
    try:
        rank, world = dist.get_rank(), dist.get_world_size()
        rows = 1 << args.log_rows
        lo, hi = shard(rows, world, rank)
        mine = database_rows(args.seed, lo, hi)

        wanted, queries = [], (None, None)
        if rank == CLIENT:
            wanted = [secrets.randbelow(rows) for _ in range(args.queries)]
            queries = make_queries(args.log_rows, wanted, args.prg)
        answers, times = [], []
        for q in queries:  # server 0, then server 1
            answer, elapsed = server_answer(mine, lo, broadcast_bytes(q, CLIENT))
            answers.append(answer)
            times.append(elapsed)
        # The ranks' slices and times, for the report.
        report = torch.zeros(world, 4, dtype=torch.float64)
        report[rank] = torch.tensor([lo, hi, *times], dtype=torch.float64)
        dist.all_reduce(report)
        if rank != CLIENT:
            return 0

        got = answers[0] + answers[1]  # int32 addition wraps mod 2^32
        want = torch.cat([database_rows(args.seed, i, i + 1) for i in wanted])
        print(
            f"database: 2^{args.log_rows} records of 16 bytes ({rows * 16 / 2**20:.1f} MiB) "
            f"over {world} ranks, {args.queries} queries in one batch, prg {args.prg}"
        )
        for r, (r_lo, r_hi, t0, t1) in enumerate(report.tolist()):
            print(
                f"rank {r}: rows [{int(r_lo)}, {int(r_hi)}), eval_all over its slice and inner "
                f"product in {t0 * 1e3:.1f} ms (server 0), {t1 * 1e3:.1f} ms (server 1)"
            )
        ok = torch.equal(got, want)
        print(f"records {wanted}: " + ("retrieved correctly" if ok else "wrong"))
        print("ok" if ok else "MISMATCH")
        return 0 if ok else 1
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
