"""pyfss.mpc.Party between two processes (torchrun, gloo): opened values, messages
counted, and a gate run end to end."""

import array
import textwrap

import pytest
from children import run_ranks

PARTIES = textwrap.dedent(
    """
    import array, json, os, sys
    import numpy, torch, torch.distributed as dist
    from pyfss import gates
    from pyfss.mpc import Party, share

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    party = Party()
    out = {}
    # Sums wrap as the rings do: -2^31 twice is 0 in Z_2^32,
    # (2^63 - 1) + (2^62 + 1) is -2^62 in Z_2^64.
    out["open32"] = party.open(torch.tensor([rank + 1, -(2**31)], dtype=torch.int32)).tolist()
    out["open64"] = party.open(torch.full((2, 3), [2**63 - 1, 2**62 + 1][rank])).tolist()
    out["after_opens"] = party.stats()
    if rank == 0:
        party.send_bytes(b"")
        out["got"] = party.recv_bytes().decode()
        try:  # refused before anything is sent: the peer's next message is the buffer's
            party.send_bytes("not bytes")
        except TypeError as e:
            out["str_refused"] = str(e)
        party.send_bytes(memoryview(array.array("i", [1, 2, -3])))
    else:
        out["got"] = party.recv_bytes().decode()
        party.send_bytes(b"hello")
        out["buffer"] = list(party.recv_bytes())
    out["numpy_party"] = Party(numpy.int64(rank)).party
    # Both ranks deal with one seed (the same keys) and keep their own half: a test
    # shortcut, not a dealer.
    gate = gates.ReLU(torch.int64)
    x = torch.tensor([0, 1, -1, 2**63 - 1, -(2**63), 12345, -12345])
    keys = gate.deal(x.shape, generator=torch.Generator().manual_seed(5))
    shares = share(x, torch.Generator().manual_seed(6))
    before = party.stats()
    y = party.open(gate.run(party, keys[rank], shares[rank]))
    out["relu"] = y.tolist()
    out["gate"] = {k: v - before[k] for k, v in party.stats().items()}
    with open(os.path.join(sys.argv[1], f"rank{rank}.json"), "w") as f:
        json.dump(out, f)
    dist.destroy_process_group()
    """
)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    return run_ranks(PARTIES, tmp_path_factory.mktemp("parties"), 2, timeout=240)


def test_open_adds_the_shares_in_the_ring(reports):
    for rep in reports:
        assert rep["open32"] == [3, 0]
        assert rep["open64"] == [[-(2**62)] * 3] * 2


def test_messages_and_rounds_are_counted(reports):
    for rep in reports:
        assert rep["after_opens"] == {"rounds": 2, "sent": 8 + 48, "received": 8 + 48}
        # The gate opens x + r (7 int64), then the output is opened: two rounds.
        assert rep["gate"] == {"rounds": 2, "sent": 2 * 56, "received": 2 * 56}


def test_bytes_travel_with_their_length(reports):
    assert reports[0]["got"] == "hello" and reports[1]["got"] == ""


def test_a_gate_between_two_processes(reports):
    want = [0, 1, 0, 2**63 - 1, 0, 12345, 0]
    assert reports[0]["relu"] == want and reports[1]["relu"] == want


def test_bytes_of_any_buffer_and_nothing_sent_for_a_str(reports):
    assert "bytes-like object is required" in reports[0]["str_refused"]
    # The int32 array's 12 bytes, little-endian: not its 3 items.
    assert reports[1]["buffer"] == list(array.array("i", [1, 2, -3]).tobytes())
    assert [rep["numpy_party"] for rep in reports] == [0, 1]
