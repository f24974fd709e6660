"""Secure comparison and ReLU on additively shared int64 values, with DCF keys from a dealer.

Two parties hold additive shares x = x0 + x1 (mod 2^64) of a tensor of int64 values and
end with shares of 1{x >= 0} and of ReLU(x) = max(x, 0), revealing nothing about x: the
ReLU gate of pyfss.gates (the offset technique of Boyle, Gilboa and Ishai, CCS 2016, and
Boyle et al., EUROCRYPT 2021), in one round and with no range limit.

Offline, a dealer draws a uniform mask r for every value and hands each party additive
shares of r, of s = msb(r) and of r * s, plus a key pair of DCF keys (63 input bits,
group uint64, predicate "lt", threshold r' = r mod 2^63) with payloads 1 - 2s and
r * (1 - 2s).

Online, each party sends x_b + r_b; both learn x^ = x + r, uniform whatever x is. With
p = msb(x^) and the low 63 bits x^', subtracting r borrows into bit 63 exactly when
x^' < r', so msb(x) = p XOR s XOR w with w = 1{x^' < r'}; the wrap-around of x + r is
thereby handled exactly, for every x in Z_2^64. The DCF keys at x^' give shares of
G = (1 - 2s) * w and of r * G, and s + G = s XOR w, so, all locally and linearly:

    drelu = 1{x >= 0} = 1 - msb(x) = (1 - p) - (1 - 2p) * (s + G)
    ReLU(x) = x * drelu = x^ * drelu - r * drelu,
    r * drelu = (1 - p) * r - (1 - 2p) * (r * s + r * G)

The ring is Z_2^64 because int64 tensor arithmetic is exactly that ring (it wraps), so the
shares mix with any torch code. The price of full-width values is the key size: two
63-bit DCF keys are 4128 bytes per value and party, which bounds the default size.
This script shows the gate's pieces (a Correlation holds them as a pyfss.Key and
tensors, which examples/two_party.py sends between processes).

Run:  python examples/secure_relu.py [--shape 128 128] [--prg aes128_mmo] [--device auto]

Prints the dealer's time and key bytes, the online bytes and time per party, and checks
both outputs against plaintext on random values and edge cases (0, -1, 1, -2^63,
2^63 - 1, ...), ending with "ok" (exit status 0) or "MISMATCH" (exit status 1).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import torch

import pyfss
from pyfss import gates
from pyfss.mpc import share

EDGE_VALUES = [0, 1, -1, 2, -2, 2**62, -(2**62), 2**63 - 1, -(2**63), 2**63 - 2, -(2**63) + 1]


def pick_device(name: str = "auto") -> torch.device:
    """CUDA when torch has a GPU and this pyfss build can use it, else the CPU."""
    if name == "auto":
        usable = torch.cuda.is_available() and pyfss.backend_info()["cuda"]["usable"]
        name = "cuda" if usable else "cpu"
    return torch.device(name)


def sync(device: torch.device) -> None:
    """Waits for queued GPU work, so that wall-clock timings measure it."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@dataclass
class Correlation:
    """What the dealer gives one party for one ReLU over a tensor of values."""

    key: pyfss.Key  # DCF keys, batch (*shape, 2): payloads 1 - 2s and r * (1 - 2s)
    r: torch.Tensor  # this party's share of the mask r
    s: torch.Tensor  # of s = msb(r)
    rs: torch.Tensor  # of r * s


def make_dcf(prg: str = "aes128_mmo") -> pyfss.Dcf:
    """The scheme of the gate's keys (a party rebuilds it from a key's parameters)."""
    return pyfss.Dcf(63, "uint64", prg, "lt")


def relu_gate(dcf: pyfss.Dcf) -> gates.ReLU:
    return gates.ReLU(torch.int64, dcf.prg)


def deal(
    dcf: pyfss.Dcf, shape, device, r: torch.Tensor | None = None
) -> tuple[Correlation, Correlation]:
    """The dealer's offline step: a fresh mask per value (or the given r, for tests)."""
    pair = relu_gate(dcf).deal(shape, device=device, mask=r)
    return tuple(
        Correlation(pyfss.Key(dcf.params(), b, k["w.s0"], k["w.cws"]), k["r"], k["s"], k["rs"])
        for b, k in enumerate(pair)
    )


