"""SharedTensor between three processes under torchrun (gloo): parties on ranks 0 and 1,
the dealer on rank 2 serving the plan it records from a dry run of the same program."""

import json
import textwrap

import pytest
import torch
import torch.nn.functional as F
from children import run_ranks

X = [[1.5, -2.25, 0.0], [3.0, -0.5, 7.75]]
Y = [[-1.0, 0.5, 2.0], [0.25, -4.0, 1.0]]
FRAC = 16

SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    import torch, torch.distributed as dist
    from pyfss.mpc import DealerRank, LocalDealer, Party, SharedTensor, run_local, serve

    def program(party, x, y):
        a = SharedTensor.from_secret(party, x if party.party == 0 else None, owner=0)
        b = SharedTensor.from_secret(party, y if party.party == 1 else None, owner=1)
        with party.layer("mul"):
            m = a * b
        with party.layer("matmul"):
            exact = SharedTensor(party, a.share, truncation="exact")
            p = exact @ b.transpose(0, 1)
        with party.layer("relu"):
            r = p.relu()
        with party.layer("ge"):
            g = a >= b
        return {k: v.reveal_ring().tolist() for k, v in dict(m=m, p=p, r=r, g=g).items()}

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    x = torch.tensor(json.loads(sys.argv[2]), dtype=torch.float64)
    y = torch.tensor(json.loads(sys.argv[3]), dtype=torch.float64)
    if rank == 2:
        dry = LocalDealer()
        run_local(lambda party: program(party, torch.zeros_like(x), torch.zeros_like(y)), dealer=dry)
        serve(dry.plan, parties=(0, 1))
        out = {"plan": [r.tag for r in dry.plan]}
    else:
        party = Party(rank, dealer=DealerRank(2))
        out = program(party, x, y)
        out["counters"] = party.counters()
    with open(os.path.join(sys.argv[1], f"rank{rank}.json"), "w") as f:
        json.dump(out, f)
    dist.destroy_process_group()
    """
)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    return run_ranks(SCRIPT, tmp_path_factory.mktemp("mpc3"), 3, json.dumps(X), json.dumps(Y))


def fx(v):
    return torch.round(torch.tensor(v, dtype=torch.float64) * 2**FRAC).to(torch.int64)


def test_results_equal_the_plaintext_fixed_point(reports):
    x, y = fx(X), fx(Y)
    p = (x @ y.T) >> FRAC  # exact truncation
    for rep in reports[:2]:
        # Local truncation: within one ulp above the floor (these products are small).
        assert ((torch.tensor(rep["m"]) - ((x * y) >> FRAC)).abs() <= 1).all()
        assert rep["p"] == p.tolist()
        assert rep["r"] == F.relu(p).tolist()
        assert rep["g"] == ((x >= y).to(torch.int64) << FRAC).tolist()


def test_the_dealer_served_the_recorded_plan(reports):
    plan = reports[2]["plan"]
    assert [tag.split()[0] for tag in plan] == ["mul", "matmul", "gate", "gate", "gate"]
    assert [tag.split()[1] for tag in plan[2:]] == ["truncate", "relu", "drelu"]


def test_counters_over_torch_distributed(reports):
    for rep in reports[:2]:
        c = rep["counters"]
        assert c["mul"] == {**c["mul"], "rounds": 1, "sent": 2 * 6 * 8, "received": 2 * 6 * 8}
        assert c["mul"]["dealer"] == 3 * 6 * 8
        # e and f (6 + 6 int64) in one round, then the truncation gate's masked 4 values.
        assert c["matmul"]["rounds"] == 2 and c["matmul"]["sent"] == (12 + 4) * 8
        assert c["relu"]["rounds"] == 1 and c["ge"]["rounds"] == 1
