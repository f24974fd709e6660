"""Bad input: each mistake raises the exception fss_crypto raises, with a message
that names the argument, and the process survives."""

from functools import partial

import pytest
import torch

import pyfss

I32 = torch.int32


def seeds():
    """Two seeds that differ (equal ones are refused)."""
    return torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=I32)


def beta():
    """A beta valid in every group (bit 0 of word 3, reserved in bytes, is clear)."""
    return torch.tensor([1, 2, 3, 4], dtype=I32)


@pytest.fixture(params=["dpf", "dcf"])
def scheme(request):
    return pyfss.Dpf(8, "uint32") if request.param == "dpf" else pyfss.Dcf(8, "uint32")


@pytest.fixture
def key(scheme):
    return scheme.gen(seeds(), 5, beta())


@pytest.mark.parametrize("n", [0, 129, -1])
def test_in_bits_range(n):
    for cls in (pyfss.Dpf, pyfss.Dcf):
        with pytest.raises(ValueError, match="in_bits must be between 1 and 128"):
            cls(n)


def test_in_bits_type():
    with pytest.raises(TypeError, match="in_bits"):
        pyfss.Dpf(8.0)
    with pytest.raises(TypeError, match="in_bits"):
        pyfss.Dpf(True)


def test_unknown_names():
    with pytest.raises(ValueError, match="group must be one of"):
        pyfss.Dpf(8, group="int")
    with pytest.raises(ValueError, match="prg must be one of"):
        pyfss.Dpf(8, prg="aes")
    with pytest.raises(ValueError, match="pred must be one of"):
        pyfss.Dcf(8, pred="le")


@pytest.mark.parametrize("nonce", [(2**31, 0), (0, -(2**31) - 1), (1, 2, 3), (1,), (1.5, 2)])
def test_nonce(nonce):
    with pytest.raises(ValueError, match="nonce"):
        pyfss.Dpf(8, nonce=nonce)
    with pytest.raises(TypeError, match="nonce"):
        pyfss.Dpf(8, nonce=7)


@pytest.mark.parametrize("nonce", [b"\x01\x02", bytearray(2), "12"])
def test_nonce_of_bytes_or_str_is_refused(nonce):
    # Iterating b"\x01\x02" gives the ints 1 and 2, which were taken as the words.
    with pytest.raises(TypeError, match="nonce must be a pair of ints"):
        pyfss.Dpf(8, nonce=nonce)


def test_parameters_of_the_other_prg_are_refused():
    with pytest.raises(ValueError, match="nonce is a parameter of chacha, not of aes128_mmo"):
        pyfss.Dpf(8, prg="aes128_mmo", nonce=(1, 2))
    with pytest.raises(ValueError, match="aes_keys are a parameter of aes128_mmo, not of chacha"):
        pyfss.Dcf(8, prg="chacha", aes_keys=[bytes(16)] * 4)


def test_aes_keys():
    with pytest.raises(ValueError, match="aes_keys: dpf with aes128_mmo needs 2 AES keys, not 3"):
        pyfss.Dpf(8, prg="aes128_mmo", aes_keys=[bytes(16)] * 3)
    with pytest.raises(
        ValueError, match="aes_keys: dcf_lt with aes128_mmo needs 4 AES keys, not 2"
    ):
        pyfss.Dcf(8, prg="aes128_mmo", aes_keys=[bytes(16)] * 2)
    with pytest.raises(ValueError, match="16-byte"):
        pyfss.Dpf(8, prg="aes128_mmo", aes_keys=[bytes(15), bytes(16)])
    with pytest.raises(ValueError, match="16-byte"):
        pyfss.Dpf(8, prg="aes128_mmo", aes_keys=["0" * 16, bytes(16)])


def test_gen_tensor_types(scheme):
    with pytest.raises(TypeError, match=r"s0s must be a \(2, 4\) int32 tensor"):
        scheme.gen(torch.zeros(2, 4), 1, beta())
    with pytest.raises(TypeError, match=r"s0s must be a \(2, 4\) int32 tensor"):
        scheme.gen(torch.zeros(3, 4, dtype=I32), 1, beta())
    with pytest.raises(TypeError, match=r"s0s must be a \(2, 4\) int32 tensor"):
        scheme.gen([[0] * 4] * 2, 1, beta())
    with pytest.raises(TypeError, match=r"beta must be a \(4,\) int32 tensor"):
        scheme.gen(seeds(), 1, torch.ones(3, dtype=I32))
    with pytest.raises(TypeError, match=r"beta must be a \(4,\) int32 tensor"):
        scheme.gen(seeds(), 1, torch.ones(4, dtype=torch.int64))
    with pytest.raises(TypeError, match="beta has batch shape"):
        scheme.gen(torch.stack([seeds()] * 3), 1, torch.ones(2, 4, dtype=I32))


@pytest.mark.parametrize("alpha", [-1, 256, 2**200])
def test_alpha_range(scheme, alpha):
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 2\^8\)"):
        scheme.gen(seeds(), alpha, beta())


