"""Anonymous writes to a shared board, with the servers checking every client's keys.

Two servers hold additive shares of a board of 2^n slots of 64 bits. A client writes a
message into a slot of its choice so that neither server learns which slot (a write
in the style of Riposte, or the upload of a private heavy-hitters count): it makes a
verifiable DPF (Vdpf) key pair for the point function f(slot) = message, 0 elsewhere,
and sends one key to each server. Each server evaluates every key it received over the
whole board (eval_all, which also gives its proof), the servers swap the proofs (64
bytes per key) and a digest of each key's correction words (32 bytes), which the two
keys of a pair share, and drop the keys whose proofs (verify) or digests differ; they
add the rest into their board shares. The two shares then add up to the board.

Without the check, one client can send keys that are not a point function and write
pseudorandom garbage into many slots at once, over other clients' messages. The
cheater here does so by changing one correction word of its keys (both servers get the
changed word), and is caught. The digests matter too: the proof does not cover the
output correction word, and a client that sends the servers two different ones
writes garbage into about half the slots with equal proofs. What the check does not
cover: the message itself is any value the client likes (a count that must be 1 needs
a further check); and, as the scheme is specified (docs/spec.md section 15, "What
verification does not catch"), a client that gives both servers the same seed and
makes every level's control-bit corrections 1 passes it with keys that are not a
point function.

Run:  python examples/verified_writes.py [--log-slots 14] [--clients 8] [--cheater 3]
      [--prg aes128_mmo] [--hash blake3]

Prints each server's time, the bytes exchanged, which clients failed the check, how
many slots the cheater's keys would have damaged, and whether the board holds exactly
the honest clients' messages, ending with "ok" (exit status 0) or "MISMATCH" (1).
"""

from __future__ import annotations

import argparse
import hashlib
import secrets
import sys
import time

import torch

import pyfss

GROUP = "uint64"


def client_upload(vdpf: pyfss.Vdpf, slot: int, message: int) -> tuple[bytes, bytes]:
    """An honest client: its key for each server, serialized as it would be sent."""
    k0, k1 = vdpf.keygen(slot, pyfss.from_int(message, GROUP))
    return k0.to_bytes(), k1.to_bytes()


def cheat(upload: tuple[bytes, bytes], level: int) -> tuple[bytes, bytes]:
    """A malicious client: an honest upload with the seed correction of one tree
    level changed, the same change in both keys. Below that level the off-path
    subtrees no longer cancel: the keys write into about 2^(in_bits - level) slots."""
    changed = []
    for raw in upload:
        key = pyfss.Key.from_bytes(raw)
        cws = key.cws.clone()
        cws[level, 1] ^= 0x5A5A5A5A  # a word of the level's seed correction
        changed.append(pyfss.Key(key.params, key.party, key.s0, cws).to_bytes())
    return changed[0], changed[1]


def server_evaluate(uploads: list[bytes]) -> tuple[torch.Tensor, torch.Tensor, list[bytes]]:
    """A server: its shares of every client's write over the whole board, (clients,
    slots) int64, the proofs, (clients, 4, 4) int32, in one batched call, and a digest
    of each key's correction words."""
    loaded = [pyfss.load_key(b) for b in uploads]
    vdpf = loaded[0][0]
    keys = [k for _, k in loaded]
    s0 = torch.stack([k.s0 for k in keys])
    cws = torch.stack([k.cws for k in keys])
    y, pi = vdpf.eval_all(keys[0].party, s0, cws)
    digests = [hashlib.sha256(repr(k.cws.tolist()).encode()).digest() for k in keys]
    return pyfss.to_int(y, GROUP), pi, digests


def server_accept(vdpf: pyfss.Vdpf, mine: tuple, theirs: tuple) -> torch.Tensor:
    """Both servers run this on the two (proofs, digests): True for the clients whose
    keys pass."""
    same_cws = torch.tensor([a == b for a, b in zip(mine[1], theirs[1])], dtype=torch.bool)
    return vdpf.verify(mine[0], theirs[0]) & same_cws


def board_share(shares: torch.Tensor, accepted: torch.Tensor) -> torch.Tensor:
    """A server's share of the board: the sum of the accepted clients' writes."""
    return shares[accepted].sum(dim=0)  # int64 sums wrap as uint64 additions do


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log-slots", type=int, default=14, help="the board has 2^LOG_SLOTS slots")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--cheater", type=int, default=3, help="index of the cheating client, -1: none")
    ap.add_argument("--prg", choices=["aes128_mmo", "chacha"], default="aes128_mmo")
    ap.add_argument("--hash", choices=["sha256", "blake3"], default="blake3")
    args = ap.parse_args(argv)
    n, c = args.log_slots, args.clients
    if not 2 <= n <= 20 or not 1 <= c <= 1 << n or not -1 <= args.cheater < c:
        ap.error("need 2 <= log-slots <= 20, 1 <= clients <= 2^log-slots, -1 <= cheater < clients")

    vdpf = pyfss.Vdpf(n, GROUP, args.prg, args.hash)
    slots = torch.randperm(1 << n)[:c].tolist()  # distinct, so the expected board is simple
    messages = [secrets.randbits(63) + 1 for _ in range(c)]
    uploads = [client_upload(vdpf, s, m) for s, m in zip(slots, messages)]
    if args.cheater >= 0:
        uploads[args.cheater] = cheat(uploads[args.cheater], level=n // 2)

    results, times = [], []
    for server in (0, 1):
        t = time.perf_counter()
        results.append(server_evaluate([u[server] for u in uploads]))
        times.append(time.perf_counter() - t)
    (y0, pi0, d0), (y1, pi1, d1) = results
    accepted = server_accept(vdpf, (pi0, d0), (pi1, d1))
    board = board_share(y0, accepted) + board_share(y1, accepted)

    expected = torch.zeros(1 << n, dtype=torch.int64)
    honest = [i for i in range(c) if i != args.cheater]
    expected[[slots[i] for i in honest]] = torch.tensor([messages[i] for i in honest])
    rejected = [i for i in range(c) if not accepted[i]]
    for s, dt in enumerate(times):
        print(f"server {s}: eval_all with proofs of {c} keys over 2^{n} slots in {dt * 1e3:.1f} ms")
    print(
        f"upload: {len(uploads[0][0])} bytes per key; proofs and digests swapped: "
        f"{pi0.numel() * 4 + 32 * c} bytes each way"
    )
    print(
        f"rejected clients: {rejected} (cheater: {args.cheater if args.cheater >= 0 else 'none'})"
    )
    if args.cheater >= 0:
        writes = y0[args.cheater] + y1[args.cheater]
        print(f"the cheater's keys would have written into {int((writes != 0).sum())} slots")
    ok = rejected == ([args.cheater] if args.cheater >= 0 else []) and torch.equal(board, expected)
    print("board: " + ("exactly the honest clients' messages" if ok else "wrong"))
    print("ok" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
