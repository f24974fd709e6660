"""The Python side of the binding: the one error mapper, names and defaults read from
the core's catalogue, the walk implementation a scheme runs on, the memory check."""

import json
import os
import sys
import threading

import pytest
import torch

import pyfss
from pyfss import _ext, _validate

SEEDS = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=torch.int32)


def go_failure(kind, message="what went wrong"):
    return RuntimeError(json.dumps({"kind": kind, "message": message}))


@pytest.mark.parametrize(
    ("kind", "exc"),
    [
        ("value", ValueError),
        ("runtime", RuntimeError),
        ("interrupted", KeyboardInterrupt),
        ("internal", RuntimeError),
    ],
)
def test_each_error_kind_maps_to_its_exception(kind, exc):
    mapped = _ext.go_error(go_failure(kind))
    assert type(mapped) is exc and str(mapped) == "what went wrong"


@pytest.mark.parametrize(
    "text", ["plain words", '{"kind": "unknown", "message": "m"}', '{"message": "m"}', "[1]", ""]
)
def test_other_runtime_errors_pass_through_unchanged(text):
    e = RuntimeError(text)
    assert _ext.go_error(e) is e


def test_the_catalogue_knows_every_error_kind_the_mapper_maps():
    catalogue = json.loads(pyfss.lib.Catalogue())
    assert set(catalogue["error_kinds"]) == {"value", "runtime", "interrupted", "internal"}


def eval_args(handle):
    # One key, one point, on the CPU, with null addresses: refused before any is read.
    return (handle, -1, 0, 0, 0, 0, 1, 0, 0, 0, 5, 0, 1, 0, 0)


def test_raw_entries_raise_json_runtime_errors_that_call_maps():
    with pytest.raises(RuntimeError) as e:
        _ext.raw.binding_Eval(*eval_args(-5))
    assert json.loads(str(e.value)) == {"kind": "value", "message": "no scheme with handle -5"}
    with pytest.raises(ValueError, match="no scheme with handle -5"):
        _ext.call(_ext.raw.binding_Eval, *eval_args(-5))
    with pytest.raises(ValueError, match="no scheme with handle -5"):
        _ext.call(pyfss.lib.Eval, *eval_args(-5))


def test_small_entries_raise_what_the_raw_ones_raise():
    for entry in (_ext.small.eval, _ext.raw.binding_Eval):
        with pytest.raises(RuntimeError) as e:
            entry(*eval_args(-5))
        assert json.loads(str(e.value)) == {"kind": "value", "message": "no scheme with handle -5"}
    with pytest.raises(ValueError, match="no scheme with handle -5"):
        _ext.call(_ext.small.eval, *eval_args(-5))


@pytest.mark.parametrize(
    ("position", "value", "exc"),
    [
        (3, -8, OverflowError),  # an address: unsigned
        (3, 2**64, OverflowError),
        (10, 2**64 + 5, OverflowError),  # x's low word, which gopy's "K" would wrap to 5
        (4, 2**63, OverflowError),  # party: signed
        (4, 1.0, TypeError),
        (5, "0", TypeError),
    ],
)
def test_small_entries_refuse_what_does_not_fit_rather_than_wrap(position, value, exc):
    args = list(eval_args(pyfss.Dpf(8)._handle))
    args[position] = value
    with pytest.raises(exc):
        _ext.small.eval(*args)
    with pytest.raises(TypeError, match="eval takes 15 arguments"):
        _ext.small.eval(*args[:-1])
    with pytest.raises(TypeError, match="keygen takes 7 arguments"):
        _ext.small.keygen()


@pytest.mark.parametrize("prg", ["chacha", "aes128_mmo"])
def test_small_entries_compute_what_the_raw_ones_compute(prg):
    # A batch of 3 keys at 2 int32 points each, both ways into the same Go functions.
    s = pyfss.Dcf(12, "uint64", prg)
    seeds = torch.randint(-(2**31), 2**31, (3, 2, 4), dtype=torch.int32)
    alphas = torch.tensor([0, 77, 4095], dtype=torch.int32)
    betas = torch.randint(0, 2**31, (3, 4), dtype=torch.int32)
    xs = torch.tensor([[0, 1], [77, 78], [4095, 9]], dtype=torch.int32)
    gens, evals = [], []
    for gen, eval_ in (
        (_ext.small.gen, _ext.small.eval),
        (_ext.raw.binding_Gen, _ext.raw.binding_Eval),
    ):
        cws = torch.empty(3, 13, 8, dtype=torch.int32)
        a = (alphas.data_ptr(), 1, 0, 0, betas.data_ptr(), 3, 0)
        assert gen(s._handle, -1, 0, cws.data_ptr(), seeds.data_ptr(), *a) == 3
        y = torch.empty(3, 2, 4, dtype=torch.int32)
        s1 = seeds[:, 1].contiguous()
        x = (xs.data_ptr(), 1, 0, 0, 2, 0, 0)
        assert eval_(s._handle, -1, 0, y.data_ptr(), 1, s1.data_ptr(), 3, cws.data_ptr(), *x) == 6
        gens.append(cws)
        evals.append(y)
    assert torch.equal(gens[0], gens[1]) and torch.equal(evals[0], evals[1])
    assert torch.equal(gens[0], s.gen(seeds, alphas, betas))
    assert torch.equal(evals[0], s.eval(1, seeds[:, 1], gens[0], xs.long()))


