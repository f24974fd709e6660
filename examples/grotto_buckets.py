"""Which bucket a secret value falls in, as shared bits, with Grotto DCF keys.

Two parties hold additive shares x = x0 + x1 (mod 2^n) of a tensor of n-bit values and
end with XOR shares of the one-hot bucket matrix, 1{edges[i] <= x < edges[i+1]} for
every value and public bucket i, revealing nothing about x.

Offline, a dealer draws a uniform mask r per value, hands each party additive shares of
r and a Grotto DCF key of the point r (GrottoDcf.keygen). Each party preprocesses its
keys once (GrottoDcf.preprocess: a bit per input, its share of 1{y >= r} at every y).

Online, the parties open x^ = x + r (mod 2^n), uniform whatever x is. Then
x in [a, b] exactly when r = x^ - x lies in the interval [x^ - b, x^ - a] (mod 2^n):
one lookup of the preprocessed key per bucket, GrottoDcf.eval_interval, whose shares
XOR to 1{lo <= r <= hi}. An interval that wraps past 2^n - 1 is the union of
[lo, 2^n - 1] and [0, hi], two disjoint intervals whose bits XOR to their union; which
buckets wrap depends only on x^, which both parties know.

Each value has its own mask and key: one key evaluated at many opened values x^ + r'
would give away the differences of those values. What one key serves many times over is
the intervals: the whole row of buckets of its value, each for two bit lookups.

Run:  python examples/grotto_buckets.py [--values 256] [--bits 16] [--buckets 12]

Prints the dealer's and the parties' times and checks the reconstructed matrix against
torch.bucketize on random values and the edges themselves, ending with "ok" (exit status
0) or "MISMATCH" (exit status 1).
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

import pyfss


def share(x: torch.Tensor, bits: int, g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Additive shares of x (int64 values in [0, 2^bits)) mod 2^bits."""
    x0 = torch.randint(0, 1 << bits, x.shape, generator=g)
    return x0, (x - x0) % (1 << bits)


def deal(dcf: pyfss.GrottoDcf, shape, g: torch.Generator, r: torch.Tensor | None = None):
    """The dealer: a mask per value (uniform, unless r is given), its additive shares,
    and the two parties' keys."""
    if r is None:
        r = torch.randint(0, 1 << dcf.in_bits, shape, generator=g)
    k0, k1 = dcf.keygen(r)
    r0, r1 = share(r, dcf.in_bits, g)
    return (r0, k0), (r1, k1)


def bucket_shares(
    dcf: pyfss.GrottoDcf, pre: torch.Tensor, opened: torch.Tensor, edges: torch.Tensor
) -> torch.Tensor:
    """One party's XOR shares of 1{edges[i] <= x < edges[i + 1]}, (*values, buckets),
    from its preprocessed keys pre and the opened values x^ = x + r."""
    size = 1 << dcf.in_bits
    a, b = edges[:-1], edges[1:] - 1  # bucket i is [a_i, b_i]
    lo = (opened[..., None] - b) % size  # r lies in [lo, hi], mod 2^n
    hi = (opened[..., None] - a) % size
    wraps = lo > hi
    # [lo, hi] if it does not wrap, else [lo, 2^n - 1] XOR [0, hi].
    first = dcf.eval_interval(pre, lo, torch.where(wraps, size - 1, hi))
    second = dcf.eval_interval(pre, torch.zeros_like(hi), hi)
    return first ^ (second & wraps)


def run_protocol(dcf: pyfss.GrottoDcf, x: torch.Tensor, edges: torch.Tensor, seed=0, r=None):
    """Deals (masks r, if given), shares x, runs both parties; returns the parties'
    shares of the bucket matrix and the times (dealer, preprocessing, online) in
    seconds."""
    g = torch.Generator().manual_seed(seed)
    t0 = time.perf_counter()
    dealt = deal(dcf, x.shape, g, r)
    t1 = time.perf_counter()
    xs = share(x, dcf.in_bits, g)
    # Each party preprocesses its keys once, then opens x + r and looks up its buckets.
    pres = [dcf.preprocess(key.party, key.s0, key.cws) for _, key in dealt]
    t2 = time.perf_counter()
    masked = [(xb + rb) % (1 << dcf.in_bits) for xb, (rb, _) in zip(xs, dealt)]
    opened = (masked[0] + masked[1]) % (1 << dcf.in_bits)  # each party sends its masked share
    s0, s1 = (bucket_shares(dcf, pre, opened, edges) for pre in pres)
    t3 = time.perf_counter()
    return (s0, s1), (t1 - t0, t2 - t1, t3 - t2)


def plain_buckets(x: torch.Tensor, edges: torch.Tensor) -> torch.Tensor:
    """The one-hot bucket matrix in the clear."""
    index = torch.bucketize(x, edges, right=True) - 1
    return torch.nn.functional.one_hot(index, len(edges) - 1).bool()


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--values", type=int, default=256, help="secret values (default 256)")
    ap.add_argument("--bits", type=int, default=16, help="their width in bits (default 16)")
    ap.add_argument("--buckets", type=int, default=12, help="public buckets (default 12)")
    ap.add_argument("--prg", default="aes128_mmo", choices=("aes128_mmo", "chacha"))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not 1 <= args.bits <= 40:
        ap.error("--bits must be 1..40 (a preprocessed key holds 2^bits bits)")
    if not 1 <= args.buckets <= 1 << args.bits:
        ap.error(f"--buckets must be 1..2^bits = {1 << args.bits}")
    if args.values < 0:
        ap.error("--values must be 0 or more")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    size = 1 << args.bits
    g = torch.Generator().manual_seed(args.seed)
    # Bucket edges: 0, then sorted distinct cut points, then 2^bits.
    cuts = torch.randperm(size - 1, generator=g)[: args.buckets - 1] + 1
    edges = torch.cat([torch.tensor([0]), cuts.sort().values, torch.tensor([size])])
    x = torch.randint(0, size, (args.values,), generator=g)
    ends = torch.cat([edges[:-1], edges[1:] - 1])[: args.values]  # every bucket's first and last
    x[: len(ends)] = ends

    dcf = pyfss.GrottoDcf(args.bits, args.prg)
    (s0, s1), (dealer_s, pre_s, online_s) = run_protocol(dcf, x, edges, args.seed)
    match = int((s0 ^ s1 == plain_buckets(x, edges)).all(dim=-1).sum())
    print(
        f"{args.values} secret {args.bits}-bit values, {len(edges) - 1} public buckets, {args.prg}"
    )
    print(f"  dealer: {dealer_s * 1e3:.1f} ms for {args.values} key pairs")
    print(f"  parties: preprocessing {pre_s * 1e3:.1f} ms, online {online_s * 1e3:.1f} ms")
    print(f"bucket of x: {match}/{args.values} match plaintext")
    ok = match == args.values
    print("ok" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
