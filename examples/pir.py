"""Two-server private information retrieval (PIR) with DPF keys.

Two servers hold the same database of N records (rows of 4 int32). A client wants
record i without either server learning i. It makes a DPF key pair for the point
function f(x) = 1 if x == i else 0 and sends one key to each server. Each server
evaluates its key on the whole domain (eval_all) and answers with the inner product of
those shares with the database; the two answers add up to record i, and each key alone
is pseudorandom, so a server that does not collude with the other learns nothing of i.
The download is one record per server, against N records for fetching the whole
database.

Group: uint32 with beta 1, so the shares add up to 1 at i and 0 elsewhere, and the
answer is an additive inner product mod 2^32: int32 multiply and sum, which wrap around
exactly like that ring and run on CPU and GPU alike. (The XOR alternative, group "bytes"
with an all-ones beta, would select record bits with AND and XOR, but pyfss clears the
lowest bit of word 3 of every beta, the scheme's control bit, so one bit of every record
would be lost; it also has no XOR reduction in torch.)

Several queries go in one batch: K keys, one eval_all call per server.

Run:  python examples/pir.py [--log-rows 20] [--queries 4] [--prg aes128_mmo] [--device auto]

Prints the database size, the client's key generation time and the bytes sent each
way (key sizes from Key.to_bytes()), each server's time per query, and checks that the
records retrieved equal the database rows, ending with "ok" (exit status 0) or
"MISMATCH" (exit status 1).
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time

import torch

import pyfss


def pick_device(name: str = "auto") -> torch.device:
    """CUDA when torch has a GPU and this pyfss build can use it, else the CPU."""
    if name == "auto":
        usable = torch.cuda.is_available() and pyfss.backend_info()["cuda"]["usable"]
        name = "cuda" if usable else "cpu"
    return torch.device(name)


def make_queries(log_rows: int, indices: list[int], prg: str = "aes128_mmo") -> tuple[bytes, bytes]:
    """The client: one batch of DPF keys per server for the wanted record indices,
    serialized as they would be sent."""
    dpf = pyfss.Dpf(log_rows, "uint32", prg)
    ones = pyfss.from_int(torch.ones(len(indices), dtype=torch.int32), "uint32")
    k0, k1 = dpf.keygen(torch.tensor(indices, dtype=torch.int64), ones)
    return k0.to_bytes(), k1.to_bytes()


def answer(db: torch.Tensor, query: bytes) -> torch.Tensor:
    """A server: (K, 4) int32, the inner product of its DPF shares with the database."""
    dpf, key = pyfss.load_key(query, db.device)
    shares = pyfss.to_int(dpf.eval_all_key(key), "uint32")  # (K, N)
    return (shares.unsqueeze(-1) * db).sum(dim=-2, dtype=torch.int32)


def reconstruct(a0: torch.Tensor, a1: torch.Tensor) -> torch.Tensor:
    """The client: the records, from the two servers' answers."""
    return a0 + a1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log-rows", type=int, default=20, help="the database has 2^LOG_ROWS records")
    ap.add_argument("--queries", type=int, default=4, help="records fetched in one batch")
    ap.add_argument("--prg", choices=["aes128_mmo", "chacha"], default="aes128_mmo")
    ap.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    args = ap.parse_args(argv)

    device = pick_device(args.device)
    rows, k = 1 << args.log_rows, args.queries
    db = torch.randint(-(2**31), 2**31, (rows, 4), dtype=torch.int32, device=device)
    wanted = [secrets.randbelow(rows) for _ in range(k)]
    answer(db, make_queries(args.log_rows, [0], args.prg)[0])  # warm-up

    t = time.perf_counter()
    q0, q1 = make_queries(args.log_rows, wanted, args.prg)
    t_client = time.perf_counter() - t
    answers, t_servers = [], []
    for q in (q0, q1):
        t = time.perf_counter()
        answers.append(answer(db, q))
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t_servers.append(time.perf_counter() - t)
    got = reconstruct(*answers)

    print(
        f"database: 2^{args.log_rows} records of 16 bytes ({rows * 16 / 2**20:.1f} MiB) "
        f"on {device}, {k} queries in one batch, prg {args.prg}"
    )
    print(f"client: {k} DPF key pairs in {t_client * 1e3:.2f} ms")
    print(f"upload: {len(q0)} bytes to each server ({len(q0) / k:.0f} per query, header included)")
    down = answers[0].numel() * 4
    print(
        f"download: {down} bytes from each server ({down // k} per query; all records: {rows * 16})"
    )
    for s, dt in enumerate(t_servers):
        print(
            f"server {s}: eval_all over 2^{args.log_rows} and inner product in {dt * 1e3:.1f} ms "
            f"({dt / k * 1e3:.1f} ms per query)"
        )
    ok = torch.equal(got, db[wanted])
    print(f"records {wanted}: " + ("retrieved correctly" if ok else "wrong"))
    print("ok" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