def test_small_entries_release_the_gil():
    # With a long switch interval the main thread gives the GIL up only where a call
    # releases it: a counting thread counts during the call only if it did.
    s = pyfss.Dpf(20, "uint64", "aes128_mmo")
    k = 1 << 14
    seeds, cws = torch.zeros(k, 4, dtype=torch.int32), torch.zeros(k, 21, 8, dtype=torch.int32)
    y = torch.empty(k, 4, dtype=torch.int32)
    args = list(eval_args(s._handle))
    args[3], args[5], args[6], args[7] = y.data_ptr(), seeds.data_ptr(), k, cws.data_ptr()
    count, started, done = [0], threading.Event(), threading.Event()

    def counter():
        started.set()
        while not done.is_set():
            count[0] += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    worker = threading.Thread(target=counter)
    try:
        worker.start()
        started.wait()
        before = count[0]
        # Up to 100 calls (about 0.1 s, well inside the switch interval): on a busy
        # host the counter may not be scheduled within one call's millisecond.
        for _ in range(100):
            _ext.small.eval(*args)
            if count[0] != before:
                break
        during = count[0] - before
    finally:
        done.set()
        sys.setswitchinterval(interval)
        worker.join()
    assert during > 0


ONE_KEY_SCHEMES = [
    lambda: pyfss.Dpf(20, "uint64", "aes128_mmo"),
    lambda: pyfss.Dcf(20, "bytes", "chacha", "gt"),
    lambda: pyfss.Dpf(64, "uint32", "chacha"),
    lambda: pyfss.Dcf(100, "uint64", "aes128_mmo"),
]


@pytest.mark.parametrize("make", ONE_KEY_SCHEMES)
def test_one_key_entries_compute_what_the_general_path_computes(make):
    # eval_one and gen_one (fss_crypto's one-key calls) against the same calls with
    # out=, which take the general path, at the domain's ends and past 64 bits
    # (where the entries hand the call to the general path).
    s = make()
    g = torch.Generator().manual_seed(s.in_bits)
    beta = torch.randint(-(2**31), 2**31, (4,), dtype=torch.int32, generator=g)
    beta[3] &= ~1  # valid in the bytes group too
    top = 2**s.in_bits - 1
    for alpha in (0, 1, 12345, min(top, 2**64 - 1), top):
        seeds = torch.randint(-(2**31), 2**31, (2, 4), dtype=torch.int32, generator=g)
        cws = s.gen(seeds, alpha, beta)
        assert torch.equal(cws, s.gen(seeds, alpha, beta, out=torch.empty_like(cws)))
        for party in (0, 1):
            for x in {0, alpha, alpha ^ 1, top}:
                y = s.eval(party, seeds[party], cws, x)
                assert y.shape == (4,) and y.dtype == torch.int32
                assert torch.equal(
                    y, s.eval(party, seeds[party], cws, x, out=torch.empty(4, dtype=torch.int32))
                )


#: The scheme of one_key_args, alive as long as the module: its handle is in them.
ONE_KEY = pyfss.Dpf(20, "uint64", "aes128_mmo")


def one_key_args():
    """A one-key eval's and gen's arguments to eval_one and gen_one, each plain."""
    s = ONE_KEY
    beta = torch.tensor([1, 2, 3, 4], dtype=torch.int32)
    cws = s.gen(SEEDS, 5, beta)
    return (s._handle, 0, SEEDS[0].clone(), cws, 5, s._cws_tail, 20), (
        s._handle,
        SEEDS,
        beta,
        5,
        s._cws_tail,
        20,
    )


class Sub(torch.Tensor):
    pass


def strided(t):
    """t's values in a view that is not contiguous."""
    buf = torch.zeros(*t.shape[:-1], 2 * t.shape[-1], dtype=t.dtype)
    view = buf[..., ::2]
    view.copy_(t)
    assert not view.is_contiguous()
    return view


