"""FSS gates on additively shared integers: the constructions of Boyle, Gilboa and
Ishai et al., "Function Secret Sharing for Mixed-Mode and Fixed-Point Secure
Computation" (EUROCRYPT 2021), over the ring Z_2^N of int32 (N = 32) or int64
(N = 64) tensors, whose arithmetic wraps exactly as the ring does.

Every gate works the same way (the masked-input style):
- offline, ``gate.deal(shape)`` draws a uniform input mask r per element and makes both
  parties' key material (a GateKey each: additive shares of r and of whatever the gate
  needs, plus DCF/DPF keys, in one batched gen per key width);
- online, party b sends ``gate.mask(key, x_b) = x_b + r_b``; both add the two to open
  x^ = x + r, uniform whatever x is (one round, N/8 bytes per element each way), and
  ``gate.eval(b, key, x^)`` gives the party's additive share of f(x), with one batched
  eval of each key. ``gate.run(party, key, x_b)`` does both with a pyfss.mpc.Party.

Results are exact for every x in Z_2^N, wrap-around of x + r included. The building
block is one DCF key D with threshold r (D(y) shares 1{y < r}, y unsigned), which gives
1{x < c} for any public c in [0, 2^N] from two evaluations:

    1{x < c} = D(x^ - c) - D(x^) + 1{x^ < c}          (x, x^ unsigned, mod 2^N)

since the x^ with x < c are the cyclic interval [r, r + c). Signed x use x + 2^(N-1),
whose masked value is x^ + 2^(N-1) under the same mask. docs (README, "Gates") list
rounds and key sizes per gate.

The dealer draws from ``generator`` (a torch.Generator: reproducible, for tests and
examples, not cryptographic) or, by default, from os.urandom. A dealer must be a
third party (or be replaced by a two-party key generation): whoever holds both
GateKeys can unmask everything. A GateKey is for one input: evaluating it on x and
x' opens x + r and x' + r, whose difference is x - x'. It evaluates only on a gate
with the public parameters it was dealt for (its ``fingerprint``).
"""

from __future__ import annotations

import hashlib
import io
import math
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import torch

from ._groups import from_int, to_int
from ._params import PRGS
from ._ring import random_ring
from ._ring import tensor_bytes as _tensor_bytes
from ._schemes import Dcf, Dpf, _own
from ._validate import choice, integer
from ._validate import party as _party

__all__ = [
    "BitDecompose",
    "DReLU",
    "Equal",
    "Gate",
    "GateKey",
    "IntervalContainment",
    "LessThan",
    "LookupTable",
    "ReLU",
    "Spline",
    "Truncate",
]

_RINGS = {torch.int32: 32, torch.int64: 64}

#: Largest lookup-table domain: the table's 2^bits entries are read per element.
MAX_LUT_BITS = 20


@dataclass(frozen=True)
class GateKey:
    """One party's key material for one gate over a tensor of elements: additive shares
    (``r``, the input mask, and others) and DCF/DPF keys (``<name>.s0``, this party's
    seeds, and ``<name>.cws``, the correction words both parties hold); ``fingerprint``
    is the dealing gate's (Gate.fingerprint), which the evaluating gate must share.

    Built or loaded, a key's fields are checked (see _check_material): the names' types,
    the party, and the tensors' dtypes, shapes (each starting with r's) and device;
    the gate that evaluates it then checks its tensors against its own layout."""

    gate: str
    party: int
    tensors: dict
    fingerprint: str

    def __post_init__(self):
        for field in ("gate", "fingerprint"):
            if not isinstance(getattr(self, field), str):
                got = type(getattr(self, field)).__name__
                raise TypeError(f"GateKey.{field} must be a str, got {got}")
        object.__setattr__(self, "party", _party(self.party))  # a numpy int becomes an int
        _check_material(self)

    def __getitem__(self, name: str) -> torch.Tensor:
        if name not in self.tensors:
            raise ValueError(f"the {self.gate!r} key material has no tensor {name!r}")
        return self.tensors[name]

    @property
    def shape(self) -> tuple:
        return tuple(self.tensors["r"].shape)

    @property
    def nbytes(self) -> int:
        """Bytes of the tensors: what the dealer sends this party, without framing."""
        return sum(t.numel() * t.element_size() for t in self.tensors.values())

    def to(self, device) -> GateKey:
        """The key on another device (its dtypes are the gate's and stay)."""
        if isinstance(device, torch.dtype):
            raise TypeError("GateKey.to takes a device: the key's dtypes are its gate's")
        device = torch.device(device)
        tensors = {k: t.to(device) for k, t in self.tensors.items()}
        return GateKey(self.gate, self.party, tensors, self.fingerprint)

    def to_bytes(self) -> bytes:
        """The key material as torch.save bytes (loadable with weights_only)."""
        buf = io.BytesIO()
        cpu = {k: t.cpu() for k, t in self.tensors.items()}
        fields = {"gate": self.gate, "party": self.party, "fingerprint": self.fingerprint}
        torch.save({**fields, "tensors": cpu}, buf)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, device="cpu") -> GateKey:
        try:
            d = torch.load(io.BytesIO(data), map_location=device, weights_only=True)
        except Exception as e:  # noqa: BLE001 (corrupt bytes raise all kinds in torch.load)
            raise ValueError(f"data is not GateKey.to_bytes() output: {e}") from None
        if type(d) is not dict or sorted(d) != ["fingerprint", "gate", "party", "tensors"]:
            raise ValueError("data is not GateKey.to_bytes() output: wrong fields")
        try:
            return cls(d["gate"], d["party"], d["tensors"], d["fingerprint"])
        except (TypeError, ValueError, RuntimeError) as e:  # bytes from outside: bad data
            raise ValueError(f"data is not GateKey.to_bytes() output: {e}") from None


