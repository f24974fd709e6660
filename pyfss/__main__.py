"""`python -m pyfss`: versions, active backends, a self-check against known answers of
the reference library, and a one-second throughput table (`--help` for the options)."""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import platform
import sys
import time
from importlib import resources

import torch

import pyfss


def prg_kwargs(prg: dict) -> dict:
    """A vector file's public PRG parameters, as the constructors take them."""
    if prg["name"] == "chacha":
        return {"nonce": tuple(prg["nonce"])}
    return {"aes_keys": [bytes.fromhex(h) for h in prg["aes_keys_hex"]]}


def scheme_for(entry: dict):
    case, prg = entry["case"], entry["prg"]
    kw = prg_kwargs(prg)
    kind = entry["scheme"]
    if kind == "vdpf":
        hash_keys = dict(entry["hash"])
        name = hash_keys.pop("name")
        return pyfss.Vdpf(
            case["in_bits"], case["group"], prg["name"], name, hash_keys=hash_keys, **kw
        )
    if kind == "dpf":
        return pyfss.Dpf(case["in_bits"], case["group"], prg["name"], **kw)
    if kind == "half_tree_dpf":
        hk = entry["hash_key"]
        return pyfss.HalfTreeDpf(case["in_bits"], case["group"], prg["name"], hash_key=hk, **kw)
    if kind == "grotto_dcf":
        return pyfss.GrottoDcf(case["in_bits"], prg["name"], **kw)
    return pyfss.Dcf(case["in_bits"], case["group"], prg["name"], entry["pred"], **kw)


def self_check(device: str) -> list[str]:
    """Gen, Eval and EvalAll on cases of the reference's known answers, and random
    reconstruction; returns the failures."""
    data = json.loads(resources.files("pyfss").joinpath("data/selfcheck.json").read_text())
    failures = check_cases(data["cases"], device)
    for cls in (pyfss.Dpf, pyfss.Dcf):
        s = cls(12, "uint32", "aes128_mmo")
        k0, k1 = s.keygen(1000, pyfss.from_int(7, "uint32").to(device))
        total = pyfss.to_int(s.eval_all_key(k0), "uint32") + pyfss.to_int(
            s.eval_all_key(k1), "uint32"
        )
        x = torch.arange(4096, device=device)
        want = (x == 1000) if cls is pyfss.Dpf else (x < 1000)
        if not torch.equal(total, want.to(torch.int32) * 7):
            failures.append(f"random reconstruction {cls.__name__}")
    if device == "cpu":  # HalfTreeDpf and GrottoDcf: tests/test_cuda.py checks their kernels
        failures += cpu_only_check() + mpf_check()
    return failures + vdpf_check(device)


def vdpf_check(device: str) -> list[str]:
    """Vdpf on known-answer cases: keys, shares, proof pieces, proofs and their
    verification, a tampered key's failing proof, and (on the CPU, where eval_all's
    proofs run) the full domain's proofs."""
    failures = []
    data = json.loads(resources.files("pyfss").joinpath("data/selfcheck_vdpf.json").read_text())
    for entry in data["cases"]:
        case, s = entry["case"], scheme_for(entry)
        seeds = torch.tensor(case["seeds"], dtype=torch.int32, device=device)
        beta = torch.tensor(case["beta"], dtype=torch.int32, device=device)
        cws = s.gen(seeds, int(case["alpha"]), beta)
        cs = case["cs"]
        ok = cws.tolist() == [
            *case["cws"],
            [*case["ocw"], 0, 0, 0, 0],
            cs[0] + cs[1],
            cs[2] + cs[3],
        ]
        points = [int(e["x"]) for e in case["evals"]]
        xs = torch.tensor(points) if case["in_bits"] <= 63 else pyfss.to_words(points)
        xs = xs.to(device)
        pis = []
        for p in (0, 1):
            y, pieces = s.eval(p, seeds[p], cws, xs)
            ok &= y.tolist() == [e[f"y{p}"] for e in case["evals"]]
            ok &= pieces.tolist() == [e[f"pi_tilde{p}"] for e in case["evals"]]
            pis.append(s.prove(pieces, cws))
            ok &= pis[p].tolist() == case["prove"][f"pi{p}"]
        ok &= s.verify(*pis).item() is case["prove"]["verify"]
        tm = case["tampered"]
        bad = cws.clone()
        bad[tm["cw_index"], tm["word"]] ^= tm["xor"]
        pi1 = s.prove(s.eval(tm["party"], seeds[tm["party"]], bad, xs)[1], bad)
        ok &= pi1.tolist() == tm["pi1"] and s.verify(pis[0], pi1).item() is tm["verify"]
        if "eval_all" in case and device == "cpu":
            for p in (0, 1):
                out, pi = s.eval_all(p, seeds[p], cws)
                image = ctypes.string_at(out.data_ptr(), out.numel() * out.element_size())
                ok &= hashlib.sha256(image).hexdigest() == case["eval_all"]["sha256"][p]
                ok &= pi.tolist() == case["eval_all"]["pi"][p]
        if not ok:
            failures.append(case["id"])
    return failures