def unaligned(t):
    buf = torch.zeros(t.numel() + 2, dtype=torch.int32)
    start = 1 if buf.data_ptr() % 8 == 0 else 2
    view = buf[start : start + t.numel()].view(t.shape)
    view.copy_(t)
    return view


# What the entries must not read directly: each returns None for the general path.
NOT_PLAIN_TENSORS = {
    "int64": lambda t: t.long(),
    "float": lambda t: t.float(),
    "a subclass": lambda t: t.as_subclass(Sub),
    "not contiguous": strided,
    "negative view": lambda t: (-t)._neg_view(),
    "unaligned": unaligned,
    "one more dimension": lambda t: t[None],
    "a list": lambda t: t.tolist(),
}


VIEWS = [NOT_PLAIN_TENSORS[v] for v in ("not contiguous", "negative view", "unaligned")]


@pytest.mark.parametrize("change", NOT_PLAIN_TENSORS.values(), ids=NOT_PLAIN_TENSORS.keys())
def test_one_key_entries_leave_what_is_not_plain_to_the_general_path(change):
    ev, gen = one_key_args()
    for i in (2, 3):  # s0, cws
        args = list(ev)
        args[i] = change(args[i])
        assert _ext.small.eval_one(*args) is None
    for i in (1, 2):  # s0s, beta
        args = list(gen)
        args[i] = change(args[i])
        assert _ext.small.gen_one(*args) is None
    if change in VIEWS:  # the general path reads the values they show
        want = ONE_KEY.eval(0, ev[2], ev[3], 5)
        assert torch.equal(ONE_KEY.eval(0, change(ev[2]), ev[3], 5), want)
        assert torch.equal(ONE_KEY.gen(change(gen[1]), 5, change(gen[2])), ev[3])


@pytest.mark.parametrize("party", [2, -1, True, 1.0, 2**64])
def test_eval_one_leaves_other_parties_to_the_general_path(party):
    ev, _ = one_key_args()
    args = list(ev)
    args[1] = party
    assert _ext.small.eval_one(*args) is None


@pytest.mark.parametrize("x", [-1, 2**20, 2**64, 2**200, True, 1.0, "5"])
def test_one_key_entries_leave_other_points_to_the_general_path(x):
    ev, gen = one_key_args()
    assert _ext.small.eval_one(*ev[:4], x, *ev[5:]) is None
    assert _ext.small.gen_one(*gen[:3], x, *gen[4:]) is None


def test_one_key_entries_raise_what_the_core_refuses_as_the_general_path_does():
    ev, _ = one_key_args()
    bad = ev[3].clone()
    bad[3, 5] = 7  # words 4-7 of a DPF row are (0 or 1, 0, 0, 0)
    with pytest.raises(RuntimeError) as e:
        _ext.small.eval_one(*ev[:3], bad, *ev[4:])
    assert (
        json.loads(str(e.value))["message"]
        == "cws: key 0, row 3: words 4-7 must be (0 or 1, 0, 0, 0) in a DPF key"
    )
    with pytest.raises(ValueError, match="row 3: words 4-7") as fast:
        ONE_KEY.eval(0, ev[2], bad, 5)
    with pytest.raises(ValueError) as slow:
        ONE_KEY.eval(0, ev[2], bad, 5, out=torch.empty(4, dtype=torch.int32))
    assert str(fast.value) == str(slow.value)
    sb = pyfss.Dpf(20, "bytes", "aes128_mmo")
    odd = torch.tensor([1, 2, 3, 5], dtype=torch.int32)  # bit 0 of word 3 is reserved
    with pytest.raises(ValueError, match="bit 0 of word 3 is reserved") as fast:
        sb.gen(SEEDS, 5, odd)
    with pytest.raises(ValueError) as slow:
        sb.gen(SEEDS, 5, odd, out=torch.empty(sb._cws_tail, dtype=torch.int32))
    assert str(fast.value) == str(slow.value)


def test_one_key_entries_check_their_arguments():
    ev, gen = one_key_args()
    with pytest.raises(TypeError, match="eval_one takes 7 arguments"):
        _ext.small.eval_one(*ev[:-1])
    with pytest.raises(TypeError, match="gen_one takes 6 arguments"):
        _ext.small.gen_one(*gen, 0)
    with pytest.raises(TypeError, match="cws_shape must be a tuple"):
        _ext.small.gen_one(*gen[:4], [21, 8], 20)
    with pytest.raises(TypeError, match="cws_shape must be a tuple"):
        _ext.small.eval_one(*ev[:5], [21, 8], 20)


