"""pyfss.mpc's parties in threads (run_local), their counters, and the dealer: items in
order, requests that do not match refused, key files."""

import threading

import pytest
import torch
from children import run_doc_block

from pyfss import gates
from pyfss.mpc import (
    Dealer,
    KeyFile,
    LocalDealer,
    PeerFailed,
    Request,
    run_local,
    share,
    write_key_files,
)


def gen(seed):
    return torch.Generator().manual_seed(seed)


def test_open_and_exchange_add_in_the_ring():
    x = torch.tensor([2**63 - 1, -(2**63), 0, 5])
    x0, x1 = share(x, gen(1))

    def both(party):
        got = party.open([x0, x1][party.party])
        return got, party.exchange(torch.tensor([party.party + 10], dtype=torch.int32))

    (a, pa), (b, pb) = run_local(both)
    assert a.tolist() == b.tolist() == x.tolist()
    assert pa.tolist() == [11] and pb.tolist() == [10]


def test_counters_per_layer_and_total():
    def both(party):
        with party.layer("conv1"):
            party.open(torch.zeros(3, dtype=torch.int64))  # 24 bytes each way
            with party.layer("inner"):
                party.exchange(torch.zeros(2, dtype=torch.int32))  # 8 bytes each way
        with party.layer("fc"):
            if party.party == 0:
                party.send_bytes(b"abc")  # 8 + 3 bytes, no round
            else:
                assert party.recv_bytes() == b"abc"
        return party.counters(), party.stats(), party.table()

    (c0, s0, table), (c1, _, _) = run_local(both)
    assert c0 == {
        "total": {"rounds": 2, "sent": 43, "received": 32, "dealer": 0},
        "conv1": {"rounds": 2, "sent": 32, "received": 32, "dealer": 0},
        "conv1/inner": {"rounds": 1, "sent": 8, "received": 8, "dealer": 0},
        "fc": {"rounds": 0, "sent": 11, "received": 0, "dealer": 0},
    }
    assert c1["fc"] == {"rounds": 0, "sent": 0, "received": 11, "dealer": 0}
    assert s0 == {"rounds": 2, "sent": 43, "received": 32}
    assert table.splitlines()[0].split() == ["layer", "rounds", "sent", "received", "dealer"]
    assert table.splitlines()[-1].split() == ["total", "2", "43", "32", "0"]


@pytest.mark.parametrize("name", ["", "a/b", 3])
def test_bad_layer_names_are_refused(name):
    def both(party):
        with party.layer(name):
            pass

    with pytest.raises(ValueError, match="layer name"):
        run_local(both)


def test_an_exception_in_one_party_is_raised_and_the_other_stops():
    def both(party):
        if party.party == 1:
            raise ZeroDivisionError("party 1's own")
        return party.open(torch.zeros(1, dtype=torch.int64))  # waits for party 1

    with pytest.raises(ZeroDivisionError, match="party 1's own"):
        run_local(both, timeout=30)


def test_a_silent_peer_times_out():
    def both(party):
        if party.party == 0:
            party.open(torch.zeros(1, dtype=torch.int64))
        else:
            threading.Event().wait(1.0)  # never sends, ends after party 0 gave up

    with pytest.raises(TimeoutError, match="party 0 got no message from party 1 within 0.2 s"):
        run_local(both, timeout=0.2)


def test_parties_out_of_step_are_told():
    def both(party):
        return party.exchange(torch.zeros(party.party + 1, dtype=torch.int64))

    with pytest.raises(ValueError, match="out of step"):
        run_local(both, timeout=5)


def test_peer_failed_is_what_the_waiting_party_sees():
    seen = []

    def both(party):
        if party.party == 1:
            raise KeyError("boom")
        try:
            party.recv(1, torch.int64)
        except PeerFailed as e:
            seen.append(str(e))
            raise

    with pytest.raises(KeyError):
        run_local(both, timeout=30)
    assert seen == ["party 1 failed while party 0 waited"]


# -- the dealer -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_, want",
    [
        (Request.mul((2, 3), (3,)), lambda a, b: a * b),
        (Request.matmul((2, 3), (3, 4)), torch.matmul),
        (Request.matmul((5,), (5,)), torch.matmul),
        (
            Request.conv2d((1, 2, 5, 5), (3, 2, 3, 3), stride=2, padding=1),
            lambda a, b: torch.nn.functional.conv2d(a, b, stride=2, padding=1),
        ),
    ],
)
def test_triples_hold_c_equal_a_op_b(request_, want):
    h0, h1 = Dealer(gen(3)).deal(request_)
    a, b, c = (h0[k] + h1[k] for k in "abc")
    assert torch.equal(c, want(a, b))
    assert h0["a"].shape == request_.shapes[0] and h1["b"].shape == request_.shapes[1]


def test_triples_are_uniform_shares():
    h0, h1 = Dealer().deal(Request.mul((1000,), (1000,)))  # os.urandom
    assert len(set(h0["a"].tolist())) == 1000 and not torch.equal(h0["a"], h1["a"])


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Request.matmul((2, 3), (4, 5)), "do not fit matmul"),
        (lambda: Request.mul((2,), (3,)), "do not fit mul"),
        (lambda: Request.conv2d((1, 2, 5, 5), (3, 4, 3, 3)), "do not fit conv2d"),
        (lambda: Request.conv2d((1, 2, 5, 5), (3, 2, 3, 3), stride=0), "stride must be"),
        (lambda: Request.mul((-1,), (1,)), "x_shape must not hold negative sizes"),
    ],
)
def test_bad_requests_are_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_request_types_are_checked():
    with pytest.raises(TypeError, match="x_shape must be a sequence of ints"):
        Request.mul(3, (3,))
    with pytest.raises(TypeError, match="gate must be a pyfss.gates.Gate"):
        Request.for_gate("relu", (3,))
    with pytest.raises(TypeError, match="request must be a pyfss.mpc.Request"):
        Dealer().deal("mul")