def test_alpha_types(scheme):
    with pytest.raises(TypeError, match="alpha must be an integer"):
        scheme.gen(seeds(), True, beta())
    with pytest.raises(TypeError, match="alpha must be an integer"):
        scheme.gen(seeds(), 1.0, beta())
    with pytest.raises(TypeError, match="alpha must be"):
        scheme.gen(seeds(), torch.tensor(1.0), beta())
    # Tensor entries out of range are refused by the Go core, as ValueError.
    two = torch.stack([seeds(), seeds()])
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 2\^8\): entry 1 is out of range"):
        scheme.gen(two, torch.tensor([1, 256], dtype=I32), beta())
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 2\^8\): entry 1 is out of range"):
        scheme.gen(two, torch.tensor([1, -1]), beta())


@pytest.mark.parametrize("party", [2, -1, True, 0.0, "0", torch.tensor(True), torch.tensor([True])])
def test_party(scheme, key, party):
    with pytest.raises(ValueError, match="party must be 0 or 1"):
        scheme.eval(party, seeds()[0], key, 1)
    with pytest.raises(ValueError, match="party must be 0 or 1"):
        scheme.eval_all(party, seeds()[0], key)


def test_party_of_a_numpy_int(scheme, key):
    np = pytest.importorskip("numpy")
    s0 = seeds()[0]
    for party in (0, 1):
        want = scheme.eval(party, s0, key, 1)
        assert torch.equal(scheme.eval(np.int64(party), s0, key, 1), want)
        assert torch.equal(scheme.eval(np.uint8(party), s0, key, np.int64(1)), want)


def test_eval_tensor_types(scheme, key):
    with pytest.raises(TypeError, match=r"s0 must be a \(4,\) int32 tensor"):
        scheme.eval(0, torch.zeros(3, dtype=I32), key, 1)
    with pytest.raises(TypeError, match=r"s0 must be a \(4,\) int32 tensor"):
        scheme.eval(0, torch.zeros(4), key, 1)
    with pytest.raises(TypeError, match="cws must be a"):
        scheme.eval(0, seeds()[0], key.to(torch.int64), 1)
    with pytest.raises(TypeError, match="cws has batch shape"):
        scheme.eval(0, seeds()[0], torch.stack([key, key]), 1)


def test_cws_of_another_in_bits(scheme):
    other = type(scheme)(9, "uint32")
    cws9 = other.gen(seeds(), 5, beta())
    with pytest.raises(TypeError, match=r"cws must be a \(cw_rows, 8\) = \(9, 8\)"):
        scheme.eval(0, seeds()[0], cws9, 1)


def test_cws_of_the_other_scheme():
    dpf, dcf = pyfss.Dpf(8, "uint32"), pyfss.Dcf(8, "uint32")
    for s, cws in ((dpf, dcf.gen(seeds(), 5, beta())), (dcf, dpf.gen(seeds(), 5, beta()))):
        with pytest.raises(ValueError, match="cws: key 0"):
            s.eval(0, seeds()[0], cws, 1)
        with pytest.raises(ValueError, match="cws: key 0"):
            s.eval_all(0, seeds()[0], cws)


@pytest.mark.parametrize("x", [-1, 256, 2**64])
def test_x_range(scheme, key, x):
    with pytest.raises(ValueError, match=r"x must be in \[0, 2\^8\)"):
        scheme.eval(0, seeds()[0], key, x)


def test_x_types(scheme, key):
    with pytest.raises(TypeError, match="x must be an integer"):
        scheme.eval(0, seeds()[0], key, False)
    with pytest.raises(TypeError, match="x must be an integer"):
        scheme.eval(0, seeds()[0], key, torch.tensor([True]))
    with pytest.raises(TypeError, match="x must be an integer"):
        scheme.eval(0, seeds()[0], key, "3")
    with pytest.raises(TypeError, match="x must be an int32 tensor"):
        scheme.eval(0, seeds()[0], key, torch.tensor([1.0]))
    with pytest.raises(ValueError, match="x must be in"):
        scheme.eval(0, seeds()[0], key, torch.tensor([1, 256], dtype=I32))
    with pytest.raises(ValueError, match="x must be in"):
        scheme.eval(0, seeds()[0], key, torch.tensor([-5]))
    with pytest.raises(TypeError, match="leading dimensions"):
        scheme.eval(0, seeds()[[0, 0, 0]], torch.stack([key] * 3), torch.zeros(2, 5, dtype=I32))


BOOLS = ["python", "numpy", "numpy 0-d", "tensor 0-d", "tensor (1,)", "tensor (2,)"]


def a_bool(kind):
    """True as each kind of bool: torch's one-element tensors are what operator.index
    reads as 1, as it reads a numpy bool in numpy before 2.0."""
    if kind.startswith("numpy"):
        np = pytest.importorskip("numpy")
        return np.bool_(True) if kind == "numpy" else np.array(True)
    return {
        "python": True,
        "tensor 0-d": torch.tensor(True),
        "tensor (1,)": torch.tensor([True]),
        "tensor (2,)": torch.tensor([True, False]),
    }[kind]


