"""core.cayley_hamilton: properties (Hypothesis) and oracles (sympy ``Matrix.charpoly``)."""

from __future__ import annotations

import time

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from core import cayley_hamilton as ch

t = ch.t
small_ints = st.integers(-9, 9)


def int_matrices(max_n: int = ch.MAX_SIZE):
    return (
        st.integers(1, max_n)
        .flatmap(
            lambda n: st.lists(st.lists(small_ints, min_size=n, max_size=n), min_size=n, max_size=n)
        )
        .map(sympy.Matrix)
    )


def rational_matrices(max_n: int = 4):
    q = st.fractions(min_value=-5, max_value=5, max_denominator=7).map(
        lambda f: sympy.Rational(f.numerator, f.denominator)
    )
    return (
        st.integers(1, max_n)
        .flatmap(lambda n: st.lists(st.lists(q, min_size=n, max_size=n), min_size=n, max_size=n))
        .map(sympy.Matrix)
    )


# ---- oracles ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(int_matrices())
def test_characteristic_polynomial_matches_sympy_charpoly(A):
    assert ch.characteristic_polynomial(A) == A.charpoly(t).as_poly(t)


@settings(max_examples=30, deadline=None)
@given(rational_matrices())
def test_rational_matrices_charpoly_and_exact_zero_residual(A):
    assert ch.characteristic_polynomial(A).as_expr() == A.charpoly(t).as_expr()
    assert ch.cayley_hamilton_residual(A).is_zero_matrix


def test_two_by_two_identity_is_zero_symbolically():
    A, residual = ch.two_by_two_identity()
    assert residual == sympy.zeros(2, 2)
    a, b, c, d = sympy.symbols("a b c d")
    assert (
        ch.characteristic_polynomial(A).as_expr().expand()
        == (t**2 - (a + d) * t + (a * d - b * c)).expand()
    )


def test_small_example_by_hand():
    A = ch.parse_matrix("1 2; 3 4")
    assert ch.characteristic_polynomial(A).as_expr() == t**2 - 5 * t - 2
    assert 5 * A + 2 * sympy.eye(2) == A**2
    assert ch.inverse_by_cayley_hamilton(A) == A.inv()


# ---- properties ------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(int_matrices())
def test_residual_is_exactly_zero_and_horner_starts_at_identity(A):
    steps = ch.horner_steps(A)
    n = A.shape[0]
    assert len(steps) == n + 1 and steps[0] == sympy.eye(n)
    assert steps[-1].is_zero_matrix
    c = ch.characteristic_coefficients(A)
    assert c[0] == 1 and c[1] == -A.trace() and c[-1] == (-1) ** n * A.det()


@settings(max_examples=30, deadline=None)
@given(int_matrices(6))
def test_float_residual_is_rounding_relative_to_norm_power(A):
    Af = ch.to_float(A)
    n = A.shape[0]
    R = ch.cayley_hamilton_residual(Af)
    scale = max(np.linalg.norm(Af, 2), 1.0) ** n
    assert np.abs(R).max() <= 1e3 * n * scale * np.finfo(float).eps


@settings(max_examples=20, deadline=None)
@given(int_matrices(5), st.integers(0, 25))
def test_power_by_reduction_equals_the_power(A, k):
    r, A_k = ch.power_by_reduction(A, k)
    assert len(r) == A.shape[0]
    assert A_k == A**k


@settings(max_examples=20, deadline=None)
@given(int_matrices(5))
def test_inverse_from_the_polynomial(A):
    if A.det() == 0:
        with pytest.raises(ValueError, match="det A = 0"):
            ch.inverse_by_cayley_hamilton(A)
    else:
        assert A * ch.inverse_by_cayley_hamilton(A) == sympy.eye(A.shape[0])


def test_eight_by_eight_is_well_under_a_second():
    A = ch.random_integer_matrix(8, np.random.default_rng(0), bound=9)
    start = time.perf_counter()
    assert ch.cayley_hamilton_residual(A).is_zero_matrix
    ch.inverse_by_cayley_hamilton(A)
    ch.power_by_reduction(A, ch.MAX_POWER)
    assert time.perf_counter() - start < 1.0


# ---- parsing ---------------------------------------------------------------------------


def test_parse_formats():
    expected = sympy.Matrix(
        [[sympy.Rational(1, 2), sympy.Rational(-1, 3)], [sympy.Rational(1, 4), 2]]
    )
    assert ch.parse_matrix("0.5 -1/3; .25 2.") == expected
    assert ch.parse_matrix("0.5, -1/3\n0.25, 2") == expected
    assert ch.parse_matrix("  7  ") == sympy.Matrix([[7]])
    assert ch.parse_matrix("-0.5 +1; 0 0") == sympy.Matrix([[sympy.Rational(-1, 2), 1], [0, 0]])


HOSTILE = [
    "__import__('os').system('id')",
    "9**9**9",
    "1e999999",
    "1/0",
    "nan",
    "inf",
    "x" * 5000,
    "",
    " ; ;",
    "(1 1)",
    "(1 2",
    "(0 999)",
    "2 2 1",
    "1 2; 3",
    "1 2 3; 4 5 6",
    "; ".join([" ".join(["1"] * 9)] * 9),
    "1" * 40,
    "1/2/3",
    "--1",
    "0x10",
    "1_000",
    "½",
    "٣",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_raises_a_value_error_with_a_message(text):
    with pytest.raises(ValueError, match=r"\w"):
        ch.parse_matrix(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_parses_to_a_small_square_matrix_or_raises_value_error(text):
    try:
        A = ch.parse_matrix(text)
    except ValueError as err:
        assert str(err)
    else:
        assert A.shape[0] == A.shape[1] <= ch.MAX_SIZE


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789 ./-;,e", max_size=40))
def test_number_like_text_parses_or_raises_value_error(text):
    try:
        A = ch.parse_matrix(text)
    except ValueError:
        return
    assert all(isinstance(x, sympy.Rational) for x in A)