def test_one_key_entries_refuse_correction_words_not_of_one_key():
    # The entries take the tensors' shapes from the caller; the core checks their
    # size against the scheme's key, so that a shape of fewer rows is neither read
    # past nor written past.
    ev, gen = one_key_args()
    for rows in (20, 22, 1):
        short = torch.zeros(rows, 8, dtype=torch.int32)
        with pytest.raises(RuntimeError, match=f"cws: {rows * 32} bytes, where one key's are 672"):
            _ext.small.eval_one(*ev[:3], short, 5, (rows, 8), 20)
        with pytest.raises(RuntimeError, match=f"cws: {rows * 32} bytes, where one key's are 672"):
            _ext.small.gen_one(*gen[:4], (rows, 8), 20)
    with pytest.raises(RuntimeError, match="cws: 588 bytes"):
        _ext.small.gen_one(*gen[:4], (21, 7), 20)
    with pytest.raises(ValueError, match="an output of no memory"):
        _ext.small.gen_one(*gen[:4], (0, 8), 20)


def test_defaults_and_limits_come_from_the_catalogue():
    catalogue = json.loads(pyfss.lib.Catalogue())
    assert pyfss.DEFAULT_NONCE == tuple(catalogue["prgs"]["chacha"]["default_nonce"])
    assert pyfss.DEFAULT_AES_KEYS == tuple(
        bytes.fromhex(h) for h in catalogue["prgs"]["aes128_mmo"]["default_aes_keys"]
    )
    assert pyfss.MAX_EVAL_ALL_BITS == catalogue["limits"]["max_eval_all_bits"]
    assert pyfss.IMPLS == tuple(catalogue["impls"])
    # The values the known-answer vectors were made with.
    assert pyfss.DEFAULT_NONCE == (0x12345678, 0x9ABCDEF0 - 2**32)
    assert pyfss.DEFAULT_AES_KEYS[0] == bytes(range(1, 17))
    assert pyfss.MAX_EVAL_ALL_BITS == 40
    with pytest.raises(ValueError, match="group must be one of"):
        pyfss.Dpf(8, "uint16")


def test_params_are_the_complete_record():
    assert pyfss.Dpf(8).params() == {
        "scheme": "dpf",
        "in_bits": 8,
        "group": "bytes",
        "prg": "chacha",
        "nonce": [0x12345678, 0x9ABCDEF0 - 2**32],
        "aes_keys": None,
    }
    s = pyfss.Dcf(70, "uint", "aes128_mmo", "gt")
    assert s.params() == {
        "scheme": "dcf_gt",
        "in_bits": 70,
        "group": "uint127",
        "prg": "aes128_mmo",
        "nonce": None,
        "aes_keys": [k.hex() for k in pyfss.DEFAULT_AES_KEYS],
    }
    assert s.nonce is None and s.aes_keys == pyfss.DEFAULT_AES_KEYS
    s.params()["in_bits"] = 5  # a copy
    assert s.params()["in_bits"] == 70


def _scribble(record):
    """Changes every dict and list inside record (and record itself)."""
    at = record.items() if isinstance(record, dict) else enumerate(record)
    for _, v in list(at):
        if isinstance(v, (dict, list)):
            _scribble(v)
    if isinstance(record, dict):
        record["scribbled"] = True
    else:
        record.append("scribbled")


@pytest.mark.parametrize(
    "make",
    [
        lambda: pyfss.Dpf(20, "bytes", "aes128_mmo"),
        lambda: pyfss.Dcf(20),  # chacha: a nonce list
        lambda: pyfss.Vdpf(12, hash="blake3"),  # a hash record holding key lists
        lambda: pyfss.HalfTreeDpf(10),
        lambda: pyfss.Vdmpf(16, 4),
    ],
)
def test_params_copies_share_no_container(make):
    # Each params() and each key owns every dict and list of its record: changing
    # one, however deep, leaves the scheme's and the other keys' as they were.
    s = make()
    want = json.loads(json.dumps(s.params()))  # shares nothing with s
    _scribble(s.params())
    assert s.params() == want
    if isinstance(s, (pyfss.Dpf, pyfss.Dcf)):
        k0, k1 = s.keygen(3, torch.tensor([1, 2, 3, 4], dtype=torch.int32))
        _scribble(k0.params)
        assert k1.params == want and s.params() == want


def test_impl_is_chosen_and_shown():
    assert "portable" in pyfss.IMPLS
    assert pyfss.Dpf(8, impl="portable").impl == "portable"
    assert pyfss.Dcf(8, "uint64", "aes128_mmo").impl in pyfss.IMPLS
    with pytest.raises(ValueError, match="impl must be one of"):
        pyfss.Dpf(8, impl="fastest")
    with pytest.raises(TypeError, match="impl must be a str"):
        pyfss.Dpf(8, impl=1)


