"""The examples: their protocols against plaintext, and each script run on small sizes."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import pyfss

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def run_example(name, *args, cwd, launcher=()):
    r = subprocess.run(
        [sys.executable, *launcher, str(EXAMPLES / f"{name}.py"), *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=240,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def pir():
    return load("pir")


@pytest.fixture(scope="module")
def pir_sharded():
    return load("pir_sharded")


@pytest.fixture(scope="module")
def relu():
    return load("secure_relu")


@pytest.mark.parametrize("prg", ["aes128_mmo", "chacha"])
def test_pir_returns_the_wanted_records(pir, prg):
    log_rows = 10
    db = torch.randint(-(2**31), 2**31, (2**log_rows, 4), dtype=torch.int32)
    wanted = [0, 2**log_rows - 1, 517, 517, 3]
    q0, q1 = pir.make_queries(log_rows, wanted, prg)
    a0, a1 = pir.answer(db, q0), pir.answer(db, q1)
    assert torch.equal(pir.reconstruct(a0, a1), db[wanted])
    # Either answer alone is a random-looking share, not the record.
    assert not torch.equal(a0, db[wanted]) and not torch.equal(a1, db[wanted])
    scheme, key = pyfss.load_key(q1)
    assert isinstance(scheme, pyfss.Dpf) and key.party == 1 and key.batch_shape == (len(wanted),)


def boundary_values(r: int) -> list[int]:
    """x where x + r (mod 2^64) sits at the borrow and sign boundaries the protocol
    handles: x + r in {0, 2^63 - 1, 2^63, 2^64 - 1} and their neighbours."""
    out = []
    for target in (0, 2**63 - 1, 2**63, 2**64 - 1):
        for d in (-1, 0, 1):
            v = (target + d - r) % 2**64
            out.append(v - 2**64 if v >= 2**63 else v)
    return out


@pytest.mark.parametrize("r", [0, 1, -1, 2**63 - 1, -(2**63), 2**62, -(2**62), 0x123456789ABCDEF0])
def test_relu_at_edges_of_values_and_masks(relu, r):
    x = torch.tensor(relu.EDGE_VALUES + boundary_values(r), dtype=torch.int64)
    dcf = relu.make_dcf()
    drelu, out, _ = relu.run_protocol(dcf, x, torch.full_like(x, r))
    assert drelu.tolist() == [int(v >= 0) for v in x.tolist()]
    assert out.tolist() == [max(v, 0) for v in x.tolist()]


@pytest.mark.parametrize("prg", ["aes128_mmo", "chacha"])
def test_relu_on_random_values_and_masks(relu, prg):
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-(2**63), 2**63 - 1, (3, 50), dtype=torch.int64, generator=g)
    x[0, :20] = torch.randint(-5, 5, (20,), generator=g)  # near zero, where the sign flips
    drelu, out, _ = relu.run_protocol(relu.make_dcf(prg), x)
    assert drelu.shape == x.shape and out.shape == x.shape
    assert drelu.tolist() == [[int(v >= 0) for v in row] for row in x.tolist()]
    assert out.tolist() == [[max(v, 0) for v in row] for row in x.tolist()]


def test_parties_open_x_plus_the_mask(relu):
    x = torch.tensor([5, -5], dtype=torch.int64)
    c0, c1 = relu.deal(relu.make_dcf(), x.shape, "cpu")
    x0, x1 = relu.share(x)
    opened = relu.masked_share(x0, c0) + relu.masked_share(x1, c1)
    assert torch.equal(opened - x, c0.r + c1.r)
    assert not torch.equal(opened, x)


def test_pir_script(tmp_path):
    out = run_example("pir", "--log-rows", "10", "--queries", "3", "--prg", "chacha", cwd=tmp_path)
    assert "retrieved correctly" in out and out.rstrip().endswith("ok")
    assert "3 queries in one batch" in out


def test_secure_relu_script(tmp_path):
    out = run_example("secure_relu", "--shape", "6", "7", "--seed", "5", cwd=tmp_path)
    assert "1{x >= 0}: 42/42 match plaintext" in out
    assert "ReLU(x):   42/42 match plaintext" in out
    assert out.rstrip().endswith("ok")


def test_two_party_script(tmp_path):
    out = run_example("two_party", "--shape", "5", "3", "--timeout", "60", cwd=tmp_path)
    assert "15/15 match plaintext; ReLU(x): 15/15 match plaintext" in out
    assert out.rstrip().endswith("ok")
    sent = re.findall(
        r"^ *(dealer|party \d) -> (dealer|party \d) +(.+?) +(\d+) bytes$", out, re.MULTILINE
    )
    values, key_bytes = 15, 2 * 15 * (16 + 32 * 64)  # two 63-bit DCF keys per value
    assert sorted((a, b, what) for a, b, what, _ in sent) == sorted(
        [
            ("dealer", f"party {i}", what)
            for i in (0, 1)
            for what in (
                "DCF keys (Key.to_bytes)",
                "shares of r, msb(r), r*msb(r)",
                f"x_{i} (share of x)",
            )
        ]
        + [(f"party {i}", f"party {1 - i}", f"x_{i} + r_{i} (masked share)") for i in (0, 1)]
        + [(f"party {i}", "dealer", "shares of 1{x >= 0} and ReLU(x)") for i in (0, 1)]
    )
    size = {what: int(n) for _, _, what, n in sent}
    assert key_bytes < size["DCF keys (Key.to_bytes)"] < key_bytes + 1000  # plus length and header
    assert size["x_0 + r_0 (masked share)"] == 8 * values
    assert size["shares of r, msb(r), r*msb(r)"] == 3 * 8 * values


@pytest.fixture(scope="module")
def buckets():
    return load("grotto_buckets")


@pytest.mark.parametrize("prg", ["aes128_mmo", "chacha"])
@pytest.mark.parametrize("r", [0, 1, 37, 63])
def test_buckets_of_every_value_for_masks_at_the_edges(buckets, prg, r):
    # in_bits 6: every value, with masks that make the intervals wrap past 63 or not.
    bits, x = 6, torch.arange(64)
    edges = torch.tensor([0, 1, 10, 11, 40, 63, 64])  # buckets of one value, and wide ones
    dcf = pyfss.GrottoDcf(bits, prg)
    (s0, s1), _ = buckets.run_protocol(dcf, x, edges, r=torch.full_like(x, r))
    index = [max(i for i, e in enumerate(edges.tolist()[:-1]) if e <= v) for v in range(64)]
    want = [[i == j for j in range(len(edges) - 1)] for i in index]
    assert (s0 ^ s1).tolist() == want


def test_bucket_shares_alone_are_not_the_answer(buckets):
    g = torch.Generator().manual_seed(4)
    x = torch.randint(0, 2**12, (200,), generator=g)
    edges = torch.tensor([0, 1000, 2000, 3000, 4096])
    (s0, s1), _ = buckets.run_protocol(pyfss.GrottoDcf(12, "aes128_mmo"), x, edges, seed=4)
    want = buckets.plain_buckets(x, edges)
    assert torch.equal(s0 ^ s1, want)
    # Each party's share is near half ones, whatever the one-hot matrix is.
    for s in (s0, s1):
        assert 0.4 < s.float().mean().item() < 0.6


def test_grotto_buckets_script(tmp_path):
    out = run_example(
        "grotto_buckets", "--values", "40", "--bits", "10", "--buckets", "5", cwd=tmp_path
    )
    assert "40 secret 10-bit values, 5 public buckets" in out
    assert "bucket of x: 40/40 match plaintext" in out
    assert out.rstrip().endswith("ok")


@pytest.mark.parametrize(
    "args",
    [["--buckets", "0"], ["--bits", "3", "--buckets", "9"], ["--bits", "0"], ["--values", "-1"]],
)
def test_grotto_buckets_refuses_bad_sizes(buckets, args, capsys):
    with pytest.raises(SystemExit) as e:
        buckets.main(args)
    assert e.value.code == 2
    assert "must be" in capsys.readouterr().err


@pytest.mark.parametrize("world", [1, 2, 3, 7])
def test_sharded_pir_parts_add_up_to_the_whole_answer(pir, pir_sharded, world):
    log_rows, wanted = 9, [0, 511, 256, 255, 100]
    db = pir_sharded.database_rows(5, 0, 2**log_rows)
    bounds = [pir_sharded.shard(2**log_rows, world, r) for r in range(world)]
    assert [lo for lo, _ in bounds[1:]] == [hi for _, hi in bounds[:-1]]  # the slices tile the rows
    assert bounds[0][0] == 0 and bounds[-1][1] == 2**log_rows
    for q in pir_sharded.make_queries(log_rows, wanted, "chacha"):
        parts = [pir_sharded.partial_answer(db[lo:hi], lo, q) for lo, hi in bounds]
        assert torch.equal(sum(parts), pir.answer(db, q))  # int32 sums wrap as the reduction's
    assert torch.equal(pir_sharded.database_rows(5, 3, 9), db[3:9])  # a slice is the rows'


def test_pir_sharded_script_under_torchrun(tmp_path):
    torchrun = ("-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2")
    args = ("--log-rows", "10", "--queries", "3", "--prg", "chacha", "--timeout", "60")
    out = run_example("pir_sharded", *args, cwd=tmp_path, launcher=torchrun)
    assert "over 2 ranks, 3 queries in one batch" in out
    assert "rank 0: rows [0, 512)" in out and "rank 1: rows [512, 1024)" in out
    assert "retrieved correctly" in out and out.rstrip().endswith("ok")


def test_two_layer_mlp_under_torchrun(tmp_path):
    torchrun = ("-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2")
    args = ("--batch", "3", "--in", "5", "--hidden", "7", "--out", "2", "--device", "cpu")
    out = run_example("two_layer_mlp", *args, cwd=tmp_path, launcher=torchrun)
    assert "outputs equal to the fixed-point plaintext: 6/6" in out
    assert out.rstrip().endswith("ok")
    # Three one-round gates on 3x7, 3x7 and 3x2 elements (48), 8 bytes each way per element.
    for rank in (0, 1):
        assert f"rank {rank}: " in out
        assert re.search(
            rf"rank {rank}: key material \d+ bytes; online 3 rounds, sent 384 bytes, "
            r"received 384 bytes \(8 bytes per gate element\)",
            out,
        )


def test_two_layer_mlp_refuses_to_run_outside_torchrun(tmp_path):
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "two_layer_mlp.py")],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE")},
    )
    assert r.returncode == 2 and "run under torchrun with two processes" in r.stderr


# -- verified_writes: servers that check a client's keys before adding its write -------


@pytest.fixture(scope="module")
def writes():
    return load("verified_writes")


def write_board(writes, uploads):
    """Both servers' evaluation, check and board shares: (board, accepted, shares)."""
    (y0, pi0, d0), (y1, pi1, d1) = (writes.server_evaluate([u[s] for u in uploads]) for s in (0, 1))
    vdpf = pyfss.load_key(uploads[0][0])[0]
    accepted = writes.server_accept(vdpf, (pi0, d0), (pi1, d1))
    board = writes.board_share(y0, accepted) + writes.board_share(y1, accepted)
    return board, accepted, y0 + y1


