"""Dpf, Dcf and HalfTreeDpf: key generation and evaluation on int32 tensors, one Go
call per operation, the same on the CPU and on CUDA.

Each operation reads its arguments (pyfss._validate), allocates or checks its output,
checks tensor contents itself on CUDA (the core checks them on the CPU), and makes
one call through _call. Dpf and Dcf only name their scheme and constructor arguments;
HalfTreeDpf adds the conversions of its keys to the reference layout. _Base, what
every scheme object shares, also serves GrottoDcf (pyfss._grotto).
"""

from __future__ import annotations

import math
import os

import torch

from . import _cuda, _ext, _pool
from . import _validate as v
from ._ext import STOPPABLE_WORK, call, call_long, go_error, lib, small
from ._keys import Key, made_key
from ._params import MAX_EVAL_ALL_BITS, PRGS, Handle, record_fields
from ._progress import Progress, Reporter

_Tensor = torch.Tensor
_INT32 = torch.int32
_SEED_SHAPE = (4,)
_MASK64 = 2**64 - 1
_empty_like = torch.empty_like
_small_eval = small.eval
_small_eval_one = small.eval_one
# eval_one and gen_one check tensors against torch's own objects and make outputs.
small.setup(torch.Tensor, torch.int32, torch.empty_like)
_small_gen = small.gen
_small_gen_one = small.gen_one
_small_keygen = small.keygen


def _plain(t, shape: tuple) -> int:
    """The address of t where t is an int32 CPU tensor of exactly shape, contiguous,
    aligned for the core and not a negative view (a batched call's tensors as they
    usually come), else 0, which no such tensor of at least one element has."""
    if (
        type(t) is _Tensor
        and t.dtype is _INT32
        and t.is_cpu
        and t.shape == shape
        and t.is_contiguous()
        and not t.is_neg()
        and not (ptr := t.data_ptr()) & 7
    ):
        return ptr
    return 0


