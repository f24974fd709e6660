"""Checks of user input, in one place, with messages that name the argument.

Two kinds of checks:
- of arguments (types, shapes, names, devices, memory), on every call; their messages
  begin as fss_crypto's do for the same mistakes, so code written against fss_crypto
  keeps catching the same exceptions;
- of tensor contents (inputs in range, seeds, betas, correction words), which the Go
  core makes on the CPU and which CUDA calls make here, with torch ops and the same
  messages (the "contents" section at the end).
"""

from __future__ import annotations

import operator
import os
import sys

import torch

from . import _pool
from ._groups import to_words
from ._params import GROUPS, MAX_IN_BITS, Handle, record_fields

#: Names the constructors take: the core's groups plus fss_crypto's "uint".
GROUP_NAMES = (*GROUPS, "uint")
PREDS = ("lt", "gt")

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1

CPU = torch.device("cpu")

#: The alignment asked of every tensor's address (as a mask): 16 bytes, which the CUDA
#: kernels need (they move blocks as 16-byte vectors) and which covers the CPU's 8 (its
#: blocks are two uint64). Tensors torch allocates have it; views into them may not.
_ALIGN_MASK = 15

# -- scheme parameters ---------------------------------------------------------------


def in_bits(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"in_bits must be an int, got {type(value).__name__}")
    if not 1 <= value <= MAX_IN_BITS:
        raise ValueError(f"in_bits must be between 1 and {MAX_IN_BITS}, got {value}")
    return value


def choice(name: str, value, allowed: tuple) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def group_for(group: str, bits: int) -> str:
    """Resolves fss_crypto's "uint" to the width it picks for in_bits."""
    if group != "uint":
        return group
    return "uint32" if bits <= 32 else "uint64" if bits <= 64 else "uint127"


def nonce(value, prg: str) -> list[int] | None:
    """The nonce for the parameter record: None (the default) or two int32 words."""
    if value is None:
        return None
    if prg != "chacha":
        raise ValueError(f"nonce is a parameter of chacha, not of {prg}")
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        # Iterating bytes gives ints, which would pass for words.
        raise TypeError(f"nonce must be a pair of ints, got {type(value).__name__}")
    try:
        words = list(value)
    except TypeError:
        raise TypeError(f"nonce must be a pair of ints, got {type(value).__name__}") from None
    if len(words) != 2 or any(isinstance(w, bool) or not isinstance(w, int) for w in words):
        raise ValueError(f"nonce must be a pair of ints, got {value!r}")
    for w in words:
        if not _INT32_MIN <= w <= _INT32_MAX:
            raise ValueError(f"nonce words must be in the int32 range, got {w}")
    return words


def aes_keys(value, prg: str) -> list[str] | None:
    """The AES keys for the parameter record: None (the defaults) or hex strings; the
    core checks their number."""
    if value is None:
        return None
    if prg != "aes128_mmo":
        raise ValueError(f"aes_keys are a parameter of aes128_mmo, not of {prg}")
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"aes_keys must be a sequence of 16-byte bytes objects, got {value!r:.40}")
    try:
        keys = list(value)
    except TypeError:
        raise TypeError("aes_keys must be a sequence of 16-byte bytes objects") from None
    for k in keys:
        if not isinstance(k, (bytes, bytearray)) or len(k) != 16:
            raise ValueError(f"aes_keys must be 16-byte bytes objects, got {k!r}")
    return [bytes(k).hex() for k in keys]


def hash_key(value) -> list[int] | None:
    """HalfTreeDpf's hash key for the parameter record: None (the default), a (4,)
    int32 tensor or four ints in the int32 range."""
    if value is None:
        return None
    if isinstance(value, torch.Tensor):
        if value.dtype is not torch.int32 or tuple(value.shape) != (4,):
            raise TypeError(
                f"hash_key must be a (4,) int32 tensor or 4 ints, got shape "
                f"{tuple(value.shape)} dtype {value.dtype}"
            )
        return value.tolist()
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        raise TypeError(
            f"hash_key must be a (4,) int32 tensor or 4 ints, got {type(value).__name__}"
        )
    try:
        words = list(value)
    except TypeError:
        raise TypeError(
            f"hash_key must be a (4,) int32 tensor or 4 ints, got {type(value).__name__}"
        ) from None
    if len(words) != 4 or any(isinstance(w, bool) or not isinstance(w, int) for w in words):
        raise ValueError(f"hash_key must be 4 ints, got {value!r}")
    for w in words:
        if not _INT32_MIN <= w <= _INT32_MAX:
            raise ValueError(f"hash_key words must be in the int32 range, got {w}")
    return words