def masked_share(x_share: torch.Tensor, c: Correlation) -> torch.Tensor:
    """What a party sends the other: its share of x + r, which reveals nothing of x."""
    return x_share + c.r


def relu_shares(dcf: pyfss.Dcf, party: int, c: Correlation, xhat: torch.Tensor):
    """A party's shares of 1{x >= 0} and of ReLU(x), from the opened x^ = x + r."""
    tensors = {"r": c.r, "s": c.s, "rs": c.rs, "w.s0": c.key.s0, "w.cws": c.key.cws}
    gate = relu_gate(dcf)
    return gate.eval_both(party, gates.GateKey("relu", party, tensors, gate.fingerprint), xhat)


def run_protocol(dcf: pyfss.Dcf, x: torch.Tensor, r: torch.Tensor | None = None):
    """Both parties in one process: shares x, deals, opens x + r, evaluates; returns the
    reconstructed 1{x >= 0} and ReLU(x) and per-step timings."""
    device = x.device
    x0, x1 = share(x)
    t0 = time.perf_counter()
    c = deal(dcf, x.shape, device, r)
    sync(device)
    t1 = time.perf_counter()
    xhat = masked_share(x0, c[0]) + masked_share(x1, c[1])
    outs, times = [], []
    for b in (0, 1):
        t = time.perf_counter()
        outs.append(relu_shares(dcf, b, c[b], xhat))
        sync(device)
        times.append(time.perf_counter() - t)
    (d0, y0), (d1, y1) = outs
    return (
        d0 + d1,
        y0 + y1,
        {"dealer": t1 - t0, "party": times, "key_bytes": len(c[0].key.to_bytes())},
    )


def sample_values(shape, device, seed: int) -> torch.Tensor:
    """Random int64 values over the whole range, the edge cases first."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-(2**63), 2**63 - 1, shape, dtype=torch.int64, generator=g)
    edge = torch.tensor(EDGE_VALUES, dtype=torch.int64)[: x.numel()]
    x.view(-1)[: edge.numel()] = edge
    return x.to(device)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", type=int, nargs="+", default=[128, 128], help="value tensor shape")
    ap.add_argument("--prg", choices=["aes128_mmo", "chacha"], default="aes128_mmo")
    ap.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    ap.add_argument("--seed", type=int, default=0, help="seed of the values (not of the masks)")
    args = ap.parse_args(argv)

    device = pick_device(args.device)
    dcf = make_dcf(args.prg)
    x = sample_values(args.shape, device, args.seed)
    n = x.numel()
    run_protocol(dcf, x.view(-1)[:16])  # warm-up: the first calls set up the Go core and kernels
    drelu, relu, t = run_protocol(dcf, x)

    print(
        f"secure ReLU on {n} additively shared int64 values {tuple(x.shape)}, ring Z_2^64, "
        f"device {device}, prg {args.prg}"
    )
    kb = t["key_bytes"]
    print(
        f"dealer (offline): masks and 2 x {n} DCF keys (63 bits) in {t['dealer'] * 1e3:.1f} ms; "
        f"{kb / 2**20:.2f} MiB of keys to each party ({kb / n:.0f} bytes per value)"
    )
    print(f"online: one round, each party sends {8 * n} bytes (its share of x + r, 8 per value)")
    for b, dt in enumerate(t["party"]):
        print(
            f"party {b}: DCF evaluation and local arithmetic in {dt * 1e3:.1f} ms "
            f"({dt / n * 1e9:.0f} ns per value)"
        )
    want_drelu, want_relu = (x >= 0).to(torch.int64), x.clamp(min=0)
    ok_d, ok_r = int((drelu == want_drelu).sum()), int((relu == want_relu).sum())
    print(f"1{{x >= 0}}: {ok_d}/{n} match plaintext ({int(want_drelu.sum())} values are >= 0)")
    print(f"ReLU(x):   {ok_r}/{n} match plaintext")
    ok = ok_d == n and ok_r == n
    print("ok" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