def mpf_check(entries: list[dict] | None = None) -> list[str]:
    """Dmpf and Vdmpf on VDMPF known-answer cases (default: the packaged ones): the
    key (Dmpf's lacks the buckets' cs rows), the shares at the case's points (the same
    for both: the buckets' trees are), Vdmpf's proofs and their verification, and a
    key with another hashing key (sigma) failing it. Returns the failures."""
    if entries is None:
        text = resources.files("pyfss").joinpath("data/selfcheck_mpf.json").read_text()
        entries = json.loads(text)["cases"]
    failures = []
    for entry in entries:
        case = entry["case"]
        seeds = torch.tensor(case["s0s"], dtype=torch.int32)
        alphas = [int(a) for a in case["alphas"]]
        betas = torch.tensor(case["betas"], dtype=torch.int32)
        if case["group"] == "bytes":
            betas[:, 3] &= ~1  # the reserved bit, which the core refuses and the reference clears
        xs = torch.tensor([int(x) for x in case["xs"]])
        kw = {
            "group": case["group"],
            "bucket_bits": case["bucket_bits"],
            **prg_kwargs(entry["prg"]),
        }
        for cls in (pyfss.Dmpf, pyfss.Vdmpf):
            verifiable = cls is pyfss.Vdmpf
            extra = {"hash": entry["hash"]["name"]} if verifiable else {}
            s = cls(case["in_bits"], case["max_points"], prg=entry["prg"]["name"], **kw, **extra)
            cws = s.gen(seeds, alphas, betas, sigma=torch.tensor(case["sigma"], dtype=torch.int32))
            ok = cws.tolist() == mpf_rows(case, verifiable)
            pis = []
            for p in (0, 1):
                out = s.eval(p, seeds[:, p], cws, xs)
                if verifiable:
                    out, pi = out
                    ok &= pi.tolist() == case["pi"][p]
                    pis.append(pi)
                ok &= out.tolist() == case[f"ys{p}"]
            if isinstance(s, pyfss.Vdmpf):
                bad = cws.clone()
                bad[0, 1] ^= 1  # sigma: party 1's inputs go to other buckets
                ok &= s.verify(*pis) is case["verify"]
                ok &= s.verify(pis[0], s.eval(1, seeds[:, 1], bad, xs)[1]) is False
            if not ok:
                failures.append(f"{case['id']} ({cls.__name__})")
    return failures


def mpf_rows(case: dict, verifiable: bool) -> list:
    """A VDMPF case's key in our layout: the header row (sigma; m_rt), then per bucket
    its tree rows, its output correction word and (Vdmpf) its cs in two rows."""
    rows = [case["sigma"] + [case["m_rt"], 0, 0, 0]]
    for b in case["buckets"]:
        rows += b["cws"] + [b["ocw"] + [0, 0, 0, 0]]
        if verifiable:
            rows += [b["cs"][0] + b["cs"][1], b["cs"][2] + b["cs"][3]]
    return rows


