"""pyfss on the GPU: batched gen and point eval of 2^20 keys, and eval_all of one key, for
Dpf, Dcf (lt) and HalfTreeDpf, both PRGs, group uint64, at in_bits 20, against the
PRG-only bound (Dpf, Dcf); GrottoDcf's gen of 2^20 keys, preprocess of one key and
eval of 2^20 points of one preprocessed key; Vdpf's gen and eval (shares and proof
pieces) of 2^20 keys for both hashes; Dmpf's and Vdmpf's eval of one key of MPF_POINTS
points at 2^20 inputs (Vdmpf: the whole call, whose proof is folded on the CPU, and its
kernels alone), beside Dpf's rows of the same run.

    python benchmarks/gpu_bench.py [--out FILE] [--reps N]

Device times are CUDA events on torch.cuda.current_stream() around the whole pyfss call,
the median of --reps calls after a warm-up. Each timed call is queued behind a GPU spin
(torch.cuda._sleep), so that the host has issued the call's work before the GPU reaches
it; but a call reads back its input checks once (one synchronization) before it launches
its kernels, so its figure also holds the checks' kernels and the host's time from that
read to the launches: an upper bound on the kernels' own time, and "of bound" a lower
bound on the share of the PRG bound they reach. Beside them:

- the PRG-only bound: the prg_bench kernel, which makes the PRG calls of a point eval
  (2^20 seeds, 20 levels) with none of its memory traffic, timed in the same run; for
  gen, as many seeds as gen makes PRG calls per key (GEN_PRG_CALLS). The share of the
  bound reached is bound time / op time.
- the Python overhead: the wall time of a call that waits for its result, against the
  GPU time of that call.

Prints Markdown tables and writes them to --out. Exits 0 with a message when pyfss
cannot use a GPU here.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import torch

import pyfss

BITS = 20
LOG_KEYS = 20
KEYS = 1 << LOG_KEYS
EVAL_ALL_BITS = range(20, 27)
GROUP = "uint64"
BOUND_TARGET = 0.60
OVERHEAD_TARGET = 0.05
# PRG calls per key and level of gen, in units of a point eval's: gen expands both
# parties' nodes in full (expand<Mul> twice), eval one half of one node (expand_half).
# A ChaCha expansion is one permutation, whole or half; AES-MMO encrypts once per
# output block.
GEN_PRG_CALLS = {"chacha": 2, "aes128_mmo": 4}
# About a millisecond at the H200's clocks: longer than issuing any call below takes.
SPIN_CYCLES = 2_000_000


def unusable_reason() -> str | None:
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    cuda = pyfss.backend_info()["cuda"]
    return None if cuda["usable"] else cuda["reason"]


def gpu_ms(fn, reps: int) -> float:
    """Median GPU time of fn() in ms."""
    fn()
    torch.cuda.synchronize()
    events = []
    for _ in range(reps):
        torch.cuda._sleep(SPIN_CYCLES)
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        fn()
        end.record()
        events.append((begin, end))
    torch.cuda.synchronize()
    return statistics.median(b.elapsed_time(e) for b, e in events)


def wall_ms(fn, reps: int) -> tuple[float, float]:
    """Median wall time in ms of fn() and waiting for its result, and of issuing it alone."""
    fn()
    torch.cuda.synchronize()
    walls, issues = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        torch.cuda.current_stream().synchronize()
        walls.append(time.perf_counter() - t0)
        issues.append(t1 - t0)
    return statistics.median(walls) * 1e3, statistics.median(issues) * 1e3


def rand_i32(*shape: int) -> torch.Tensor:
    return torch.randint(-(2**31), 2**31, shape, dtype=torch.int32, device="cuda")


def make(scheme: str, prg: str, bits: int):
    if scheme == "half_tree_dpf":
        return pyfss.HalfTreeDpf(bits, GROUP, prg)
    return pyfss.Dpf(bits, GROUP, prg) if scheme == "dpf" else pyfss.Dcf(bits, GROUP, prg, "lt")


def prg_bound_ms(s, count: int, reps: int) -> float:
    seeds = rand_i32(count, 4)
    dst = torch.empty_like(seeds)
    dev = torch.cuda.current_device()

    def run():
        stream = torch.cuda.current_stream().cuda_stream
        pyfss.lib.CudaPrgBench(
            s._handle, dev, stream, dst.data_ptr(), seeds.data_ptr(), count, BITS
        )

    return gpu_ms(run, reps)


def measure(reps: int) -> tuple[list[dict], list[dict]]:
    rows, overhead = [], []
    for scheme in ("dpf", "dcf", "half_tree_dpf"):
        for prg in ("chacha", "aes128_mmo"):
            s = make(scheme, prg, BITS)
            seeds, betas = rand_i32(KEYS, 2, 4), rand_i32(KEYS, 4)
            alphas = torch.randint(0, 2**BITS, (KEYS,), dtype=torch.int32, device="cuda")
            cws = s.gen(seeds, alphas, betas)
            s0 = seeds[:, 0].contiguous()
            calls = {
                "gen": (partial(s.gen, seeds, alphas, betas), GEN_PRG_CALLS[prg] * KEYS),
                "eval": (partial(s.eval, 0, s0, cws, alphas), KEYS),
            }
            for op, (fn, bound_seeds) in calls.items():
                ms = gpu_ms(fn, reps)
                row = {
                    "op": op,
                    "scheme": scheme,
                    "prg": prg,
                    "size": f"2^{LOG_KEYS} keys",
                    "ms": ms,
                    "items": KEYS,
                }
                # Half-Tree DPF's hash has no bound kernel.
                bound = (
                    {}
                    if scheme == "half_tree_dpf"
                    else {"bound": prg_bound_ms(s, bound_seeds, reps)}
                )
                rows.append(row | bound)
                wall, issue = wall_ms(fn, reps)
                overhead.append(row | {"wall": wall, "issue": issue})
            for n in EVAL_ALL_BITS:
                s = make(scheme, prg, n)
                key_seeds = rand_i32(2, 4)
                key = s.gen(key_seeds, 12345, rand_i32(4))
                s0 = key_seeds[0].contiguous()
                ms = gpu_ms(partial(s.eval_all, 0, s0, key), reps)
                size = f"1 key, in_bits {n}"
                rows.append(
                    {
                        "op": "eval_all",
                        "scheme": scheme,
                        "prg": prg,
                        "size": size,
                        "ms": ms,
                        "items": 1 << n,
                    }
                )
    return rows + measure_grotto(reps) + measure_vdpf(reps) + measure_mpf(reps), overhead


def measure_vdpf(reps: int) -> list[dict]:
    """Vdpf gen and eval (one point per key, with its proof piece: two XH hashes)."""
    rows = []
    for prg in ("chacha", "aes128_mmo"):
        for hash in ("sha256", "blake3"):
            s = pyfss.Vdpf(BITS, GROUP, prg, hash)
            seeds, betas = rand_i32(KEYS, 2, 4), rand_i32(KEYS, 4)
            alphas = torch.randint(0, 2**BITS, (KEYS,), dtype=torch.int32, device="cuda")
            cws = s.gen(seeds, alphas, betas)
            s0 = seeds[:, 0].contiguous()
            row = {
                "scheme": f"vdpf {hash}",
                "prg": prg,
                "size": f"2^{LOG_KEYS} keys",
                "items": KEYS,
            }
            for op, fn in (
                ("gen", partial(s.gen, seeds, alphas, betas)),
                ("eval", partial(s.eval, 0, s0, cws, alphas)),
            ):
                rows.append(row | {"op": op, "ms": gpu_ms(fn, reps)})
    return rows


MPF_POINTS = 64


def measure_mpf(reps: int) -> list[dict]:
    """Dmpf and Vdmpf eval of one key at 2^LOG_KEYS inputs: three PRP evaluations and
    three bucket walks per input. A Vdmpf call waits for its buckets and pieces and
    folds them into the proof on the CPU; the kernels alone are timed beside it."""
    rows = []
    xs = torch.randint(0, 2**BITS, (KEYS,), dtype=torch.int64, device="cuda")
    for prg in ("chacha", "aes128_mmo"):
        schemes = [("dmpf", pyfss.Dmpf(BITS, MPF_POINTS, GROUP, prg))]
        schemes += [
            (f"vdmpf {h}", pyfss.Vdmpf(BITS, MPF_POINTS, GROUP, prg, hash=h))
            for h in ("sha256", "blake3")
        ]
        for name, s in schemes:
            alphas = list(range(0, 2**BITS, 2**BITS // MPF_POINTS))
            k0, _ = s.keygen(alphas, torch.ones(MPF_POINTS, 4, dtype=torch.int32))
            s0, cws = k0.s0.to("cuda"), k0.cws.to("cuda")
            row = {
                "scheme": name,
                "prg": prg,
                "size": f"1 key of {MPF_POINTS} points, 2^{LOG_KEYS} inputs",
                "items": KEYS,
            }
            ms = gpu_ms(partial(s.eval, 0, s0, cws, xs), reps)
            rows.append(row | {"op": "eval", "ms": ms})
            if name != "dmpf":
                ms = gpu_ms(mpf_kernels(s, s0, cws, xs), reps)
                rows.append(row | {"op": "eval kernels", "ms": ms})
    return rows


def mpf_kernels(s, s0: torch.Tensor, cws: torch.Tensor, xs: torch.Tensor):
    """A call of Vdmpf's eval kernels alone, without the fold of the proof."""
    m = xs.numel()
    y = torch.empty(m, 4, dtype=torch.int32, device="cuda")
    bkts = torch.empty(m, 3, dtype=torch.int32, device="cuda")
    pieces = torch.empty(m, 3, 4, 4, dtype=torch.int32, device="cuda")
    dev = torch.cuda.current_device()
    scratch = pyfss._cuda.scratch(s._handle, "mpf_eval", 1, m, xs.device)

    def run():
        stream = torch.cuda.current_stream().cuda_stream
        pyfss.call(
            pyfss.lib.MpfEvalCuda,
            s._handle, dev, stream, y.data_ptr(), bkts.data_ptr(), pieces.data_ptr(), 0,
            s0.data_ptr(), cws.data_ptr(), xs.data_ptr(), 2, m, scratch.data_ptr(), 0,
        )  # fmt: skip

    return run


