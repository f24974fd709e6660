"""Two-party computation on additive shares, built on the schemes and gates (which
never import it): parties and their message counters (over torch.distributed, or in
threads with run_local) and a dealer of correlated randomness (Beaver triples and
gate keys: in-process, a rank of its own, or key files).
"""

from .._ring import random_ring, share
from ._dealer import Dealer, DealerRank, KeyFile, LocalDealer, Request, serve, write_key_files
from ._local import PeerFailed, run_local
from ._party import Party

__all__ = [
    "Dealer",
    "DealerRank",
    "KeyFile",
    "LocalDealer",
    "Party",
    "PeerFailed",
    "Request",
    "random_ring",
    "run_local",
    "serve",
    "share",
    "write_key_files",
]
