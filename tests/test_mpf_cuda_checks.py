"""The checks that Dmpf.eval and Vdmpf.eval make on CUDA tensors before the kernels
run (the kernels do not read a key's rows as the core does): run here on CPU tensors,
each must refuse what the CPU path refuses, with its message, and pass what it
passes. The GPU runs themselves are in test_cuda.py."""

import pytest
import torch
from test_checks import message

import pyfss
from pyfss import _validate as v


def check_message(s, cws, xs):
    with pytest.raises(ValueError) as e:
        s._check_contents(cws, v.inputs("x", xs, s.in_bits))
    return str(e.value)


@pytest.mark.parametrize("kind", ["dmpf", "vdmpf"])
@pytest.mark.parametrize("in_bits", [8, 13])
def test_cuda_checks_refuse_what_the_cpu_refuses(kind, in_bits):
    cls = pyfss.Vdmpf if kind == "vdmpf" else pyfss.Dmpf
    s = cls(in_bits, 6, "uint32", "aes128_mmo")
    k0, _ = s.keygen([1, 2, 3], torch.ones(3, 4, dtype=torch.int32))
    xs = torch.arange(5)
    s._check_contents(k0.cws, v.inputs("x", xs, in_bits))  # a good key passes
    rows = (k0.cws.shape[0] - 1) // s.buckets
    last_bucket_row = 1 + (s.buckets - 1) * rows

    def bad(edit, x=xs):
        cws = k0.cws.clone()
        edit(cws)
        want = message(s.eval, 0, k0.s0, cws, x)
        assert check_message(s, cws, x) == want
        return want

    assert "key 2, row 1" in bad(lambda c: c[1 + 2 * rows + 1].__setitem__(4, 2))
    assert "last row" in bad(lambda c: c[1 + s.bucket_bits].__setitem__(3, 1))
    assert "last row" in bad(lambda c: c[last_bucket_row + s.bucket_bits].__setitem__(6, 9))
    assert "header row" in bad(lambda c: c[0].__setitem__(4, 0))
    assert "header row" in bad(lambda c: c[0].__setitem__(4, s.buckets + 1))
    assert "header row" in bad(lambda c: c[0].__setitem__(4, -1))
    assert "header row" in bad(lambda c: c[0].__setitem__(7, 1))
    # A bad row is named before a bad header, as the core checks them.
    assert "row 0" in bad(lambda c: (c[0].__setitem__(5, 1), c[1].__setitem__(5, 1)))
    if kind == "vdmpf":  # cs is any block: not checked
        cws = k0.cws.clone()
        cws[1 + s.bucket_bits + 1] = -1
        s._check_contents(cws, v.inputs("x", xs, in_bits))
    out_of_range = torch.tensor([0, 1 << in_bits, 3])
    assert "entry 1 is out of range" in bad(lambda c: None, out_of_range)
    assert "key 0" in bad(lambda c: c[1].__setitem__(6, 1), out_of_range)


def test_the_least_header():
    """The least m_rt the header may give: in_bits above and below bucket_bits."""
    for in_bits, bucket_bits in ((8, 7), (20, 23), (10, 10)):
        s = pyfss.Dmpf(in_bits, 4, "uint32", bucket_bits=bucket_bits)
        k0, _ = s.keygen([1], torch.ones(1, 4, dtype=torch.int32))
        least = -(-3 * 2**in_bits // 2**bucket_bits)
        for m_rt in (least - 1, least):
            cws = k0.cws.clone()
            cws[0, 4] = m_rt
            if m_rt < least or m_rt > s.buckets:
                assert check_message(s, cws, torch.zeros(1, dtype=torch.int64)) == message(
                    s.eval, 0, k0.s0, cws, 0
                )
            else:
                s._check_contents(cws, v.inputs("x", torch.zeros(1, dtype=torch.int64), in_bits))
                s.eval(0, k0.s0, cws, 0)
