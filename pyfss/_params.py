"""Public parameters of a key set: the Go core's catalogue of names, defaults and
limits (read once, at import), and the parameter records that the core makes into
schemes and that serialized keys carry.

A record is the JSON object of gofss.Params:
    {"scheme": "dpf" | "dcf_lt" | "dcf_gt" | "half_tree_dpf" | "grotto_dcf",
     "in_bits": int, "group": str, "prg": "chacha" | "aes128_mmo",
     "nonce": [int32, int32] | null, "aes_keys": [hex, ...] | null,
     "hash_key": [int32] * 4 (half_tree_dpf only),
     "hash": {"name": ..., keys} (vdpf only)}
complete when the PRG's parameters are filled in (the other PRG's are null), which is
how SchemeInfo returns it.
"""

from __future__ import annotations

import json
import weakref

from . import _ext
from ._ext import call, lib

CATALOGUE = json.loads(call(lib.Catalogue))

GROUPS = tuple(CATALOGUE["groups"])
PRGS = tuple(CATALOGUE["prgs"])
#: The walk implementations of this build, fastest first ("portable" serves all).
IMPLS = tuple(CATALOGUE["impls"])
MAX_IN_BITS = CATALOGUE["limits"]["max_in_bits"]
#: eval_all refuses wider domains: 2^40 outputs are already 16 TiB.
MAX_EVAL_ALL_BITS = CATALOGUE["limits"]["max_eval_all_bits"]
#: The ChaCha nonce used when none is given (int32 words): the one the known-answer
#: vectors were made with. Public, and part of every key set.
DEFAULT_NONCE = tuple(CATALOGUE["prgs"]["chacha"]["default_nonce"])
#: The AES-128 keys used when none are given: Dpf uses the first two, Dcf all four.
DEFAULT_AES_KEYS = tuple(
    bytes.fromhex(h) for h in CATALOGUE["prgs"]["aes128_mmo"]["default_aes_keys"]
)

#: The public hash key of HalfTreeDpf used when none is given (4 int32 words): the
#: one the known-answer vectors were made with.
DEFAULT_HASH_KEY = tuple(CATALOGUE["schemes"]["half_tree_dpf"]["default_hash_key"])

#: The fields of a parameter record (half_tree_dpf adds "hash_key": record_fields).
FIELDS = ("scheme", "in_bits", "group", "prg", "nonce", "aes_keys")


#: The fields the multi-point schemes add to a record (vdmpf also "hash").
MPF_FIELDS = ("max_points", "bucket_bits")


def record_fields(scheme) -> tuple:
    """The fields of a parameter record of the given scheme."""
    if scheme == "dmpf":
        return (*FIELDS, *MPF_FIELDS)
    if scheme == "vdmpf":
        return (*FIELDS, *MPF_FIELDS, "hash")
    if scheme == "vdpf":
        return (*FIELDS, "hash")  # {"name": "sha256" | "blake3", and its keys}
    return (*FIELDS, "hash_key") if scheme == "half_tree_dpf" else FIELDS


class Handle:
    """A scheme made by the Go core from a parameter record, freed with this object."""

    def __init__(self, params: dict, impl: str = ""):
        self.id = call(lib.NewScheme, json.dumps(params), impl)
        weakref.finalize(self, _free, self.id)
        info = json.loads(call(lib.SchemeInfo, self.id))
        #: The complete parameter record, defaults filled in (nothing changes it).
        self.params = info["params"]
        #: Returns a copy of params that its receiver owns.
        self.copy_params = _record_copier(self.params)
        #: The walk implementation the core chose (or was told to use); None for
        #: grotto_dcf, whose keys are evaluated through their preprocessed form.
        self.impl = info["impl"]
        #: Correction-word rows (of 8 int32) of one key.
        self.cw_rows = info["cw_rows"]
        #: grotto_dcf: the 64-bit words of one preprocessed key (else None).
        self.parity_words = info.get("parity_words")
        #: dmpf and vdmpf: the buckets of a key, each with one seed per party (else None).
        self.buckets = info.get("buckets")


def _record_copier(record):
    """A function that returns copies of record, a JSON record (dicts, lists, scalars)
    that nothing changes: every dict and list in a copy new, the scalars shared, as
    copy.deepcopy gives, at a fifth of a walk over the record (keygen makes two a
    call); where the containers are is found once, here."""
    at = record.items() if type(record) is dict else enumerate(record)
    inner = [(k, _record_copier(v)) for k, v in at if type(v) in (dict, list)]

    def copy():
        c = record.copy()
        for k, copy_inner in inner:
            c[k] = copy_inner()
        return c

    return copy


def _free(handle: int) -> None:
    # A forked child must not call into Go, even when it exits (finalizers run then).
    if not _ext.forked:
        call(lib.FreeScheme, handle)


__all__ = [
    "DEFAULT_AES_KEYS",
    "DEFAULT_HASH_KEY",
    "DEFAULT_NONCE",
    "FIELDS",
    "GROUPS",
    "IMPLS",
    "MAX_EVAL_ALL_BITS",
    "MAX_IN_BITS",
    "PRGS",
    "Handle",
    "record_fields",
]
