"""The CUDA side of the API: whether it can run (and why not), and the launch
arguments a call on a device needs: device ordinal, torch's current stream, scratch
memory."""

from __future__ import annotations

import json
from functools import lru_cache

import torch

from ._ext import call, lib

#: The device argument of the core's calls for the host.
HOST = -1


@lru_cache(maxsize=1)
def cuda_status() -> dict:
    """What the Go core says about CUDA: kernels compiled in, driver, devices. It does
    not change within a process, and asking opens the driver once."""
    return json.loads(call(lib.BackendInfo))["cuda"]


def require_cuda(device: torch.device) -> None:
    """Raises RuntimeError naming the reason when tensors on device cannot be used."""
    if device.type != "cuda":
        raise RuntimeError(f"pyfss runs on cpu and cuda tensors, got a tensor on {device}")
    status = cuda_status()
    if not status["kernels_compiled"]:
        raise RuntimeError(
            f"pyfss: CUDA kernels were not compiled into this build ({status['reason']})"
        )
    if not status["usable"]:
        raise RuntimeError(f"pyfss: no usable CUDA device ({status['reason']})")


def launch_args(device: torch.device) -> tuple[int, int]:
    """(device ordinal, handle of torch's current stream on it)."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    return index, torch.cuda.current_stream(index).cuda_stream


def scratch(handle: int, op: str, k: int, m: int, device: torch.device) -> torch.Tensor:
    """Device scratch for a launch, allocated by torch (its caching allocator makes
    repeated calls cheap); kept alive by the caller until the call is enqueued."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    size = call(lib.ScratchBytes, handle, index, op, k, m)
    return torch.empty(max(size, 16), dtype=torch.uint8, device=device)
