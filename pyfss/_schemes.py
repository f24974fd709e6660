"""Dpf and Dcf: key generation and evaluation on int32 tensors, one Go call each."""

from __future__ import annotations

import math
import os
import weakref

import torch

from . import _cuda
from . import _validate as v
from ._ext import call, go_error, lib, raw
from ._keys import Key

#: The ChaCha nonce used when none is given (int32 words): the one the known-answer
#: vectors were made with. Public, and part of every key set.
DEFAULT_NONCE = (0x12345678, 0x9ABCDEF0 - 2**32)

#: The AES-128 keys used when none are given: Dpf uses the first two, Dcf all four.
DEFAULT_AES_KEYS = (
    bytes.fromhex("0102030405060708090a0b0c0d0e0f10"),
    bytes.fromhex("100f0e0d0c0b0a090807060504030201"),
    bytes.fromhex("01010202030304040505060607070808"),
    bytes.fromhex("08080707060605050404030302020101"),
)

_Tensor = torch.Tensor
_INT32 = torch.int32
_SEED_SHAPE = (4,)
_raw_eval = raw.binding_Eval

#: eval_all refuses wider domains: 2^40 outputs are 16 TiB.
MAX_EVAL_ALL_BITS = 40


class _Scheme:
    """What Dpf and Dcf share; subclasses set _mul and _kind."""

    _mul: int
    _kind: str

    def __init__(self, in_bits, group, prg, nonce, aes_keys):
        self.in_bits = v.in_bits(in_bits)
        self._cws_tail = (in_bits + 1, 8)
        self._domain = 1 << in_bits
        self._cws_what = f"(in_bits + 1, 8) = {self._cws_tail}"
        self.group = v.choice("group", group, v.GROUPS)
        self.prg = v.choice("prg", prg, v.PRGS)
        #: The group actually used: "uint" resolved by in_bits as fss_crypto does.
        self.out_group = v.group_for(group, in_bits)
        self.nonce = v.nonce(DEFAULT_NONCE if nonce is None else nonce)
        self.aes_keys = v.aes_keys(
            DEFAULT_AES_KEYS[: self._mul] if aes_keys is None else aes_keys, self._mul
        )
        self._handle = call(
            lib.NewScheme,
            self._kind,
            self.in_bits,
            self.out_group,
            self.prg,
            self.nonce[0],
            self.nonce[1],
            b"".join(self.aes_keys).hex(),
        )
        weakref.finalize(self, lib.FreeScheme, self._handle)

    def params(self) -> dict:
        """The public parameters: two objects with equal params make compatible keys."""
        return {
            "scheme": self._kind,
            "in_bits": self.in_bits,
            "group": self.out_group,
            "prg": self.prg,
            "nonce": list(self.nonce) if self.prg == "chacha" else None,
            "aes_keys": [k.hex() for k in self.aes_keys] if self.prg == "aes128_mmo" else None,
        }

    def __repr__(self) -> str:
        extra = f", pred={self.pred!r}" if self._kind != "dpf" else ""
        return (
            f"{type(self).__name__}({self.in_bits}, group={self.group!r}, prg={self.prg!r}{extra})"
        )

    # -- the fss_crypto calls, batched over leading dimensions -------------------

    def gen(
        self, s0s: torch.Tensor, alpha, beta: torch.Tensor, *, out: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Generates keys from both parties' seeds.

        Args:
            s0s: (2, 4) int32 seeds (party 0, party 1), or (..., 2, 4) for a batch.
            alpha: the point or threshold, in [0, 2^in_bits): a Python int (the same
                for every key of a batch) or a tensor of the batch shape.
            beta: (4,) int32 output value, or (..., 4) one per key.

        Returns:
            (in_bits + 1, 8) int32 correction words, or (..., in_bits + 1, 8); written
            into out if given (a contiguous int32 tensor of that shape on the same
            device), which saves allocating and first touching fresh memory.
        """
        s0s = v.int32_tensor("s0s", s0s, (2, 4), "(2, 4)")
        batch = tuple(s0s.shape[:-2])
        beta = v.int32_tensor("beta", beta, (4,), "(4,)")
        if beta.dim() > 1 or batch == ():
            v.batch_match("beta", beta, batch, 1)
        else:
            beta = beta.expand(*batch, 4).contiguous()
        a = v.inputs("alpha", alpha, self.in_bits)
        if a.tensor is not None and a.shape != batch:
            raise TypeError(f"alpha has shape {a.shape}, but the keys have batch shape {batch}")
        device = v.device_of(s0s, beta, *([a.tensor] if a.tensor is not None else []))
        self._check_device(device)
        k = math.prod(batch)
        cws = v.output(out, s0s, (*batch, self.in_bits + 1, 8))
        if device is v.CPU:
            call(
                lib.Gen,
                self._handle,
                cws.data_ptr(),
                s0s.data_ptr(),
                a.ptr,
                a.words,
                a.lo,
                a.hi,
                beta.data_ptr(),
                k,
            )
        else:
            a = a.on_device(device, batch)
            dev, stream = _cuda.launch_args(device)
            call(
                lib.CudaGen,
                self._handle,
                dev,
                stream,
                cws.data_ptr(),
                s0s.data_ptr(),
                a.ptr,
                a.words,
                beta.data_ptr(),
                k,
            )
        return cws

    def eval(
        self, party: int, s0: torch.Tensor, cws: torch.Tensor, x, *, out: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Evaluates one party's key(s) at x.

        Args:
            party: 0 or 1.
            s0: (4,) int32 seed of this party, or (..., 4) for a batch of keys.
            cws: (in_bits + 1, 8) int32 correction words, or (..., in_bits + 1, 8).
            x: a Python int (every key at that point) or a tensor whose shape starts
                with the keys' batch shape; the rest of its shape is the points per
                key. Forms: int32 (in_bits <= 32, read as unsigned), int64 (in_bits
                <= 63) or (..., 4) int32 little-endian words (any in_bits).

        Returns:
            int32 output shares of shape x's shape (batch + points) + (4,), written
            into out if given (as for gen).
        """
        if (
            # fss_crypto's call (one key, a Python int, CPU tensors), checked in one
            # expression and passed straight to the C entry point: the general path
            # below costs several microseconds more, more than the evaluation.
            type(x) is int
            and out is None
            and type(party) is int
            and type(s0) is _Tensor
            and type(cws) is _Tensor
            and s0.dtype is _INT32
            and cws.dtype is _INT32
            and s0.is_cpu
            and cws.is_cpu
            and s0.shape == _SEED_SHAPE
            and cws.shape == self._cws_tail
            and s0.is_contiguous()
            and cws.is_contiguous()
            and (party == 0 or party == 1)
            and 0 <= x < self._domain
        ):
            out = s0.new_empty(4)
            try:
                _raw_eval(
                    self._handle,
                    out.data_ptr(),
                    party,
                    s0.data_ptr(),
                    1,
                    cws.data_ptr(),
                    0,
                    0,
                    x & 0xFFFFFFFFFFFFFFFF,
                    x >> 64,
                    1,
                )
            except RuntimeError as e:
                raise go_error(e) from None
            return out
        party = v.party(party)
        s0, cws, batch = self._key_tensors(s0, cws)
        xs = v.inputs("x", x, self.in_bits)
        if xs.tensor is not None and xs.shape[: len(batch)] != batch:
            raise TypeError(
                f"x has shape {xs.shape}, whose leading dimensions must be the keys' batch shape {batch}"
            )
        points = xs.shape[len(batch) :]
        device = v.device_of(s0, cws, *([xs.tensor] if xs.tensor is not None else []))
        self._check_device(device)
        k, m = math.prod(batch), math.prod(points)
        out = v.output(out, s0, (*batch, *points, 4))
        if device is v.CPU:
            call(
                lib.Eval,
                self._handle,
                out.data_ptr(),
                party,
                s0.data_ptr(),
                k,
                cws.data_ptr(),
                xs.ptr,
                xs.words,
                xs.lo,
                xs.hi,
                m,
            )
        else:
            xs = xs.on_device(device, batch)
            dev, stream = _cuda.launch_args(device)
            tmp = _cuda.scratch(self._handle, "eval", k, m, device)
            call(
                lib.CudaEval,
                self._handle,
                dev,
                stream,
                out.data_ptr(),
                party,
                s0.data_ptr(),
                k,
                cws.data_ptr(),
                xs.ptr,
                xs.words,
                m,
                tmp.data_ptr(),
            )
        return out

    def eval_all(
        self, party: int, s0: torch.Tensor, cws: torch.Tensor, *, out: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Evaluates one party's key(s) at every x in [0, 2^in_bits), in order.

        Returns:
            (2^in_bits, 4) int32 output shares, or (..., 2^in_bits, 4) for a batch;
            written into out if given (as for gen).
        """
        party = v.party(party)
        s0, cws, batch = self._key_tensors(s0, cws)
        device = v.device_of(s0, cws)
        self._check_device(device)
        k = math.prod(batch)
        self._check_domain(k, device)
        out = v.output(out, s0, (*batch, 1 << self.in_bits, 4))
        if device is v.CPU:
            call(lib.EvalAll, self._handle, out.data_ptr(), party, s0.data_ptr(), k, cws.data_ptr())
        else:
            dev, stream = _cuda.launch_args(device)
            tmp = _cuda.scratch(self._handle, "eval_all", k, 0, device)
            call(
                lib.CudaEvalAll,
                self._handle,
                dev,
                stream,
                out.data_ptr(),
                party,
                s0.data_ptr(),
                k,
                cws.data_ptr(),
                tmp.data_ptr(),
            )
        return out

    # -- keys with fresh randomness ---------------------------------------------

    def keygen(self, alpha, beta: torch.Tensor) -> tuple[Key, Key]:
        """Generates a key pair (or a batch of pairs) with seeds from os.urandom.

        alpha and beta are as for gen(); beta's leading dimensions are the batch
        shape. Returns the two parties' keys, each carrying this scheme's public
        parameters.
        """
        beta = v.int32_tensor("beta", beta, (4,), "(4,)")
        batch = tuple(beta.shape[:-1])
        k = math.prod(batch)
        seeds = torch.frombuffer(bytearray(os.urandom(32 * k)), dtype=torch.int32).reshape(
            *batch, 2, 4
        )
        cws = self.gen(seeds.to(beta.device), alpha, beta)
        return tuple(
            Key(self.params(), p, seeds[..., p, :].to(cws.device).contiguous(), cws) for p in (0, 1)
        )

    def load_key(self, data: bytes, device="cpu") -> Key:
        """Loads a serialized key onto device, refusing one made for other public
        parameters."""
        key = Key.from_bytes(data, device)
        if key.params != self.params():
            diff = sorted(n for n in key.params if key.params[n] != self.params().get(n))
            raise ValueError(
                f"the key was made for other parameters ({', '.join(diff)} differ): {key.params}"
            )
        return key

    def eval_key(self, key: Key, x) -> torch.Tensor:
        """eval() with a Key."""
        return self.eval(key.party, key.s0, key.cws, x)

    def eval_all_key(self, key: Key) -> torch.Tensor:
        """eval_all() with a Key."""
        return self.eval_all(key.party, key.s0, key.cws)

    # -- helpers ------------------------------------------------------------------

    def _key_tensors(self, s0, cws):
        s0 = v.int32_tensor("s0", s0, (4,), "(4,)")
        cws = v.int32_tensor("cws", cws, self._cws_tail, self._cws_what)
        if s0.ndim == 1 and cws.ndim == 2:  # one key, the common case
            return s0, cws, ()
        batch = tuple(s0.shape[:-1])
        v.batch_match("cws", cws, batch, 2)
        return s0, cws, batch

    def _check_device(self, device: torch.device) -> None:
        if device is not v.CPU:
            _cuda.require_cuda(device)

    def _check_domain(self, keys: int, device: torch.device) -> None:
        if self.in_bits > MAX_EVAL_ALL_BITS:
            raise ValueError(
                f"eval_all over in_bits {self.in_bits} would produce 2^{self.in_bits} outputs; "
                f"at most in_bits {MAX_EVAL_ALL_BITS} is supported"
            )
        need = keys * (16 << self.in_bits)
        if device is v.CPU:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        else:
            total = torch.cuda.mem_get_info(device)[1]
        if need > total:
            raise ValueError(
                f"eval_all would need {need / 2**30:.1f} GiB for {keys} x 2^{self.in_bits} outputs, "
                f"more than the {total / 2**30:.1f} GiB of memory on {device}"
            )


class Dpf(_Scheme):
    """Distributed point function: f(x) = beta if x == alpha else 0.

    Args:
        in_bits: input width, 1..128.
        group: output group: "bytes" (XOR), "uint32", "uint64", "uint127" (addition
            mod 2^32, 2^64, 2^127), or "uint" (fss_crypto's choice by in_bits).
        prg: "chacha" or "aes128_mmo".
        nonce: ChaCha nonce, two int32 (default DEFAULT_NONCE).
        aes_keys: two 16-byte AES-128 keys (default DEFAULT_AES_KEYS[:2]).
    """

    _mul = 2
    _kind = "dpf"

    def __init__(
        self, in_bits: int, group: str = "bytes", prg: str = "chacha", *, nonce=None, aes_keys=None
    ):
        super().__init__(in_bits, group, prg, nonce, aes_keys)


class Dcf(_Scheme):
    """Distributed comparison function: f(x) = beta if x < alpha (pred "lt") or
    x > alpha (pred "gt"), else 0, for unsigned in_bits-bit x.

    Arguments as for Dpf, plus pred; aes_keys are four keys (default DEFAULT_AES_KEYS).
    """

    _mul = 4

    def __init__(
        self,
        in_bits: int,
        group: str = "bytes",
        prg: str = "chacha",
        pred: str = "lt",
        *,
        nonce=None,
        aes_keys=None,
    ):
        self.pred = v.choice("pred", pred, v.PREDS)
        self._kind = "dcf_" + pred
        super().__init__(in_bits, group, prg, nonce, aes_keys)


def load_key(data: bytes, device="cpu") -> tuple[_Scheme, Key]:
    """Loads a serialized key and rebuilds the scheme it belongs to (Dpf or Dcf with
    the stored public parameters), e.g. in another process."""
    key = Key.from_bytes(data, device)
    p = key.params
    try:
        kind = p["scheme"]
        common = {"group": p["group"], "prg": p["prg"], "nonce": p["nonce"]}
        keys = [bytes.fromhex(k) for k in p["aes_keys"]] if p["aes_keys"] else None
        if kind == "dpf":
            scheme = Dpf(p["in_bits"], aes_keys=keys, **common)
        elif kind in ("dcf_lt", "dcf_gt"):
            scheme = Dcf(p["in_bits"], pred=kind[4:], aes_keys=keys, **common)
        else:
            raise ValueError(f"unknown scheme {kind!r}")
    except (KeyError, TypeError) as e:
        raise ValueError(f"corrupt pyfss key parameters: {e}") from None
    return scheme, scheme.load_key(data, device)