def impl(value) -> str:
    """The walk implementation to ask for: "" (the fastest) for None."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"impl must be a str or None, got {type(value).__name__}")
    return value


# -- call arguments -------------------------------------------------------------------


def is_bool(value) -> bool:
    """Whether value is a bool of Python, numpy (scalar or array) or torch (a tensor
    of any shape). operator.index reads a one-element bool tensor as 0 or 1, and
    numpy's bool before numpy 2 too, so checks of ints ask this first."""
    if isinstance(value, bool):
        return True
    if isinstance(value, torch.Tensor):
        return value.dtype is torch.bool
    np = sys.modules.get("numpy")  # not imported: value is no numpy object
    return np is not None and isinstance(value, (np.bool_, np.ndarray)) and value.dtype == bool


def party(value) -> int:
    """0 or 1: an int or what stands for one (a numpy integer), not a bool."""
    if type(value) is not int and not is_bool(value) and hasattr(value, "__index__"):
        value = operator.index(value)
    if type(value) is not int or value not in (0, 1):
        raise ValueError(f"party must be 0 or 1, got {value!r}")
    return value


def domain_range(start, stop, bits: int) -> tuple[int, int]:
    """eval_all's inputs [start, stop): ints with 0 <= start <= stop <= 2^bits; start
    None is 0 and stop None is 2^bits, the whole domain."""
    size = 1 << bits
    start = 0 if start is None else integer("start", start)
    stop = size if stop is None else integer("stop", stop)
    if not 0 <= start <= stop <= size:
        raise ValueError(
            f"eval_all's range must have 0 <= start <= stop <= 2^{bits}, "
            f"got start={start}, stop={stop}"
        )
    return start, stop


def integer(name: str, value) -> int:
    """value as an int: an int or what stands for one (operator.index: a numpy
    integer, a one-element torch integer tensor), not a float or a bool."""
    if is_bool(value):
        raise TypeError(f"{name} must be an int, got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__}") from None


def dense(t: torch.Tensor) -> torch.Tensor:
    """t contiguous at an address the core can use: t itself, or a copy. A view (a
    slice, a transpose, an offset into a buffer) is as valid an input as the tensor
    it came from; so is a negative view (torch's lazy negation, whose memory holds
    the negated values), read as the values it shows."""
    if t.is_contiguous() and not t.data_ptr() & _ALIGN_MASK and not t.is_neg():
        return t
    return t.clone(memory_format=torch.contiguous_format)  # a clone is never negative


def int32_tensor(name: str, t, tail: tuple, what: str) -> torch.Tensor:
    """t must be an int32 tensor whose shape ends in tail; returns it dense. (Written
    for speed: it runs on every call, and each tensor attribute costs about 0.1 us.)"""
    if isinstance(t, torch.Tensor):
        shape = t.shape
        n = len(tail)
        if (
            t.dtype is torch.int32
            and len(shape) >= n
            and shape[-1] == tail[-1]
            and (n == 1 or shape[-2] == tail[0])
        ):
            return dense(t)
        got = f"shape {tuple(shape)} dtype {t.dtype}"
    else:
        got = type(t).__name__
    raise TypeError(
        f"{name} must be a {what} int32 tensor (with optional leading batch dimensions), got {got}"
    )


