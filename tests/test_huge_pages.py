"""gen asks the OS for huge pages for the correction words it writes: a batched eval
reads them once from memory, and with 4 KiB pages every few keys cost it a TLB walk.
eval and eval_all ask the same for their output: a fresh output's pages fault as the
core first writes them, once per 4 KiB without the advice, once per 2 MiB with it."""

import platform

import pytest
import torch

import pyfss

HUGE_PAGE = 2 << 20


def vm_flags(addr: int) -> list[str]:
    """The VmFlags of the mapping that holds addr, from /proc/self/smaps."""
    inside = False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(v, 16) for v in head.split("-"))
                inside = lo <= addr < hi
            elif inside and line.startswith("VmFlags:"):
                return line.split()[1:]
    raise AssertionError(f"no mapping holds {addr:#x}")


needs_huge_pages = pytest.mark.skipif(
    platform.system() != "Linux" or pyfss.backend_info()["huge_pages"] == "unsupported",
    reason="no transparent huge pages here",
)


def first_huge_page(t: torch.Tensor) -> int:
    """The address of the first whole huge page inside t's memory (asserted to exist)."""
    first = -(-t.data_ptr() // HUGE_PAGE) * HUGE_PAGE
    assert first + HUGE_PAGE <= t.data_ptr() + t.numel() * t.element_size()
    return first


@pytest.fixture
def no_output_pool():
    """Outputs from torch, not from pyfss's pool (which advises its own mappings)."""
    limit = pyfss.output_pool()["max_idle_bytes"]
    pyfss.output_pool(0)
    yield
    pyfss.output_pool(limit)


@needs_huge_pages
@pytest.mark.parametrize("make", [lambda: pyfss.Dpf(20, "bytes"), lambda: pyfss.Dcf(20, "bytes")])
def test_gen_asks_huge_pages_for_its_output(make, no_output_pool):
    keys = 8192  # 5.25 MiB of correction words: at least one whole huge page inside
    s0s = torch.zeros(keys, 2, 4, dtype=torch.int32)
    s0s[:, 1, 0] = 1  # a key's two seeds must differ
    cws = make().gen(
        s0s, torch.zeros(keys, dtype=torch.int64), torch.zeros(keys, 4, dtype=torch.int32)
    )
    assert "hg" in vm_flags(first_huge_page(cws))
    # A tensor gen did not write keeps its mapping's flags.
    other = torch.zeros_like(cws)
    assert "hg" not in vm_flags(-(-other.data_ptr() // HUGE_PAGE) * HUGE_PAGE)


@needs_huge_pages
@pytest.mark.parametrize("op", ["eval_all", "eval"])
def test_eval_asks_huge_pages_for_a_fresh_output(op, no_output_pool):
    dpf = pyfss.Dpf(21, "bytes")
    s0s = torch.tensor([[0, 0, 0, 0], [1, 0, 0, 0]], dtype=torch.int32)
    cws = dpf.gen(s0s, 12345, torch.tensor([5, 6, 7, 8], dtype=torch.int32))
    # 32 MiB of outputs: above glibc's largest mmap threshold, so each output is a new
    # mapping, not memory that an earlier call advised.
    xs = torch.arange(1 << 21, dtype=torch.int32)
    if op == "eval_all":
        y = dpf.eval_all(0, s0s[0], cws)
    else:
        y = dpf.eval(0, s0s[0], cws, xs)
    assert "hg" in vm_flags(first_huge_page(y))
    # The advice changes no output: the same call into memory it did not advise.
    into = torch.zeros_like(y)
    if op == "eval_all":
        assert torch.equal(dpf.eval_all(0, s0s[0], cws, out=into), y)
        assert torch.equal(
            y[12345] ^ dpf.eval_all(1, s0s[1], cws)[12345],
            torch.tensor([5, 6, 7, 8], dtype=torch.int32),
        )
    else:
        assert torch.equal(dpf.eval(0, s0s[0], cws, xs, out=into), y)


@needs_huge_pages
def test_pooled_outputs_ask_huge_pages():
    dpf = pyfss.Dpf(21, "bytes")
    s0s = torch.tensor([[0, 0, 0, 0], [1, 0, 0, 0]], dtype=torch.int32)
    cws = dpf.gen(s0s, 12345, torch.tensor([5, 6, 7, 8], dtype=torch.int32))
    y = dpf.eval_all(0, s0s[0], cws)
    assert not y.untyped_storage().resizable()  # the pool's, not torch's
    assert "hg" in vm_flags(first_huge_page(y))
