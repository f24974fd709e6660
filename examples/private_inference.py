"""Private inference of a small CNN on 8x8 digits: one party holds the model, the other
the images, and neither learns the other's.

Party 1 (the model owner) trains a LeNet-size network on scikit-learn's digits
(shipped in its wheel: nothing downloads) for a few epochs; party 0 holds a batch of
test images. pyfss.mpc.convert shares the weights, party 0 shares the images, and the
two run the network on additive shares in Z_2^64 (16 fractional bits, exact
truncation): convolutions and linear layers are Beaver products, ReLU and max pooling
FSS gates, and the predicted class (argmax of the logits) is opened to party 0 only.
A dealer makes the triples and gate keys; it never sees the model or the images.

Then, outside the protocol and for the check only, party 1 shows party 0 its model:
party 0 computes the same network in the clear in fixed point (int64, floor
truncation) and asserts the same class for every image. It prints rounds, bytes and
seconds per image and a table per layer, and "ok" (exit status 0).

    python examples/private_inference.py --local          # two threads, one process
    torchrun --standalone --nproc-per-node 3 examples/private_inference.py

Under torchrun, ranks 0 and 1 are the parties and rank 2 the dealer, which records
the plan by running the same program on zeros (the program's structure does not
depend on the values) and serves it. Items are dealt when a party asks for them, so
the seconds include the dealer's work.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from pyfss.mpc import DealerRank, LocalDealer, Party, SharedTensor, convert, run_local, serve

FRAC = 16
CLASSES = 10
TRAIN = 1400  # of the 1797 images; the rest are the test set


def network() -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 2 * 2, 32),
        nn.ReLU(),
        nn.Linear(32, CLASSES),
    )


def digits() -> tuple[torch.Tensor, torch.Tensor]:
    """The 1797 digits as (N, 1, 8, 8) floats in [0, 1] and their labels."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x = torch.tensor(d.images, dtype=torch.float32).unsqueeze(1) / 16
    return x, torch.tensor(d.target)


def train(epochs: int, seed: int) -> tuple[nn.Sequential, float]:
    """The model owner's network, trained on the first TRAIN digits; its test accuracy."""
    torch.manual_seed(seed)
    x, y = digits()
    model = network()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(epochs):
        for batch in torch.randperm(TRAIN).split(64):
            opt.zero_grad()
            F.cross_entropy(model(x[batch]), y[batch]).backward()
            opt.step()
    with torch.no_grad():
        accuracy = (model(x[TRAIN:]).argmax(1) == y[TRAIN:]).float().mean().item()
    return model, accuracy