def check_cases(entries: list[dict], device: str) -> list[str]:
    """The ids of the known-answer cases (of Dpf, Dcf, HalfTreeDpf and GrottoDcf) whose
    keys or outputs on device differ."""
    failures = []
    for entry in entries:
        s = scheme_for(entry)
        check = check_grotto if isinstance(s, pyfss.GrottoDcf) else check_tree
        if not check(s, entry, device):
            failures.append(entry["case"]["id"])
    return failures


def check_tree(s, entry: dict, device: str) -> bool:
    """A Dpf, Dcf or HalfTreeDpf case: its keys, its evals, its eval_all's hash."""
    case = entry["case"]
    seeds = torch.tensor(case["seeds"], dtype=torch.int32, device=device)
    # beta_group: beta as the group's element, where the reference's Gen dropped a bit
    beta = torch.tensor(case.get("beta_group", case["beta"]), dtype=torch.int32, device=device)
    cws = s.gen(seeds, int(case["alpha"]), beta)
    if isinstance(s, pyfss.HalfTreeDpf):  # the vectors hold keys in the reference's layout
        rows, ocw = s.to_reference(cws)
        ok = rows.tolist() == case["cws"] and ocw.tolist() == case["ocw"]
    else:
        ok = cws.tolist() == case["cws"]
    for e in case["evals"]:
        for p, want in enumerate((e["y0"], e["y1"])):
            ok &= s.eval(p, seeds[p], cws, int(e["x"])).tolist() == want
    if "eval_all" in case:
        ok &= all(
            image_sha256(s.eval_all(p, seeds[p], cws)) == case["eval_all"]["sha256"][p]
            for p in (0, 1)
        )
    return ok


def check_grotto(s, entry: dict, device: str) -> bool:
    """A GrottoDcf case: its keys, the parties' bits at its points, eval_all's hash."""
    case = entry["case"]
    seeds = torch.tensor(case["seeds"], dtype=torch.int32, device=device)
    cws = s.gen(seeds, int(case["alpha"]))
    ok = cws.tolist() == case["cws"]
    xs = torch.tensor([int(e["x"]) for e in case["evals"]], device=device)
    for p, key in enumerate(("y0", "y1")):
        pre = s.preprocess(p, seeds[p], cws)
        ok &= s.eval(pre, xs).tolist() == [e[key] for e in case["evals"]]
        ok &= image_sha256(s.eval_all(p, seeds[p], cws)) == case["eval_all"]["sha256"][p]
    return ok


def image_sha256(t: torch.Tensor) -> str:
    """The SHA-256 of a tensor's memory image, read without numpy (not a dependency)."""
    t = t.cpu().contiguous()
    return hashlib.sha256(ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())).hexdigest()


def cpu_only_check() -> list[str]:
    """Random reconstruction of HalfTreeDpf and GrottoDcf over a whole domain."""
    failures = []
    x = torch.arange(4096)
    h = pyfss.HalfTreeDpf(12, "uint32", "aes128_mmo")
    k0, k1 = h.keygen(1000, pyfss.from_int(7, "uint32"))
    total = pyfss.to_int(h.eval_all_key(k0), "uint32") + pyfss.to_int(h.eval_all_key(k1), "uint32")
    if not torch.equal(total, (x == 1000).to(torch.int32) * 7):
        failures.append("random reconstruction HalfTreeDpf")
    g = pyfss.GrottoDcf(12)
    keys = g.keygen(1000)
    pre = [g.preprocess(k.party, k.s0, k.cws) for k in keys]
    if not torch.equal(g.eval(pre[0], x) ^ g.eval(pre[1], x), x >= 1000):
        failures.append("random reconstruction GrottoDcf")
    return failures