def measure_grotto(reps: int) -> list[dict]:
    rows = []
    for prg in ("chacha", "aes128_mmo"):
        s = pyfss.GrottoDcf(BITS, prg)
        seeds = rand_i32(KEYS, 2, 4)
        alphas = torch.randint(0, 2**BITS, (KEYS,), dtype=torch.int32, device="cuda")
        row = {"scheme": "grotto_dcf", "prg": prg}
        rows.append(
            row
            | {"op": "gen", "size": f"2^{LOG_KEYS} keys", "items": KEYS}
            | {"ms": gpu_ms(partial(s.gen, seeds, alphas), reps)}
        )
        pre = s.preprocess(0, seeds[0, 0].contiguous(), s.gen(seeds[0], 12345))
        ms = gpu_ms(partial(s.eval, pre, alphas), reps)
        rows.append(
            row | {"op": "eval", "size": f"1 key, 2^{LOG_KEYS} points", "items": KEYS, "ms": ms}
        )
        for n in EVAL_ALL_BITS:
            s = pyfss.GrottoDcf(n, prg)
            key_seeds = rand_i32(2, 4)
            key = s.gen(key_seeds, 12345)
            ms = gpu_ms(partial(s.preprocess, 0, key_seeds[0].contiguous(), key), reps)
            rows.append(
                row | {"op": "preprocess", "size": f"1 key, in_bits {n}", "items": 1 << n, "ms": ms}
            )
    return rows