def test_items_are_consumed_in_order():
    dealer = LocalDealer(gen(4))
    relu = gates.ReLU()
    plan = [Request.mul((3,), (3,)), Request.for_gate(relu, (2,)), Request.matmul((2, 2), (2, 1))]

    def both(party):
        return [party.fetch(r) for r in plan]

    got0, got1 = run_local(both, dealer=dealer)
    assert dealer.plan == plan
    for item0, item1, request in zip(got0, got1, plan):
        assert set(item0) == set(item1)
        if request.gate is None:
            a, b, c = (item0[k] + item1[k] for k in "abc")
            assert torch.equal(c, request.apply(a, b))


def mismatch(first, second):
    """Party 0 asks for first; party 1, once party 0 has it, for second."""
    got = threading.Event()

    def both(party):
        if party.party == 0:
            party.fetch(first)
            got.set()
        else:
            got.wait(30)
            party.fetch(second)

    return both


@pytest.mark.parametrize(
    "first, second",
    [
        (Request.mul((3,), (3,)), Request.mul((4,), (4,))),
        (Request.mul((2, 2), (2, 2)), Request.matmul((2, 2), (2, 2))),
        (Request.conv2d((1, 1, 4, 4), (1, 1, 3, 3)), Request.conv2d((1, 1, 4, 4), (1, 1, 3, 3), 2)),
        (Request.for_gate(gates.ReLU(), (3,)), Request.for_gate(gates.DReLU(), (3,))),
        (Request.for_gate(gates.Truncate(16), (3,)), Request.for_gate(gates.Truncate(12), (3,))),
        (Request.for_gate(gates.ReLU(), (3,)), Request.for_gate(gates.ReLU(), (4,))),
    ],
)
def test_a_request_for_another_item_is_refused(first, second):
    with pytest.raises(ValueError, match=r"party 1 asked the dealer for \[.*\], but item 0 is"):
        run_local(mismatch(first, second), dealer=LocalDealer(gen(5)))


def test_a_gate_key_from_the_dealer_evaluates():
    gate = gates.Truncate(4)
    x = torch.tensor([-100, 0, 17, 2**62])
    xs = share(x, gen(6))

    def both(party):
        key = party.gate_key(gate, x.shape)
        return party.open(gate.run(party, key, xs[party.party])), party.counters()["total"]

    (y, c), _ = run_local(both, dealer=LocalDealer(gen(7)))
    assert y.tolist() == (x >> 4).tolist()
    k0, _ = gate.deal(x.shape)
    assert c["dealer"] == k0.nbytes


def test_key_files_give_the_same_items_in_order(tmp_path):
    plan = [Request.mul((4,), (4,)), Request.for_gate(gates.DReLU(), (4,))]
    paths = [tmp_path / "p0.keys", tmp_path / "p1.keys"]
    write_key_files(plan, paths, generator=gen(8))
    x = torch.tensor([-3, 0, 3, 2**40])

    def both(party):
        t = party.fetch(plan[0])
        bit = gates.DReLU().run(
            party, party.gate_key(gates.DReLU(), (4,)), share(x, gen(9))[party.party]
        )
        return t, party.open(bit)

    (t0, bits), (t1, _) = run_local(both, dealer=(KeyFile(paths[0]), KeyFile(paths[1])))
    a, b, c = (t0[k] + t1[k] for k in "abc")
    assert torch.equal(c, a * b)
    assert bits.tolist() == [0, 1, 1, 1]
    again = KeyFile(paths[0])
    with pytest.raises(ValueError, match=r"asked the dealer for \[matmul.*but item 0 is \[mul"):
        again.next(0, Request.matmul((4,), (4,)))
    again.next(0, plan[1])  # the refused item was still consumed: the next one is item 1
    with pytest.raises(ValueError, match="no more items"):
        again.next(0, plan[0])


def test_a_damaged_key_file_is_refused(tmp_path):
    paths = [tmp_path / "p0.keys", tmp_path / "p1.keys"]
    write_key_files([Request.mul((4,), (4,))], paths, generator=gen(10))
    data = paths[0].read_bytes()
    paths[0].write_bytes(data[:-5])
    with pytest.raises(ValueError, match="cut short"):
        KeyFile(paths[0]).next(0, Request.mul((4,), (4,)))
    paths[0].write_bytes(data[:8] + b"x" * (len(data) - 8))
    with pytest.raises(ValueError, match="holds no dealer item"):
        KeyFile(paths[0]).next(0, Request.mul((4,), (4,)))


def test_a_party_without_dealer_says_so():
    def both(party):
        party.fetch(Request.mul((1,), (1,)))

    with pytest.raises(ValueError, match="party . has no dealer to ask for mul"):
        run_local(both, dealer=(None, None))


@pytest.mark.parametrize(
    "doc, heading, want",
    [
        ("README.md", "### MPC", "[1.25, 3.0, 0.0]\n"),
        ("docs/mpc.md", "## SharedTensor", "[[1.0, 0.0], [2.25, 5.25]]\n"),
    ],
)
def test_the_docs_examples_run(tmp_path, doc, heading, want):
    assert run_doc_block(doc, heading, tmp_path).startswith(want)
