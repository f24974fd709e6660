"""The content checks that CUDA calls make with torch ops (pyfss._validate's
gen_contents and eval_contents), run here on CPU tensors: for the same bad input they
raise what the Go core raises on the CPU, the reference, message for message."""

import pytest
import torch

import pyfss
from pyfss import _validate as v

I32 = torch.int32
K = 4


def message(fn, *args) -> str:
    """The message of the ValueError that fn(*args) raises."""
    with pytest.raises(ValueError) as e:
        fn(*args)
    return str(e.value)


def signed(value: int, bits: int) -> int:
    """The two's complement integer that a bits-bit tensor holds for 0 <= value < 2^bits."""
    return value - 2**bits if value >= 2 ** (bits - 1) else value


def input_forms(n: int, values: list, shape: tuple) -> list:
    """Unsigned values (a flat list, of the given shape) in each tensor form that in_bits
    n takes where they fit: int32 (n <= 32), int64 (n <= 63), (..., 4) words (n > 32)."""
    forms = [pyfss.to_words(values).reshape(*shape, 4)] if n > 32 else []
    if n <= 63 and max(values) < 2**64:
        forms.append(torch.tensor([signed(x, 64) for x in values]).reshape(shape))
    if n <= 32 and max(values) < 2**32:
        forms.append(torch.tensor([signed(x, 32) for x in values], dtype=I32).reshape(shape))
    return forms


def random_gen_args(n: int, seed: int):
    """Valid gen arguments for K keys: seeds, alphas (unsigned Python ints), betas."""
    g = torch.Generator().manual_seed(seed)
    s0s = torch.randint(-(2**31), 2**31, (K, 2, 4), dtype=I32, generator=g)
    betas = torch.randint(-(2**31), 2**31, (K, 4), dtype=I32, generator=g)
    betas[:, 3] &= ~1  # valid in the bytes group too
    alphas = [int(a) for a in torch.randint(0, 2 ** min(n, 62), (K,), generator=g)]
    return s0s, alphas, betas


def check_gen(s, s0s, alpha, betas):
    """gen_contents on the arguments as the CUDA path passes them."""
    v.gen_contents(s.out_group, s.in_bits, s0s, v.inputs("alpha", alpha, s.in_bits), betas)


def changed(t, index, value):
    t = t.clone()
    t[index] = value
    return t


def same_seeds(s0s, key, control_bit=0):
    """s0s with key's second seed equal to its first, but for the control bit."""
    return changed(s0s, (key, 1), s0s[key, 0] ^ torch.tensor([0, 0, 0, control_bit], dtype=I32))


def alpha_at(alphas, key, value):
    return [value if i == key else a for i, a in enumerate(alphas)]


# (name, in_bits, group, mutation of (s0s, alphas, betas)). Several mistakes at once
# check that both sides report the same one first.
GEN_CASES = [
    ("beta reserved bit", 8, "bytes", lambda s, a, b: (s, a, changed(b, (2, 3), 1))),
    ("equal seeds", 8, "uint32", lambda s, a, b: (same_seeds(s, 1), a, b)),
    (
        "seeds equal but for the control bit",
        20,
        "bytes",
        lambda s, a, b: (same_seeds(s, 3, 1), a, b),
    ),
    ("alpha 2^n", 8, "uint64", lambda s, a, b: (s, alpha_at(a, 2, 256), b)),
    ("alpha negative in int64", 40, "uint127", lambda s, a, b: (s, alpha_at(a, 1, 2**64 - 3), b)),
    ("alpha 2^128 - 1", 100, "bytes", lambda s, a, b: (s, alpha_at(a, 3, 2**128 - 1), b)),
    (
        "all three",
        8,
        "bytes",
        lambda s, a, b: (same_seeds(s, 0), alpha_at(a, 0, 999), changed(b, (3, 3), -1)),
    ),
    ("seeds and alpha", 12, "uint32", lambda s, a, b: (same_seeds(s, 2), alpha_at(a, 0, 2**12), b)),
]