def rate(fn, items: int, budget: float) -> float:
    """Items per second of fn, best of repeated runs within budget seconds."""
    fn()
    best, end = float("inf"), time.perf_counter() + budget
    while time.perf_counter() < end:
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return items / best


def throughput(device: str, budget: float = 1.0) -> list[tuple]:
    cells: list[tuple[type, str]] = [
        (cls, prg) for cls in (pyfss.Dpf, pyfss.Dcf) for prg in ("aes128_mmo", "chacha")
    ]
    if device == "cpu":  # Vdpf: eval with its proof pieces, eval_all with its proof
        cells += [(pyfss.HalfTreeDpf, "aes128_mmo"), (pyfss.Vdpf, "aes128_mmo")]
    return [cell_rates(cls, prg, device, budget / (3 * len(cells))) for cls, prg in cells]


def cell_rates(cls, prg: str, device: str, per: float, n: int = 20, k: int = 1 << 14) -> tuple:
    """(name, gen keys/s, eval keys/s, eval_all outputs/s) of one scheme and PRG."""
    s = cls(n, "uint64", prg)
    seeds = torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=torch.int32, device=device)
    alphas = torch.randint(0, 2**n, (k,), device=device)
    betas = torch.randint(-(2**31), 2**31, (k, 4), dtype=torch.int32, device=device)
    cws = s.gen(seeds, alphas, betas)
    s0 = seeds[:, 0].contiguous()
    return (
        f"{cls.__name__} {prg}",
        rate(lambda: s.gen(seeds, alphas, betas), k, per),
        rate(lambda: s.eval(0, s0, cws, alphas), k, per),
        rate(lambda: s.eval_all(0, s0[0], cws[0]), 1 << n, per),
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m pyfss",
        description="Versions, active backends, a self-check against known answers of "
        "the reference library, and a throughput table.",
    )
    ap.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="where to run: auto (the CPU, and CUDA when usable; default), cpu or cuda",
    )
    ap.add_argument("--quick", action="store_true", help="the self-check only, no throughput table")
    ap.add_argument(
        "--seconds",
        type=float,
        default=1.0,
        help="time for the throughput table per device (default 1)",
    )
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    info = pyfss.backend_info()
    print(
        f"pyfss {pyfss.__version__} (Go core {info['version']}, {info['go_version']}), "
        f"torch {torch.__version__}, Python {platform.python_version()}, {info['goos']}/{info['goarch']}"
    )
    for prg, b in info["prg"].items():
        print(f"  {prg:<11} {b['active']:<12} (this CPU can run: {', '.join(b['available'])})")
    c = info["cuda"]
    archs = ", ".join(c["archs"] or []) or "none"
    print(
        f"  cuda        kernels compiled: {c['kernels_compiled']} ({archs}); "
        f"usable: {c['usable']}" + ("" if c["usable"] else f" ({c['reason']})")
    )

    usable = c["usable"] and torch.cuda.is_available()
    if args.device == "cuda" and not usable:
        print(f"CUDA is not usable here: {c['reason'] or 'torch sees no GPU'}", file=sys.stderr)
        return 2
    choices = {"auto": ["cpu"] + (["cuda"] if usable else []), "cpu": ["cpu"], "cuda": ["cuda"]}
    devices = choices[args.device]
    failed = False
    for device in devices:
        failures = self_check(device)
        failed |= bool(failures)
        print(
            f"self-check on {device}: "
            + ("ok" if not failures else "FAILED: " + ", ".join(failures))
        )

    if args.quick:
        return 1 if failed else 0
    print("\nthroughput at in_bits 20, group uint64, batches of 2^14 keys (millions per second):")
    for device in devices:
        print(f"  {device:<22} {'gen keys':>10} {'eval keys':>10} {'eval_all outputs':>17}")
        for name, g, e, a in throughput(device, args.seconds):
            print(f"  {name:<22} {g / 1e6:>10.2f} {e / 1e6:>10.2f} {a / 1e6:>17.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