class _Base:
    """What every scheme object shares: parameters, the Go scheme, key loading, and
    the way into the core."""

    def __init__(
        self, scheme: str, in_bits, group, prg, nonce, aes_keys, impl, hash_key=None, extra=None
    ):
        self.in_bits = v.in_bits(in_bits)
        self.group = v.choice("group", group, v.GROUP_NAMES)
        self.prg = v.choice("prg", prg, PRGS)
        #: The group actually used: "uint" resolved by in_bits as fss_crypto does.
        self.out_group = v.group_for(group, in_bits)
        record = {
            "scheme": scheme,
            "in_bits": in_bits,
            "group": self.out_group,
            "prg": prg,
            "nonce": v.nonce(nonce, prg),
            "aes_keys": v.aes_keys(aes_keys, prg),
        }
        if hash_key is not None:
            record["hash_key"] = hash_key
        record.update(extra or {})  # a subclass's own parameters (Vdpf's hash)
        self._go = Handle(record, v.impl(impl))
        self._handle = self._go.id
        self._scheme = scheme
        params = self._go.params
        #: The public PRG parameters in use (defaults filled in); None for the other PRG's.
        self.nonce = None if params["nonce"] is None else tuple(params["nonce"])
        self.aes_keys = (
            None if params["aes_keys"] is None else tuple(map(bytes.fromhex, params["aes_keys"]))
        )
        #: The walk implementation that runs this scheme's CPU calls (one of pyfss.IMPLS).
        self.impl = self._go.impl
        # A key's rows come from the core: in_bits + 1, or fewer for half_tree_dpf.
        self._cws_tail = (self._go.cw_rows, 8)
        self._cws_what = f"(cw_rows, 8) = {self._cws_tail}"
        self._domain = 1 << in_bits

    def params(self) -> dict:
        """The public parameters: two objects with equal params make compatible keys."""
        return self._go.copy_params()

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.in_bits}, group={self.group!r}, prg={self.prg!r}"
            f"{self._repr_extra()})"
        )

    def _repr_extra(self) -> str:
        """The constructor arguments a subclass adds, as repr shows them."""
        return ""

    def load_key(self, data: bytes, device="cpu") -> Key:
        """Loads a serialized key onto device, refusing one made for other public
        parameters."""
        key = Key.from_bytes(data, device)
        self._check_key(key)
        return key

    def _check_key(self, key: Key) -> None:
        """Refuses a Key made for other public parameters: its shares would be wrong
        here, with no error."""
        mine = self._go.params
        if key.params != mine:
            names = record_fields(mine["scheme"])
            diff = [name for name in names if key.params.get(name) != mine[name]]
            raise ValueError(
                f"the key was made for other parameters ({', '.join(diff)} differ): {key.params}"
            )

    def _alphas(self, alpha, batch: tuple) -> v.Inputs:
        """gen's alpha: an int for every key, or a tensor of the batch shape."""
        a = v.inputs("alpha", alpha, self.in_bits)
        if a.tensor is not None and a.shape != batch:
            raise TypeError(
                f"alpha has shape {tuple(a.shape)}, but the keys have batch shape {batch}"
            )
        return a

    def _points(self, name: str, x, batch: tuple) -> v.Inputs:
        """Points to evaluate at: an int for every key, or a tensor whose shape starts
        with the keys' batch shape."""
        xs = v.inputs(name, x, self.in_bits)
        if xs.tensor is not None and xs.shape[: len(batch)] != batch:
            raise TypeError(
                f"{name} has shape {tuple(xs.shape)}, whose leading dimensions must be the "
                f"keys' batch shape {batch}"
            )
        return xs

    def _key_tensors(self, s0, cws):
        s0 = v.int32_tensor("s0", s0, (4,), "(4,)")
        cws = v.int32_tensor("cws", cws, self._cws_tail, self._cws_what)
        if s0.ndim == 1 and cws.ndim == 2:  # one key, the common case
            return s0, cws, ()
        batch = tuple(s0.shape[:-1])
        v.batch_match("cws", cws, batch, 2)
        return s0, cws, batch

    def _device(self, *tensors: torch.Tensor) -> torch.device:
        device = v.device_of(*tensors)
        if device is not v.CPU:
            _cuda.require_cuda(device)
        return device

    def _call(
        self,
        fn,
        device: torch.device,
        dst: torch.Tensor,
        args: tuple,
        *,
        work: int,
        progress: Reporter | None = None,
    ):
        """fn(handle, device, stream, dst, *args, control): the one call of an
        operation. On CUDA it only enqueues kernels; on the CPU it runs them,
        interruptibly by Ctrl-C when work (tree levels walked, or outputs) is large,
        and reporting to progress if given."""
        if device is v.CPU:
            args = (self._handle, _cuda.HOST, 0, dst.data_ptr(), *args)
            return call_long(fn, *args, work=work, progress=progress)
        args = (self._handle, *_cuda.launch_args(device), dst.data_ptr(), *args)
        return call(fn, *args, 0)