@pytest.mark.parametrize(("name", "n", "group", "mutate"), GEN_CASES, ids=[c[0] for c in GEN_CASES])
@pytest.mark.parametrize("cls", [pyfss.Dpf, pyfss.Dcf])
def test_gen_checks_match_the_core(cls, name, n, group, mutate):
    s = cls(n, group)
    s0s, alphas, betas = mutate(*random_gen_args(n, seed=n))
    for alpha in input_forms(n, alphas, (K,)):
        want = message(s.gen, s0s, alpha, betas)
        assert message(check_gen, s, s0s, alpha, betas) == want


def test_gen_checks_pass_good_arguments():
    for n in (1, 8, 32, 33, 63, 64, 100, 128):
        s0s, alphas, betas = random_gen_args(n, seed=n)
        s = pyfss.Dcf(n, "bytes")
        top = [2**n - 1] * K  # the largest alpha
        for alpha in input_forms(n, alphas, (K,)) + input_forms(n, top, (K,)):
            check_gen(s, s0s, alpha, betas)  # raises on a false alarm
            s.gen(s0s, alpha, betas)  # which the core agrees is none


def make_keys(cls, n, group, prg="aes128_mmo"):
    # The portable walks: they check correction words in the order the checker follows;
    # the fast ones may report another of several mistakes first (see the report of
    # this change).
    s = cls(n, group, prg, impl="portable")
    s0s, alphas, betas = random_gen_args(n, seed=7)
    return s, s0s[:, 0].contiguous(), s.gen(s0s, input_forms(n, alphas, (K,))[0], betas)


def set_word(cws, key, row, word, value):
    return changed(cws, (key, row, word), value)


DPF_CWS = [
    ("tr word 2", lambda c, n: set_word(c, 1, 3, 4, 2)),
    ("padding", lambda c, n: set_word(c, 2, 0, 6, 1)),
    ("last row control bit", lambda c, n: set_word(c, 3, n, 3, 1)),
    ("last row padding", lambda c, n: set_word(c, 0, n, 7, 5)),
    ("inner and last rows", lambda c, n: set_word(set_word(c, 0, n, 3, 1), 2, n - 1, 5, 9)),
]
DCF_CWS = [
    ("seed block", lambda c, n: set_word(c, 1, n, 0, 1)),
    ("control bit", lambda c, n: set_word(c, 2, n, 7, 1)),
    ("two keys", lambda c, n: set_word(set_word(c, 3, n, 2, 1), 1, n, 7, 3)),
]
CWS_CASES = [(pyfss.Dpf, *c) for c in DPF_CWS] + [(pyfss.Dcf, *c) for c in DCF_CWS]


@pytest.mark.parametrize(
    ("cls", "name", "mutate"), CWS_CASES, ids=[f"{c[0].__name__}-{c[1]}" for c in CWS_CASES]
)
@pytest.mark.parametrize("group", ["bytes", "uint127"])
def test_correction_word_checks_match_the_core(cls, name, mutate, group):
    n = 16
    s, s0, cws = make_keys(cls, n, group)
    bad = mutate(cws, n)
    xs = torch.randint(0, 2**n, (K, 3))
    want = message(s.eval, 0, s0, bad, xs)
    assert message(v.eval_contents, s._scheme, n, bad, v.inputs("x", xs, n)) == want
    want = message(s.eval_all, 1, s0, bad)
    assert message(v.eval_contents, s._scheme, n, bad, None) == want


@pytest.mark.parametrize("n", [5, 31, 40, 64, 97])
def test_x_checks_match_the_core(n):
    s, s0, cws = make_keys(pyfss.Dpf, n, "uint64")
    for bad in (2**n, 2 ** (n + 1) - 1, 2**63, 2**128 - 1):
        if bad < 2**n:
            continue
        values = [1, 2, 3] * K
        values[7] = bad  # key 2, point 1
        for x in input_forms(n, values, (K, 3)):
            want = message(s.eval, 1, s0, cws, x)
            assert want == f"x must be in [0, 2^{n}): entry 7 is out of range"
            assert message(v.eval_contents, "dpf", n, cws, v.inputs("x", x, n)) == want


def test_eval_checks_pass_good_keys():
    for cls in (pyfss.Dpf, pyfss.Dcf):
        for n in (1, 16, 32, 128):
            s, _, cws = make_keys(cls, n, "bytes", "chacha")
            for x in input_forms(n, [2**n - 1, 0] * K, (K, 2)):
                v.eval_contents(s._scheme, n, cws, v.inputs("x", x, n))  # raises on a false alarm