def fixed_point(model: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """The logits of model on x in the clear, in the parties' fixed point: int64 with
    FRAC fractional bits, floor truncation after each product."""

    def fx(t):
        return torch.round(t.detach().double() * 2**FRAC).to(torch.int64)

    v = fx(x)
    for m in model:
        if isinstance(m, nn.Conv2d):
            v = F.conv2d(v, fx(m.weight), stride=m.stride, padding=m.padding) >> FRAC
            v = v + fx(m.bias).reshape(-1, 1, 1)
        elif isinstance(m, nn.Linear):
            v = ((v @ fx(m.weight).T) >> FRAC) + fx(m.bias)
        elif isinstance(m, nn.ReLU):
            v = v.clamp(min=0)
        elif isinstance(m, nn.MaxPool2d):  # in float64, exact for these magnitudes
            v = F.max_pool2d(v.double(), m.kernel_size, m.stride, m.padding).to(torch.int64)
        elif isinstance(m, nn.Flatten):
            v = v.flatten(1)
    return v


def infer(party, model: nn.Sequential, images: torch.Tensor | None) -> tuple:
    """The secure part: party 1 shares model, party 0 images (None elsewhere). Party 0
    gets the predicted classes, party 1 None; both the seconds the inference took
    once the model and images were shared."""
    secure = convert(model, party, owner=1)
    x = SharedTensor.from_secret(party, images, owner=0, truncation="exact")
    start = time.perf_counter()
    logits = secure(x)
    with party.layer("argmax"):
        classes = logits.argmax(1)
    with party.layer("reveal"):
        opened = classes.reveal(to=0)
    seconds = time.perf_counter() - start
    return (None if opened is None else opened.round().long()), seconds


def party_main(party, model, images, labels) -> dict | None:
    """infer, then the check (outside the protocol): party 1 shows party 0 its model;
    party 0 returns what main prints."""
    classes, seconds = infer(party, model, images)
    counters, table = party.counters(), party.table()
    if party.party == 1:
        buf = io.BytesIO()
        torch.save(model.state_dict(), buf)
        party.send_bytes(buf.getvalue())
        return None
    shown = network()
    shown.load_state_dict(torch.load(io.BytesIO(party.recv_bytes()), weights_only=True))
    want = fixed_point(shown, images).argmax(1)
    return {
        "classes": classes,
        "want": want,
        "labels": labels,
        "seconds": seconds,
        "counters": counters,
        "table": table,
    }


def report(r: dict, batch: int) -> bool:
    total = r["counters"]["total"]
    # Without the one-off sharing of the weights, which is no per-image cost.
    layers = [c for name, c in r["counters"].items() if name != "total" and "/" not in name]
    sent = sum(c["sent"] for c in layers)
    received = sum(c["received"] for c in layers)
    dealer = sum(c["dealer"] for c in layers)
    print(
        f"private inference of {batch} images: {total['rounds']} rounds, per image "
        f"{sent / batch:.0f} bytes sent, {received / batch:.0f} received, "
        f"{dealer / batch:.0f} from the dealer, {r['seconds'] / batch:.3f} s"
    )
    print(r["table"])
    same = int((r["classes"] == r["want"]).sum())
    right = int((r["classes"] == r["labels"]).sum())
    print(f"argmax equal to the fixed-point plaintext model: {same}/{batch}")
    print(f"private predictions right: {right}/{batch}")
    ok = same == batch
    print("ok" if ok else "MISMATCH")
    return ok


def held_out(batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    x, y = digits()
    return x[TRAIN : TRAIN + batch], y[TRAIN : TRAIN + batch]


def run_in_process(args) -> bool:
    model, accuracy = train(args.epochs, args.seed)
    print(f"trained {args.epochs} epochs: test accuracy {accuracy:.3f} (float)")
    images, labels = held_out(args.batch)

    def both(party):
        if party.party == 1:
            return party_main(party, model, None, None)
        return party_main(party, network(), images, labels)

    r, _ = run_local(both, dealer=LocalDealer(), timeout=args.timeout)
    return report(r, args.batch)


def run_distributed(args) -> bool:
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.timeout))
    try:
        rank = dist.get_rank()
        if rank == 2:
            dry = LocalDealer()
            zeros = torch.zeros(args.batch, 1, 8, 8)
            run_local(lambda p: infer(p, network(), zeros if p.party == 0 else None), dealer=dry)
            serve(dry.plan, parties=(0, 1))
            return True
        party = Party(rank, dealer=DealerRank(2))
        if rank == 1:
            model, accuracy = train(args.epochs, args.seed)
            print(f"trained {args.epochs} epochs: test accuracy {accuracy:.3f} (float)")
            party_main(party, model, None, None)
            return True
        images, labels = held_out(args.batch)
        return report(party_main(party, network(), images, labels), args.batch)
    finally:
        dist.destroy_process_group()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--local", action="store_true", help="two threads instead of torchrun")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for a peer")
    args = p.parse_args(argv)
    if args.epochs < 0 or not 1 <= args.batch <= 1797 - TRAIN:
        p.error(f"epochs must be >= 0 and batch in [1, {1797 - TRAIN}]")
    if args.local:
        return 0 if run_in_process(args) else 1
    if not dist.is_torchelastic_launched() or int(os.environ["WORLD_SIZE"]) != 3:
        p.error("run under torchrun with three processes (or pass --local)")
    return 0 if run_distributed(args) else 1


if __name__ == "__main__":
    sys.exit(main())
