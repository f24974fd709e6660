"""GrottoDcf: bit shares of x >= alpha from DPF keys, evaluated through each key's
preprocessed form (docs/spec.md section 12), on CPU or CUDA tensors.

Like the tree schemes, each operation reads its arguments (pyfss._validate),
allocates its output, checks tensor contents itself on CUDA (the core checks them on
the CPU) and makes one call into the core through _Base._call. On CUDA, eval_all is
preprocess followed by an unpacking of the bits.
"""

from __future__ import annotations

import math

import torch

from . import _cuda, _pool
from . import _validate as v
from ._ext import lib
from ._keys import Key
from ._schemes import _address, _Base, _own, _random_int32


class GrottoDcf(_Base):
    """Grotto distributed comparison function (Storrier et al., CCS 2023): XOR shares,
    as torch.bool, of 1{x >= alpha} for unsigned in_bits-bit x.

    Keys are DPF keys of group bytes and beta zero: seeds (4,) int32 per party and
    (in_bits + 1, 8) int32 correction words. A party evaluates its key through its
    preprocessed form (preprocess): (parity_words,) int64, bit x & 63 of word x >> 6
    its share at x, so that a point costs one lookup.

    Args:
        in_bits: input width, 1..40 (a preprocessed key holds a bit per input).
        prg: "chacha" or "aes128_mmo".
        nonce: ChaCha nonce, two int32 (default DEFAULT_NONCE); chacha only.
        aes_keys: two 16-byte AES-128 keys (default DEFAULT_AES_KEYS[:2]); aes128_mmo
            only.
    """

    def __init__(self, in_bits: int, prg: str = "chacha", *, nonce=None, aes_keys=None):
        super().__init__("grotto_dcf", in_bits, "bytes", prg, nonce, aes_keys, None)
        #: The int64 words of one preprocessed key: ceil(2^in_bits / 64).
        self.parity_words = self._go.parity_words
        self._pre_what = f"(parity_words,) = ({self.parity_words},)"

    def __repr__(self) -> str:
        return f"GrottoDcf({self.in_bits}, prg={self.prg!r})"

    def gen(self, s0s: torch.Tensor, alpha) -> torch.Tensor:
        """Generates keys from both parties' seeds: s0s (2, 4) int32, or (..., 2, 4);
        alpha an int or a tensor of the batch shape (input forms as for Dpf.eval's x).
        Returns (in_bits + 1, 8) int32 correction words, or (..., in_bits + 1, 8)."""
        s0s = v.int32_tensor("s0s", s0s, (2, 4), "(2, 4)")
        batch = tuple(s0s.shape[:-2])
        a = self._alphas(alpha, batch)
        device = self._device(s0s, *a.tensors)
        cws = _pool.empty(s0s, (*batch, *self._cws_tail))
        if k := math.prod(batch):
            if device is not v.CPU:
                a = a.on_device(device, batch)
                v.gen_contents("bytes", self.in_bits, s0s, a, None)
            args = (s0s.data_ptr(), a.ptr, a.words, a.lo, a.hi, k)
            self._call(lib.GrottoGen, device, cws, args, work=k * self.in_bits)
        return cws

    def preprocess(self, party: int, s0: torch.Tensor, cws: torch.Tensor) -> torch.Tensor:
        """One party's preprocessed key(s): s0 (4,) int32 and cws (in_bits + 1, 8)
        int32, or (..., 4) and (..., in_bits + 1, 8). Returns (parity_words,) int64,
        or (..., parity_words): its shares at every input, a bit each."""
        party = v.party(party)
        s0, cws, batch = self._key_tensors(s0, cws)
        device = self._device(s0, cws)
        k = math.prod(batch)
        v.memory_for(
            8 * k * self.parity_words, f"preprocess of {k} x 2^{self.in_bits} bits", device
        )
        pre = _pool.empty(s0, (*batch, self.parity_words), torch.int64)
        if k := math.prod(batch):
            scratch = None
            if device is not v.CPU:
                v.eval_contents("dpf", self.in_bits, cws, None)
                scratch = _cuda.scratch(self._handle, "preprocess", k, 0, device)
            args = (party, s0.data_ptr(), k, cws.data_ptr(), _address(scratch))
            self._call(lib.GrottoPreprocess, device, pre, args, work=k << self.in_bits)
        return pre

    def eval(self, pre: torch.Tensor, x) -> torch.Tensor:
        """Shares of 1{x >= alpha} from preprocessed keys pre ((parity_words,) int64,
        or (..., parity_words)) at x: an int, or a tensor whose shape starts with the
        keys' batch shape (forms as for Dpf.eval). Returns torch.bool of shape x's
        shape (batch + points); the parties' shares XOR to the comparison."""
        pre, batch = self._pre(pre)
        xs = self._points("x", x, batch)
        device = self._device(pre, *xs.tensors)
        y = _pool.empty(pre, xs.shape if xs.tensor is not None else batch, torch.bool)
        if n := y.numel():
            k = math.prod(batch)
            if device is not v.CPU:
                xs = xs.on_device(device, batch)
                v.grotto_points("x", xs, self.in_bits)
            args = (pre.data_ptr(), k, xs.ptr, xs.words, xs.lo, xs.hi, n // k)
            self._call(lib.GrottoEval, device, y, args, work=n)
        return y

    def eval_interval(self, pre: torch.Tensor, lo, hi) -> torch.Tensor:
        """Shares of 1{lo <= alpha <= hi} from preprocessed keys pre (as for eval). lo
        and hi are as eval's x, tensors of the same shape if both are tensors, with lo
        <= hi. Returns torch.bool of the bounds' shape (batch + intervals)."""
        pre, batch = self._pre(pre)
        los, his = self._points("lo", lo, batch), self._points("hi", hi, batch)
        shapes = {tuple(b.shape) for b in (los, his) if b.tensor is not None}
        if len(shapes) > 1:
            raise TypeError(
                f"lo and hi must have the same shape, got {' and '.join(map(str, shapes))}"
            )
        device = self._device(pre, *los.tensors, *his.tensors)
        shape = shapes.pop() if shapes else batch
        y = _pool.empty(pre, shape, torch.bool)
        if n := y.numel():
            k = math.prod(batch)
            if device is not v.CPU:
                # Both bounds as tensors of the intervals' shape, a scalar repeated.
                los, his = (_spread(b, device, batch, shape) for b in (los, his))
                v.grotto_intervals(los, his, self.in_bits)
            args: tuple = (pre.data_ptr(), k, los.ptr, los.words, los.lo, los.hi)
            args += (his.ptr, his.words, his.lo, his.hi, n // k)
            self._call(lib.GrottoEvalInterval, device, y, args, work=n)
        return y

    def eval_all(self, party: int, s0: torch.Tensor, cws: torch.Tensor) -> torch.Tensor:
        """One party's shares at every x in [0, 2^in_bits), in order, from its key(s)
        (as for preprocess). Returns (2^in_bits,) torch.bool, or (..., 2^in_bits)."""
        party = v.party(party)
        s0, cws, batch = self._key_tensors(s0, cws)
        device = self._device(s0, cws)
        k, n = math.prod(batch), self.in_bits
        v.memory_for(k << n, f"eval_all of {k} x 2^{n} outputs", device)
        if device is not v.CPU:
            # Bit x & 7 of byte x >> 3 of the preprocessed keys, bytes in order.
            pre = self.preprocess(party, s0, cws).view(torch.uint8)
            pre = pre.reshape(*batch, self.parity_words * 8, 1)
            bits = pre >> torch.arange(8, dtype=torch.uint8, device=device) & 1
            return bits.reshape(*batch, -1)[..., : 1 << n].view(torch.bool).contiguous()
        y = _pool.empty(s0, (*batch, 1 << n), torch.bool)
        if k:
            args = (party, s0.data_ptr(), k, cws.data_ptr())
            self._call(lib.GrottoEvalAll, device, y, args, work=k << n)
        return y

    def keygen(self, alpha) -> tuple[Key, Key]:
        """Generates a key pair (or a batch of pairs: alpha a tensor of the batch
        shape, whose device the keys go to) with seeds from os.urandom; returns the two
        parties' keys."""
        a = v.inputs("alpha", alpha, self.in_bits)
        device = a.tensor.device if a.tensor is not None else v.CPU
        seeds = _random_int32((*a.shape, 2, 4)).to(device)
        cws = self.gen(seeds, alpha)
        k0, k1 = (Key(self.params(), p, _own(seeds[..., p, :]), cws) for p in (0, 1))
        return k0, k1

    def _pre(self, pre) -> tuple[torch.Tensor, tuple]:
        pre = v.int64_tensor("pre", pre, self.parity_words, self._pre_what)
        return pre, tuple(pre.shape[:-1])


def _spread(bounds: v.Inputs, device: torch.device, batch: tuple, shape: tuple) -> v.Inputs:
    """Interval bounds as a dense tensor of the intervals' shape on device: a scalar
    (one bound per key) becomes (batch..., 4) words, then repeated over the intervals."""
    bounds = bounds.on_device(device, batch)
    tail = (4,) if bounds.words == 4 else ()
    t = bounds.tensor
    if tuple(bounds.shape) != tuple(shape):
        t = t.reshape(*batch, *(1,) * (len(shape) - len(batch)), *tail).expand(*shape, *tail)
    return v.Inputs(t.contiguous(), bounds.words, 0, 0, shape)
