"""gen asks the OS for huge pages for the correction words it writes: a batched eval
reads them once from memory, and with 4 KiB pages every few keys cost it a TLB walk."""

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


@pytest.mark.skipif(
    platform.system() != "Linux" or pyfss.backend_info()["huge_pages"] == "unsupported",
    reason="no transparent huge pages here",
)
@pytest.mark.parametrize("make", [lambda: pyfss.Dpf(20, "bytes"), lambda: pyfss.Dcf(20, "bytes")])
def test_gen_asks_huge_pages_for_its_output(make):
    keys = 8192  # 5.25 MiB of correction words: at least one whole huge page inside
    s0s = torch.zeros(keys, 2, 4, dtype=torch.int32)
    s0s[:, 1, 0] = 1  # a key's two seeds must differ
    cws = make().gen(
        s0s, torch.zeros(keys, dtype=torch.int64), torch.zeros(keys, 4, dtype=torch.int32)
    )
    first = -(-cws.data_ptr() // HUGE_PAGE) * HUGE_PAGE
    assert first + HUGE_PAGE <= cws.data_ptr() + cws.numel() * cws.element_size()
    assert "hg" in vm_flags(first)
    # A tensor gen did not write keeps its mapping's flags.
    other = torch.zeros_like(cws)
    assert "hg" not in vm_flags(-(-other.data_ptr() // HUGE_PAGE) * HUGE_PAGE)
