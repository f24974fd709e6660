"""SharedTensor: one party's additive share of a fixed-point tensor in Z_2^64.

A real v is held as the int64 round(v 2^f) (f = frac_bits), shared additively. Sums
and public integer factors are local; a product of two fixed-point values carries 2f
fractional bits, so it is truncated by f after:
- "local" (SecureML, Mohassel and Zhang 2017): party 0 shifts its share, party 1
  negates, shifts and negates back; no message. For a product z with |z| < 2^l the
  result is floor(z / 2^f) or one more, except with probability at most 2^(l+1-64)
  (when the shares' sum wraps around 2^64), when it is wrong by about 2^(64-f);
- "exact": the Truncate gate (one round, a key from the dealer): floor(z / 2^f) for
  every z in the ring.
Shared operands multiply with Beaver triples from the dealer: open e = x - a and
f = y - b together (one round), then z = e f + e b + a f + c.
"""

from __future__ import annotations

import functools
import math
import numbers

import torch
import torch.nn.functional as F

from .._ring import share
from .._validate import choice, integer, is_bool
from ..gates import DReLU, ReLU, Truncate, _describe
from . import _approx
from ._dealer import RING, Request, _pair, _shape

DEFAULT_FRAC_BITS = 16
TRUNCATIONS = ("local", "exact")
#: What max pooling pads with: below every value whose comparisons are exact.
_PAD_MIN = -(1 << 62)


def _frac_bits(value) -> int:
    f = integer("frac_bits", value)
    if not 0 <= f <= 62:
        raise ValueError(f"frac_bits must be in [0, 62], got {f}")
    return f


def encode(x, frac_bits: int = DEFAULT_FRAC_BITS) -> torch.Tensor:
    """round(x 2^frac_bits) as int64: x a number or a tensor (floats are rounded,
    integers shifted), within (-2^(63 - frac_bits), 2^(63 - frac_bits))."""
    f = _frac_bits(frac_bits)
    t = torch.as_tensor(x)
    if t.dtype == torch.bool or t.is_complex():
        raise TypeError(f"x must hold real numbers, got {t.dtype}")
    if t.is_floating_point():
        scaled = torch.round(t.double() * 2.0**f)
        bad = ~torch.isfinite(scaled) | (scaled.abs() >= 2.0**63)
    else:
        scaled = t.to(torch.int64)
        bad = (scaled >= 1 << (63 - f)) | (scaled < -(1 << (63 - f)))
    if bad.any():
        raise ValueError(
            f"x holds values outside the fixed-point range (-2^{63 - f}, 2^{63 - f}) of "
            f"{f} fractional bits (or NaN)"
        )
    return scaled.to(torch.int64) if t.is_floating_point() else scaled << f


def decode(t: torch.Tensor, frac_bits: int = DEFAULT_FRAC_BITS) -> torch.Tensor:
    """The reals (float64) of int64 fixed-point values t."""
    if not isinstance(t, torch.Tensor) or t.dtype != RING:
        raise TypeError(f"t must be an int64 tensor, got {_describe(t)}")
    return t.double() / 2.0 ** _frac_bits(frac_bits)


@functools.cache
def _gate(kind, *params):
    """One gate object per kind and parameters: its schemes and fingerprint are made once."""
    return kind(*params)


