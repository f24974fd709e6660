"""Serialized keys: every header field is checked when a key is loaded, and to_bytes
writes only keys that load."""

import json
import struct

import pytest
import torch

import pyfss

SEEDS = torch.tensor([[[1, 2, 3, 4], [5, 6, 7, 8]]] * 2, dtype=torch.int32)


def make_key():
    s = pyfss.Dcf(8, "uint32", "chacha", "gt")
    cws = s.gen(SEEDS, torch.tensor([3, 4]), pyfss.from_int(torch.tensor([1, 2]), "uint32"))
    return s, pyfss.Key(s.params(), 1, SEEDS[:, 1].contiguous(), cws)


def parts(blob: bytes) -> tuple[dict, bytes]:
    """The header (as an object) and the key data of a serialized key."""
    (length,) = struct.unpack_from("<I", blob, 10)
    return json.loads(blob[14 : 14 + length]), blob[14 + length :]


def assemble(header, body: bytes) -> bytes:
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    return b"PYFSSKEY" + struct.pack("<HI", 1, len(raw)) + raw + body


def test_a_key_round_trips():
    s, key = make_key()
    header, body = parts(key.to_bytes())
    assert header == {"params": s.params(), "party": 1, "batch": [2]}
    assert len(body) == 2 * 16 + 2 * 9 * 32
    back = s.load_key(key.to_bytes())
    assert torch.equal(back.s0, key.s0) and torch.equal(back.cws, key.cws) and back.party == 1


def edited(change):
    """A valid header with change(header) applied, and the body of the same key."""
    _, key = make_key()
    header, body = parts(key.to_bytes())
    change(header)
    return header, body


def set_param(name, value):
    return lambda h: h["params"].__setitem__(name, value)


BAD_HEADERS = [
    (lambda h: h.__setitem__("batch", [-1, -1]), "batch must be a list of non-negative integers"),
    (lambda h: h.__setitem__("batch", [True]), "batch must be a list of non-negative integers"),
    (lambda h: h.__setitem__("batch", [1.5, 2]), "batch must be a list of non-negative integers"),
    (lambda h: h.__setitem__("batch", 2), "batch must be a list of non-negative integers"),
    (
        lambda h: h.__setitem__("batch", [0, 2**62]),
        r"batch \[0, 4611686018427387904\] is too large",
    ),
    (lambda h: h.__setitem__("party", 2), "party must be 0 or 1, got 2"),
    (lambda h: h.__setitem__("party", True), "party must be 0 or 1, got True"),
    (lambda h: h.__setitem__("party", 1.0), "party must be 0 or 1, got 1.0"),
    (lambda h: h.pop("party"), "it must be an object with fields"),
    (lambda h: h.__setitem__("extra", 1), "it must be an object with fields"),
    (lambda h: h.__setitem__("params", [1]), "params must be an object, got an array"),
    (set_param("in_bits", 8.0), "params.in_bits must be an integer, got a number"),
    (set_param("in_bits", True), "params.in_bits must be an integer, got a boolean"),
    (set_param("in_bits", 10**30), "params.in_bits must be between 1 and 128"),
    (set_param("scheme", "dcf_le"), "scheme must be one of dpf, dcf_lt, dcf_gt"),
    (set_param("group", None), "params.group must be a string, got null"),
    (set_param("nonce", None), r"params.nonce must be \[305419896, -1698898192\]"),
    (set_param("nonce", [1, 2, 3]), "params.nonce must be null or two integers"),
    (set_param("nonce", [1, 2**40]), "nonce words must fit in 32 bits"),
    (set_param("aes_keys", ["00" * 16] * 4), "aes_keys are a parameter of aes128_mmo"),
    (lambda h: h["params"].pop("nonce"), "params.nonce is missing"),
    (
        lambda h: h["params"].__setitem__("impl", "portable"),
        r"params has unknown fields \['impl'\]",
    ),
]


@pytest.mark.parametrize(("change", "message"), BAD_HEADERS, ids=[m for _, m in BAD_HEADERS])
def test_crafted_headers_are_value_errors_naming_the_field(change, message):
    s, _ = make_key()
    blob = assemble(*edited(change))
    with pytest.raises(ValueError, match=f"corrupt pyfss key header: .*{message}"):
        pyfss.load_key(blob)
    with pytest.raises(ValueError, match=message):
        s.load_key(blob)
    with pytest.raises(ValueError, match=message):
        pyfss.Key.from_bytes(blob)