@pytest.mark.parametrize("prg,hash", [("aes128_mmo", "blake3"), ("chacha", "sha256")])
def test_honest_writes_pass_and_land_in_their_slots(writes, prg, hash):
    n = 9
    vdpf = pyfss.Vdpf(n, writes.GROUP, prg, hash)
    slots, messages = [0, 511, 300, 7], [1, -1, 2**62 + 5, 123456789]  # -1: 2^64 - 1
    uploads = [writes.client_upload(vdpf, s, m) for s, m in zip(slots, messages)]
    board, accepted, _ = write_board(writes, uploads)
    assert accepted.tolist() == [True] * 4
    expected = torch.zeros(2**n, dtype=torch.int64)
    expected[slots] = torch.tensor(messages)
    assert torch.equal(board, expected)


@pytest.mark.parametrize("level", [0, 4, 8])
def test_a_cheating_client_is_caught_and_its_garbage_kept_out(writes, level):
    n = 9
    vdpf = pyfss.Vdpf(n, writes.GROUP, "aes128_mmo", "sha256")
    slots, messages = [10, 20, 30], [5, 6, 7]
    uploads = [writes.client_upload(vdpf, s, m) for s, m in zip(slots, messages)]
    uploads[1] = writes.cheat(uploads[1], level)
    board, accepted, sums = write_board(writes, uploads)
    assert accepted.tolist() == [True, False, True]
    # The cheater's keys are no point function: unchecked, they write many slots.
    assert int((sums[1] != 0).sum()) > 1
    expected = torch.zeros(2**n, dtype=torch.int64)
    expected[[10, 30]] = torch.tensor([5, 7])
    assert torch.equal(board, expected)
    # Accepting every key (no check) would have damaged the board.
    assert not torch.equal(board + sums[1], expected)