def int64_tensor(name: str, t, width: int, what: str) -> torch.Tensor:
    """t must be an int64 tensor whose last dimension is width; returns it dense."""
    if isinstance(t, torch.Tensor):
        if t.dtype is torch.int64 and t.dim() >= 1 and t.shape[-1] == width:
            return dense(t)
        got = f"shape {tuple(t.shape)} dtype {t.dtype}"
    else:
        got = type(t).__name__
    raise TypeError(
        f"{name} must be a {what} int64 tensor (with optional leading batch dimensions), got {got}"
    )


def batch_match(name: str, t: torch.Tensor, batch: tuple, tail: int) -> None:
    got = t.shape[: t.dim() - tail]
    if got != batch:
        raise TypeError(f"{name} has batch shape {got}, but the keys have batch shape {batch}")


def device_of(*tensors: torch.Tensor) -> torch.device:
    """The tensors' common device (all on the CPU is the common case, checked first)."""
    for t in tensors:
        if not t.is_cpu:
            break
    else:
        return CPU
    device = tensors[0].device
    if any(t.device != device for t in tensors[1:]):
        found = ", ".join(sorted({str(t.device) for t in tensors}))
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, {found}!"
        )
    return device


def output(out, like: torch.Tensor, shape: tuple, inputs: dict, dtype=torch.int32) -> tuple:
    """(result, dst): the tensor the call returns, and the one the core writes into.

    Without out both are a new tensor of dtype on like's device (a large CPU one from
    the output pool, _pool.py). With out, checked to be
    a contiguous tensor of dtype and shape on that device that shares no memory with inputs
    (name -> the argument as the caller passed it), result is out and dst is out or,
    when out's address is not aligned for the core or out is a negative view, a
    temporary to be copied into out."""
    if out is None:
        new = _pool.empty(like, shape, dtype)
        return new, new
    if not isinstance(out, torch.Tensor) or out.dtype is not dtype or tuple(out.shape) != shape:
        got = (
            f"shape {tuple(out.shape)} dtype {out.dtype}"
            if isinstance(out, torch.Tensor)
            else type(out).__name__
        )
        raise TypeError(f"out must be a {shape} {_dtype_name(dtype)} tensor, got {got}")
    if not out.is_contiguous():
        raise TypeError("out must be contiguous: results are written into its memory")
    if out.device != like.device:
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, {like.device}, {out.device}!"
        )
    # The core reads inputs while it writes out: shared memory would give wrong
    # results silently, so it is refused as torch refuses it for out= arguments.
    for name, t in inputs.items():
        if isinstance(t, torch.Tensor) and _overlap(out, t):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to "
                f"tensor refer to a single memory location: out overlaps {name}. Please "
                f"clone() {name} or pass another out."
            )
    if out.data_ptr() & _ALIGN_MASK or out.is_neg():  # a negative view: see dense
        return out, torch.empty(shape, dtype=dtype, device=out.device)
    return out, out


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether the memory that two tensors span intersects."""
    if a.device != b.device:
        return False
    a0, a1 = _span(a)
    b0, b1 = _span(b)
    return a0 < b1 and b0 < a1


def _span(t: torch.Tensor) -> tuple[int, int]:
    """The addresses [first, end) of the memory a (possibly strided) tensor reads."""
    if not t.numel():
        return 0, 0
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()))
    start = t.data_ptr()
    return start, start + (last + 1) * t.element_size()


def available_memory(device: torch.device) -> int:
    """Bytes that can be allocated on device now without swapping: MemAvailable on
    Linux (free memory plus caches the kernel can drop), free pages elsewhere, and
    on CUDA the driver's free memory plus what torch's allocator holds unallocated."""
    if device.type == "cuda":
        # torch keeps the blocks of freed tensors: the driver counts them as used,
        # but torch hands them out, or releases them and retries when the driver is
        # short. The sum can overstate what one tensor gets (a partly used block is
        # not released), so what is refused surely could not fit.
        stats = torch.cuda.memory_stats(device)
        cached = stats.get("reserved_bytes.all.current", 0) - stats.get(
            "allocated_bytes.all.current", 0
        )
        return torch.cuda.mem_get_info(device)[0] + cached
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")


def memory_for(nbytes: int, what: str, device: torch.device) -> None:
    """Refuses an output of nbytes that would not fit in the memory available on device."""
    free = available_memory(device)
    if nbytes > free:
        raise ValueError(
            f"{what} would need {_size(nbytes)}, more than the {_size(free)} of memory "
            f"available on {device}"
        )


def _size(nbytes: int) -> str:
    return f"{nbytes / 2**30:.1f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.1f} MiB"


# -- serialized keys ------------------------------------------------------------------


def key_header(header) -> tuple[dict, int, tuple]:
    """(params, party, batch shape) of a key's header, read from outside: an object of
    exactly these three fields, each checked. Raises ValueError naming the field."""
    if type(header) is not dict or sorted(header) != ["batch", "params", "party"]:
        fields = sorted(header) if type(header) is dict else _json_type(header)
        raise ValueError(f"it must be an object with fields batch, params, party, got {fields}")
    batch = header["batch"]
    if type(batch) is not list or any(type(d) is not int or d < 0 for d in batch):
        raise ValueError(f"batch must be a list of non-negative integers, got {batch!r:.100}")
    return params_record(header["params"]), party(header["party"]), tuple(batch)


def params_record(params) -> dict:
    """Checks a parameter record read from outside (a key's header): a dict of exactly
    its scheme's fields (record_fields), of exact JSON types, complete, and one the Go
    core accepts as it is. Raises ValueError naming the field; returns params."""
    if type(params) is not dict:
        raise ValueError(f"params must be an object, got {_json_type(params)}")
    fields = record_fields(params.get("scheme"))
    for name in fields:
        if name not in params:
            raise ValueError(f"params.{name} is missing")
    if extra := sorted(set(params) - set(fields)):
        raise ValueError(f"params has unknown fields {extra}")
    for name in ("scheme", "group", "prg"):
        if type(params[name]) is not str:
            raise ValueError(f"params.{name} must be a string, got {_json_type(params[name])}")
    if type(params["in_bits"]) is not int:
        raise ValueError(f"params.in_bits must be an integer, got {_json_type(params['in_bits'])}")
    if not 1 <= params["in_bits"] <= MAX_IN_BITS:
        raise ValueError(
            f"params.in_bits must be between 1 and {MAX_IN_BITS}, got {params['in_bits']}"
        )
    nonce, keys = params["nonce"], params["aes_keys"]
    if nonce is not None and (
        type(nonce) is not list or len(nonce) != 2 or any(type(w) is not int for w in nonce)
    ):
        raise ValueError(f"params.nonce must be null or two integers, got {nonce!r:.100}")
    if keys is not None and (type(keys) is not list or any(type(k) is not str for k in keys)):
        raise ValueError(
            f"params.aes_keys must be null or a list of hex strings, got {keys!r:.100}"
        )
    if "hash_key" in fields and (
        type(params["hash_key"]) is not list
        or len(params["hash_key"]) != 4
        or any(type(w) is not int for w in params["hash_key"])
    ):
        raise ValueError(f"params.hash_key must be four integers, got {params['hash_key']!r:.100}")
    complete = Handle(params, "").params
    for name in fields:
        if params[name] != complete[name]:
            raise ValueError(
                f"params.{name} must be {complete[name]!r} for these parameters, got {params[name]!r:.100}"
            )
    return params


def _json_type(value) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number with a fraction or exponent",
        type(None): "null",
    }.get(type(value), type(value).__name__)


# -- inputs (alpha, x) ----------------------------------------------------------------


class Inputs:
    """Alpha or x in the form the Go core reads: a scalar (words 0, lo, hi) or a tensor
    of words 32-bit words per input (1: int32, 2: int64, 4: int32 words), at ptr."""

    __slots__ = ("hi", "lo", "ptr", "shape", "tensor", "tensors", "words")

    def __init__(self, tensor, words, lo, hi, shape):
        self.tensor, self.words, self.lo, self.hi, self.shape = tensor, words, lo, hi, shape
        self.tensors = () if tensor is None else (tensor,)
        self.ptr = 0 if tensor is None else tensor.data_ptr()

    def on_device(self, device, batch: tuple) -> Inputs:
        """The same inputs as a tensor (the GPU kernels take no scalars): a Python int
        becomes one (batch..., 4) words tensor on device, filled word by word (a copy
        from the host would wait for the device)."""
        if self.tensor is not None:
            return self
        t = torch.empty(*batch, 4, dtype=torch.int32, device=device)
        for i, word in enumerate(to_words(self.lo | self.hi << 64).tolist()):
            t[..., i] = word
        return Inputs(t, 4, 0, 0, batch)


def inputs(name: str, value, bits: int) -> Inputs:
    """Reads alpha or x: a Python int, or an int32/int64 tensor (see the README for
    which form applies at which in_bits)."""
    if type(value) is not int:  # a Python int is the common case: checked last, directly
        if is_bool(value):
            raise TypeError(f"{name} must be an integer or an integer tensor, not bool")
        if isinstance(value, torch.Tensor):
            return tensor_inputs(name, value, bits)
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError(
                f"{name} must be an integer or an integer tensor, got {type(value).__name__}"
            ) from None
    if not 0 <= value < 1 << bits:
        raise ValueError(f"{name} must be in [0, 2^{bits}), got {value}")
    return Inputs(None, 0, value & (2**64 - 1), value >> 64, ())


def tensor_inputs(name: str, value: torch.Tensor, bits: int) -> Inputs:
    # Shapes stay torch.Size (a tuple): converting costs 0.5 us a call.
    dtype = value.dtype
    if dtype is torch.int32 and bits <= 32:
        return Inputs(dense(value), 1, 0, 0, value.shape)
    if dtype is torch.int64 and bits <= 63:
        return Inputs(dense(value), 2, 0, 0, value.shape)
    if dtype is torch.int32 and value.dim() >= 1 and value.shape[-1] == 4:
        return Inputs(dense(value), 4, 0, 0, value.shape[:-1])
    raise TypeError(
        f"{name} must be an int32 tensor (in_bits <= 32), an int64 tensor (in_bits <= 63) "
        f"or a (..., 4) int32 tensor of little-endian words, got dtype {value.dtype} "
        f"shape {tuple(value.shape)} for in_bits {bits}"
    )


# -- contents -------------------------------------------------------------------------
#
# The Go core checks tensor contents on the CPU; CUDA kernels cannot, so CUDA calls are
# checked here first, with the same messages, so that a mistake raises the same
# ValueError on either device. Each check reduces to the index of its first offending
# entry (or a sentinel); the indices of all a call's checks are read back together,
# one device synchronization per call, and the first failing check in the core's order
# is reported. Written with torch ops only, so the same code runs on CPU tensors,
# which is how the tests compare its messages with the core's.


def gen_contents(
    group: str, bits: int, s0s: torch.Tensor, alphas: Inputs, betas: torch.Tensor | None
) -> None:
    """Checks gen's seeds (k, 2, 4), alphas (as a tensor) and betas (k, 4; None for
    grotto_dcf, whose betas are zero) as the core does: the bytes group's reserved beta
    bit, then the seed pairs, then alpha's range."""
    seeds = _clamp(s0s.reshape(-1, 2, 4))
    checks = []
    if group == "bytes" and betas is not None:
        reserved = (betas.reshape(-1, 4)[:, 3] & 1) != 0
        checks.append(_Check(reserved, _BETA_RESERVED.format))
    checks.append(_Check((seeds[:, 0] == seeds[:, 1]).all(-1), _SEEDS_EQUAL.format))
    checks.append(_Check(_out_of_range(alphas, bits), _range_message("alpha", bits)))
    _raise_first(checks)


