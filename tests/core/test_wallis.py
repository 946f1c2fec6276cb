"""core.wallis: property tests (Hypothesis) and oracles (course numbers, sympy integrate)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from core import wallis as w

# ---- oracles ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("N", "rounded"), [(200, 3.138), (400, 3.140), (600, 3.140), (800, 3.141), (1000, 3.141)]
)
def test_course_example(N, rounded):
    P = w.wallis_partial_products(1000)
    assert round(2 * P[N - 1], 3) == rounded


@pytest.mark.parametrize("n", range(0, 9))
def test_integral_matches_sympy_integrate(n):
    x = sympy.Symbol("x")
    expected = sympy.integrate(sympy.sin(x) ** n, (x, 0, sympy.pi / 2))
    assert sympy.simplify(w.wallis_integral(n) - expected) == 0


def test_first_integrals_and_recurrence():
    assert w.wallis_integral(0) == sympy.pi / 2
    assert w.wallis_integral(1) == 1
    for n in range(2, 40):
        step = sympy.Rational(n - 1, n) * w.wallis_integral(n - 2)
        assert sympy.simplify(w.wallis_integral(n) - step) == 0


def test_float_integral_matches_exact_and_quadrature():
    n = np.arange(0, 60)
    exact = [float(w.wallis_integral(int(k))) for k in n]
    np.testing.assert_allclose(w.wallis_integral_float(n), exact, rtol=1e-12)
    x = np.linspace(0, math.pi / 2, 20001)
    quad = [np.trapezoid(np.sin(x) ** k, x) for k in (3, 10)]
    np.testing.assert_allclose(quad, [exact[3], exact[10]], rtol=1e-7)


def test_exact_fraction_agrees_with_floats_and_closed_form():
    P = w.wallis_partial_products(30)
    for n in (1, 2, 5, 30):
        F = w.wallis_partial_product_exact(n)
        assert float(F) == pytest.approx(P[n - 1], rel=1e-14)
        # closed form P_n = 2^{4n} (n!)^4 / ((2n)!^2 (2n+1))
        closed = Fraction(
            2 ** (4 * n) * math.factorial(n) ** 4, math.factorial(2 * n) ** 2 * (2 * n + 1)
        )
        assert closed == F
    assert w.wallis_partial_product_exact(2) == Fraction(64, 45)


def test_asymptote_and_large_n_is_fast_and_accurate():
    P = w.wallis_partial_products(100_000)
    n = np.array([10, 100, 1000, 100_000])
    gap = math.pi - 2 * P[n - 1]
    ratio = gap / (math.pi / (4 * n))
    assert np.all(ratio < 1) and np.all(1 - ratio < 1 / n)  # gap = π/(4n)(1 − O(1/n))
    assert abs(gap[-1] - math.pi / 4e5) < 1e-9


# ---- properties ------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5000))
def test_partial_products_increase_below_pi_over_2_inside_the_sandwich(n):
    P = w.wallis_partial_products(n)
    assert P.shape == (n,)
    assert np.all(np.diff(P) > 0)
    assert P[-1] < math.pi / 2
    assert math.pi / 2 * (2 * n + 1) / (2 * n + 2) <= P[-1] * (1 + 1e-14)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 60))
def test_sandwich_is_ordered_and_ratio_is_the_partial_product(N):
    W2, W1, W0 = w.sandwich(N)
    assert W2 <= W1 <= W0
    P_N = w.wallis_partial_product_exact(N) if N else Fraction(1)
    assert sympy.simplify(W1 / W0 - 2 * sympy.Rational(P_N) / sympy.pi) == 0
    assert sympy.simplify(W2 / W0 - sympy.Rational(2 * N + 1, 2 * N + 2)) == 0


@pytest.mark.parametrize("bad", [0, -3, 1.5, True, "10", 10**8])
def test_bad_n_raises_value_error(bad):
    with pytest.raises(ValueError):
        w.wallis_partial_products(bad)


def test_bad_integral_arguments():
    with pytest.raises(ValueError):
        w.wallis_integral(-1)
    with pytest.raises(ValueError):
        w.wallis_integral_float(-1)
    with pytest.raises(ValueError):
        w.wallis_partial_product_exact(10_000)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 60), st.integers(2, 400))
def test_sandwich_integrands_are_nested_powers_of_sine_on_the_quarter_period(N, points):
    x = np.linspace(0, math.pi / 2, points)
    rows = w.sandwich_integrands(x, N)
    assert rows.shape == (3, points)
    assert np.all((rows >= 0) & (rows <= 1))
    assert np.all(rows[0] >= rows[1]) and np.all(rows[1] >= rows[2])  # sin ≤ 1: nested
    assert rows[0, -1] == rows[1, -1] == rows[2, -1] == 1.0  # sin(π/2) = 1
    np.testing.assert_allclose(rows[1] ** 2, rows[0] * rows[2], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("N", [0, 1, 3])
def test_sandwich_integrands_integrate_to_the_sandwich(N):
    """The trapezoid rule on the integrands against sympy's own integral of sin^m."""
    x = np.linspace(0, math.pi / 2, 4001)
    rows = w.sandwich_integrands(x, N)
    t = sympy.symbols("t")
    for row, m in zip(rows, (2 * N, 2 * N + 1, 2 * N + 2), strict=True):
        exact = float(sympy.integrate(sympy.sin(t) ** m, (t, 0, sympy.pi / 2)))
        assert float(np.sum((row[1:] + row[:-1]) / 2) * (x[1] - x[0])) == pytest.approx(
            exact, rel=1e-6
        )


@pytest.mark.parametrize("N", [-1, 1000, 2.5, True])
def test_sandwich_integrands_refuse_a_bad_N(N):
    with pytest.raises(ValueError):
        w.sandwich_integrands(np.zeros(3), N)
