"""Large CPU outputs in memory that pyfss keeps for the next call.

A fresh output of many MiB costs page faults and the kernel's zeroing on its first
write, inside the core's walk: glibc gives chunks above its mmap threshold (32 MiB at
most) back to the kernel when they are freed, and trims its heap, so the next call of
the same size faults all of it in again (gen of 2^16 keys at in_bits 20, 44 MiB, took
1.6x as long fresh as into out=). Outputs of MIN_BYTES or more come from here instead:
each is one anonymous mapping of its own, rounded up to whole 2 MiB pages with huge
pages advised, handed to torch through a buffer object whose death puts the mapping
back for the next output of that rounded size. At most max_idle_bytes of mappings
wait for reuse (PYFSS_OUTPUT_POOL_BYTES, default 256 MiB; 0 turns the pool off);
beyond that the oldest are unmapped.

The tensor's storage holds exactly the tensor's bytes (torch.save, pickling and
torch.multiprocessing send no more), and torch refuses to resize it. A reused mapping
holds an earlier output's bytes until the core overwrites every one of them, as a
reused malloc chunk does.
"""

from __future__ import annotations

import ctypes
import functools
import math
import mmap
import os
import threading

import torch

MIN_BYTES = 1 << 20
_ROUND = 2 << 20  # a huge page


def _limit_from_env() -> int:
    text = os.environ.get("PYFSS_OUTPUT_POOL_BYTES", str(256 << 20))
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"PYFSS_OUTPUT_POOL_BYTES must be a byte count >= 0, got {text!r}")
    return value


# An RLock: a tensor can die, and give its mapping back, in a signal handler or a
# garbage collection that runs while this thread holds the lock.
_lock = threading.RLock()
_idle: list[mmap.mmap] = []  # oldest first
_counts = {"idle_bytes": 0, "reused": 0, "mapped": 0, "unmapped": 0}
_max_idle = _limit_from_env()


def _reset_lock_in_child() -> None:
    global _lock
    _lock = threading.RLock()  # another thread may have held it at the fork


os.register_at_fork(after_in_child=_reset_lock_in_child)


def _evict_to(limit: int) -> None:
    """Drops the oldest idle mappings until at most limit bytes are idle (with the
    lock held); each is unmapped when its last reference goes."""
    while _counts["idle_bytes"] > limit:
        _counts["idle_bytes"] -= len(_idle.pop(0))
        _counts["unmapped"] += 1


def _give_back(buffer) -> None:
    mapping = buffer._mapping
    with _lock:
        _idle.append(mapping)
        _counts["idle_bytes"] += len(mapping)
        _evict_to(_max_idle)  # the oldest first: sizes no call asks for again age out


@functools.lru_cache(maxsize=64)
def _buffer_type(size: int) -> type[ctypes.Array]:
    """A ctypes byte array of size bytes that gives its mapping back when it dies
    (a class per size: a ctypes array's length is part of its type)."""
    base = ctypes.c_ubyte * size
    return type("_PooledOutput", (base,), {"__slots__": ("_mapping",), "__del__": _give_back})


def _take(size: int) -> mmap.mmap:
    with _lock:
        for i in range(len(_idle) - 1, -1, -1):  # the newest first: the likeliest in cache
            if len(_idle[i]) == size:
                _counts["idle_bytes"] -= size
                _counts["reused"] += 1
                return _idle.pop(i)
    mapping = mmap.mmap(-1, size)
    with _lock:
        _counts["mapped"] += 1
    if hasattr(mmap, "MADV_HUGEPAGE"):  # Linux; elsewhere 4 KiB pages
        try:
            mapping.madvise(mmap.MADV_HUGEPAGE)
        except OSError:  # a kernel without transparent huge pages: 4 KiB pages then
            pass
    return mapping


def empty(like: torch.Tensor, shape: tuple, dtype: torch.dtype | None = None) -> torch.Tensor:
    """An uninitialized tensor of shape and dtype (like's by default) on like's
    device: from the pool for large CPU outputs, from torch otherwise."""
    dtype = like.dtype if dtype is None else dtype
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    if nbytes >= MIN_BYTES and _max_idle and like.is_cpu:
        size = -(-nbytes // _ROUND) * _ROUND
        try:
            mapping = _take(size)
        except OSError:  # no address space or memory for a mapping: torch's allocator says so
            pass
        else:
            buffer = _buffer_type(size).from_buffer(mapping)
            buffer._mapping = mapping  # type: ignore[attr-defined]  # a slot of _buffer_type
            return torch.frombuffer(buffer, dtype=dtype, count=count).view(shape)
    # Sizes as varargs (a size tuple parses 1 us slower), but () as a tuple.
    return like.new_empty(*shape, dtype=dtype) if shape else like.new_empty((), dtype=dtype)


def output_pool(max_idle_bytes: int | None = None) -> dict:
    """The output pool's counters (idle_bytes, reused, mapped, unmapped) and its
    max_idle_bytes, after setting max_idle_bytes if given (0 turns the pool off;
    idle mappings over the new limit are unmapped).

    CPU outputs of 1 MiB or more (without out=) come from this pool: memory given
    back when such a tensor dies is reused by the next output of about its size
    instead of being faulted in afresh."""
    global _max_idle
    if max_idle_bytes is not None:
        if isinstance(max_idle_bytes, bool) or not isinstance(max_idle_bytes, int):
            raise TypeError(f"max_idle_bytes must be an int, got {type(max_idle_bytes).__name__}")
        if max_idle_bytes < 0:
            raise ValueError(f"max_idle_bytes must be >= 0, got {max_idle_bytes}")
        with _lock:
            _max_idle = max_idle_bytes
            _evict_to(_max_idle)
    with _lock:
        return {"max_idle_bytes": _max_idle, **_counts}
