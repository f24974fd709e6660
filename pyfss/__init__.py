"""Function secret sharing (DPF, DCF, Half-Tree DPF, Grotto DCF, DMPF, VDMPF) for PyTorch, computed by a Go core.

    import torch, pyfss
    dpf = pyfss.Dpf(20, group="uint")
    k0, k1 = dpf.keygen(12345, pyfss.from_int(7, "uint32"))
    y = dpf.eval_key(k0, 12345) + dpf.eval_key(k1, 12345)   # word 0 sums to 7

Dpf, Dcf and HalfTreeDpf follow fss_crypto's calls (gen, eval, eval_all) and add
batching over leading tensor dimensions; GrottoDcf evaluates preprocessed keys to bit
shares; see the README.
"""

import json

# The compiled core first: without it, this import is the one that says how to build it.
from ._ext import call, lib

# isort: split
from . import gates, mpc
from ._grotto import GrottoDcf
from ._groups import from_int, to_int, to_words
from ._keys import Key
from ._mpf import Dmpf, Vdmpf
from ._params import DEFAULT_AES_KEYS, DEFAULT_HASH_KEY, DEFAULT_NONCE, IMPLS, MAX_EVAL_ALL_BITS
from ._pool import output_pool
from ._schemes import Dcf, Dpf, HalfTreeDpf, load_key
from ._vdpf import DEFAULT_VDPF_HASHES, Vdpf

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_AES_KEYS",
    "DEFAULT_HASH_KEY",
    "DEFAULT_NONCE",
    "DEFAULT_VDPF_HASHES",
    "IMPLS",
    "MAX_EVAL_ALL_BITS",
    "Dcf",
    "Dmpf",
    "Dpf",
    "GrottoDcf",
    "HalfTreeDpf",
    "Key",
    "Vdmpf",
    "Vdpf",
    "backend_info",
    "from_int",
    "gates",
    "load_key",
    "mpc",
    "output_pool",
    "to_int",
    "to_words",
]


def backend_info() -> dict:
    """Describes the compiled core: version, Go release and platform, the AES and
    ChaCha implementations in use (and those this CPU could run), those of the
    multi-point schemes' appends (scatter) and of VDPF's hashes (hashes: blake3,
    sha256), when the OS gives huge pages (gen asks for them for its correction
    words), Go's processors and the threads a call spreads its work over
    (gomaxprocs, workers), and CUDA: whether kernels were compiled in, for which
    GPUs, and whether a GPU is usable."""
    return json.loads(call(lib.BackendInfo))
