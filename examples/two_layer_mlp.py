"""A two-layer network on secret-shared inputs, evaluated by two processes with FSS gates.

    y = trunc(W2 relu(trunc(W1 x + b1)) + b2),  trunc = arithmetic shift by --frac-bits

Fixed point in the ring Z_2^64 (int64 tensors): values carry --frac-bits fractional
bits, a product carries twice as many, and the Truncate gate (exact, not
probabilistic) brings it back. The weights are public (both parties know the model);
the input x is private: rank 0 owns it and sends rank 1 an additive share. Linear
layers are local (each party multiplies its share by the public weights; party 0 adds
the bias); the non-linear steps are gates of pyfss.gates, one round each:

    truncate (layer 1)  ->  ReLU  ->  truncate (layer 2)      3 rounds online

Each round sends 8 bytes per element each way (the party's share of x + r). The key
material comes from a dealer: here rank 0 plays it and sends rank 1 its GateKeys as
bytes (offline). That keeps the example to two processes, but a dealer that is also a
party could unmask everything: a deployment runs the dealer as a third process (as
examples/two_party.py does) or replaces it with a two-party key generation.

At the end rank 1 sends its output share to rank 0, which reconstructs y, compares it
with the same fixed-point network computed in the clear (they must be equal, bit for
bit) and prints "ok" (exit status 0) or "MISMATCH" (exit status 1).

Run with two processes (gloo on the CPU; NCCL when there is a GPU per process):

    torchrun --standalone --nproc-per-node 2 examples/two_layer_mlp.py [--batch 8 --in 64 ...]
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

import pyfss
from pyfss import gates
from pyfss.mpc import Party, share


def fixed(v: torch.Tensor, frac_bits: int) -> torch.Tensor:
    return torch.round(v * 2**frac_bits).to(torch.int64)


def model(args) -> dict:
    """The public model: the same on both ranks (a shared seed)."""
    g = torch.Generator().manual_seed(args.model_seed)
    f = args.frac_bits
    w1 = torch.randn(args.hidden, args.inputs, generator=g) / args.inputs**0.5
    w2 = torch.randn(args.outputs, args.hidden, generator=g) / args.hidden**0.5
    b1, b2 = torch.randn(args.hidden, generator=g), torch.randn(args.outputs, generator=g)
    # Biases are added to products, which carry 2f fractional bits.
    return {"w1": fixed(w1, f), "b1": fixed(b1, 2 * f), "w2": fixed(w2, f), "b2": fixed(b2, 2 * f)}


def linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, with_bias: bool) -> torch.Tensor:
    """x @ w.T (+ b) in Z_2^64, as broadcast multiply and sum (int64 matmul has no
    CUDA kernel)."""
    y = (x.unsqueeze(-2) * w).sum(-1)
    return y + b if with_bias else y


def plaintext(x: torch.Tensor, m: dict, f: int) -> torch.Tensor:
    h = (linear(x, m["w1"], m["b1"], True) >> f).clamp(min=0)
    return linear(h, m["w2"], m["b2"], True) >> f


def float_network(x: torch.Tensor, m: dict, f: int) -> torch.Tensor:
    """The same network in float64, to show what the fixed point costs."""
    w1, w2 = (m[k].cpu().double() / 2**f for k in ("w1", "w2"))
    b1, b2 = (m[k].cpu().double() / 2 ** (2 * f) for k in ("b1", "b2"))
    return torch.relu(x.cpu().double() / 2**f @ w1.T + b1) @ w2.T + b2


def layers(args):
    """The gates of the network, in order, with the shape each runs on."""
    ring = torch.int64
    return [
        (gates.Truncate(args.frac_bits, ring, args.prg), (args.batch, args.hidden)),
        (gates.ReLU(ring, args.prg), (args.batch, args.hidden)),
        (gates.Truncate(args.frac_bits, ring, args.prg), (args.batch, args.outputs)),
    ]


def infer(party: Party, keys, steps, m: dict, x_share: torch.Tensor) -> torch.Tensor:
    """The online phase: this party's share of y."""
    first = party.party == 0
    (trunc1, _), (relu, _), (trunc2, _) = steps
    h = trunc1.run(party, keys[0], linear(x_share, m["w1"], m["b1"], first))
    h = relu.run(party, keys[1], h)
    return trunc2.run(party, keys[2], linear(h, m["w2"], m["b2"], first))