def point_calls(b):
    """(argument, call) for every place a scheme takes points, with the bool b there."""
    s0 = seeds()[0]
    calls = []
    for s in (
        pyfss.Dpf(8, "uint32"),
        pyfss.Dcf(8, "uint32"),
        pyfss.HalfTreeDpf(8, "uint32"),
        pyfss.Vdpf(8, "uint32"),
    ):
        cws = s.gen(seeds(), 5, beta())
        calls += [
            ("alpha", partial(s.gen, seeds(), b, beta())),
            ("alpha", partial(s.keygen, b, beta())),
            ("x", partial(s.eval, 0, s0, cws, b)),
        ]
        if not isinstance(s, pyfss.Vdpf):  # Vdpf's eval_all has no range
            calls += [
                ("start", partial(s.eval_all, 0, s0, cws, start=b)),
                ("stop", partial(s.eval_all, 0, s0, cws, stop=b)),
            ]
    grotto = pyfss.GrottoDcf(8)
    pre = grotto.preprocess(0, s0, grotto.gen(seeds(), 5))
    calls += [
        ("alpha", partial(grotto.gen, seeds(), b)),
        ("alpha", partial(grotto.keygen, b)),
        ("x", partial(grotto.eval, pre, b)),
        ("lo", partial(grotto.eval_interval, pre, b, 7)),
        ("hi", partial(grotto.eval_interval, pre, 0, b)),
    ]
    betas = pyfss.from_int([1, 2], "uint32")
    for s in (pyfss.Dmpf(8, 4, "uint32"), pyfss.Vdmpf(8, 4, "uint32")):
        many = torch.randint(-(2**31), 2**31, (s.buckets, 2, 4), dtype=I32)
        k0, _ = s.keygen([3, 4], betas)
        calls += [
            ("alphas", partial(s.keygen, [b, 2], betas)),
            ("alphas", partial(s.keygen, [2, b], betas)),
            ("alphas", partial(s.gen, many, [2, b], betas)),
            ("alphas", partial(s.keygen, b, betas[:1])),
            ("x", partial(s.eval, 0, k0.s0, k0.cws, b)),
        ]
    return calls


@pytest.mark.parametrize("kind", BOOLS)
def test_bools_are_not_points(kind):
    """A bool of any kind, alone or in a list of ints, is refused wherever a scheme
    takes points, as a Python bool is: not read as 1."""
    for name, call in point_calls(a_bool(kind)):
        with pytest.raises(TypeError, match=name):
            call()


def test_words_form_required_for_wide_inputs():
    s = pyfss.Dpf(64)
    cws = s.gen(seeds(), 5, beta())
    with pytest.raises(TypeError, match="int64 tensor \\(in_bits <= 63\\)"):
        s.eval(0, seeds()[0], cws, torch.tensor([1]))
    assert s.eval(0, seeds()[0], cws, pyfss.to_words([1, 2**64 - 1])).shape == (2, 4)


def test_non_contiguous_inputs_are_accepted(scheme, key):
    wide = torch.stack([seeds()[0]] * 2, dim=1)  # (4, 2): a column is not contiguous
    s0 = wide[:, 0]
    assert not s0.is_contiguous()
    assert torch.equal(scheme.eval(0, s0, key, 3), scheme.eval(0, seeds()[0], key, 3))
    xs = torch.arange(8, dtype=I32).reshape(2, 4).t()
    assert torch.equal(
        scheme.eval(0, seeds()[0], key, xs), scheme.eval(0, seeds()[0], key, xs.contiguous())
    )


def test_devices(scheme, key):
    meta = torch.zeros(4, dtype=I32, device="meta")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        scheme.eval(0, meta, key, 1)
    with pytest.raises(RuntimeError, match="pyfss runs on cpu and cuda tensors"):
        scheme.eval(0, meta, key.to("meta"), 1)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error when no GPU can be used")
def test_cuda_unavailable_is_a_clear_error():
    info = pyfss.backend_info()
    assert info["cuda"]["usable"] is False
    assert info["cuda"]["reason"]


def test_eval_all_refuses_huge_domains():
    for n in (41, 128):
        s = pyfss.Dpf(n)
        cws = s.gen(seeds(), 5, beta())
        with pytest.raises(ValueError, match="eval_all over in_bits"):
            s.eval_all(0, seeds()[0], cws)
    s = pyfss.Dpf(40)  # 16 TiB of outputs: more than any machine's memory
    cws = s.gen(seeds(), 5, beta())
    with pytest.raises(ValueError, match="GiB"):
        s.eval_all(0, seeds()[0], cws)


def test_go_errors_become_python_exceptions(scheme):
    bad = scheme.gen(seeds(), 5, beta())
    bad[-1, 3] |= 1  # a set control bit in the output correction word
    if isinstance(scheme, pyfss.Dcf):
        bad[-1, 7] |= 1
    with pytest.raises(ValueError, match="last row"):
        scheme.eval(0, seeds()[0], bad, 1)