class SharedTensor:
    """One party's share of a fixed-point tensor.

    Args:
        party: the pyfss.mpc.Party computing with it (its dealer gives triples and keys).
        share: this party's int64 share.
        frac_bits: fractional bits of the encoding (default 16).
        truncation: "local" (default) or "exact", after products (see the module).
    """

    def __init__(
        self, party, share: torch.Tensor, *, frac_bits=DEFAULT_FRAC_BITS, truncation="local"
    ):
        if not (hasattr(party, "party") and hasattr(party, "open")):
            raise TypeError(f"party must be a pyfss.mpc.Party, got {type(party).__name__}")
        if not isinstance(share, torch.Tensor) or share.dtype != RING:
            raise TypeError(f"share must be an int64 tensor, got {_describe(share)}")
        self.party, self.share = party, share
        self.frac_bits = _frac_bits(frac_bits)
        self.truncation = choice("truncation", truncation, TRUNCATIONS)

    @classmethod
    def from_secret(
        cls,
        party,
        value=None,
        *,
        owner: int = 0,
        frac_bits=DEFAULT_FRAC_BITS,
        truncation="local",
        generator: torch.Generator | None = None,
    ) -> SharedTensor:
        """Shares the owner's value (encoded; the other party passes None): the owner
        sends the other a uniform share, after its shape (two messages, no round)."""
        if party.party == owner:
            mine, theirs = share(encode(value, frac_bits), generator)
            party.send_bytes(torch.tensor(theirs.shape, dtype=torch.int64).numpy().tobytes())
            party.send(theirs)
        else:
            if value is not None:
                raise ValueError(f"value must be None for party {party.party}: owner is {owner}")
            shape = torch.frombuffer(bytearray(party.recv_bytes()), dtype=torch.int64)
            mine = party.recv(shape.tolist(), RING)
        return cls(party, mine, frac_bits=frac_bits, truncation=truncation)

    @classmethod
    def from_public(
        cls, party, value, *, frac_bits=DEFAULT_FRAC_BITS, truncation="local"
    ) -> SharedTensor:
        """A public value as shares: party 0 holds its encoding, party 1 zeros."""
        t = encode(value, frac_bits)
        return cls(
            party,
            t if party.party == 0 else torch.zeros_like(t),
            frac_bits=frac_bits,
            truncation=truncation,
        )

    def _like(self, share: torch.Tensor) -> SharedTensor:
        return SharedTensor(self.party, share, frac_bits=self.frac_bits, truncation=self.truncation)

    # -- shape ---------------------------------------------------------------------

    @property
    def shape(self) -> torch.Size:
        return self.share.shape

    def dim(self) -> int:
        return self.share.dim()

    def numel(self) -> int:
        return self.share.numel()

    def reshape(self, *shape) -> SharedTensor:
        return self._like(self.share.reshape(*shape))

    def view(self, *shape) -> SharedTensor:
        return self._like(self.share.view(*shape))

    def transpose(self, dim0: int, dim1: int) -> SharedTensor:
        return self._like(self.share.transpose(dim0, dim1))

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> SharedTensor:
        return self._like(self.share.flatten(start_dim, end_dim))

    def sum(self, dim=None, keepdim: bool = False) -> SharedTensor:
        s = self.share.sum() if dim is None else self.share.sum(dim, keepdim=keepdim)
        return self._like(s)

    def __getitem__(self, index) -> SharedTensor:
        return self._like(self.share[index])

    # -- arithmetic ------------------------------------------------------------------

    def _public(self, other, name: str = "other") -> tuple[torch.Tensor, bool] | None:
        """A public operand as a ring tensor on the share's device, and whether it is
        encoded (floats are, with frac_bits; integers stay integers), or None if it is
        no number or tensor."""
        if is_bool(other):
            raise TypeError(f"{name} must be a number or a numeric tensor, got bool")
        if isinstance(other, numbers.Integral) or (
            isinstance(other, torch.Tensor) and not other.is_floating_point()
        ):
            return torch.as_tensor(other).to(RING).to(self.share.device), False
        if isinstance(other, (numbers.Real, torch.Tensor)):
            return encode(other, self.frac_bits).to(self.share.device), True
        return None

    def _same(self, other: SharedTensor) -> None:
        if other.party is not self.party:
            raise ValueError("both operands must be shares of the same party")
        if other.frac_bits != self.frac_bits:
            raise ValueError(
                f"operands have {self.frac_bits} and {other.frac_bits} fractional bits"
            )

    def _public_share(self, t: torch.Tensor) -> torch.Tensor:
        """This party's share of the public t: t for party 0, zeros for party 1."""
        return t if self.party.party == 0 else torch.zeros_like(t)

    def _add_public(self, t: torch.Tensor) -> torch.Tensor:
        return self.share + self._public_share(t)

    def __add__(self, other) -> SharedTensor:
        if isinstance(other, SharedTensor):
            self._same(other)
            return self._like(self.share + other.share)
        pub = self._public(other)
        if pub is None:
            return NotImplemented
        t, encoded = pub
        return self._like(self._add_public(t if encoded else t << self.frac_bits))

    __radd__ = __add__

    def __neg__(self) -> SharedTensor:
        return self._like(-self.share)

    def __sub__(self, other) -> SharedTensor:
        return self + (-other)

    def __rsub__(self, other) -> SharedTensor:
        return (-self) + other

    def _product(self, other, request, op, swap: bool = False) -> SharedTensor:
        """self op other (other op self if swap): Beaver for a SharedTensor, local
        for a public operand; truncated after a fixed-point product."""
        if isinstance(other, SharedTensor):
            self._same(other)
            x, y = (other, self) if swap else (self, other)
            return self._like(self._beaver(x.share, y.share, request(x.shape, y.shape))).truncate()
        pub = self._public(other)
        if pub is None:
            return NotImplemented
        t, encoded = pub
        z = self._like(op(t, self.share) if swap else op(self.share, t))
        return z.truncate() if encoded else z

    def _beaver(self, x: torch.Tensor, y: torch.Tensor, request: Request) -> torch.Tensor:
        triple, masked = self._beaver_masks(x, y, request)
        return self._beaver_product(triple, self._open_all(masked), request)

    def _beaver_masks(self, x: torch.Tensor, y: torch.Tensor, request: Request):
        """The triple for x op y and the shares of e = x - a and f = y - b to open."""
        t = self.party.fetch(request)
        return t, [x - t["a"], y - t["b"]]

    def _beaver_product(self, t: dict, opened: list, request: Request) -> torch.Tensor:
        """This party's share of x op y from the opened e and f."""
        e, f = opened
        z = request.apply(e, t["b"]) + request.apply(t["a"], f) + t["c"]
        return z + request.apply(e, f) if self.party.party == 0 else z

    def _open_all(self, shares: list) -> list:
        """Opens several share tensors in one round (one message each way)."""
        opened = self.party.open(torch.cat([t.flatten() for t in shares]))
        parts = opened.split([t.numel() for t in shares])
        return [o.view(t.shape) for o, t in zip(parts, shares)]

    def __mul__(self, other) -> SharedTensor:
        return self._product(other, Request.mul, torch.mul)

    def __rmul__(self, other) -> SharedTensor:
        return self._product(other, Request.mul, torch.mul, swap=True)

    def __matmul__(self, other) -> SharedTensor:
        return self._product(other, Request.matmul, torch.matmul)

    def __rmatmul__(self, other) -> SharedTensor:
        return self._product(other, Request.matmul, torch.matmul, swap=True)

    def linear(self, weight, bias=None) -> SharedTensor:
        """self @ weight.T + bias (torch.nn.functional.linear), weight (out, in) and
        bias (out,) shared or public."""
        w = (
            weight.transpose(0, 1)
            if isinstance(weight, SharedTensor)
            else torch.as_tensor(weight).T
        )
        y = self @ w
        return y if bias is None else y + bias

    def conv2d(self, weight, bias=None, stride=1, padding=0) -> SharedTensor:
        """torch.nn.functional.conv2d of self (N, C, H, W) with weight (O, C, kH, kW)
        and bias (O,), shared or public."""
        request = functools.partial(Request.conv2d, stride=stride, padding=padding)
        op = functools.partial(F.conv2d, stride=stride, padding=padding)
        y = self._product(weight, request, op)
        if bias is None:
            return y
        return y + (
            bias.reshape(-1, 1, 1)
            if isinstance(bias, SharedTensor)
            else torch.as_tensor(bias).reshape(-1, 1, 1)
        )

    def truncate(self, method: str | None = None) -> SharedTensor:
        """The value divided by 2^frac_bits (after a product): method "local" or
        "exact" (default: this tensor's truncation)."""
        method = choice("method", self.truncation if method is None else method, TRUNCATIONS)
        f = self.frac_bits
        if f == 0:
            return self
        if method == "exact":
            return self._like(self._run(_gate(Truncate, f), self.share))
        s = self.share
        return self._like(s >> f if self.party.party == 0 else -((-s) >> f))

    # -- gates ---------------------------------------------------------------------

    def _run(self, gate, x: torch.Tensor) -> torch.Tensor:
        return gate.run(self.party, self.party.gate_key(gate, x.shape), x)

    def relu(self) -> SharedTensor:
        """max(x, 0) with the ReLU gate (one round)."""
        return self._like(self._run(_gate(ReLU), self.share))

    def _nonnegative(self, d: SharedTensor) -> SharedTensor:
        """1{d >= 0} (as 1.0 / 0.0) with the DReLU gate (one round)."""
        return self._like(self._run(_gate(DReLU), d.share) << self.frac_bits)

    def __ge__(self, other) -> SharedTensor:
        return self._nonnegative(self - other)

    def __le__(self, other) -> SharedTensor:
        return self._nonnegative(-self + other)

    def __lt__(self, other) -> SharedTensor:
        return 1 - (self >= other)

    def __gt__(self, other) -> SharedTensor:
        return 1 - (self <= other)

    # -- maxima and pooling ------------------------------------------------------------

    def max(self, dim: int | None = None, keepdim: bool = False) -> SharedTensor:
        """The largest element (dim=None) or the largest along dim, by a tournament:
        ceil(log2 n) rounds, one ReLU gate per pair (see _tournament)."""
        return self._reduce(dim, keepdim, index=False)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> SharedTensor:
        """The index of the largest element (of the flattened tensor for dim=None) or
        along dim, as a fixed-point value (reveal() gives 3.0 for index 3). Among equal
        maxima the first index, as torch.argmax. ceil(log2 n) + 1 rounds (1 for n = 2,
        0 for n = 1): indices of the second level on are selected with Beaver products,
        opened with the next level's comparisons and once more at the end."""
        return self._reduce(dim, keepdim, index=True)

    def _reduce(self, dim, keepdim: bool, index: bool) -> SharedTensor:
        x = self.share
        if dim is None:
            out = self._tournament(x.reshape(-1), index)
            return self._like(out.reshape([1] * x.dim() if keepdim else []))
        d = integer("dim", dim)
        if not -max(x.dim(), 1) <= d < max(x.dim(), 1):
            raise ValueError(f"dim must be in [{-max(x.dim(), 1)}, {max(x.dim(), 1)}), got {d}")
        if x.dim() == 0:
            return self._like(self._tournament(x.reshape(1), index).reshape(()))
        out = self._tournament(x.movedim(d, -1), index)
        return self._like(out.movedim(-1, d) if keepdim else out.squeeze(-1))

    def _tournament(self, v: torch.Tensor, index: bool) -> torch.Tensor:
        """Shares of the maximum of v's last dim (or of its index, encoded), that dim
        kept with size 1. Each level pairs neighbours (a, b) and runs one ReLU gate on
        a - b: b + ReLU(a - b) is the larger, and the gate's DReLU bit c = 1{a >= b}
        says which (the left one on a tie, so the first index wins); an odd last one
        goes on as it is. The indices follow c: b_i + c (a_i - b_i), local while they
        are public (first level), then a Beaver product of the bit (an integer, so no
        truncation) opened together with the next level's gate."""
        if v.shape[-1] == 0:
            raise ValueError("max and argmax need a non-empty dimension to reduce")
        gate = _gate(ReLU)
        idx = torch.arange(v.shape[-1], dtype=RING, device=v.device).expand(v.shape)
        idx = idx << self.frac_bits
        public = True  # idx, until the first selection
        pending = None  # (c, ia - ib, ib, rest): indices waiting for the product c (ia - ib)
        while v.shape[-1] > 1 or pending is not None:
            to_open, key = [], None
            if v.shape[-1] > 1:
                a, b, rest = _pairs(v)
                key = self.party.gate_key(gate, a.shape)
                to_open.append(gate.mask(key, a - b))
            if pending is not None:
                c, diff, ib, irest = pending
                request = Request.mul(c.shape, diff.shape)
                triple, masks = self._beaver_masks(c, diff, request)
                to_open += masks
            opened = self._open_all(to_open)
            if pending is not None:
                chosen = ib + self._beaver_product(triple, opened[-2:], request)
                idx, pending = torch.cat([chosen, irest], -1), None
            if key is None:
                break
            c, top = gate.eval_both(self.party.party, key, opened[0])
            v = torch.cat([b + top, rest], -1)
            if index:
                ia, ib, irest = _pairs(idx)
                if public:
                    chosen = self._public_share(ib) + c * (ia - ib)
                    idx, public = torch.cat([chosen, self._public_share(irest)], -1), False
                else:
                    pending = (c, ia - ib, ib, irest)
        # Still public only for n = 1, where index 0 is its own share (0 + 0).
        return idx.contiguous() if index else v

    def _windows(self, kernel_size, stride, padding, fill: int) -> tuple[torch.Tensor, tuple]:
        """The share's pooling windows, (..., H', W', kH, kW), padded with the public
        fill, and (kernel_size, stride, padding) as pairs."""
        if self.dim() not in (3, 4):
            raise ValueError(f"pooling takes (N, C, H, W) or (C, H, W), got shape {self.shape}")
        k = _pair("kernel_size", kernel_size)
        s = k if stride is None else _pair("stride", stride)
        p = _pair("padding", padding)
        if min(k) < 1 or min(s) < 1 or min(p) < 0 or p[0] > k[0] // 2 or p[1] > k[1] // 2:
            raise ValueError(
                f"kernel_size and stride must be positive and padding at most half the "
                f"kernel, got kernel_size={k}, stride={s}, padding={p}"
            )
        x = self.share
        if min(x.shape[-2] + 2 * p[0] - k[0], x.shape[-1] + 2 * p[1] - k[1]) < 0:
            raise ValueError(f"kernel_size {k} is larger than the padded input {tuple(x.shape)}")
        value = fill if self.party.party == 0 else 0
        x = F.pad(x, (p[1], p[1], p[0], p[0]), value=value)
        return x.unfold(-2, k[0], s[0]).unfold(-2, k[1], s[1]), (k, s, p)

    def max_pool2d(self, kernel_size, stride=None, padding=0) -> SharedTensor:
        """torch.nn.functional.max_pool2d (no dilation, floor mode) of self, (N, C, H,
        W) or (C, H, W): max over each window. Padding counts as -2^62 in the ring,
        below every value (they must lie above it, as comparisons need anyway)."""
        windows, _ = self._windows(kernel_size, stride, padding, _PAD_MIN)
        return self._like(self._tournament(windows.flatten(-2), False).squeeze(-1))

    def avg_pool2d(
        self, kernel_size, stride=None, padding=0, count_include_pad: bool = True
    ) -> SharedTensor:
        """torch.nn.functional.avg_pool2d (floor mode): each window's sum, local, times
        the public 1 / (its size), encoded and truncated as a product by a public float
        (0 rounds, or 1 with exact truncation). count_include_pad=False divides by the
        window's elements inside the input."""
        windows, (k, s, p) = self._windows(kernel_size, stride, padding, 0)
        total = self._like(windows.sum((-1, -2)))
        if count_include_pad or p == (0, 0):
            return total * (1.0 / (k[0] * k[1]))
        ones = torch.ones(self.shape[-2:], dtype=torch.float64, device=self.share.device)
        inside = F.pad(ones, (p[1], p[1], p[0], p[0]))
        count = inside.unfold(0, k[0], s[0]).unfold(1, k[1], s[1]).sum((-1, -2))
        return total * (1.0 / count)

    # -- non-linear functions ----------------------------------------------------------

    def _spline(self, approx: _approx.Approx, *also) -> tuple[SharedTensor, list]:
        """approx of self by its Spline gate, and the results of the gates in also on
        self's share: their inputs opened in one round, then the spline's output
        truncated to frac_bits by the Truncate gate (a second round)."""
        f = self.frac_bits
        if not _approx.FRAC_BITS_RANGE[0] <= f <= _approx.FRAC_BITS_RANGE[1]:
            raise ValueError(
                f"{approx.name} needs frac_bits in [{_approx.FRAC_BITS_RANGE[0]}, "
                f"{_approx.FRAC_BITS_RANGE[1]}], got {f}"
            )
        gate, shift = _approx.spline(approx, f)
        run = [gate, *also]
        keys = [self.party.gate_key(g, self.shape) for g in run]
        opened = self._open_all([g.mask(k, self.share) for g, k in zip(run, keys)])
        outs = [g.eval(self.party.party, k, o) for g, k, o in zip(run, keys, opened)]
        return self._like(self._run(_gate(Truncate, shift), outs[0])), outs[1:]

    def exp(self) -> SharedTensor:
        """e^x for x in [-16, 0], what softmax needs after subtracting the maximum: 0
        below -16 (e^-16 is 1.1e-7), 1 above 0 (clamped). 2 rounds (docs/mpc.md)."""
        return self._spline(_approx.EXP)[0]

    def sigmoid(self) -> SharedTensor:
        """1 / (1 + e^-x), clamped to 0 below -16 and to 1 above 16. 2 rounds."""
        return self._spline(_approx.SIGMOID)[0]

    def tanh(self) -> SharedTensor:
        """2 sigmoid(2x) - 1 (the doubling is exact): clamped to -1 and 1 outside
        [-8, 8], twice sigmoid's error. 2 rounds."""
        return (self * 2).sigmoid() * 2 - 1

    def gelu(self) -> SharedTensor:
        """x Phi(x) (torch's exact GELU) as relu(x) - g(x), g(x) = |x| Phi(-|x|) (even,
        small, 0 past |x| = 8, as in SIGMA): the ReLU and g's Spline gate open their
        input together. For every x; 2 rounds."""
        gap, (relu,) = self._spline(_approx.GELU_GAP, _gate(ReLU))
        return self._like(relu) - gap

    def reciprocal(self) -> SharedTensor:
        """1 / x for x in [2^-10, 2^14]: a piecewise-linear guess within 5% (Spline
        gate), then two Newton steps y (2 - x y). 0 for x outside (0 and negative x
        included). 2 + 4 rounds with local truncation."""
        y = self._spline(_approx.RECIPROCAL)[0]
        for _ in range(2):
            y = y * (2 - self * y)
        return y

    def rsqrt(self) -> SharedTensor:
        """1 / sqrt(x) for x in [2^-10, 2^14]: a piecewise-linear guess within 2%
        (Spline gate), then two Newton steps y (1.5 - ((x y) y) / 2), multiplied in
        this order so that every product keeps its precision (x y is about sqrt(x),
        (x y) y about 1). 0 for x outside. 2 + 6 rounds with local truncation."""
        y = self._spline(_approx.RSQRT)[0]
        for _ in range(2):
            y = y * (1.5 - ((self * y) * y) * 0.5)
        return y

    def softmax(self, dim: int) -> SharedTensor:
        """exp(x - max) / sum along dim: the max by a tournament, exp on [-16, 0],
        the sum's reciprocal (the sum lies in [1, n]) and one product."""
        e = (self - self.max(dim, keepdim=True)).exp()
        return e * e.sum(dim, keepdim=True).reciprocal()

    def layer_norm(self, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
        """torch.nn.functional.layer_norm over the last dims (normalized_shape):
        (x - mean) rsqrt(var + eps) weight + bias, weight and bias shared or public.
        var + eps must lie in rsqrt's range [2^-10, 2^14]."""
        one = isinstance(normalized_shape, numbers.Integral)
        shape = _shape("normalized_shape", (normalized_shape,) if one else normalized_shape)
        if not shape or tuple(self.shape[-len(shape) :]) != shape:
            raise ValueError(
                f"normalized_shape must be the input's last dims, got {shape} for an input "
                f"of shape {tuple(self.shape)}"
            )
        if not isinstance(eps, numbers.Real) or not eps >= 0:
            raise ValueError(f"eps must be a non-negative number, got {eps!r}")
        dims = tuple(range(-len(shape), 0))
        scale = 1.0 / math.prod(shape)
        c = self - self.sum(dims, keepdim=True) * scale
        y = c * ((c * c).sum(dims, keepdim=True) * scale + eps).rsqrt()
        if weight is not None:
            y = y * weight
        return y if bias is None else y + bias

    # -- revealing -------------------------------------------------------------------

    def reveal_ring(self, to: int | None = None) -> torch.Tensor | None:
        """The int64 encoding, opened: to both parties (to=None, one round) or to party
        ``to`` only (the other sends its share and gets None)."""
        if to is None:
            return self.party.open(self.share)
        if integer("to", to) not in (0, 1):
            raise ValueError(f"to must be 0, 1 or None, got {to}")
        self.party._count(rounds=1)
        if self.party.party != to:
            self.party.send(self.share)
            return None
        return self.share + self.party.recv(self.shape, RING, self.share.device)

    def reveal(self, to: int | None = None) -> torch.Tensor | None:
        """The value (float64), opened as reveal_ring does."""
        t = self.reveal_ring(to)
        return None if t is None else decode(t, self.frac_bits)

    def __repr__(self) -> str:
        return (
            f"SharedTensor(party={self.party.party}, shape={tuple(self.shape)}, "
            f"frac_bits={self.frac_bits}, truncation={self.truncation!r})"
        )


def _pairs(t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """t's last dim as the left and right elements of neighbouring pairs, and the odd
    last one (or nothing)."""
    even = t.shape[-1] // 2 * 2
    return t[..., 0:even:2], t[..., 1:even:2], t[..., even:]
