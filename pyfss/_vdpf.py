"""Vdpf: the verifiable DPF of de Castro and Polychroniadou (EUROCRYPT 2022), on the
Go core's VDPF (docs/spec.md section 15). gen and eval (shares and proof pieces) run
on CUDA tensors too; eval_all's proofs, prove and verify run on the CPU (a proof is a
sequential chain over the pieces).

Keys, gen and keygen are Dpf's conventions; eval and eval_all also return proof
material, prove folds proof pieces into proofs and verify compares two parties'
proofs. Like the other schemes, each operation reads its arguments
(pyfss._validate), allocates its outputs and makes one call into the core.
"""

from __future__ import annotations

import math

import torch

from . import _cuda, _pool
from . import _validate as v
from ._ext import PIECE_WORK, call, call_long, lib
from ._keys import Key
from ._params import CATALOGUE, MAX_EVAL_ALL_BITS
from ._progress import Progress
from ._schemes import _address, _into, _Scheme

#: The hashes a Vdpf can use, each with its default public keys (the known-answer
#: vectors'): {"sha256": {"xor_hash_key": [4 int32], "hash_key": [4 int32]},
#: "blake3": {"xor_hash_iv": [[4 int32], [4 int32]], "hash_iv": [...]}}.
DEFAULT_VDPF_HASHES = {
    name: {k: w for k, w in h.items() if k != "name"}
    for name, h in CATALOGUE["schemes"]["vdpf"]["default_hashes"].items()
}
HASHES = tuple(DEFAULT_VDPF_HASHES)

_PROOF = (4, 4)  # a proof or proof piece: 4 blocks of 4 int32


