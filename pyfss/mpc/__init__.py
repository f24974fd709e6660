"""Two-party computation on additive shares, built on the schemes and gates (which
never import it): parties and their message counters (over torch.distributed, or in
threads with run_local), a dealer of correlated randomness (Beaver triples and gate
keys: in-process, a rank of its own, or key files), SharedTensor, a fixed-point
tensor in Z_2^64 with products, comparisons and spline-gate non-linear functions,
and convert, which runs a torch.nn.Sequential of linear, convolution, activation
(ReLU, GELU, Sigmoid, Tanh), Softmax, LayerNorm and pooling layers on it.
docs/mpc.md describes the protocols, their costs and errors.

    def program(party):
        x = torch.tensor([1.5, -2.0]) if party.party == 0 else None
        xs = SharedTensor.from_secret(party, x, truncation="exact")
        return (xs * xs).relu().reveal()

    run_local(program)   # (tensor([2.25, 4.]), tensor([2.25, 4.]))
"""

from .._ring import random_ring, share
from ._dealer import Dealer, DealerRank, KeyFile, LocalDealer, Request, serve, write_key_files
from ._local import PeerFailed, run_local
from ._nn import SecureSequential, convert
from ._party import Party
from ._tensor import DEFAULT_FRAC_BITS, SharedTensor, decode, encode

__all__ = [
    "DEFAULT_FRAC_BITS",
    "Dealer",
    "DealerRank",
    "KeyFile",
    "LocalDealer",
    "Party",
    "PeerFailed",
    "Request",
    "SecureSequential",
    "SharedTensor",
    "convert",
    "decode",
    "encode",
    "random_ring",
    "run_local",
    "serve",
    "share",
    "write_key_files",
]