def test_two_output_corrections_pass_verify_but_not_the_digests(writes):
    """The proof does not cover the output correction word: keys that differ there
    verify, and write into about half the slots; the servers' digests of the
    correction words catch them."""
    n = 9
    vdpf = pyfss.Vdpf(n, writes.GROUP, "aes128_mmo", "blake3")
    uploads = [writes.client_upload(vdpf, s, m) for s, m in ([10, 5], [20, 6])]
    key = pyfss.Key.from_bytes(uploads[1][1])
    cws = key.cws.clone()
    cws[n, 0] += 1  # the output correction of server 1's copy only
    uploads[1] = (uploads[1][0], pyfss.Key(key.params, 1, key.s0, cws).to_bytes())
    (y0, pi0, _), (y1, pi1, _) = (writes.server_evaluate([u[s] for u in uploads]) for s in (0, 1))
    assert vdpf.verify(pi0, pi1).tolist() == [True, True]
    assert int(((y0[1] + y1[1]) != 0).sum()) > 2**n // 4
    board, accepted, _ = write_board(writes, uploads)
    assert accepted.tolist() == [True, False]
    expected = torch.zeros(2**n, dtype=torch.int64)
    expected[10] = 5
    assert torch.equal(board, expected)


def test_verified_writes_script(tmp_path):
    args = ("--log-slots", "10", "--clients", "5", "--cheater", "2", "--hash", "sha256")
    out = run_example("verified_writes", *args, cwd=tmp_path)
    assert "rejected clients: [2] (cheater: 2)" in out
    assert out.rstrip().endswith("ok")


