"""The statistics behind the pages' sampling badges, and how often they cry wolf.

A badge such as "mean within 4 standard errors" tests random draws against a formula, so
even a correct implementation fails it now and then. The rate is part of the claim: a page
says how often a correct result shows ✗, computed here, and ``tests/core/test_stats.py``
checks each rate by simulation.

- ``normal_pdf``, ``normal_cdf``: the Gaussian N(mean, var).
- ``two_sided_tail(k)`` = P(|Z| > k) for Z ~ N(0, 1).
- ``any_fails(p, checks)`` = 1 − (1 − p)^checks: a badge made of several independent checks.
- ``variance_within(x, target, k)``: the sample variance of ``x`` within k standard errors.
- ``kolmogorov_tail(x)`` = P(√n·D > x) for large n (Kolmogorov's limit distribution).
- ``ks_distance_normal(draws, mean, var)``: the Kolmogorov–Smirnov distance to N(mean, var).
- ``normal_moments(draws, mean, var)``: sample mean and variance against N(mean, var), with
  their standard errors under that normal (``SampleMoments.within(k)``).
- ``histogram_density(draws, edges)``: a histogram scaled so that all the draws have area 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from core.arrays import Array
from core.validation import positive, positive_int


def normal_pdf(x: ArrayLike, mean: float, var: float) -> Array:
    """Density of N(mean, var) at ``x``."""
    v = positive(var, "variance")
    z = np.asarray(x, dtype=np.float64) - mean
    return np.exp(-(z**2) / (2 * v)) / math.sqrt(2 * math.pi * v)


def normal_cdf(x: ArrayLike, mean: float, var: float) -> Array:
    """P(X ≤ x) for X ~ N(mean, var)."""
    v = positive(var, "variance")
    z = (np.asarray(x, dtype=np.float64) - mean) / math.sqrt(2 * v)
    return 0.5 * (1 + np.vectorize(math.erf, otypes=[float])(z))


def two_sided_tail(k: float) -> float:
    """P(|Z| > k), Z ~ N(0, 1): how often a correct estimate lands beyond k standard errors.

    >>> f"{two_sided_tail(4):.4g}"
    '6.334e-05'
    """
    return math.erfc(positive(k, "k") / math.sqrt(2))


def any_fails(p: float, checks: int) -> float:
    """P(at least one of ``checks`` independent checks fails), each failing with ``p``.

    >>> round(1 / any_fails(two_sided_tail(4), 2))  # a mean and a variance within 4 SE
    7894
    """
    n = positive_int(checks, "checks")
    return -math.expm1(n * math.log1p(-p))


def kolmogorov_tail(x: float, terms: int = 100) -> float:
    """P(K > x) for Kolmogorov's K, the limit of √n·D: 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²x²}.

    >>> f"{kolmogorov_tail(1.95):.3g}"
    '0.000996'
    """
    x = positive(x, "x")
    j = np.arange(1, terms + 1)
    return float(np.clip(2 * np.sum((-1.0) ** (j - 1) * np.exp(-2 * j**2 * x**2)), 0.0, 1.0))


def ks_distance_normal(draws: ArrayLike, mean: float, var: float) -> float:
    """Kolmogorov–Smirnov distance D = sup_x |F_n(x) − Φ((x − mean)/√var)| of ``draws``."""
    x = np.sort(np.asarray(draws, dtype=np.float64))
    F = normal_cdf(x, mean, var)
    n = x.size
    k = np.arange(1, n + 1) / n
    return float(max(np.max(k - F), np.max(F - (k - 1 / n))))


def variance_within(x: ArrayLike, target: float, k: float = 4.0) -> bool:
    """Whether the sample variance of ``x`` lies within ``k`` standard errors of ``target``.

    The standard error of s² is estimated from the draws themselves, √(var((x − x̄)²)/n), so
    the check needs no assumption about their distribution beyond a finite fourth moment.
    """
    a = np.asarray(x, dtype=np.float64)
    se = math.sqrt(float(np.var((a - a.mean()) ** 2)) / a.size)
    return abs(float(a.var(ddof=1)) - target) <= positive(k, "k") * se


@dataclass(frozen=True)
class SampleMoments:
    """n draws against N(target_mean, target_var): their mean and variance (ddof = 1), and
    the standard errors of those under the normal, σ/√n and σ²·√(2/(n − 1))."""

    n: int
    mean: float
    var: float
    target_mean: float
    target_var: float
    mean_se: float
    var_se: float

    @property
    def mean_gap(self) -> float:
        return abs(self.mean - self.target_mean)

    @property
    def var_gap(self) -> float:
        return abs(self.var - self.target_var)

    def mean_within(self, k: float = 4.0) -> bool:
        """|x̄ − mean| ≤ k standard errors (false alarm ``two_sided_tail(k)``)."""
        return self.mean_gap <= positive(k, "k") * self.mean_se

    def var_within(self, k: float = 4.0) -> bool:
        """|s² − var| ≤ k standard errors (the normal approximation of s², large n)."""
        return self.var_gap <= positive(k, "k") * self.var_se

    def within(self, k: float = 4.0) -> bool:
        """Both: a correct sampler fails with about ``any_fails(two_sided_tail(k), 2)``."""
        return self.mean_within(k) and self.var_within(k)


def normal_moments(draws: ArrayLike, mean: float, var: float) -> SampleMoments:
    """The sample mean and variance of ``draws`` next to N(mean, var) and their standard errors.

    >>> m = normal_moments([-1.0, 1.0], 0.0, 1.0)
    >>> m.mean, m.var, m.mean_within(), round(m.var_se, 4)
    (0.0, 2.0, True, 1.4142)
    """
    x = np.asarray(draws, dtype=np.float64).ravel()
    n = positive_int(x.size - 1, "number of draws − 1") + 1  # at least two draws
    v = positive(var, "variance")
    return SampleMoments(
        n,
        float(x.mean()),
        float(x.var(ddof=1)),
        float(mean),
        v,
        math.sqrt(v / n),
        v * math.sqrt(2 / (n - 1)),
    )


def histogram_density(draws: ArrayLike, edges: ArrayLike) -> Array:
    """Counts per bin / (number of draws × bin width): a density whose bins hold the share of
    *all* draws (draws outside ``edges`` count in the total but in no bin)."""
    x = np.asarray(draws, dtype=np.float64).ravel()
    e = np.asarray(edges, dtype=np.float64)
    counts, _ = np.histogram(x, e)
    return counts / (positive_int(x.size, "number of draws") * np.diff(e))