def eval_contents(
    scheme: str, bits: int, cws: torch.Tensor, xs: Inputs | None, group: str = "bytes"
) -> None:
    """Checks eval's points xs (as a tensor; None for eval_all) and correction words
    (..., cw_rows, 8) as the core does: xs' range, then every DPF key's inner rows,
    then the last rows; for half_tree_dpf (of group `group`) each key's output
    correction word, then its padding."""
    checks = [] if xs is None else [_Check(_out_of_range(xs, bits), _range_message("x", bits))]
    if scheme == "half_tree_dpf":
        _raise_first(checks + _half_tree_checks(bits, group, cws))
        return
    cws = cws.reshape(-1, bits + 1, 8)
    if scheme == "dpf":
        checks += _dpf_checks(bits, cws)
    else:
        last = cws[:, bits]
        bad_last = (last[:, :4] != 0).any(-1) | ((last[:, 7] & 1) != 0)
        checks.append(_Check(bad_last, _DCF_LAST_ROW.format))
    _raise_first(checks)


def _dpf_checks(bits: int, keys: torch.Tensor) -> list:
    """The core's checks of DPF keys (keys, bits + 1, 8): every inner row, then the
    last rows."""
    tr = keys[:, :bits, 4:]  # (0 or 1, 0, 0, 0) in every row but the last
    bad_rows = ((tr[..., 0] & ~1) != 0) | (tr[..., 1:] != 0).any(-1)  # (keys, bits)
    last = keys[:, bits]
    bad_last = ((last[:, 3] & 1) != 0) | (last[:, 4:] != 0).any(-1)
    return [
        _Check(bad_rows, lambda i: _DPF_ROW.format(i // bits, i % bits)),
        _Check(bad_last, _DPF_LAST_ROW.format),
    ]


def mpf_eval_contents(
    bits: int, bucket_bits: int, bucket_rows: int, least: int, cws: torch.Tensor, xs: Inputs
) -> None:
    """Checks a Dmpf or Vdmpf key (cw_rows, 8), whose buckets are bucket_rows rows
    each, and eval's points xs (as a tensor) as the core does: every bucket's DPF rows
    (a VDPF key's first bucket_bits + 1), then the header's m_rt (least .. buckets),
    then xs' range."""
    buckets = (cws.shape[0] - 1) // bucket_rows
    keys = cws[1:].reshape(buckets, bucket_rows, 8)[:, : bucket_bits + 1]
    header = cws[0, 4:].to(torch.int64) & 0xFFFFFFFF
    m_rt = header[0]
    bad_header = (header[1:] != 0).any() | (m_rt < least) | (m_rt > buckets)
    checks = _dpf_checks(bucket_bits, keys)
    checks.append(_Check(bad_header, lambda _: _MPF_HEADER.format(least, buckets)))
    checks.append(_Check(_out_of_range(xs, bits), _range_message("x", bits)))
    _raise_first(checks)


def _half_tree_checks(bits: int, group: str, cws: torch.Tensor) -> list:
    """Half-Tree DPF keys (..., (bits + 2) // 2, 8): block `bits`, its control bit
    aside, must be a group element in block form (uint32 and uint64 leave the words
    above theirs zero), and a padding block (even bits) zero."""
    blocks = cws.reshape(-1, (bits + 2) // 2 * 2, 4)
    ocw = _clamp(blocks[:, bits])
    used = {"uint32": 1, "uint64": 2}.get(group, 4)  # words of the value form
    checks = [_Check((ocw[:, used:] != 0).any(-1), lambda i: _HALF_TREE_OCW.format(i, bits, group))]
    if bits % 2 == 0:
        checks.append(_Check((blocks[:, bits + 1] != 0).any(-1), _HALF_TREE_PAD.format))
    return checks


def grotto_points(name: str, xs: Inputs, bits: int) -> None:
    """Checks a Grotto lookup's points (as a tensor) as the core does: their range."""
    _raise_first([_Check(_out_of_range(xs, bits), _range_message(name, bits))])


def grotto_intervals(los: Inputs, his: Inputs, bits: int) -> None:
    """Checks Grotto intervals' bounds (tensors of the same shape, bits <= 40) as the
    core does: the ranges of lo, then hi, then lo <= hi."""
    _raise_first(
        [
            _Check(_out_of_range(los, bits), _range_message("lo", bits)),
            _Check(_out_of_range(his, bits), _range_message("hi", bits)),
            _Check(_low_bits(los) > _low_bits(his), _INTERVAL.format),
        ]
    )


def _low_bits(xs: Inputs) -> torch.Tensor:
    """The inputs' low 63 bits as int64, all of an input below 2^63."""
    x = xs.tensor
    if xs.words == 1:
        return x.to(torch.int64) & 0xFFFFFFFF
    if xs.words == 2:
        return x & (2**63 - 1)
    return (x[..., 0].to(torch.int64) & 0xFFFFFFFF) | (x[..., 1].to(torch.int64) & 0x7FFFFFFF) << 32


# The core's messages (gofss/check.go, dpf.go, dcf.go, halftree.go, grotto_eval.go,
# binding/ops.go), word for word.
_BETA_RESERVED = (
    "beta: key {}: bit 0 of word 3 is reserved in the bytes group (outputs never carry it) "
    "and must be 0"
)
_SEEDS_EQUAL = "s0s: key {}: the two seeds are equal once the control bit is cleared"
_RANGE = "{} must be in [0, 2^{}): entry {} is out of range"
_DPF_ROW = "cws: key {}, row {}: words 4-7 must be (0 or 1, 0, 0, 0) in a DPF key"
_DPF_LAST_ROW = (
    "cws: key {}, last row: not a DPF output correction word (clamped block, then zeros)"
)
_MPF_HEADER = "cws: the header row's words 4-7 must be (m_rt, 0, 0, 0) with m_rt between {} and {}"
_DCF_LAST_ROW = (
    "cws: key {}, last row: not a DCF output correction word (zeros, then a clamped block)"
)


_HALF_TREE_OCW = (
    "cws: key {}, block {}: not a Half-Tree output correction word (a {} element in block "
    "form and a control bit)"
)
_HALF_TREE_PAD = (
    "cws: key {}, last row: words 4-7 must be zero padding in a Half-Tree key of even in_bits"
)
_INTERVAL = "los: entry {} is above its his entry: an interval needs lo <= hi"


def _range_message(name: str, bits: int):
    return lambda i: _RANGE.format(name, bits, i)


class _Check:
    """One check: the index of the first True of bad (flattened) as a device tensor,
    bad's size (the index when nothing is wrong), and the message for an index."""

    __slots__ = ("first", "message", "size")

    def __init__(self, bad: torch.Tensor, message):
        bad = bad.reshape(-1)
        self.size, self.message = bad.numel(), message
        index = torch.arange(self.size, device=bad.device)
        self.first = torch.where(bad, index, self.size).amin() if self.size else index.sum()


def _raise_first(checks: list[_Check]) -> None:
    """Raises ValueError with the message of the first check, in order, that found an
    offending entry; all indices are read back at once (the one sync of a CUDA call)."""
    found = torch.stack([c.first for c in checks]).tolist()
    for check, first in zip(checks, found):
        if first < check.size:
            raise ValueError(check.message(first))


def _clamp(blocks: torch.Tensor) -> torch.Tensor:
    """Blocks (..., 4) with the control bit (bit 0 of word 3) cleared."""
    return torch.cat([blocks[..., :3], blocks[..., 3:] & ~1], -1)


def _out_of_range(xs: Inputs, bits: int) -> torch.Tensor:
    """Which inputs, read as unsigned integers, are 2^bits or more."""
    x = xs.tensor
    if xs.words == 1:
        return (x.to(torch.int64) & 0xFFFFFFFF) >> bits != 0
    if xs.words == 2:
        return (x < 0) | (x >> bits != 0)  # negative: 2^63 or more as unsigned
    # Word i holds bits 32i..32i+31 and must be below 2^(bits - 32i): shift each by
    # that, clamped to 0..32 (a 32-bit word shifted by 32 is 0: no limit). Made on the
    # device: a copy from the host would wait for it.
    shifts = (bits - 32 * torch.arange(4, device=x.device)).clamp(0, 32)
    return ((x.to(torch.int64) & 0xFFFFFFFF) >> shifts != 0).any(-1)