def test_verified_writes_refuses_bad_sizes(writes, capsys):
    with pytest.raises(SystemExit):
        writes.main(["--log-slots", "1"])
    assert "need 2 <= log-slots" in capsys.readouterr().err


# -- private_inference: a CNN between a model owner and an image owner -----------------


@pytest.fixture(scope="module")
def inference():
    return load("private_inference")


def test_the_plaintext_fixed_point_model_is_the_float_model_rounded(inference):
    model, _ = inference.train(1, 0)
    x, _ = inference.held_out(16)
    got = inference.fixed_point(model, x).double() / 2**inference.FRAC
    assert torch.allclose(got, model(x).detach().double(), atol=1e-2)


def test_private_inference_in_process(inference, capsys):
    assert inference.main(["--local", "--epochs", "2", "--batch", "5"]) == 0
    out = capsys.readouterr().out
    assert "argmax equal to the fixed-point plaintext model: 5/5" in out
    # conv, relu, pool twice; linear, relu, linear; argmax of 10 (4 levels + 1); reveal.
    assert "private inference of 5 images: 21 rounds" in out
    assert re.search(r"^argmax +5 +", out, re.MULTILINE)
    assert out.rstrip().endswith("ok")


def test_private_inference_under_torchrun(tmp_path):
    torchrun = ("-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "3")
    args = ("--epochs", "2", "--batch", "3", "--timeout", "120")
    out = run_example("private_inference", *args, cwd=tmp_path, launcher=torchrun)
    assert "argmax equal to the fixed-point plaintext model: 3/3" in out
    assert "private inference of 3 images: 21 rounds" in out
    assert out.rstrip().endswith("ok")


def test_private_inference_refuses_bad_arguments(inference, capsys):
    with pytest.raises(SystemExit) as e:
        inference.main(["--local", "--batch", "0"])
    assert e.value.code == 2 and "batch in [1, 397]" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        inference.main([])
    assert e.value.code == 2 and "three processes" in capsys.readouterr().err