def test_deeply_nested_or_huge_headers_are_value_errors():
    _, body = edited(lambda h: None)
    with pytest.raises(ValueError, match="nested too deeply"):
        pyfss.load_key(assemble(b"[" * 10_000, body))
    with pytest.raises(ValueError, match="its length 100000 is over 65536 bytes"):
        pyfss.load_key(assemble(b"[" * 100_000, body))
    with pytest.raises(ValueError, match="not JSON"):
        pyfss.load_key(assemble(b"\xff{}", body))


def test_to_bytes_refuses_keys_that_would_not_load():
    s, key = make_key()
    params = s.params()
    no_nonce = {k: v for k, v in params.items() if k != "nonce"}
    cases = [
        (TypeError, "s0 must be a", pyfss.Key(params, 0, key.s0.to(torch.int64), key.cws)),
        (TypeError, "cws must be a", pyfss.Key(params, 0, key.s0, key.cws.float())),
        (
            TypeError,
            r"cws must be a \(cw_rows, 8\) = \(9, 8\)",
            pyfss.Key(params, 0, key.s0, key.cws[:, :8]),
        ),
        (TypeError, "s0 must be a", pyfss.Key(params, 0, key.s0[:, :3], key.cws)),
        (TypeError, "cws has batch shape", pyfss.Key(params, 0, key.s0, key.cws[:1])),
        (ValueError, "party must be 0 or 1", pyfss.Key(params, 2, key.s0, key.cws)),
        (ValueError, "params.nonce is missing", pyfss.Key(no_nonce, 0, key.s0, key.cws)),
    ]
    for exc, message, bad in cases:
        with pytest.raises(exc, match=f"Key.to_bytes: {message}"):
            bad.to_bytes()


def test_key_data_of_the_wrong_length_is_refused():
    header, body = edited(lambda h: None)
    with pytest.raises(ValueError, match="bytes of key data"):
        pyfss.load_key(assemble(header, body + b"\0" * 4))
    with pytest.raises(ValueError, match="bytes of key data"):
        pyfss.load_key(assemble({**header, "batch": [3]}, body))


def test_key_calls_refuse_keys_made_for_other_parameters():
    """eval_key and eval_all_key check the Key's record as load_key does: a key made
    under another nonce, in_bits or hash key evaluates to garbage, with no error."""
    beta = pyfss.from_int(5, "uint32")
    pairs = [
        (pyfss.Dpf(8, "uint32"), pyfss.Dpf(8, "uint32", nonce=(1, 2))),
        (pyfss.HalfTreeDpf(4, "uint32"), pyfss.HalfTreeDpf(5, "uint32")),
        (pyfss.HalfTreeDpf(8, "uint32"), pyfss.HalfTreeDpf(8, "uint32", hash_key=[1, 2, 3, 4])),
        (pyfss.Vdpf(8, "uint32"), pyfss.Vdpf(8, "uint32", nonce=(1, 2))),
        (pyfss.Dmpf(8, 4, "uint32"), pyfss.Dmpf(8, 4, "uint32", nonce=(1, 2))),
    ]
    for maker, other in pairs:
        if isinstance(maker, pyfss.Dmpf):
            k0, _ = maker.keygen([9], pyfss.from_int([5], "uint32"))
        else:
            k0, _ = maker.keygen(9, beta)
        with pytest.raises(ValueError, match="made for other parameters"):
            other.eval_key(k0, 3)
        with pytest.raises(ValueError, match="made for other parameters"):
            other.eval_all_key(k0)
        maker.eval_key(k0, 3)  # its own scheme takes it


def test_a_batch_too_large_for_a_multi_point_keys_rows():
    """The size check counts the scheme's own rows: a dmpf key has 1 + buckets *
    (bucket_bits + 1) of them, far more than in_bits + 1."""
    params = pyfss.Dmpf(1, 1 << 20, "uint32").params()
    blob = assemble({"params": params, "party": 0, "batch": [0, 2**40]}, b"")
    with pytest.raises(ValueError, match=r"batch \[0, 1099511627776\] is too large"):
        pyfss.Key.from_bytes(blob)


def test_a_numpy_party_is_written_as_an_int():
    np = pytest.importorskip("numpy")
    s, key = make_key()
    back = s.load_key(pyfss.Key(key.params, np.int64(1), key.s0, key.cws).to_bytes())
    assert back.party == 1 and type(back.party) is int