def tables(rows: list[dict], overhead: list[dict]) -> str:
    out = [
        (
            f"Device times of the whole call (CUDA events, median; they include the call's input "
            f"checks and its one read of them before the launches), group {GROUP}; bound = PRG-only "
            f"time of the same PRG calls (target: gen and eval reach >= {BOUND_TARGET:.0%} of it; "
            f"'of bound' is a lower bound on the kernels' share)."
        ),
        "",
        "| op | scheme | prg | size | call GPU ms | ns per key/output | outputs/s | PRG bound ms | of bound |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        share = ""
        if "bound" in r:
            frac = r["bound"] / r["ms"]
            share = f"{frac:.0%} {'ok' if frac >= BOUND_TARGET else 'BELOW TARGET'}"
        bound = f"{r['bound']:.3f}" if "bound" in r else ""
        out.append(
            f"| {r['op']} | {r['scheme']} | {r['prg']} | {r['size']} | {r['ms']:.3f} | "
            f"{r['ms'] * 1e6 / r['items']:.3f} | {r['items'] / r['ms'] / 1e6:.2f} G | {bound} | {share} |"
        )
    out += [
        "",
        (
            f"Python overhead at 2^{LOG_KEYS} keys: wall time of a call that waits for its result (median) "
            f"over its GPU time (target: < {OVERHEAD_TARGET:.0%} more); issue = the call's own wall time."
        ),
        "",
        "| op | scheme | prg | GPU ms | wall ms | issue ms | overhead |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for o in overhead:
        frac = o["wall"] / o["ms"] - 1
        verdict = "ok" if frac < OVERHEAD_TARGET else "ABOVE TARGET"
        out.append(
            f"| {o['op']} | {o['scheme']} | {o['prg']} | {o['ms']:.3f} | {o['wall']:.3f} | {o['issue']:.3f} | "
            f"{frac:+.1%} {verdict} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the tables (Markdown) here")
    parser.add_argument(
        "--reps", type=int, default=10, help="timed calls per figure (default %(default)s)"
    )
    args = parser.parse_args(argv)

    if reason := unusable_reason():
        text = f"gpu_bench: skipped, no usable GPU: {reason}\n"
    else:
        cuda = pyfss.backend_info()["cuda"]
        head = (
            f"## pyfss GPU benchmark\n\n{torch.cuda.get_device_name()}, torch {torch.__version__}, "
            f"kernels {', '.join(cuda['archs'])}\n\n"
        )
        text = head + tables(*measure(args.reps))
    print(text, end="")
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