def test_int_inputs_become_word_tensors_for_the_kernels():
    """CUDA calls pass a Python int alpha or x as a (batch..., 4) words tensor."""
    cpu = torch.device("cpu")
    got = v.inputs("x", 2**100 + 2**32 + 5, 128).on_device(cpu, (2, 3))
    assert got.words == 4 and got.shape == (2, 3)
    assert torch.equal(got.tensor, torch.tensor([5, 1, 0, 16], dtype=I32).expand(2, 3, 4))
    assert got.ptr == got.tensor.data_ptr()
    got = v.inputs("alpha", 2**31, 32).on_device(cpu, ())
    assert torch.equal(got.tensor, torch.tensor([-(2**31), 0, 0, 0], dtype=I32))


# Half-Tree DPF keys: block n (the output correction word) must be a group element in
# block form, and the padding block of an even n zero; (group, n, key, block word).
HALF_TREE_CWS = [
    ("uint32", 16, 2, (8, 1)),  # row 8 = blocks 16 and 17: word 1 of block 16
    ("uint64", 16, 1, (8, 2)),
    ("uint64", 16, 3, (8, 3)),  # word 3 above its control bit
    ("bytes", 16, 0, (8, 5)),  # the padding block
    ("uint32", 9, 3, (4, 7)),  # n odd: block 9 is words 4-7 of row 4
]


@pytest.mark.parametrize(("group", "n", "key", "at"), HALF_TREE_CWS)
def test_half_tree_checks_match_the_core(group, n, key, at):
    s = pyfss.HalfTreeDpf(n, group, "chacha")
    s0s, alphas, betas = random_gen_args(n, seed=n)
    cws = s.gen(s0s, input_forms(n, alphas, (K,))[0], betas)
    s0 = s0s[:, 0].contiguous()
    bad = changed(cws, (key, *at), 4)  # bit 2: not the control bit
    want = message(s.eval, 0, s0, bad, 3)
    assert want.startswith(f"cws: key {key}")
    assert message(v.eval_contents, "half_tree_dpf", n, bad, None, s.out_group) == want
    assert message(s.eval_all, 1, s0, bad) == want
    # The control bit of the output correction word is LCW1: any value goes.
    v.eval_contents(
        "half_tree_dpf", n, changed(cws, (key, n // 2, 4 * (n % 2) + 3), 1), None, group
    )


# lo > hi, at key 1 interval 2; both bounds as (..., 4) words above 2^32.
INTERVALS = ([3] * 12, [3] * 5 + [2] + [9] * 6)


@pytest.mark.parametrize("n", [5, 20])
def test_grotto_lookup_checks_match_the_core(n):
    s = pyfss.GrottoDcf(n)
    pre = s.preprocess(
        0, torch.tensor([1, 2, 3, 4], dtype=I32), s.gen(random_gen_args(n, 1)[0][0], 3)
    )
    pre = pre.expand(K, -1).contiguous()
    values = [1, 2, 3] * K
    values[7] = 2**n  # key 2, point 1
    for x in input_forms(n, values, (K, 3)):
        want = message(s.eval, pre, x)
        assert message(v.grotto_points, "x", v.inputs("x", x, n), n) == want
    for lo, hi in (
        ([2**n] + [0] * 11, [1] * 12),
        ([0] * 12, [5] * 11 + [2**n]),
        INTERVALS,
    ):
        for los, his in zip(input_forms(n, lo, (K, 3)), input_forms(n, hi, (K, 3))[::-1]):
            want = message(s.eval_interval, pre, los, his)
            got = message(v.grotto_intervals, v.inputs("lo", los, n), v.inputs("hi", his, n), n)
            assert got == want


def test_grotto_interval_checks_read_words():
    n = 40  # (..., 4) words; no preprocessed key of this size here: the int64 form,
    # checked against the core above, gives the message
    lo, hi = INTERVALS
    big = [x << 33 for x in lo], [x << 33 for x in hi]
    want = "los: entry 5 is above its his entry: an interval needs lo <= hi"
    for lo, hi in (INTERVALS, big):
        for los, his in zip(input_forms(n, lo, (K, 3)), input_forms(n, hi, (K, 3))):
            got = message(v.grotto_intervals, v.inputs("lo", los, n), v.inputs("hi", his, n), n)
            assert got == want
