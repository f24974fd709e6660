"""Public parameters of a key set: the Go core's catalogue of names, defaults and
limits (read once, at import), and the parameter records that the core makes into
schemes and that serialized keys carry.

A record is the JSON object of gofss.Params:
    {"scheme": "dpf" | "dcf_lt" | "dcf_gt", "in_bits": int, "group": str,
     "prg": "chacha" | "aes128_mmo", "nonce": [int32, int32] | null,
     "aes_keys": [hex, ...] | null}
complete when the PRG's parameters are filled in (the other PRG's are null), which is
how SchemeInfo returns it.
"""

from __future__ import annotations

import json
import weakref

from . import _ext
from ._ext import call, lib

CATALOGUE = json.loads(call(lib.Catalogue))

#: PRG output blocks per seed of each scheme ("dpf", "dcf_lt", "dcf_gt").
MULS = {name: entry["mul"] for name, entry in CATALOGUE["schemes"].items()}
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

FIELDS = ("scheme", "in_bits", "group", "prg", "nonce", "aes_keys")


class Handle:
    """A scheme made by the Go core from a parameter record, freed with this object."""

    def __init__(self, params: dict, impl: str = ""):
        self.id = call(lib.NewScheme, json.dumps(params), impl)
        weakref.finalize(self, _free, self.id)
        info = json.loads(call(lib.SchemeInfo, self.id))
        #: The complete parameter record, defaults filled in.
        self.params = info["params"]
        #: The walk implementation the core chose (or was told to use).
        self.impl = info["impl"]


def _free(handle: int) -> None:
    # A forked child must not call into Go, even when it exits (finalizers run then).
    if not _ext.forked:
        call(lib.FreeScheme, handle)


def check_record(params) -> dict:
    """Checks a parameter record read from outside (a key's header): a dict of exactly
    FIELDS, of exact JSON types, complete, and one the Go core accepts as it is.
    Raises ValueError naming the field; returns params."""
    if type(params) is not dict:
        raise ValueError(f"params must be an object, got {_json_type(params)}")
    for name in FIELDS:
        if name not in params:
            raise ValueError(f"params.{name} is missing")
    if extra := sorted(set(params) - set(FIELDS)):
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
    complete = Handle(params, "").params
    for name in FIELDS:
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


__all__ = [
    "DEFAULT_AES_KEYS",
    "DEFAULT_NONCE",
    "GROUPS",
    "IMPLS",
    "MAX_EVAL_ALL_BITS",
    "MAX_IN_BITS",
    "MULS",
    "PRGS",
    "Handle",
    "check_record",
]