def pick_device(name: str) -> torch.device:
    if name == "auto":
        usable = torch.cuda.is_available() and pyfss.backend_info()["cuda"]["usable"]
        name = "cuda" if usable else "cpu"
    if name == "cuda":
        return torch.device(
            "cuda", int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count()
        )
    return torch.device(name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=8, help="inputs per run")
    ap.add_argument("--in", dest="inputs", type=int, default=64, help="input features")
    ap.add_argument("--hidden", type=int, default=128, help="hidden units")
    ap.add_argument("--out", dest="outputs", type=int, default=10, help="outputs")
    ap.add_argument("--frac-bits", type=int, default=16, help="fixed-point fractional bits")
    ap.add_argument("--prg", choices=["aes128_mmo", "chacha"], default="aes128_mmo")
    ap.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    ap.add_argument("--model-seed", type=int, default=0, help="seed of the public weights")
    ap.add_argument("--input-seed", type=int, default=1, help="seed of rank 0's private input")
    ap.add_argument("--timeout", type=float, default=120, help="seconds before a stuck step fails")
    args = ap.parse_args(argv)

    if "RANK" not in os.environ or os.environ.get("WORLD_SIZE") != "2":
        ap.error("run under torchrun with two processes: torchrun --nproc-per-node 2 ...")
    rank = int(os.environ["RANK"])
    device = pick_device(args.device)
    # NCCL needs a GPU per process; otherwise gloo moves the messages through the CPU.
    nccl = device.type == "cuda" and torch.cuda.device_count() >= 2
    if nccl:
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if nccl else "gloo", timeout=timedelta(seconds=args.timeout))
    try:
        return run(args, rank, device)
    finally:
        dist.destroy_process_group()


def run(args, rank: int, device: torch.device) -> int:
    party = Party(rank)
    m = {k: t.to(device) for k, t in model(args).items()}
    steps = layers(args)

    # Offline: the dealer (rank 0 here, see the docstring) makes both parties' keys.
    if rank == 0:
        dealt = [gate.deal(shape, device=device) for gate, shape in steps]
        keys = [pair[0] for pair in dealt]
        for pair in dealt:
            party.send_bytes(pair[1].to_bytes())
    else:
        keys = [gates.GateKey.from_bytes(party.recv_bytes(), device) for _ in steps]
    key_bytes = sum(k.nbytes for k in keys)

    # The input: rank 0's private x, additively shared.
    if rank == 0:
        g = torch.Generator().manual_seed(args.input_seed)
        x = fixed(torch.rand(args.batch, args.inputs, generator=g) * 8 - 4, args.frac_bits)
        x_share, other = share(x.to(device))
        party.send(other)
    else:
        x_share = party.recv((args.batch, args.inputs), torch.int64, device)
    before = party.stats()

    y_share = infer(party, keys, steps, m, x_share)
    online = {k: v - before[k] for k, v in party.stats().items()}

    n_elems = sum(gate_shape[0] * gate_shape[1] for _, gate_shape in steps)
    print(
        f"rank {rank}: key material {key_bytes} bytes; online {online['rounds']} rounds, "
        f"sent {online['sent']} bytes, received {online['received']} bytes "
        f"({online['sent'] / n_elems:.0f} bytes per gate element)",
        flush=True,
    )
    if rank == 1:
        party.send(y_share)
        return 0
    y = y_share + party.recv(y_share.shape, torch.int64, device)
    want = plaintext(x.to(device), m, args.frac_bits)
    f = args.frac_bits
    err = (y.cpu().double() / 2**f - float_network(x, m, f)).abs().max().item()
    same = int((y == want).sum())
    print(
        f"two-layer network {args.inputs}-{args.hidden}-{args.outputs}, batch {args.batch}, "
        f"Z_2^64 with {f} fractional bits, device {device}, {dist.get_backend()}"
    )
    print(f"outputs equal to the fixed-point plaintext: {same}/{want.numel()}")
    print(f"largest difference from the float network: {err:.2e}")
    ok = same == want.numel()
    print("ok" if ok else "MISMATCH", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