class _Dealer:
    """Collects both parties' tensors while a gate deals."""

    def __init__(self, gate: Gate, generator, device):
        self.gate, self.generator = gate, generator
        self.device = torch.device(device)
        self.parts: tuple[dict, dict] = ({}, {})

    def ring(self, shape: tuple, dtype: torch.dtype | None = None) -> torch.Tensor:
        """Uniform ring elements (or int32 words)."""
        return random_ring(shape, dtype or self.gate.ring, self.generator, self.device)

    def share(self, name: str, value: torch.Tensor) -> None:
        """Additive shares of value, one to each party."""
        v0 = self.ring(tuple(value.shape))
        self.parts[0][name], self.parts[1][name] = v0, value - v0

    def key(self, name: str, alpha: torch.Tensor, beta=1) -> None:
        """The batch of keys the gate declares as name (alpha's shape) with payloads
        beta (ring values or an int, broadcast)."""
        scheme = self.gate._material[name].scheme
        batch = tuple(alpha.shape)
        seeds = self.ring((*batch, 2, 4), torch.int32)
        beta = torch.as_tensor(beta, dtype=self.gate.ring).to(self.device)
        payload = from_int(beta.expand(batch).contiguous(), self.gate.group)
        cws = scheme.gen(seeds, _point(alpha, scheme.in_bits), payload)
        for b in (0, 1):
            self.parts[b][name + ".s0"] = _own(seeds[..., b, :])
            self.parts[b][name + ".cws"] = cws


class _Keys(NamedTuple):
    """A batch of DCF or DPF keys per element in a gate's key material: the scheme and
    the batch's shape beyond the elements' (r's) shape."""

    scheme: Dcf | Dpf
    batch: tuple = ()