class Vdpf(_Scheme):
    """Verifiable distributed point function: f(x) = beta if x == alpha else 0, as
    Dpf, and proofs that let the two parties check that their keys are well formed
    (that they share a point function) without learning anything else: each party
    evaluates its key at the same points, folds the proof pieces into a proof
    (prove, or eval_all's), and the parties compare proofs (verify).

    A key is (in_bits + 3, 8) int32: Dpf's in_bits + 1 rows, then the proof
    correction cs (4 blocks) in two rows. A proof or a proof piece is (4, 4) int32.

    Args:
        in_bits, group, prg, nonce, aes_keys, impl: as for Dpf (with aes128_mmo
            the fused AVX2/AVX-512 walks, "aesni" or "portable"; Gen portable).
        hash: "sha256" or "blake3", the hash of the proofs.
        hash_keys: the public keys of the hash's two instances: for sha256
            {"xor_hash_key": 4 int32, "hash_key": 4 int32}, for blake3
            {"xor_hash_iv": two blocks of 4 int32, "hash_iv": likewise}; keys left
            out take DEFAULT_VDPF_HASHES'.
    """

    def __init__(
        self,
        in_bits: int,
        group: str = "bytes",
        prg: str = "chacha",
        hash: str = "sha256",
        *,
        hash_keys: dict | None = None,
        nonce=None,
        aes_keys=None,
        impl: str | None = None,
    ):
        self.hash = v.choice("hash", hash, HASHES)
        record = {"name": hash, **_hash_keys(hash_keys)}
        super().__init__("vdpf", in_bits, group, prg, nonce, aes_keys, impl, extra={"hash": record})
        #: The hash's public keys in use (defaults filled in).
        self.hash_keys = {k: w for k, w in self._go.params["hash"].items() if k != "name"}

    def _repr_extra(self) -> str:
        return f", hash={self.hash!r}"

    def eval(  # type: ignore[override]
        self, party: int, s0: torch.Tensor, cws: torch.Tensor, x, *, out: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Evaluates one party's key(s) at x, as Dpf.eval (arguments and input forms
        the same; CPU or CUDA tensors), with each point's proof piece.

        Returns:
            (y, pieces): int32 shares of shape x's shape (batch + points) + (4,),
            written into out if given (as Dpf.eval's), and the proof pieces, batch +
            points + (4, 4).
        """
        given = {"s0": s0, "cws": cws, "x": x}  # what out must not overlap
        party = v.party(party)
        s0, cws, batch = self._key_tensors(s0, cws)
        xs = self._points("x", x, batch)
        points = tuple(xs.shape[len(batch) :])
        device = self._device(s0, cws, *xs.tensors)
        k, m = math.prod(batch), math.prod(points)
        y, dst = v.output(out, s0, (*batch, *points, 4), given)
        pieces = _pool.empty(s0, (*batch, *points, *_PROOF))
        if k and m:
            scratch = None
            if device is not v.CPU:
                xs = xs.on_device(device, batch)
                # A VDPF key's first in_bits + 1 rows are a DPF key, checked as Dpf's.
                v.eval_contents("dpf", self.in_bits, cws[..., : self.in_bits + 1, :], xs)
                scratch = _cuda.scratch(self._handle, "eval_proof", k, m, device)
            args: tuple = (pieces.data_ptr(), party, s0.data_ptr(), k, cws.data_ptr())
            args += (xs.ptr, xs.words, xs.lo, xs.hi, m, _address(scratch))
            self._call(lib.VdpfEval, device, dst, args, work=k * m * self.in_bits)
        return _into(y, dst), pieces

    def eval_all(  # type: ignore[override]
        self,
        party: int,
        s0: torch.Tensor,
        cws: torch.Tensor,
        *,
        out: torch.Tensor | None = None,
        progress: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Evaluates one party's key(s) at every x in [0, 2^in_bits), in order, and
        proves over them (out and progress as for Dpf.eval_all).

        Returns:
            (y, pi): (2^in_bits, 4) int32 shares, or (..., 2^in_bits, 4), written
            into out if given, and the proofs, (4, 4) int32 or (..., 4, 4).
        """
        given = {"s0": s0, "cws": cws}  # what out must not overlap
        party = v.party(party)
        s0, cws, batch = self._key_tensors(s0, cws)
        device = self._device(s0, cws)
        n = self.in_bits
        if n > MAX_EVAL_ALL_BITS:
            raise ValueError(
                f"eval_all over in_bits {n} would produce 2^{n} outputs; "
                f"at most in_bits {MAX_EVAL_ALL_BITS} is supported"
            )
        k = math.prod(batch)
        if out is None:
            v.memory_for(k * (16 << n), f"eval_all of {k} x 2^{n} outputs", device)
        y, dst = v.output(out, s0, (*batch, 1 << n, 4), given)
        pi = s0.new_empty(*batch, *_PROOF)
        if k:
            args = (pi.data_ptr(), party, s0.data_ptr(), k, cws.data_ptr())
            shown = Progress(k << n, "outputs") if progress else None
            self._call(lib.VdpfEvalAll, device, dst, args, work=k << n, progress=shown)
        return _into(y, dst), pi

    def prove(self, pieces: torch.Tensor, cws: torch.Tensor) -> torch.Tensor:
        """Folds proof pieces into proofs: for keys cws ((cw_rows, 8) int32, or a
        batch (..., cw_rows, 8)), pieces of shape batch + points + (4, 4), in the
        order the points were evaluated (row-major over the points' dimensions), as
        eval returns them. Both parties must prove over the same points in the same
        order. Returns the proofs, batch + (4, 4) int32, on the pieces' device (the
        fold runs on the CPU)."""
        cws = v.int32_tensor("cws", cws, self._cws_tail, self._cws_what)
        batch = tuple(cws.shape[:-2])
        pieces = v.int32_tensor("pieces", pieces, _PROOF, "(..., 4, 4)")
        if tuple(pieces.shape[: len(batch)]) != batch or pieces.dim() < len(batch) + 2:
            raise TypeError(
                f"pieces has shape {tuple(pieces.shape)}, whose leading dimensions must be "
                f"the keys' batch shape {batch}"
            )
        device = self._device(cws, pieces)
        if device is not v.CPU:  # the fold is a sequential chain: on the CPU
            cws, pieces = cws.cpu(), pieces.cpu()
        k = math.prod(batch)
        m = math.prod(pieces.shape[len(batch) : -2])
        pi = cws.new_empty(*batch, *_PROOF)
        if k:
            args = (self._handle, pi.data_ptr(), pieces.data_ptr(), m, cws.data_ptr(), k)
            call_long(lib.VdpfProve, *args, work=k * m * PIECE_WORK)
        return pi.to(device)

    def verify(self, pi0: torch.Tensor, pi1: torch.Tensor) -> torch.Tensor:
        """Compares the two parties' proofs ((4, 4) int32, or (..., 4, 4) of the same
        batch shape), in constant time: a torch.bool tensor of the batch shape, True
        where the proofs are equal (the keys pass), False where they differ."""
        pi0 = v.int32_tensor("pi0", pi0, _PROOF, "(4, 4)")
        pi1 = v.int32_tensor("pi1", pi1, _PROOF, "(4, 4)")
        batch = tuple(pi0.shape[:-2])
        v.batch_match("pi1", pi1, batch, 2)
        device = self._device(pi0, pi1)
        if device is not v.CPU:
            pi0, pi1 = pi0.cpu(), pi1.cpu()
        ok = torch.empty(batch, dtype=torch.bool)
        if k := math.prod(batch):
            call(lib.VdpfVerify, ok.data_ptr(), pi0.data_ptr(), pi1.data_ptr(), k)
        return ok.to(device)

    def eval_key(self, key: Key, x) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        """eval() with a Key (made for this scheme's parameters)."""
        self._check_key(key)
        return self.eval(key.party, key.s0, key.cws, x)

    def eval_all_key(self, key: Key) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        """eval_all() with a Key (made for this scheme's parameters)."""
        self._check_key(key)
        return self.eval_all(key.party, key.s0, key.cws)


def _hash_keys(value) -> dict:
    """hash_keys for the parameter record: None, or a dict of key names to int32
    words (the core checks the names, shapes and ranges)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError(
            f"hash_keys must be a dict of key names to int32 words, got {type(value).__name__}"
        )
    out = {}
    for name, words in value.items():
        if isinstance(words, torch.Tensor):
            words = words.tolist()
        out[name] = words
    return out


__all__ = ["DEFAULT_VDPF_HASHES", "HASHES", "Vdpf"]
