"""Piecewise-polynomial approximations for SharedTensor's non-linear functions, each
evaluated with one Spline gate (Boyle et al., EUROCRYPT 2021) and one Truncate gate.

An Approx names a function, a grid of candidate breakpoints, a degree and a target
error. Its pieces are chosen greedily from the left: each piece is the widest run of
the grid on which a weighted least-squares fit (numpy, on 129 evenly spaced points)
stays within the target on 513 points (absolute error, or relative to |f| for
``relative``). Fitting is deterministic and done once per Approx and frac_bits.

In the ring, a piece's polynomial sum_k a_k v^k of the real v = x / 2^f becomes the
integer polynomial sum_k round(a_k 2^(T - k f)) x^k, which the Spline gate computes
exactly; its value carries T fractional bits, T as large as the function's peak
allows (below 2^61), and the Truncate gate shifts it back to f bits. Adding
2^(T - f - 1) to the constant rounds to nearest. Left of the grid the result is 0;
right of it the constant ``above`` (0 needs no piece).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from ..gates import Spline

# numpy is imported where a fit is made, not with pyfss: the rest of the package, the
# demo included, runs without it.
if TYPE_CHECKING:
    import numpy as np
    from numpy.polynomial import Polynomial

#: Frac bits the fits are made for: more would leave the x^2 coefficients too few bits.
FRAC_BITS_RANGE = (8, 20)


@dataclass(frozen=True)
class Approx:
    name: str
    fn: Callable[[torch.Tensor], torch.Tensor]  # float64 in, float64 out
    grid: tuple  # candidate breakpoints, increasing
    degree: int
    tol: float
    relative: bool = False
    above: float = 0.0

    def __call__(self, v: np.ndarray) -> np.ndarray:
        return self.fn(torch.from_numpy(v)).numpy()


def _uniform(lo: float, hi: float, step: float = 1 / 64) -> tuple:
    return tuple(lo + i * step for i in range(round((hi - lo) / step) + 1))


def _octaves(lo: int, hi: int, per: int = 4) -> tuple:
    """2^(k / per) for k from lo per to hi per: relative steps for 1/x and 1/sqrt(x)."""
    return tuple(2.0 ** (k / per) for k in range(lo * per, hi * per + 1))


def _gelu_gap(v: torch.Tensor) -> torch.Tensor:
    """relu(v) - gelu(v) = |v| Phi(-|v|): even, at most 0.17, below 1e-15 past |v| = 8."""
    a = v.abs()
    return a * 0.5 * torch.special.erfc(a / math.sqrt(2))


EXP = Approx("exp", torch.exp, _uniform(-16, 0), 2, 5e-5, above=1.0)
SIGMOID = Approx("sigmoid", torch.sigmoid, _uniform(-16, 16), 2, 5e-5, above=1.0)
GELU_GAP = Approx("gelu", _gelu_gap, _uniform(-8, 8), 2, 5e-5)
#: Initial guesses for Newton's iterations, within 5% and 2% of the value.
RECIPROCAL = Approx("reciprocal", torch.reciprocal, _octaves(-10, 14), 1, 0.05, relative=True)
RSQRT = Approx("rsqrt", torch.rsqrt, _octaves(-10, 14), 1, 0.02, relative=True)


def _fit(approx: Approx, lo: float, hi: float) -> tuple[Polynomial, float]:
    """The weighted least-squares polynomial on [lo, hi] and its largest error."""
    import numpy as np
    from numpy.polynomial import Polynomial

    v = np.linspace(lo, hi, 129)
    y = approx(v)
    p = Polynomial.fit(v, y, approx.degree, w=1 / np.abs(y) if approx.relative else None)
    p = p.convert()
    check = np.linspace(lo, hi, 513)
    want = approx(check)
    err = np.abs(p(check) - want)
    return p, float((err / np.abs(want) if approx.relative else err).max())


@functools.cache
def pieces(approx: Approx) -> tuple:
    """((lo, hi, polynomial), ...): the greedy pieces covering approx's grid."""
    grid, out, i = approx.grid, [], 0
    while i < len(grid) - 1:
        lo, hi = i + 1, len(grid) - 1  # the furthest end within tol, by bisection
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _fit(approx, grid[i], grid[mid])[1] <= approx.tol:
                lo = mid
            else:
                hi = mid - 1
        out.append((grid[i], grid[lo], _fit(approx, grid[i], grid[lo])[0]))
        i = lo
    return tuple(out)


@functools.cache
def spline(approx: Approx, frac_bits: int) -> tuple[Spline, int]:
    """The Spline gate of approx for inputs with frac_bits fractional bits, and the
    shift that brings its output back to frac_bits."""
    import numpy as np

    f = frac_bits
    parts = pieces(approx)
    peak = max(
        abs(approx.above),
        *(float(np.abs(p(np.linspace(lo, hi, 513))).max()) for lo, hi, p in parts),
    )
    t = 60 - max(0, math.ceil(math.log2(peak)))  # T: |output| 2^T below 2^61
    half = 1 << (t - f - 1)  # rounds to nearest after the shift by T - f
    intervals, coeffs = [], []
    for n, (lo, hi, p) in enumerate(parts):
        last = n == len(parts) - 1
        intervals.append((round(lo * 2**f), round(hi * 2**f) - (0 if last else 1)))
        a = list(p.coef) + [0.0] * (approx.degree + 1 - len(p.coef))
        coeffs.append(
            [round(c * 2.0 ** (t - k * f)) + (half if k == 0 else 0) for k, c in enumerate(a)]
        )
    if approx.above:
        intervals.append((intervals[-1][1] + 1, (1 << 63) - 1))
        coeffs.append([round(approx.above * 2.0**t) + half] + [0] * approx.degree)
    return Spline(intervals, coeffs), t - f