class Gate:
    """What every gate shares: the ring, the PRG, deal / mask / eval / run.

    Args:
        ring: torch.int32 (Z_2^32) or torch.int64 (Z_2^64), the dtype of shares.
        prg: the PRG of the DCF/DPF keys, "aes128_mmo" (default) or "chacha".
    """

    name = "gate"

    def __init__(self, ring: torch.dtype = torch.int64, prg: str = "aes128_mmo"):
        if ring not in _RINGS:
            raise TypeError(f"ring must be torch.int32 or torch.int64, got {ring}")
        self.ring, self.bits, self.prg = ring, _RINGS[ring], choice("prg", prg, PRGS)
        self.group = f"uint{self.bits}"
        self.top = self.const(1 << (self.bits - 1))  # -2^(N-1): signed x + 2^(N-1) is x ^ top
        self._schemes: dict = {}
        self._fingerprint: str | None = None

    def _public(self) -> tuple:
        """The gate's own public parameters (ints, bools and ring tensors), beyond its
        name, ring and PRG."""
        return ()

    def _tensors(self) -> dict:
        """The key material beside r: name -> a share's shape beyond r's (ring values)
        or _Keys. deal and eval take their schemes from it, and keys are checked
        against it."""
        raise NotImplementedError

    @cached_property
    def _material(self) -> dict:
        """_tensors(), made once (its schemes are the gate's own)."""
        return self._tensors()

    @cached_property
    def _layout(self) -> dict:
        """Every tensor of this gate's keys: name -> (dtype, shape beyond r's)."""
        layout = {"r": (self.ring, ())}
        for name, spec in self._material.items():
            if isinstance(spec, _Keys):
                rows = spec.scheme._cws_tail
                layout[name + ".s0"] = (torch.int32, (*spec.batch, 4))
                layout[name + ".cws"] = (torch.int32, (*spec.batch, *rows))
            else:
                layout[name] = (self.ring, spec)
        return layout

    @property
    def fingerprint(self) -> str:
        """A digest of the gate's kind and public parameters, which the keys it deals
        carry: a key evaluates only on a gate with the same (another one's would give
        wrong shares, not an error)."""
        if self._fingerprint is None:
            h = hashlib.sha256()
            for p in (self.name, self.bits, self.prg, *self._public()):
                h.update(_tensor_bytes(p) if isinstance(p, torch.Tensor) else repr(p).encode())
                h.update(b"\0")
            self._fingerprint = h.hexdigest()[:32]
        return self._fingerprint

    def _dcf(self, in_bits: int) -> Dcf:
        if ("dcf", in_bits) not in self._schemes:
            self._schemes["dcf", in_bits] = Dcf(in_bits, self.group, self.prg, "lt")
        return self._schemes["dcf", in_bits]

    def _dpf(self, in_bits: int) -> Dpf:
        if ("dpf", in_bits) not in self._schemes:
            self._schemes["dpf", in_bits] = Dpf(in_bits, self.group, self.prg)
        return self._schemes["dpf", in_bits]

    def _eval_key(self, party: int, key: GateKey, name: str, points: torch.Tensor):
        """Shares of the outputs of the keys declared as name at points (ring values
        taken mod 2^in_bits; their shape is the keys' batch shape plus points per key):
        a DCF's payload times 1{point < threshold}, a DPF's times 1{point == alpha}."""
        scheme = self._material[name].scheme
        s0, cws = key[name + ".s0"], key[name + ".cws"]
        return to_int(scheme.eval(party, s0, cws, _point(points, scheme.in_bits)), self.group)

    # -- the calls ---------------------------------------------------------------

    def deal(self, shape, *, generator: torch.Generator | None = None, device="cpu", mask=None):
        """The dealer's offline step for a tensor of the given shape: a fresh mask per
        element (or the given ``mask``, a ring tensor of that shape, for tests) and both
        parties' key material -> (GateKey, GateKey)."""
        shape = tuple(integer("shape", n) for n in shape)
        if any(n < 0 for n in shape):
            raise ValueError(f"shape must not hold negative sizes, got {shape}")
        d = _Dealer(self, generator, device)
        if mask is None:
            r = d.ring(shape)
        elif not isinstance(mask, torch.Tensor) or mask.dtype != self.ring:
            raise TypeError(f"mask must be a {self.ring} tensor, got {_describe(mask)}")
        elif tuple(mask.shape) != shape:
            raise ValueError(f"mask has shape {tuple(mask.shape)}, not {shape}")
        else:
            r = mask.to(d.device)
        d.share("r", r)
        self._deal(d, r)
        return tuple(GateKey(self.name, b, d.parts[b], self.fingerprint) for b in (0, 1))

    def mask(self, key: GateKey, x_share: torch.Tensor) -> torch.Tensor:
        """What party key.party sends the other: its share of x + r."""
        self._check_share(key, x_share)
        return x_share + key["r"]

    def eval(self, party: int, key: GateKey, xhat: torch.Tensor) -> torch.Tensor:
        """Party's share of f(x) from the opened x^ = x + r."""
        self._check(party, key, xhat)
        return self._eval(party, key, xhat)

    def _check(self, party: int, key: GateKey, xhat: torch.Tensor) -> None:
        if _party(party) != key.party:
            raise ValueError(f"party must be 0 or 1 and match the key's ({key.party}), got {party}")
        self._check_share(key, xhat)

    def run(self, party, key: GateKey, x_share: torch.Tensor) -> torch.Tensor:
        """mask, open with a pyfss.mpc.Party (one round), eval."""
        if not (hasattr(party, "party") and hasattr(party, "open")):
            raise TypeError(
                f"run takes a pyfss.mpc.Party (eval takes the party's index), got {_describe(party)}"
            )
        return self.eval(party.party, key, party.open(self.mask(key, x_share)))

    def _check_share(self, key: GateKey, t: torch.Tensor) -> None:
        if not isinstance(key, GateKey):
            raise TypeError(f"key must be a GateKey, got {type(key).__name__}")
        if key.gate != self.name:
            raise ValueError(f"key is for gate {key.gate!r}, not {self.name!r}")
        if key.fingerprint != self.fingerprint:
            raise ValueError(
                f"key was dealt by a {self.name!r} gate with other public parameters (ring, "
                "prg or the gate's own): its shares would be wrong here"
            )
        _check_material(key, self._layout)  # before any computation with it
        if not isinstance(t, torch.Tensor) or t.dtype != self.ring:
            raise TypeError(f"shares must be {self.ring} tensors, got {_describe(t)}")
        if tuple(t.shape) != key.shape:
            raise ValueError(f"shares have shape {tuple(t.shape)}, the key {key.shape}")

    def _deal(self, d: _Dealer, r: torch.Tensor) -> None:
        raise NotImplementedError

    def _eval(self, party: int, key: GateKey, xhat: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    # -- ring helpers --------------------------------------------------------------

    def const(self, v: int) -> int:
        """v mod 2^N as the signed value the ring dtype holds."""
        v = integer("value", v) % (1 << self.bits)
        return v - (1 << self.bits) if v >> (self.bits - 1) else v

    def _lrs(self, t: torch.Tensor, s: int) -> torch.Tensor:
        """Logical right shift by 0 < s < N (t read as unsigned)."""
        return (t >> s) & ((1 << (self.bits - s)) - 1)

    def _ult(self, a: torch.Tensor, b) -> torch.Tensor:
        """a < b as unsigned ring elements, as a 0/1 ring tensor."""
        return ((a ^ self.top) < (b ^ self.top)).to(self.ring)


class DReLU(Gate):
    """Shares of 1{x >= 0} (x signed). One DCF key of N - 1 input bits per element,
    evaluated once. msb(x) = msb(x^) XOR msb(r) XOR w with w = 1{x^' < r'} on the low
    N - 1 bits (the borrow into the top bit); the key's payload 1 - 2 msb(r) gives
    shares of G = (1 - 2s) w, and s XOR w = s + G."""

    name = "drelu"

    def _tensors(self):
        return {"s": (), "w": _Keys(self._dcf(self.bits - 1))}

    def _deal(self, d, r):
        s = (r < 0).to(self.ring)
        d.share("s", s)
        d.key("w", r, 1 - 2 * s)

    def _eval(self, party, key, xhat):
        g = self._eval_key(party, key, "w", xhat.unsqueeze(-1)).squeeze(-1)
        return _drelu(party, key, xhat, g)


class ReLU(Gate):
    """Shares of max(x, 0) (x signed), in the same round as DReLU: ReLU(x) = x^ * d -
    r * d with d = 1{x >= 0}; a second DCF key with payload r (1 - 2s) and shares of
    r * s give shares of r * d. Two DCF keys of N - 1 bits per element."""

    name = "relu"

    def _tensors(self):
        return {"s": (), "rs": (), "w": _Keys(self._dcf(self.bits - 1), (2,))}

    def _deal(self, d, r):
        s = (r < 0).to(self.ring)
        sign = 1 - 2 * s
        d.share("s", s)
        d.share("rs", r * s)
        pair = r.unsqueeze(-1).expand(*r.shape, 2)
        d.key("w", pair, torch.stack([sign, r * sign], -1))

    def eval_both(self, party: int, key: GateKey, xhat: torch.Tensor):
        """(shares of 1{x >= 0}, shares of ReLU(x))."""
        self._check(party, key, xhat)
        points = xhat.unsqueeze(-1).unsqueeze(-1).expand(*xhat.shape, 2, 1)
        y = self._eval_key(party, key, "w", points)
        g, rg = y[..., 0, 0], y[..., 1, 0]
        drelu = _drelu(party, key, xhat, g)
        flip = 1 - 2 * (xhat < 0).to(self.ring)
        r_drelu = (xhat >= 0).to(self.ring) * key["r"] - flip * (key["rs"] + rg)
        return drelu, xhat * drelu - r_drelu

    def _eval(self, party, key, xhat):
        return self.eval_both(party, key, xhat)[1]


class Equal(Gate):
    """Shares of 1{x == c} for a public c (default 0): one DPF key of N bits with
    point r, evaluated at x^ - c. Equality of two shared values x, y: run it on x - y
    (each party subtracts its shares locally)."""

    name = "equal"

    def __init__(self, c: int = 0, ring=torch.int64, prg="aes128_mmo"):
        super().__init__(ring, prg)
        self.c = self.const(c)

    def _public(self):
        return (self.c,)

    def _tensors(self):
        return {"k": _Keys(self._dpf(self.bits))}

    def _deal(self, d, r):
        d.key("k", r)

    def _eval(self, party, key, xhat):
        points = (xhat - self.c).unsqueeze(-1)
        return self._eval_key(party, key, "k", points).squeeze(-1)


class IntervalContainment(Gate):
    """Shares of 1{lo_i <= x <= hi_i} for m public intervals (multiple interval
    containment; m = 1 is interval containment), output shape (..., m). One DCF key of N
    bits per element (threshold r, payload 1), evaluated at 2m points:

        1{lo <= x <= hi} = D(x^ - hi - 1) - D(x^ - lo) + 1{x^ <= hi} - 1{x^ < lo}.

    Args:
        intervals: (lo, hi) pairs of ints, lo <= hi, inclusive.
        signed: bounds and x read as signed (default) or unsigned N-bit integers.
    """

    name = "interval"

    def __init__(self, intervals, ring=torch.int64, prg="aes128_mmo", *, signed: bool = True):
        super().__init__(ring, prg)
        self.signed = signed
        lo, hi = _bounds(intervals, self.bits, signed)
        # Unsigned bounds as ring values: lo, and hi + 1 (2^N wraps to 0, as it should).
        self._lo = torch.tensor([self.const(v) for v in lo], dtype=ring)
        self._end = torch.tensor([self.const(v + 1) for v in hi], dtype=ring)
        self._hi = torch.tensor([self.const(v) for v in hi], dtype=ring)

    def _public(self):
        return (self.signed, self._lo, self._hi)

    def _tensors(self):
        return {"d": _Keys(self._dcf(self.bits))}

    def _deal(self, d, r):
        d.key("d", r)

    def _selectors(self, party, key, xhat, name="d", payload_dims=0):
        """The D differences and the public correction 1{x^ <= hi} - 1{x^ < lo}, per
        interval: (..., m, *payload) and (..., m)."""
        xu = xhat ^ self.top if self.signed else xhat
        lo, end, hi = (t.to(xhat.device) for t in (self._lo, self._end, self._hi))
        xu = xu.unsqueeze(-1)
        points = torch.stack([xu - end, xu - lo], -1)  # (..., m, 2)
        if payload_dims:  # one key per interval and payload: (..., m, n, 2)
            points = points.unsqueeze(-2).expand(*key[name + ".s0"].shape[:-1], 2)
        y = self._eval_key(party, key, name, points)
        diff = y[..., 0] - y[..., 1]
        public = (1 - self._ult(hi, xu)) - self._ult(xu, lo)
        return diff, public

    def _eval(self, party, key, xhat):
        diff, public = self._selectors(party, key, xhat)
        return diff + public * (1 - party)


class LessThan(IntervalContainment):
    """Shares of 1{x < c} for a public c > the smallest value: containment in
    [min, c - 1] (same key, two evaluations)."""

    name = "less_than"

    def __init__(self, c: int, ring=torch.int64, prg="aes128_mmo", *, signed: bool = True):
        c, bits = integer("c", c), _RINGS.get(ring, 64)
        low = -(1 << (bits - 1)) if signed else 0
        if c <= low:
            raise ValueError(f"c must be above the smallest value {low}: 1{{x < {c}}} is 0")
        if c > low + (1 << bits):
            raise ValueError(f"c must be at most {low + (1 << bits)}: 1{{x < {c}}} is 1")
        super().__init__([(low, c - 1)], ring, prg, signed=signed)

    def _eval(self, party, key, xhat):
        return super()._eval(party, key, xhat)[..., 0]


class Spline(IntervalContainment):
    """Shares of f(x) = sum over intervals i containing x of P_i(x), P_i(x) = sum_k
    coeffs[i][k] x^k, computed exactly in Z_2^N (integer coefficients; for fixed point,
    truncate after). The dealer expands P_i(x^ - r) in powers of x^: its coefficients
    beta_ij depend on r, so they are DCF payloads (one key per interval and power,
    threshold r) and also shared additively; each key is evaluated at two points as in
    IntervalContainment, and a party adds up share(beta_ij 1{x in I_i}) x^^j."""

    name = "spline"

    def __init__(self, intervals, coeffs, ring=torch.int64, prg="aes128_mmo", *, signed=True):
        super().__init__(intervals, ring, prg, signed=signed)
        rows = [[self.const(a) for a in row] for row in _rows(coeffs)]
        if len(rows) != len(self._lo) or len({len(row) for row in rows}) != 1 or not rows[0]:
            raise ValueError("coeffs must have one row of degree + 1 ints per interval")
        self.coeffs = torch.tensor(rows, dtype=ring)  # (m, degree + 1)

    def _public(self):
        return (*super()._public(), self.coeffs)

    def _tensors(self):
        m, n = self.coeffs.shape
        return {"beta": (m, n), "d": _Keys(self._dcf(self.bits), (m, n))}

    def _deal(self, d, r):
        a = self.coeffs.to(r.device)
        m, n = a.shape
        beta = torch.zeros((*r.shape, m, n), dtype=self.ring, device=r.device)
        neg_r = (-r).unsqueeze(-1)
        for j in range(n):  # beta_ij = sum_k a_ik C(k, j) (-r)^(k - j)
            power = torch.ones_like(neg_r)
            for k in range(j, n):
                beta[..., j] += a[:, k] * self.const(math.comb(k, j)) * power
                power = power * neg_r
        d.share("beta", beta)
        d.key("d", r[..., None, None].expand(beta.shape), beta)

    def _eval(self, party, key, xhat):
        diff, public = self._selectors(party, key, xhat, payload_dims=1)  # (..., m, n)
        terms = diff + public.unsqueeze(-1) * key["beta"]
        powers = [torch.ones_like(xhat)]
        for _ in range(1, terms.shape[-1]):
            powers.append(powers[-1] * xhat)
        return (terms * torch.stack(powers, -1).unsqueeze(-2)).sum((-2, -1)).to(self.ring)


class LookupTable(Gate):
    """Shares of table[x mod 2^m] for a public table of 2^m integers (m <= 20; taken
    mod 2^N):
    one DPF key of m bits per element with point r mod 2^m, expanded over the domain
    (eval_all), then table[x] = sum_j 1{j == r} table[x^ - j]: 2^m work per element."""

    name = "lut"

    def __init__(self, table, ring=torch.int64, prg="aes128_mmo"):
        super().__init__(ring, prg)
        if not isinstance(table, torch.Tensor) and hasattr(table, "__array__"):
            table = torch.as_tensor(table)  # numpy: whole, not element by element
        if isinstance(table, torch.Tensor):
            if table.dtype == torch.bool or table.is_floating_point() or table.is_complex():
                raise TypeError(f"table must hold integers, got {table.dtype}")
            # A copy of the gate's own (the caller may reuse its tensor), wrapped mod 2^N.
            table = table.detach().cpu().to(torch.int64).to(ring, copy=True)
        else:
            table = torch.tensor([self.const(v) for v in table], dtype=ring)
        n = table.numel()
        if table.dim() != 1 or n < 2 or n & (n - 1) or n > 1 << MAX_LUT_BITS:
            raise ValueError(f"table must be 1-D with 2^m entries, 1 <= m <= {MAX_LUT_BITS}")
        self.table = table
        self.in_bits = n.bit_length() - 1

    def _public(self):
        return (self.table,)

    def _tensors(self):
        return {"k": _Keys(self._dpf(self.in_bits))}

    def _deal(self, d, r):
        low = r & ((1 << self.in_bits) - 1)
        d.key("k", low, torch.ones((), dtype=self.ring, device=r.device))

    def _eval(self, party, key, xhat):
        n = 1 << self.in_bits
        e = to_int(
            self._material["k"].scheme.eval_all(party, key["k.s0"], key["k.cws"]), self.group
        )
        j = torch.arange(n, device=xhat.device, dtype=self.ring)
        index = (xhat.unsqueeze(-1) - j) & (n - 1)
        return (e * self.table.to(xhat.device)[index.long()]).sum(-1).to(self.ring)


class Truncate(Gate):
    """Shares of x >> shift: arithmetic (x signed, default) or logical (unsigned).
    With x^ = H 2^s + L and r = R 2^s + Q (high and low parts), exactly:

        x >> s = H - R - 1{L < Q} + 2^(N-s) 1{x^ < r}          (logical, mod 2^N)

    so one DCF key of s bits (threshold Q) and one of N bits (threshold r, payload
    2^(N-s)) per element, plus shares of R. Arithmetic: (x + 2^(N-1)) >> s - 2^(N-1-s)."""

    name = "truncate"

    def __init__(self, shift: int, ring=torch.int64, prg="aes128_mmo", *, arithmetic=True):
        super().__init__(ring, prg)
        shift = integer("shift", shift)
        if not 0 < shift < self.bits:
            raise ValueError(f"shift must be in [1, {self.bits - 1}], got {shift}")
        self.shift, self.arithmetic = shift, bool(arithmetic)

    def _public(self):
        return (self.shift, self.arithmetic)

    def _tensors(self):
        return {"rhi": (), "low": _Keys(self._dcf(self.shift)), "wrap": _Keys(self._dcf(self.bits))}

    def _deal(self, d, r):
        s = self.shift
        d.share("rhi", self._lrs(r, s))
        d.key("low", r & ((1 << s) - 1))
        d.key("wrap", r, self.const(1 << (self.bits - s)))

    def _eval(self, party, key, xhat):
        s, n = self.shift, self.bits
        xu = xhat ^ self.top if self.arithmetic else xhat
        pts = xu.unsqueeze(-1)
        borrow = self._eval_key(party, key, "low", pts & ((1 << s) - 1)).squeeze(-1)
        wrap = self._eval_key(party, key, "wrap", pts).squeeze(-1)
        out = self._lrs(xu, s) * (1 - party) - key["rhi"] - borrow + wrap
        if self.arithmetic:
            out = out - self.const(1 << (n - 1 - s)) * (1 - party)
        return out


class BitDecompose(Gate):
    """Shares (in Z_2^N, each 0 or 1) of the low ``bits`` bits of x, output (...,
    bits), least significant first: bit_i = (x >> i) - 2 (x >> (i + 1)) with the
    logical shifts of Truncate, which share one N-bit key (threshold r). Keys per
    element: one DCF of i bits for each i in 1..min(bits, N - 1) and one of N bits."""

    name = "bits"

    def __init__(self, bits: int | None = None, ring=torch.int64, prg="aes128_mmo"):
        super().__init__(ring, prg)
        bits = self.bits if bits is None else integer("bits", bits)
        if not 0 < bits <= self.bits:
            raise ValueError(f"bits must be in [1, {self.bits}], got {bits}")
        self.out_bits = bits
        self._shifts = range(1, min(bits, self.bits - 1) + 1)

    def _public(self):
        return (self.out_bits,)

    def _tensors(self):
        low = {f"low{i}": _Keys(self._dcf(i)) for i in self._shifts}
        return {**low, "rhi": (len(self._shifts),), "wrap": _Keys(self._dcf(self.bits))}

    def _deal(self, d, r):
        for i in self._shifts:
            d.key(f"low{i}", r & ((1 << i) - 1))
        d.share("rhi", torch.stack([self._lrs(r, i) for i in self._shifts], -1))
        d.key("wrap", r)

    def _eval(self, party, key, xhat):
        pts = xhat.unsqueeze(-1)
        wrap = self._eval_key(party, key, "wrap", pts).squeeze(-1)
        shifted = [xhat * (1 - party) - key["r"]]  # x >> 0
        for n, i in enumerate(self._shifts):
            borrow = self._eval_key(party, key, f"low{i}", pts & ((1 << i) - 1)).squeeze(-1)
            hi = self._lrs(xhat, i) * (1 - party) - key["rhi"][..., n]
            shifted.append(hi - borrow + self.const(1 << (self.bits - i)) * wrap)
        if len(shifted) == self.out_bits:  # bits == N: x >> N is 0
            shifted.append(torch.zeros_like(xhat))
        return torch.stack([shifted[i] - 2 * shifted[i + 1] for i in range(self.out_bits)], -1)


_SEEDS, _CWS = ".s0", ".cws"


def _check_material(key: GateKey, layout: dict | None = None) -> None:
    """Refuses key material that would give wrong shares (torch broadcasts a tensor of
    another shape, and computes in another dtype, without a word), naming the tensor:
    TypeError for a wrong type, dtype or shape, ValueError for a tensor missing or
    unknown, RuntimeError for tensors on different devices.

    layout is the evaluating gate's (Gate._layout): exactly its tensors, each of its
    dtype and of r's shape followed by its own. Without it (a key built or loaded),
    what every gate's keys share: r an int32 or int64 tensor, the shares of r's dtype,
    seeds (name.s0) and correction words (name.cws) int32, in pairs of one batch shape,
    (..., 4) and (..., rows, 8), every shape starting with r's."""
    tensors = key.tensors
    if type(tensors) is not dict:
        raise TypeError(f"GateKey.tensors must be a dict of tensors, got {type(tensors).__name__}")
    r = tensors.get("r")
    if not isinstance(r, torch.Tensor) or r.dtype not in _RINGS:
        if "r" not in tensors:
            raise ValueError(f"the {key.gate!r} key material has no tensor 'r'")
        raise TypeError(f"key tensor 'r' must be an int32 or int64 tensor, got {_describe(r)}")
    if layout is not None:
        for name in layout:
            if name not in tensors:
                raise ValueError(f"the {key.gate!r} key material has no tensor {name!r}")
        if len(tensors) != len(layout):
            extra = sorted(repr(name) for name in tensors if name not in layout)
            raise ValueError(
                f"the {key.gate!r} key material has unknown tensors {', '.join(extra)}"
            )
    front = tuple(r.shape)
    for name, t in tensors.items():
        if type(name) is not str:
            raise TypeError(f"GateKey.tensors' names must be str, got {name!r:.40}")
        if layout is not None:
            dtype, tail = layout[name]
        else:
            dtype, tail = (torch.int32 if name.endswith((_SEEDS, _CWS)) else r.dtype), None
        if not isinstance(t, torch.Tensor) or t.dtype != dtype:
            raise TypeError(f"key tensor {name!r} must be a {dtype} tensor, got {_describe(t)}")
        if t.layout != torch.strided:
            raise TypeError(f"key tensor {name!r} must be a dense tensor, got layout {t.layout}")
        if t.device != r.device:
            raise RuntimeError(
                f"Expected all tensors to be on the same device: key tensor {name!r} is on "
                f"{t.device}, r on {r.device}"
            )
        shape = tuple(t.shape)
        if tail is not None and shape != (*front, *tail):
            raise TypeError(f"key tensor {name!r} must have shape {(*front, *tail)}, got {shape}")
        if shape[: len(front)] != front:
            raise TypeError(
                f"key tensor {name!r} has shape {shape}, which must start with r's {front}"
            )
    if layout is None:
        _check_pairs(key.gate, tensors, len(front))


def _check_pairs(gate: str, tensors: dict, dims: int) -> None:
    """Each name.s0 (..., 4) has its name.cws (..., rows, 8) of the same batch shape,
    which holds r's dims dimensions and maybe more."""
    for name, t in tensors.items():
        if name.endswith(_SEEDS):
            base = name[: -len(_SEEDS)]
        elif name.endswith(_CWS):
            base = name[: -len(_CWS)]
        else:
            continue
        seeds, cws = tensors.get(base + _SEEDS), tensors.get(base + _CWS)
        if seeds is None or cws is None:
            missing = base + (_SEEDS if seeds is None else _CWS)
            raise ValueError(f"the {gate!r} key material has no tensor {missing!r}")
        if t is seeds and (seeds.dim() <= dims or seeds.shape[-1] != 4):
            raise TypeError(f"key tensor {name!r} must have shape (..., 4), got {tuple(t.shape)}")
        if t is cws and (cws.dim() != seeds.dim() + 1 or cws.shape[-1] != 8):
            raise TypeError(
                f"key tensor {name!r} must have shape (..., rows, 8) with the batch shape of "
                f"{base + _SEEDS!r}, {tuple(seeds.shape[:-1])}, got {tuple(t.shape)}"
            )
        if t is cws and cws.shape[:-2] != seeds.shape[:-1]:
            raise TypeError(
                f"key tensor {name!r} has batch shape {tuple(cws.shape[:-2])}, but "
                f"{base + _SEEDS!r} has {tuple(seeds.shape[:-1])}"
            )


def _drelu(party: int, key: GateKey, xhat: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """Shares of 1{x >= 0} = 1 - (p XOR s XOR w), p = msb(x^), from shares of s = msb(r)
    and of G = (1 - 2s) w."""
    p = (xhat < 0).to(xhat.dtype)
    return (1 - p) * (1 - party) - (1 - 2 * p) * (key["s"] + g)


def _point(t: torch.Tensor, in_bits: int) -> torch.Tensor:
    """Ring values mod 2^in_bits in the form the DCF/DPF take as alpha and x: int64
    (in_bits <= 63) or little-endian words (in_bits 64)."""
    if in_bits <= 63:
        return t.to(torch.int64) & ((1 << in_bits) - 1)
    # resolve_neg: a negative view's memory holds its values negated, and view() reads memory
    pairs = t.to(torch.int64).resolve_neg().contiguous().unsqueeze(-1).view(torch.int32)
    return torch.cat([pairs, torch.zeros_like(pairs)], -1)


def _bounds(intervals, bits: int, signed: bool) -> tuple[list[int], list[int]]:
    """Interval bounds as unsigned N-bit ints (signed ones shifted by 2^(N-1))."""
    low = -(1 << (bits - 1)) if signed else 0
    lo_u, hi_u = [], []
    try:
        pairs = [(integer("lo", lo), integer("hi", hi)) for lo, hi in intervals]
    except (TypeError, ValueError):
        raise TypeError("intervals must be (lo, hi) pairs of ints") from None
    if not pairs:
        raise ValueError("intervals must not be empty")
    for lo, hi in pairs:
        if not low <= lo <= hi < low + (1 << bits):
            kind = "signed" if signed else "unsigned"
            raise ValueError(f"interval ({lo}, {hi}) is not lo <= hi within {kind} {bits}-bit ints")
        lo_u.append(lo - low)
        hi_u.append(hi - low)
    return lo_u, hi_u


def _rows(coeffs) -> list:
    if isinstance(coeffs, torch.Tensor):
        coeffs = coeffs.tolist()
    try:
        return [list(row) for row in coeffs]
    except TypeError:
        raise TypeError("coeffs must be rows of ints, one row per interval") from None


def _describe(t) -> str:
    return f"a {t.dtype} tensor" if isinstance(t, torch.Tensor) else type(t).__name__
