"""The Wallis product and the Wallis integrals.

    P_N = Π_{k=1}^{N} 4k² / (4k² − 1) = (2·2)/(1·3) · (4·4)/(3·5) · …  →  π/2
    W_n = ∫₀^{π/2} sinⁿx dx,   W_n = (n − 1)/n · W_{n−2},   W_0 = π/2,   W_1 = 1

The proof the course follows: sinⁿx decreases with n on [0, π/2], so
W_{2N+2} ≤ W_{2N+1} ≤ W_{2N}; the recurrence gives W_{2N+1}/W_{2N} = (2/π)·P_N and
W_{2N+2}/W_{2N} = (2N+1)/(2N+2) → 1, hence P_N → π/2. Legend: N factors, n exponent.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy
from numpy.typing import NDArray

Array = NDArray[np.float64]
MAX_N = 10**7
MAX_EXACT_N = 200
MAX_INTEGRAL_N = 2000


def _check_n(n: int, lo: int, hi: int, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise ValueError(f"{what} must be a whole number, got {n!r}")
    if not lo <= n <= hi:
        raise ValueError(f"{what} must be between {lo} and {hi:,}, got {n}")
    return int(n)


def wallis_partial_products(n: int) -> Array:
    """``P_1 … P_n`` in float64, ``P_N = Π_{k≤N} 4k²/(4k²−1)``, shape ``(n,)``.

    Summed as logarithms (``log1p`` of the small excess ``1/(4k²−1)``), so 10⁵ factors
    cost one vectorised pass and lose no accuracy to a long running product.

    >>> wallis_partial_products(2).round(6).tolist()
    [1.333333, 1.422222]
    """
    n = _check_n(n, 1, MAX_N, "n")
    k = np.arange(1, n + 1, dtype=np.float64)
    # 4k²/(4k²−1) = 1 + 1/(4k²−1)
    return np.exp(np.cumsum(np.log1p(1.0 / (4.0 * k * k - 1.0))))


def wallis_partial_product_exact(n: int) -> Fraction:
    """``P_n`` as an exact fraction (small n only: the digits grow with n).

    >>> wallis_partial_product_exact(2)
    Fraction(64, 45)
    """
    n = _check_n(n, 1, MAX_EXACT_N, "n for the exact fraction")
    p = Fraction(1)
    for k in range(1, n + 1):
        p *= Fraction(4 * k * k, 4 * k * k - 1)
    return p


def wallis_integral(n: int) -> sympy.Expr:
    """``W_n = ∫₀^{π/2} sinⁿx dx`` exactly, by the recurrence ``W_n = (n−1)/n · W_{n−2}``.

    A rational for odd n, a rational multiple of π for even n.

    >>> wallis_integral(2), wallis_integral(3)
    (pi/4, 2/3)
    """
    n = _check_n(n, 0, MAX_INTEGRAL_N, "n")
    W = sympy.pi / 2 if n % 2 == 0 else sympy.Integer(1)
    for m in range(2 + n % 2, n + 1, 2):  # W_m = (m − 1)/m · W_{m−2}
        W = W * sympy.Rational(m - 1, m)
    return W


def wallis_integral_float(n: int | Array) -> Array:
    """``W_n`` in float64 for any n ≥ 0 (also arrays), ``W_n = √π/2 · Γ((n+1)/2) / Γ(n/2+1)``."""
    n = np.asarray(n, dtype=np.float64)
    if np.any(n < 0):
        raise ValueError("n must be at least 0")
    lg = np.vectorize(math.lgamma, otypes=[np.float64])
    return 0.5 * math.sqrt(math.pi) * np.exp(lg((n + 1) / 2) - lg(n / 2 + 1))


def sandwich(N: int) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
    """``(W_{2N+2}, W_{2N+1}, W_{2N})`` exactly: the squeeze that proves the product."""
    N = _check_n(N, 0, (MAX_INTEGRAL_N - 2) // 2, "N")
    return wallis_integral(2 * N + 2), wallis_integral(2 * N + 1), wallis_integral(2 * N)


def sandwich_integrands(x: Array, N: int) -> Array:
    """``sin^{2N} x``, ``sin^{2N+1} x``, ``sin^{2N+2} x`` at the points ``x``, shape
    ``(3, len(x))``: the integrands of :func:`sandwich`'s ``W_{2N}``, ``W_{2N+1}``,
    ``W_{2N+2}`` (in that order), nested on [0, π/2]."""
    N = _check_n(N, 0, (MAX_INTEGRAL_N - 2) // 2, "N")
    s = np.sin(np.asarray(x, dtype=np.float64))
    return np.stack([s ** (2 * N + j) for j in range(3)])
