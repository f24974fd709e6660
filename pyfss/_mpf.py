"""Dmpf and Vdmpf: multi-point functions from Cuckoo buckets of DPF (VDPF) keys
(docs/spec.md section 16). eval runs on CUDA tensors too (Vdmpf's proof is then
folded on the CPU); gen and eval_all run on the CPU.

A key is one (cw_rows, 8) int32 tensor shared by both parties (a header row with
the PRP key and the buckets in use, then every bucket's DPF or VDPF key) and, per
party, one seed per bucket: (buckets, 4) int32. Like the tree schemes, each
operation reads its arguments (pyfss._validate), allocates its outputs and makes one
call into the core through _Base._call.
"""

from __future__ import annotations

import math
import operator

import torch

from . import _cuda, _pool
from . import _validate as v
from ._ext import PIECE_WORK, call_long, lib
from ._groups import to_words
from ._keys import Key
from ._params import MAX_EVAL_ALL_BITS
from ._progress import Progress
from ._schemes import _address, _Base, _into, _own, _random_int32

#: The blocks of a Vdmpf proof: (PROOF_BLOCKS, 4) int32.
PROOF_BLOCKS = 4


class Dmpf(_Base):
    """Distributed multi-point function: f(alphas[j]) = betas[j] for up to max_points
    distinct points, 0 elsewhere, shares added up in the group (XOR for bytes).

    Args:
        in_bits: input width, 1..128.
        max_points: the most points a key holds, 1..2^20; it fixes the number of
            buckets (.buckets) and so the size of every key.
        group, prg, nonce, aes_keys, impl: as for Dpf (the buckets are DPF keys).
        bucket_bits: the buckets' input width; None for the least that serves
            max_points (.bucket_bits).
    """

    _kind = "dmpf"

    def __init__(
        self,
        in_bits: int,
        max_points: int,
        group: str = "bytes",
        prg: str = "chacha",
        *,
        bucket_bits: int | None = None,
        nonce=None,
        aes_keys=None,
        impl=None,
        _extra=None,
    ):
        for name, value in (("max_points", max_points), ("bucket_bits", bucket_bits)):
            if value is not None and (type(value) is not int or value < 1):
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        extra = {"max_points": max_points, **(_extra or {})}
        if bucket_bits is not None:
            extra["bucket_bits"] = bucket_bits
        super().__init__(self._kind, in_bits, group, prg, nonce, aes_keys, impl, extra=extra)
        params = self._go.params
        self.max_points, self.bucket_bits = params["max_points"], params["bucket_bits"]
        #: The buckets of a key, each with one seed per party.
        self.buckets = self._go.buckets
        self._seeds_what = f"(buckets, 4) = ({self.buckets}, 4)"

    def _repr_extra(self) -> str:
        return f", max_points={self.max_points}, bucket_bits={self.bucket_bits}"

    def gen(self, s0s: torch.Tensor, alphas, betas: torch.Tensor, *, sigma=None) -> torch.Tensor:
        """Generates a key, or a batch of keys, from both parties' seeds.

        Args:
            s0s: (buckets, 2, 4) int32: each bucket's seeds of party 0 and party 1,
                which must differ once bit 0 of word 3 is cleared; (..., buckets, 2,
                4) for a batch of keys.
            alphas: the t distinct points (1 <= t <= max_points): a (t,) tensor in an
                input form of Dpf.eval's x, or a sequence of Python ints (the same
                points for every key of a batch); a batch's own points: a tensor of
                shape batch + (t,) (batch + (t, 4) in the words form).
            betas: (t, 4) int32 values (in the bytes group bit 0 of word 3 must be 0),
                batch + (t, 4) for a batch.
            sigma: (4,) int32, the first PRP key tried (None: from os.urandom, one
                per key), or batch + (4,); should the points find no Cuckoo
                placement under it, the core draws others.

        Returns:
            (cw_rows, 8) int32: the key both parties hold (batch + (cw_rows, 8)).
        """
        s0s, batch = self._batched("s0s", s0s, (self.buckets, 2, 4))
        a = self._point_list("alphas", alphas, batch)
        t = a.shape[-1]
        betas = self._exact("betas", betas, (*batch, t, 4))
        k = math.prod(batch)
        if sigma is None:
            sigma = _random_int32((*batch, 4))
        sigma = self._exact("sigma", sigma, (*batch, 4))
        self._cpu_only("gen", s0s, betas, sigma, *a.tensors)
        cws = _pool.empty(s0s, (*batch, *self._cws_tail))
        step = 4 * a.words * t  # bytes of a key's points in the tensor form
        for i in range(k):
            args = (
                s0s.data_ptr() + i * self.buckets * 32,
                sigma.data_ptr() + i * 16,
                a.ptr + i * step if a.ptr else 0,
                a.words,
                a.lo,
                a.hi,
                betas.data_ptr() + i * t * 16,
                t,
            )
            self._call_key(i, k, lib.MpfGen, cws.view(k, -1)[i], args, work=t * self.in_bits)
        return cws

    def eval(
        self,
        party: int,
        s0: torch.Tensor,
        cws: torch.Tensor,
        xs,
        *,
        out: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Party's shares at xs: s0 (buckets, 4) its seeds, cws (cw_rows, 8) the key
        (a batch: (..., buckets, 4) and (..., cw_rows, 8)), xs a Python int (every
        key at that point) or a tensor of points (forms of Dpf.eval's x) whose shape
        starts with the keys' batch shape. Returns xs.shape + (4,) int32 (or batch +
        (4,) for an int), written into out if given (as Dpf.eval's: contiguous, on
        the keys' device, sharing no memory with the arguments)."""
        return self._eval(party, s0, cws, xs, out, proof=False)[0]

    def eval_all(
        self,
        party: int,
        s0: torch.Tensor,
        cws: torch.Tensor,
        *,
        out: torch.Tensor | None = None,
        progress: bool = False,
    ) -> torch.Tensor:
        """Party's shares at every x in [0, 2^in_bits), in order: (2^in_bits, 4) int32
        (batch + (2^in_bits, 4) for a batch of keys), written into out if given (as
        for eval). With progress, shows the outputs finished as it runs (as
        Dpf.eval_all)."""
        return self._eval_all(party, s0, cws, out, proof=False, progress=progress)[0]

    def keygen(self, alphas, betas: torch.Tensor) -> tuple[Key, Key]:
        """A key pair (a batch of pairs: betas' leading dimensions) with seeds and PRP
        keys from os.urandom; returns the two parties' keys (Key: party, s0 (...,
        buckets, 4), cws, params; serializable)."""
        if not isinstance(betas, torch.Tensor) or betas.dim() < 2:
            raise TypeError(f"betas must be a (t, 4) int32 tensor (or (..., t, 4)), got {betas!r}")
        seeds = _random_int32((*betas.shape[:-2], self.buckets, 2, 4))
        cws = self.gen(seeds, alphas, betas)
        k0, k1 = (Key(self.params(), p, _own(seeds[..., p, :]), cws) for p in (0, 1))
        return k0, k1

    def eval_key(self, key: Key, xs):
        """eval (Vdmpf: with the proof) with a Key's party, seeds and correction words
        (a Key made for this scheme's parameters)."""
        self._check_key(key)
        return self.eval(key.party, key.s0, key.cws, xs)

    def eval_all_key(self, key: Key):
        """eval_all (Vdmpf: with the proof) with a Key's party, seeds and correction
        words (a Key made for this scheme's parameters)."""
        self._check_key(key)
        return self.eval_all(key.party, key.s0, key.cws)

    # -- the calls, one per key of a batch -----------------------------------------

    def _eval(
        self, party, s0, cws, xs, out, *, proof: bool
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        given = {"s0": s0, "cws": cws, "xs": xs}  # what out must not overlap
        party = v.party(party)
        s0, cws, batch = self._key(s0, cws)
        x = v.inputs("x", xs, self.in_bits)
        if x.tensor is not None and tuple(x.shape[: len(batch)]) != batch:
            raise TypeError(
                f"x has shape {tuple(x.shape)}, whose leading dimensions must be the "
                f"keys' batch shape {batch}"
            )
        device = self._device(s0, cws, *x.tensors)
        if device is not v.CPU:
            if batch:
                raise ValueError(
                    f"{self._kind}: eval on CUDA tensors takes one key (s0 ({self.buckets}, 4)), "
                    f"not a batch of shape {batch}: evaluate the keys one at a time"
                )
            y, dst = v.output(out, s0, (*x.shape, 4), given)
            return self._eval_cuda(device, y, dst, party, s0, cws, x, proof=proof)
        shape = (*batch, *x.shape[len(batch) :]) if x.tensor is not None else batch
        y, dst = v.output(out, s0, (*shape, 4), given)
        pi = s0.new_zeros(*batch, PROOF_BLOCKS, 4) if proof else None
        k = math.prod(batch)
        m = dst.numel() // 4 // k if k else 0
        step = 4 * x.words * m  # bytes of a key's points in the tensor form
        for i in range(k):
            args = (
                *self._key_args(i, pi, party, s0, cws),
                x.ptr + i * step if x.ptr else 0,
                x.words,
                x.lo,
                x.hi,
                m,
            )
            dst_i = dst.view(k, m * 4)[i]
            self._call_key(i, k, lib.MpfEval, dst_i, args, work=m * self.bucket_bits * 3)
        return _into(y, dst), pi

    def _eval_all(
        self, party, s0, cws, out, *, proof: bool, progress: bool
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        given = {"s0": s0, "cws": cws}  # what out must not overlap
        party = v.party(party)
        s0, cws, batch = self._key(s0, cws)
        self._cpu_only("eval_all", s0, cws)
        n = self.in_bits
        if n > MAX_EVAL_ALL_BITS:
            raise ValueError(
                f"in_bits {n} is too large for full-domain evaluation (at most {MAX_EVAL_ALL_BITS})"
            )
        k = math.prod(batch)
        if out is None:
            v.memory_for(k * (16 << n), f"eval_all of {k} x 2^{n} outputs", v.CPU)
        y, dst = v.output(out, s0, (*batch, 1 << n, 4), given)
        pi = s0.new_zeros(*batch, PROOF_BLOCKS, 4) if proof else None
        shown = Progress(k << n, "outputs") if progress else None
        try:
            for i in range(k):
                args = self._key_args(i, pi, party, s0, cws)
                span = shown.span(i << n) if shown is not None else None
                dst_i = dst.view(k, -1)[i]
                self._call_key(i, k, lib.MpfEvalAll, dst_i, args, work=3 << n, progress=span)
        finally:
            if shown is not None:
                shown.close(shown.done)
        return _into(y, dst), pi

    def _call_key(self, i: int, k: int, fn, dst: torch.Tensor, args: tuple, **kw) -> None:
        """The CPU call for key i of a batch of k. The core sees one key and counts
        points, buckets and entries within it, so an error names the key."""
        try:
            self._call(fn, v.CPU, dst, args, **kw)
        except ValueError as e:
            if k > 1:
                e.args = (f"key {i}: {e}", *e.args[1:])
            raise

    def _key_args(self, i: int, pi, party: int, s0: torch.Tensor, cws: torch.Tensor) -> tuple:
        """The leading arguments of key i's call into the core: the address of its
        proof (0 without one), the party, and the addresses of its seeds and key."""
        proof = _address(pi) + i * PROOF_BLOCKS * 16 if pi is not None else 0
        seeds = s0.data_ptr() + i * self.buckets * 16
        return proof, party, seeds, cws.data_ptr() + i * self._cws_tail[0] * 32

    def _eval_cuda(
        self, device, y, dst, party, s0, cws, x: v.Inputs, *, proof: bool
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """_eval on CUDA tensors: the kernels write the shares into dst (y, or an
        aligned temporary for it) and, for Vdmpf, each input's three buckets and
        proof pieces, which the core then folds into the proof on the CPU (a chain
        of hashes in input order; docs/spec.md section 16)."""
        m = dst.numel() // 4
        xs = x.on_device(device, x.shape)
        self._check_contents(cws, xs)
        bkts = pieces = None
        if proof:
            bkts, pieces = s0.new_empty(m, 3), s0.new_empty(m, 3, PROOF_BLOCKS, 4)
        scratch = _cuda.scratch(self._handle, "mpf_eval", 1, m, device)
        args: tuple = (_address(bkts), _address(pieces), party, s0.data_ptr(), cws.data_ptr())
        args += (xs.ptr, xs.words, m, scratch.data_ptr())
        self._call(lib.MpfEvalCuda, device, dst, args, work=m * self.bucket_bits * 3)
        y = _into(y, dst)
        if bkts is None or pieces is None:
            return y, None
        pi = torch.empty(PROOF_BLOCKS, 4, dtype=torch.int32)
        key, bkts, pieces = cws.cpu(), bkts.cpu(), pieces.cpu()
        args = (self._handle, pi.data_ptr(), key.data_ptr(), bkts.data_ptr(), pieces.data_ptr(), m)
        call_long(lib.MpfFoldProof, *args, work=3 * m * PIECE_WORK)
        return y, pi.to(device)

    def _check_contents(self, cws: torch.Tensor, xs: v.Inputs) -> None:
        """Refuses, on the tensors' device, the key and inputs that the core refuses."""
        # Fewer buckets than this could not hold the 3 * 2^in_bits hashed values.
        least = -((-3 << self.in_bits) >> self.bucket_bits)
        rows = (self._cws_tail[0] - 1) // self.buckets
        v.mpf_eval_contents(self.in_bits, self.bucket_bits, rows, least, cws, xs)

    def _cpu_only(self, op: str, *tensors: torch.Tensor) -> None:
        """Refuses CUDA tensors for an operation without kernels."""
        if self._device(*tensors) is not v.CPU:
            raise ValueError(
                f"{self._kind}: {op} runs on the CPU (only eval has CUDA kernels): pass CPU tensors"
            )

    def _key(self, s0, cws) -> tuple[torch.Tensor, torch.Tensor, tuple]:
        """A party's seeds and the key, dense, and their batch shape."""
        s0, batch = self._batched("s0", s0, (self.buckets, 4))
        return s0, self._exact("cws", cws, (*batch, *self._cws_tail)), batch

    def _batched(self, name: str, t, tail: tuple) -> tuple[torch.Tensor, tuple]:
        """t as a dense int32 tensor of shape (..., *tail), and its leading dimensions."""
        if isinstance(t, torch.Tensor) and t.dim() >= len(tail):
            batch = tuple(t.shape[: t.dim() - len(tail)])
            return self._exact(
                name, t, (*batch, *tail), what=f"(..., {', '.join(map(str, tail))})"
            ), batch
        return self._exact(name, t, tail), ()

    def _exact(self, name: str, t, shape: tuple, what: str | None = None) -> torch.Tensor:
        """t as a dense int32 tensor of exactly shape."""
        if not isinstance(t, torch.Tensor) or t.dtype is not torch.int32 or tuple(t.shape) != shape:
            got = (
                f"shape {tuple(t.shape)} dtype {t.dtype}"
                if isinstance(t, torch.Tensor)
                else type(t).__name__
            )
            raise TypeError(f"{name} must be a {what or shape} int32 tensor, got {got}")
        return v.dense(t)

    def _ints(self, name: str, values) -> list[int]:
        """A sequence of Python ints, each checked: torch.tensor alone would cut 1.5
        to 1 and take True (or a bool tensor) as 1, and refuse ints past 2^63 with a
        message that names neither the argument nor the domain."""
        kind = type(values).__name__
        if isinstance(values, (str, bytes, bytearray)):
            raise TypeError(f"{name} must be a tensor of points or a sequence of ints, got {kind}")
        try:
            ints = list(values)
        except TypeError:
            raise TypeError(
                f"{name} must be a tensor of points or a sequence of ints, got {kind}"
            ) from None
        for i, x in enumerate(ints):
            if type(x) is not int:
                try:
                    if v.is_bool(x):
                        raise TypeError
                    ints[i] = x = operator.index(x)
                except TypeError:
                    raise TypeError(
                        f"{name} must be a sequence of ints: entry {i} is a {type(x).__name__}"
                    ) from None
            if not 0 <= x < 1 << self.in_bits:
                raise ValueError(f"{name} must be in [0, 2^{self.in_bits}): entry {i} is {x}")
        return ints

    def _point_list(self, name: str, values, batch: tuple) -> v.Inputs:
        """Lists of points: a tensor batch + (t,) of inputs (or batch + (t, 4) words),
        or Python ints (one list for every key)."""
        if not isinstance(values, torch.Tensor):
            ints = self._ints(name, values)
            values = torch.tensor(ints, dtype=torch.int64) if self.in_bits <= 63 else to_words(ints)
            if batch:
                values = values.expand(*batch, *values.shape).contiguous()
        a = v.inputs(name, values, self.in_bits)
        if len(a.shape) != len(batch) + 1 or tuple(a.shape[:-1]) != batch or a.shape[-1] == 0:
            raise TypeError(
                f"{name} must hold a list of at least one point per key (batch shape {batch}), "
                f"got shape {tuple(values.shape)}"
            )
        return a


class Vdmpf(Dmpf):
    """Verifiable distributed multi-point function: Dmpf whose buckets are VDPF keys,
    so that eval also gives each party a proof; equal proofs (verify) over the same
    inputs show that the key was well formed. Dmpf's arguments, plus hash:
    "sha256" or "blake3" (the VDPF hashes, with their default public keys)."""

    _kind = "vdmpf"

    def __init__(
        self,
        in_bits: int,
        max_points: int,
        group: str = "bytes",
        prg: str = "chacha",
        *,
        hash: str = "sha256",
        bucket_bits: int | None = None,
        nonce=None,
        aes_keys=None,
        impl=None,
        _hash_record=None,
    ):
        if type(hash) is not str:
            raise TypeError(f"hash must be a string, got {type(hash).__name__}")
        record = _hash_record or {"name": hash}
        super().__init__(
            in_bits,
            max_points,
            group,
            prg,
            bucket_bits=bucket_bits,
            nonce=nonce,
            aes_keys=aes_keys,
            impl=impl,
            _extra={"hash": record},
        )
        self.hash = self._go.params["hash"]["name"]

    def _repr_extra(self) -> str:
        return super()._repr_extra() + f", hash={self.hash!r}"

    def eval(  # type: ignore[override]
        self,
        party: int,
        s0: torch.Tensor,
        cws: torch.Tensor,
        xs,
        *,
        out: torch.Tensor | None = None,
    ):
        """Party's shares at xs (as Dmpf.eval, into out if given) and its proof over
        them, in order: returns (y, pi), pi (4, 4) int32."""
        return self._eval(party, s0, cws, xs, out, proof=True)

    def eval_all(  # type: ignore[override]
        self,
        party: int,
        s0: torch.Tensor,
        cws: torch.Tensor,
        *,
        out: torch.Tensor | None = None,
        progress: bool = False,
    ):
        """Party's shares at every input (as Dmpf.eval_all, into out and with progress
        if given) and its proof over 0 .. 2^in_bits - 1 in order: returns (y, pi)."""
        return self._eval_all(party, s0, cws, out, proof=True, progress=progress)

    @staticmethod
    def verify(pi0: torch.Tensor, pi1: torch.Tensor) -> bool:
        """Whether the two parties' proofs (each (4, 4) int32, over the same inputs)
        are equal: the key they evaluated was well formed."""
        for name, pi in (("pi0", pi0), ("pi1", pi1)):
            if (
                not isinstance(pi, torch.Tensor)
                or pi.dtype is not torch.int32
                or tuple(pi.shape) != (PROOF_BLOCKS, 4)
            ):
                got = (
                    f"shape {tuple(pi.shape)} dtype {pi.dtype}"
                    if isinstance(pi, torch.Tensor)
                    else type(pi).__name__
                )
                raise TypeError(f"{name} must be a ({PROOF_BLOCKS}, 4) int32 tensor, got {got}")
        return bool(torch.equal(pi0.cpu(), pi1.cpu()))


def load_mpf(params: dict, kw: dict) -> Dmpf:
    """The Dmpf or Vdmpf of a loaded key's parameters (pyfss.load_key)."""
    mpf = {"bucket_bits": params["bucket_bits"], **kw}
    if params["scheme"] == "vdmpf":
        return Vdmpf(params["in_bits"], params["max_points"], _hash_record=params["hash"], **mpf)
    return Dmpf(params["in_bits"], params["max_points"], **mpf)