@pytest.mark.parametrize("prg", ["chacha", "aes128_mmo"])
@pytest.mark.parametrize("group", ["bytes", "uint32", "uint64", "uint127"])
@pytest.mark.parametrize("make", [pyfss.Dpf, lambda *a, **kw: pyfss.Dcf(*a, pred="gt", **kw)])
def test_fastest_and_portable_impls_agree(make, group, prg):
    g = torch.Generator().manual_seed(5)
    n, k = 11, 300  # enough keys and points for the fast paths' batch kernels
    fast, portable = make(n, group, prg), make(n, group, prg, impl="portable")
    s0s = torch.randint(-(2**31), 2**31, (k, 2, 4), dtype=torch.int32, generator=g)
    betas = torch.randint(-(2**31), 2**31, (k, 4), dtype=torch.int32, generator=g)
    betas[:, 3] &= ~1
    alphas = torch.randint(0, 2**n, (k,), generator=g)
    cws = fast.gen(s0s, alphas, betas)
    assert torch.equal(cws, portable.gen(s0s, alphas, betas))
    xs = torch.randint(0, 2**n, (k, 8), generator=g)
    for p in (0, 1):
        assert torch.equal(fast.eval(p, s0s[:, p], cws, xs), portable.eval(p, s0s[:, p], cws, xs))
    assert torch.equal(
        fast.eval_all(1, s0s[:4, 1], cws[:4]), portable.eval_all(1, s0s[:4, 1], cws[:4])
    )


def mem_available() -> int:
    with open("/proc/meminfo") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["MemAvailable"].split()[0]) * 1024


@pytest.mark.skipif(not os.path.exists("/proc/meminfo"), reason="reads /proc/meminfo")
def test_eval_all_compares_with_available_memory(monkeypatch):
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    got = _validate.available_memory(torch.device("cpu"))
    assert got < total
    assert abs(got - mem_available()) < 2**28  # what else runs may change it meanwhile

    s = pyfss.Dpf(20)
    cws = s.gen(SEEDS, 5, torch.zeros(4, dtype=torch.int32))
    monkeypatch.setattr(_validate, "available_memory", lambda device: (16 << 20) - 1)
    with pytest.raises(
        ValueError,
        match=r"eval_all of 1 x 2\^20 outputs would need 16.0 MiB, more than the 16.0 MiB of "
        "memory available on cpu",
    ):
        s.eval_all(0, SEEDS[0], cws)  # 16 MiB of outputs: one byte too many
    out = torch.empty(1 << 20, 4, dtype=torch.int32)
    assert s.eval_all(0, SEEDS[0], cws, out=out) is out  # nothing to allocate


def test_cuda_available_memory_counts_torch_cache(monkeypatch):
    """After large calls torch keeps their freed blocks cached, which the driver counts
    as used: 1 GiB free to the driver, 3 GiB reserved by torch of which 1 GiB is in
    tensors, so 3 GiB can be handed out (run without a GPU: torch's answers faked)."""
    gib = 1 << 30
    cuda = torch.device("cuda", 0)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (gib, 80 * gib))
    stats = {"reserved_bytes.all.current": 3 * gib, "allocated_bytes.all.current": gib}
    monkeypatch.setattr(torch.cuda, "memory_stats", lambda device=None: stats)
    assert _validate.available_memory(cuda) == 3 * gib
    _validate.memory_for(3 * gib, "eval_all", cuda)
    with pytest.raises(ValueError, match="more than the 3.0 GiB of memory available on cuda:0"):
        _validate.memory_for(3 * gib + 1, "eval_all", cuda)
    stats = {}  # torch has allocated nothing on the device yet
    assert _validate.available_memory(cuda) == gib


def test_grotto_preprocess_compares_with_available_memory(monkeypatch):
    """As eval_all does: 2^20 bits are 128 KiB of parity words."""
    s = pyfss.GrottoDcf(20)
    k0, _ = s.keygen(5)
    monkeypatch.setattr(_validate, "available_memory", lambda device: (128 << 10) - 1)
    with pytest.raises(ValueError, match=r"preprocess of 1 x 2\^20 bits would need 0.1 MiB"):
        s.preprocess(0, k0.s0, k0.cws)
    monkeypatch.setattr(_validate, "available_memory", lambda device: 128 << 10)
    assert s.preprocess(0, k0.s0, k0.cws).shape == (s.parity_words,)