class _Scheme(_Base):
    """What Dpf, Dcf and HalfTreeDpf share: the operations on tree keys."""

    # -- the fss_crypto calls, batched over leading dimensions -------------------

    def gen(
        self, s0s: torch.Tensor, alpha, beta: torch.Tensor, *, out: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Generates keys from both parties' seeds.

        Args:
            s0s: (2, 4) int32 seeds (party 0, party 1), or (..., 2, 4) for a batch; a
                key's two seeds must differ once bit 0 of word 3 is cleared.
            alpha: the point or threshold, in [0, 2^in_bits): a Python int (the same
                for every key of a batch) or a tensor of the batch shape.
            beta: (4,) int32 output value, or (..., 4) one per key; in the bytes group
                bit 0 of word 3 must be 0.

        Returns:
            (cw_rows, 8) int32 correction words, or (..., cw_rows, 8), cw_rows being
            in_bits + 1 (Dpf, Dcf) or (in_bits + 2) // 2 (HalfTreeDpf); written
            into out if given (an int32 tensor of that shape on the same device, not
            overlapping the inputs), which saves allocating and first touching fresh
            memory.
        """
        if type(alpha) is int and out is None and not _ext.forked:
            # fss_crypto's call (one key, a Python int, CPU tensors), as eval's: the
            # C entry checks the tensors, makes the output and calls the core, whose
            # checks of the seeds and beta's bits stand; None for the general path.
            try:
                cws = _small_gen_one(self._handle, s0s, beta, alpha, self._cws_tail, self.in_bits)
            except RuntimeError as e:
                raise go_error(e) from None
            if cws is not None:
                return cws
        if out is None and type(alpha) is _Tensor:
            plain = self._plain_gen(s0s, alpha, beta)
            if plain is not None:
                return plain
        given = {"s0s": s0s, "beta": beta, "alpha": alpha}  # what out must not overlap
        s0s = v.int32_tensor("s0s", s0s, (2, 4), "(2, 4)")
        batch = tuple(s0s.shape[:-2])
        beta = v.int32_tensor("beta", beta, (4,), "(4,)")
        if beta.dim() > 1 or batch == ():
            v.batch_match("beta", beta, batch, 1)
        else:
            beta = beta.expand(*batch, 4).contiguous()
        a = self._alphas(alpha, batch)
        device = self._device(s0s, beta, *a.tensors)
        k = math.prod(batch)
        cws, dst = v.output(out, s0s, (*batch, *self._cws_tail), given)
        if k:
            if device is not v.CPU:
                a = a.on_device(device, batch)
                v.gen_contents(self.out_group, self.in_bits, s0s, a, beta)
            args = (s0s.data_ptr(), a.ptr, a.words, a.lo, a.hi, beta.data_ptr(), k)
            self._call(lib.Gen, device, dst, args, work=k * self.in_bits)
        return _into(cws, dst)

    # Calls of the usual forms (a batch of k keys at one int32 point each, or one key
    # at a vector of int32 points; in_bits <= 32), CPU tensors as they usually come,
    # no out, and too little work for the pool or Ctrl-C's thread, go the one-key
    # calls' way: their tensors checked by _plain and passed straight to the C entry
    # point. The general path costs 4 us more (4 against 8.5 us for 4 keys), the time
    # of a hundred keys' evaluations. None where a call is not of such a form; the
    # general path then checks it and says why.

    def _plain_size(self, points: int, out_blocks: int) -> bool:
        """Whether a call of this many points (keys for gen) and output blocks goes
        the plain way."""
        return (
            0 < points
            and points * self.in_bits <= STOPPABLE_WORK
            and out_blocks * 16 < _pool.MIN_BYTES
            and self.in_bits <= 32
            and not _ext.forked
        )

    def _plain_gen(self, s0s, alpha, beta) -> torch.Tensor | None:
        if type(s0s) is not _Tensor or s0s.dim() != 3:
            return None
        k = s0s.shape[0]
        if not (
            self._plain_size(k, 2 * k * self._cws_tail[0])
            and (s0s_ptr := _plain(s0s, (k, 2, 4)))
            and (alpha_ptr := _plain(alpha, (k,)))
            and (beta_ptr := _plain(beta, (k, 4)))
        ):
            return None
        cws = s0s.new_empty(k, *self._cws_tail)
        try:
            _small_gen(
                self._handle,
                _cuda.HOST,
                0,
                cws.data_ptr(),
                s0s_ptr,
                alpha_ptr,
                1,
                0,
                0,
                beta_ptr,
                k,
                0,
            )
        except RuntimeError as e:
            raise go_error(e) from None
        return cws

    def _plain_eval(self, party, s0, cws, x) -> torch.Tensor | None:
        if type(s0) is not _Tensor or x.dim() != 1:
            return None
        n = x.shape[0]
        s0_shape: tuple
        cws_shape: tuple
        if s0.dim() == 1:  # one key at n points
            k, s0_shape, cws_shape = 1, _SEED_SHAPE, self._cws_tail
        else:  # n keys at a point each
            k, s0_shape, cws_shape = n, (n, 4), (n, *self._cws_tail)
        if not (
            self._plain_size(n, n)
            and type(party) is int
            and (party == 0 or party == 1)
            and (s0_ptr := _plain(s0, s0_shape))
            and (cws_ptr := _plain(cws, cws_shape))
            and (x_ptr := _plain(x, (n,)))
        ):
            return None
        y = s0.new_empty(n, 4)
        try:
            _small_eval(
                self._handle,
                _cuda.HOST,
                0,
                y.data_ptr(),
                party,
                s0_ptr,
                k,
                cws_ptr,
                x_ptr,
                1,
                0,
                0,
                n // k,
                0,
                0,
            )
        except RuntimeError as e:
            raise go_error(e) from None
        return y

    def eval(
        self, party: int, s0: torch.Tensor, cws: torch.Tensor, x, *, out: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Evaluates one party's key(s) at x.

        Args:
            party: 0 or 1.
            s0: (4,) int32 seed of this party, or (..., 4) for a batch of keys.
            cws: (cw_rows, 8) int32 correction words, or (..., cw_rows, 8) (see gen).
            x: a Python int (every key at that point) or a tensor whose shape starts
                with the keys' batch shape; the rest of its shape is the points per
                key. Forms: int32 (in_bits <= 32, read as unsigned), int64 (in_bits
                <= 63) or (..., 4) int32 little-endian words (any in_bits).

        Returns:
            int32 output shares of shape x's shape (batch + points) + (4,), written
            into out if given (as for gen).
        """
        if type(x) is int and out is None and not _ext.forked:
            # fss_crypto's call (one key, a Python int, CPU tensors): the C entry
            # checks the tensors, makes the output and calls the core in one go, or
            # returns None for the general path below, which costs several
            # microseconds more, more than the evaluation.
            try:
                y = _small_eval_one(self._handle, party, s0, cws, x, self._cws_tail, self.in_bits)
            except RuntimeError as e:
                raise go_error(e) from None
            if y is not None:
                return y
        if out is None and type(x) is _Tensor:
            plain = self._plain_eval(party, s0, cws, x)
            if plain is not None:
                return plain
        given = {"s0": s0, "cws": cws, "x": x}  # what out must not overlap
        party = v.party(party)
        s0, cws, batch = self._key_tensors(s0, cws)
        xs = self._points("x", x, batch)
        points = xs.shape[len(batch) :]
        device = self._device(s0, cws, *xs.tensors)
        k, m = math.prod(batch), math.prod(points)
        y, dst = v.output(out, s0, (*batch, *points, 4), given)
        if k and m:
            scratch = None
            if device is not v.CPU:
                xs = xs.on_device(device, batch)
                v.eval_contents(self._scheme, self.in_bits, cws, xs, self.out_group)
                scratch = _cuda.scratch(self._handle, "eval", k, m, device)
            args: tuple = (
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
            args += (_address(scratch),)
            self._call(lib.Eval, device, dst, args, work=k * m * self.in_bits)
        return _into(y, dst)

    def eval_all(
        self,
        party: int,
        s0: torch.Tensor,
        cws: torch.Tensor,
        *,
        start: int | None = None,
        stop: int | None = None,
        out: torch.Tensor | None = None,
        progress: bool = False,
    ) -> torch.Tensor:
        """Evaluates one party's key(s) at every x in [0, 2^in_bits), in order, or at
        every x in [start, stop) with the same outputs as the slice [start:stop] of
        the whole call.

        Args:
            start, stop: the inputs to evaluate, any 0 <= start <= stop <= 2^in_bits
                (None: 0 and 2^in_bits); start == stop evaluates none. A range of
                2^d inputs that starts at a multiple of 2^d costs about what the
                whole domain of in_bits d does; others cost at most about that of
                the aligned ranges around them. CPU only: CUDA evaluates the whole
                domain.

        Returns:
            (stop - start, 4) int32 output shares, (2^in_bits, 4) by default, or
            (..., stop - start, 4) for a batch; written into out if given (as for
            gen). Without out, refused when the output would not fit in the memory
            available on the device. With progress, a CPU call shows its progress
            as it runs (tqdm's bar when tqdm is installed, else a line on stderr); a
            CUDA call only enqueues kernels and shows none.
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
        start, stop = v.domain_range(start, stop, n)
        width = stop - start
        if device is not v.CPU and width != 1 << n:
            raise ValueError(
                f"eval_all over a range [start, stop) runs on the CPU only: on {device} "
                "it evaluates the whole domain"
            )
        k = math.prod(batch)
        if out is None:
            points = f"2^{n}" if width == 1 << n else width
            v.memory_for(16 * k * width, f"eval_all of {k} x {points} outputs", device)
        y, dst = v.output(out, s0, (*batch, width, 4), given)
        if k and width:
            scratch = None
            if device is not v.CPU:
                v.eval_contents(self._scheme, n, cws, None, self.out_group)
                scratch = _cuda.scratch(self._handle, "eval_all", k, 0, device)
            args = (party, s0.data_ptr(), k, cws.data_ptr(), start, stop, _address(scratch))
            shown = Progress(k * width, "outputs") if progress and device is v.CPU else None
            self._call(lib.EvalAll, device, dst, args, work=k * width, progress=shown)
        return _into(y, dst)

    # -- keys with fresh randomness ---------------------------------------------

    def keygen(self, alpha, beta: torch.Tensor) -> tuple[Key, Key]:
        """Generates a key pair (or a batch of pairs) with seeds from the OS's
        randomness: on the CPU the core's read of the source os.urandom reads, in the
        same call as gen; for CUDA os.urandom, the seeds copied to the device.

        alpha and beta are as for gen(); beta's leading dimensions are the batch
        shape. Returns the two parties' keys, each carrying this scheme's public
        parameters.
        """
        if (
            # One key on the CPU: seeds and Gen in one call into the core, which draws
            # the seeds from the same OS source as os.urandom.
            type(alpha) is int
            and type(beta) is _Tensor
            and beta.dtype is _INT32
            and beta.is_cpu
            and beta.shape == _SEED_SHAPE
            and beta.is_contiguous()
            and not beta.is_neg()
            and 0 <= alpha < self._domain
            and not (beta_ptr := beta.data_ptr()) & 7  # aligned
            and not _ext.forked
        ):
            # Each party's seed in memory of its own (see _own), shaped like beta;
            # the rows' size as varargs, as in gen.
            s0, s1 = _empty_like(beta), _empty_like(beta)
            cws = beta.new_empty(*self._cws_tail)
            try:
                _small_keygen(
                    self._handle,
                    cws.data_ptr(),
                    s0.data_ptr(),
                    s1.data_ptr(),
                    alpha & _MASK64,
                    alpha >> 64,
                    beta_ptr,
                )
            except RuntimeError as e:
                raise go_error(e) from None
            return made_key(self.params(), 0, s0, cws), made_key(self.params(), 1, s1, cws)
        beta = v.int32_tensor("beta", beta, (4,), "(4,)")
        batch = tuple(beta.shape[:-1])
        a = self._alphas(alpha, batch)
        if self._device(beta, *a.tensors) is v.CPU:
            # One call into the core, which draws the seeds and writes each party's
            # into memory of its own (see _own): no copies of them here.
            s0, s1 = (_pool.empty(beta, (*batch, 4)) for _ in (0, 1))
            cws = _pool.empty(beta, (*batch, *self._cws_tail))
            if k := math.prod(batch):
                args = (
                    s0.data_ptr(),
                    s1.data_ptr(),
                    a.ptr,
                    a.words,
                    a.lo,
                    a.hi,
                    beta.data_ptr(),
                    k,
                )
                self._call(lib.KeyGens, v.CPU, cws, args, work=k * self.in_bits)
            return Key(self.params(), 0, s0, cws), Key(self.params(), 1, s1, cws)
        seeds = _random_int32((*batch, 2, 4)).to(beta.device)
        cws = self.gen(seeds, alpha, beta)
        k0, k1 = (Key(self.params(), p, _own(seeds[..., p, :]), cws) for p in (0, 1))
        return k0, k1

    def eval_key(self, key: Key, x) -> torch.Tensor:
        """eval() with a Key (made for this scheme's parameters)."""
        self._check_key(key)
        return self.eval(key.party, key.s0, key.cws, x)

    def eval_all_key(
        self, key: Key, *, start: int | None = None, stop: int | None = None
    ) -> torch.Tensor:
        """eval_all() with a Key (made for this scheme's parameters)."""
        self._check_key(key)
        return self.eval_all(key.party, key.s0, key.cws, start=start, stop=stop)


def _into(result: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
    """result, holding what the core wrote into dst (a temporary when result's own
    address was not aligned for the core)."""
    if dst is not result:
        result.copy_(dst)
    return result


def _address(t: torch.Tensor | None) -> int:
    return 0 if t is None else t.data_ptr()


def _own(seeds: torch.Tensor) -> torch.Tensor:
    """A party's seeds in contiguous memory of their own. A view into the tensor of
    both parties' seeds would carry the other party's seeds along wherever its
    storage goes: torch.save, pickling and torch.multiprocessing send a tensor's
    whole storage."""
    return seeds.clone(memory_format=torch.contiguous_format)


def _random_int32(shape: tuple) -> torch.Tensor:
    n = math.prod(shape)
    if not n:
        return torch.empty(shape, dtype=torch.int32)  # frombuffer refuses an empty buffer
    return torch.frombuffer(bytearray(os.urandom(4 * n)), dtype=torch.int32).reshape(shape)


class Dpf(_Scheme):
    """Distributed point function: f(x) = beta if x == alpha else 0.

    Args:
        in_bits: input width, 1..128.
        group: output group: "bytes" (XOR), "uint32", "uint64", "uint127" (addition
            mod 2^32, 2^64, 2^127), or "uint" (fss_crypto's choice by in_bits).
        prg: "chacha" or "aes128_mmo".
        nonce: ChaCha nonce, two int32 (default DEFAULT_NONCE); chacha only.
        aes_keys: two 16-byte AES-128 keys (default DEFAULT_AES_KEYS[:2]); aes128_mmo
            only.
        impl: the CPU walk implementation, one of IMPLS; None (the default) for the
            fastest that serves the parameters on this CPU. All give the same results.
    """

    def __init__(
        self,
        in_bits: int,
        group: str = "bytes",
        prg: str = "chacha",
        *,
        nonce=None,
        aes_keys=None,
        impl: str | None = None,
    ):
        super().__init__("dpf", in_bits, group, prg, nonce, aes_keys, impl)


class HalfTreeDpf(_Scheme):
    """Half-Tree distributed point function (Guo et al., EUROCRYPT 2023): f(x) = beta
    if x == alpha else 0, like Dpf, with one hash per tree node; a key is
    cw_rows = (in_bits + 2) // 2 rows of correction words (in_bits + 1 blocks, two to
    a row). Runs on CPU and CUDA tensors, as Dpf does.

    Arguments as for Dpf (aes_keys: one key, default DEFAULT_AES_KEYS[:1]), plus
    hash_key: the public key of its hash, a (4,) int32 tensor or 4 ints (default
    DEFAULT_HASH_KEY).
    """

    def __init__(
        self,
        in_bits: int,
        group: str = "bytes",
        prg: str = "chacha",
        *,
        hash_key=None,
        nonce=None,
        aes_keys=None,
        impl: str | None = None,
    ):
        key = v.hash_key(hash_key)
        super().__init__("half_tree_dpf", in_bits, group, prg, nonce, aes_keys, impl, key)
        #: The hash key in use (4 int32 words).
        self.hash_key = tuple(self._go.params["hash_key"])

    def to_reference(self, cws: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The keys cws ((cw_rows, 8) int32, or (..., cw_rows, 8)) in the reference
        library's layout (the known-answer vectors'): (rows, ocw), rows (..., in_bits,
        8) int32 and the output correction words ocw (..., 4) int32, on cws' device."""
        cws = v.int32_tensor("cws", cws, self._cws_tail, self._cws_what)
        batch = tuple(cws.shape[:-2])
        host = v.dense(cws.cpu())  # a copy of words, made on the host
        rows = torch.empty(*batch, self.in_bits, 8, dtype=_INT32)
        ocw = torch.empty(*batch, 4, dtype=_INT32)
        if k := math.prod(batch):
            call(
                lib.HalfTreeToReference,
                self._handle,
                rows.data_ptr(),
                ocw.data_ptr(),
                host.data_ptr(),
                k,
            )
        return rows.to(cws.device), ocw.to(cws.device)

    def from_reference(self, rows: torch.Tensor, ocw: torch.Tensor) -> torch.Tensor:
        """The inverse of to_reference: the (..., cw_rows, 8) int32 keys whose reference
        layout is rows ((..., in_bits, 8) int32) and ocw ((..., 4) int32)."""
        rows = v.int32_tensor(
            "rows", rows, (self.in_bits, 8), f"(in_bits, 8) = ({self.in_bits}, 8)"
        )
        batch = tuple(rows.shape[:-2])
        ocw = v.int32_tensor("ocw", ocw, (4,), "(4,)")
        v.batch_match("ocw", ocw, batch, 1)
        v.device_of(rows, ocw)
        host_rows, host_ocw = v.dense(rows.cpu()), v.dense(ocw.cpu())
        cws = torch.empty(*batch, *self._cws_tail, dtype=_INT32)
        if k := math.prod(batch):
            call(
                lib.HalfTreeFromReference,
                self._handle,
                cws.data_ptr(),
                host_rows.data_ptr(),
                host_ocw.data_ptr(),
                k,
            )
        return cws.to(rows.device)


class Dcf(_Scheme):
    """Distributed comparison function: f(x) = beta if x < alpha (pred "lt") or
    x > alpha (pred "gt"), else 0, for unsigned in_bits-bit x.

    Arguments as for Dpf, plus pred; aes_keys are four keys (default DEFAULT_AES_KEYS).
    """

    def __init__(
        self,
        in_bits: int,
        group: str = "bytes",
        prg: str = "chacha",
        pred: str = "lt",
        *,
        nonce=None,
        aes_keys=None,
        impl: str | None = None,
    ):
        self.pred = v.choice("pred", pred, v.PREDS)
        super().__init__("dcf_" + pred, in_bits, group, prg, nonce, aes_keys, impl)

    def _repr_extra(self) -> str:
        return f", pred={self.pred!r}"


def load_key(data: bytes, device="cpu") -> tuple[_Base, Key]:
    """Loads a serialized key onto device and rebuilds the scheme it belongs to (Dpf,
    Dcf, HalfTreeDpf, GrottoDcf or Vdpf with the stored public parameters), e.g. in another
    process."""
    from ._grotto import GrottoDcf  # they build on this module
    from ._mpf import load_mpf

    key = Key.from_bytes(data, device)
    p = key.params
    kw = {
        "group": p["group"],
        "prg": p["prg"],
        "nonce": p["nonce"],
        "aes_keys": None if p["aes_keys"] is None else [bytes.fromhex(h) for h in p["aes_keys"]],
    }
    if p["scheme"] == "dpf":
        return Dpf(p["in_bits"], **kw), key
    if p["scheme"] == "half_tree_dpf":
        return HalfTreeDpf(p["in_bits"], hash_key=p["hash_key"], **kw), key
    if p["scheme"] in ("dmpf", "vdmpf"):
        return load_mpf(p, kw), key
    if p["scheme"] == "vdpf":
        from ._vdpf import Vdpf  # it builds on this module

        keys = {k: w for k, w in p["hash"].items() if k != "name"}
        return Vdpf(p["in_bits"], hash=p["hash"]["name"], hash_keys=keys, **kw), key
    if p["scheme"] == "grotto_dcf":
        del kw["group"]
        return GrottoDcf(p["in_bits"], **kw), key
    return Dcf(p["in_bits"], pred=p["scheme"].removeprefix("dcf_"), **kw), key
