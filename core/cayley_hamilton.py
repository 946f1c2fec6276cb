"""Cayley–Hamilton: every square matrix satisfies its own characteristic polynomial.

    F_A(t) = det(tI − A) = tⁿ + c_{n−1}tⁿ⁻¹ + … + c_1 t + c_0,      F_A(A) = O

Exact arithmetic uses sympy Rationals; the characteristic polynomial is computed by the
Faddeev–LeVerrier recursion (traces only, no determinant expansion), independent of sympy's
``Matrix.charpoly`` which the tests use as the oracle. F_A(A) is computed by Horner's
scheme B_0 = I, B_j = B_{j−1}A + c_{n−j}I, so F_A(A) = B_n. Legend: n size, t variable,
c_j coefficients, k power.
"""

from __future__ import annotations

import re

import numpy as np
import sympy
from numpy.typing import NDArray

MAX_SIZE = 8
MAX_CHARS = 2000
MAX_DIGITS = 12
MAX_POWER = 200
t = sympy.Symbol("t")

_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_FRACTION = re.compile(r"([+-]?\d+)/(\d+)", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(\d*)\.(\d*)", re.ASCII)


def _entry(token: str) -> sympy.Rational:
    """One entry: an integer, a decimal or a fraction a/b, read character by character."""
    digits = sum(ch.isdigit() for ch in token)
    numeric = _INTEGER.fullmatch(token) or _FRACTION.fullmatch(token) or _DECIMAL.fullmatch(token)
    if numeric and digits > MAX_DIGITS:
        raise ValueError(f"'{token[:20]}…' has more than {MAX_DIGITS} digits")
    if _INTEGER.fullmatch(token):
        return sympy.Integer(int(token))
    if m := _FRACTION.fullmatch(token):
        if int(m.group(2)) == 0:
            raise ValueError(f"'{token}' divides by zero")
        return sympy.Rational(int(m.group(1)), int(m.group(2)))
    if (m := _DECIMAL.fullmatch(token)) and (m.group(1) or m.group(2)):
        whole, frac = m.group(1) or "0", m.group(2)
        sign = -1 if token.startswith("-") else 1
        return sign * sympy.Rational(int(whole + frac), 10 ** len(frac))
    raise ValueError(
        f"'{token[:20]}' is not a number: use integers, decimals such as 0.5 or fractions "
        "such as 3/4 (no exponents, no expressions)"
    )


def parse_matrix(text: str) -> sympy.Matrix:
    """Read a square matrix typed by a student, exactly, token by token (no expressions).

    Rows are separated by newlines or ``;``, entries by spaces or commas; each entry is an
    integer, a decimal or a fraction ``a/b``. At most 8×8 and 2,000 characters.

    >>> parse_matrix("1 2; 3 4")
    Matrix([
    [1, 2],
    [3, 4]])
    """
    if not isinstance(text, str):
        raise ValueError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise ValueError(f"that is too long: at most {MAX_CHARS:,} characters, please")
    lines = [line for line in re.split(r"[;\n]", text) if line.strip()]
    if not lines:
        raise ValueError("type a matrix, rows separated by ';', e.g. 2 1; 1 3")
    rows = [line.replace(",", " ").split() for line in lines]
    n = len(rows)
    if n > MAX_SIZE:
        raise ValueError(f"at most {MAX_SIZE}×{MAX_SIZE}, please (you typed {n} rows)")
    entries = [[_entry(tok) for tok in row] for row in rows]
    widths = sorted({len(r) for r in rows})
    if widths != [n]:
        counts = " or ".join(map(str, widths))
        raise ValueError(
            f"the matrix must be square: with {n} row{'s' * (n > 1)} each row needs {n} "
            f"entr{'ies' if n > 1 else 'y'}, you typed rows of {counts}"
        )
    return sympy.Matrix(entries)


def _square(A: sympy.Matrix) -> int:
    n, m = A.shape
    if n != m or n == 0:
        raise ValueError(f"the matrix must be square and non-empty, got {n}×{m}")
    return n


def characteristic_coefficients(A: sympy.Matrix) -> list[sympy.Rational]:
    """``[1, c_{n−1}, …, c_0]`` of det(tI − A), by Faddeev–LeVerrier.

    M_0 = O, c_n = 1;  M_k = A M_{k−1} + c_{n−k+1} I,  c_{n−k} = −tr(A M_k) / k.
    """
    n = _square(A)
    I = sympy.eye(n)
    M = sympy.zeros(n, n)
    c = [sympy.Integer(1)]
    for k in range(1, n + 1):
        M = A * M + c[-1] * I
        c.append(-(A * M).trace() / k)
    return c


def characteristic_polynomial(A: sympy.Matrix) -> sympy.Poly:
    """``det(tI − A)`` as a monic sympy ``Poly`` in t (exact).

    >>> characteristic_polynomial(sympy.Matrix([[1, 2], [3, 4]])).as_expr()
    t**2 - 5*t - 2
    """
    return sympy.Poly(characteristic_coefficients(A), t)


def horner_steps(A: sympy.Matrix) -> list[sympy.Matrix]:
    """``[B_0, …, B_n]`` with B_0 = I, B_j = B_{j−1}A + c_{n−j}I; B_n = F_A(A)."""
    n = _square(A)
    c = characteristic_coefficients(A)
    I = sympy.eye(n)
    B = [I]
    for coeff in c[1:]:
        B.append(B[-1] * A + coeff * I)
    return B


def cayley_hamilton_residual(A: sympy.Matrix | NDArray[np.float64]) -> sympy.Matrix | NDArray:
    """``F_A(A)``: the exact zero matrix for a sympy matrix; for a float numpy array, the
    same Horner scheme in floating point (coefficients from ``np.poly``), whose entries
    show the rounding error.
    """
    if isinstance(A, np.ndarray):
        A = np.asarray(A, dtype=np.float64)
        if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
            raise ValueError(f"the matrix must be square and non-empty, got shape {A.shape}")
        if not np.all(np.isfinite(A)):
            raise ValueError("the matrix has entries that are not finite numbers")
        n = A.shape[0]
        I = np.eye(n)
        B = I.copy()
        for coeff in np.poly(A)[1:]:
            B = B @ A + coeff * I
        return B
    return horner_steps(A)[-1]


def inverse_by_cayley_hamilton(A: sympy.Matrix) -> sympy.Matrix:
    """``A⁻¹ = −(A^{n−1} + c_{n−1}A^{n−2} + … + c_1 I) / c_0`` (needs c_0 = (−1)ⁿ det A ≠ 0)."""
    n = _square(A)
    c = characteristic_coefficients(A)
    if c[-1] == 0:
        raise ValueError("det A = 0: this matrix has no inverse")
    I = sympy.eye(n)
    B = I
    for coeff in c[1:-1]:  # Horner on tⁿ⁻¹ + c_{n−1}tⁿ⁻² + … + c_1
        B = B * A + coeff * I
    return -B / c[-1]


def power_by_reduction(A: sympy.Matrix, k: int) -> tuple[list[sympy.Rational], sympy.Matrix]:
    """``A^k`` from the remainder r(t) = t^k mod F_A(t), of degree < n.

    Returns ``(r, A^k)`` with r = ``[r_0, …, r_{n−1}]`` (lowest degree first) and
    ``A^k = r_0 I + r_1 A + … + r_{n−1} A^{n−1}``.
    """
    n = _square(A)
    if not 0 <= k <= MAX_POWER:
        raise ValueError(f"k must be between 0 and {MAX_POWER}")
    F = characteristic_polynomial(A)
    r = sympy.Poly(t**k, t).rem(F)
    coeffs = [r.coeff_monomial(t**j) for j in range(n)]
    result, P = sympy.zeros(n, n), sympy.eye(n)
    for coeff in coeffs:
        result += coeff * P
        P = P * A
    return coeffs, result


def two_by_two_identity() -> tuple[sympy.Matrix, sympy.Matrix]:
    """``(A, A² − (a+d)A + (ad − bc)I)`` with symbols a, b, c, d; the second expands to O."""
    a, b, c, d = sympy.symbols("a b c d")
    A = sympy.Matrix([[a, b], [c, d]])
    return A, (A * A - (a + d) * A + (a * d - b * c) * sympy.eye(2)).expand()


def random_integer_matrix(n: int, rng: np.random.Generator, bound: int = 5) -> sympy.Matrix:
    """An n×n matrix of integers drawn uniformly from −bound … bound."""
    if not 1 <= n <= MAX_SIZE:
        raise ValueError(f"n must be between 1 and {MAX_SIZE}")
    return sympy.Matrix(rng.integers(-bound, bound + 1, size=(n, n)).tolist())


def to_float(A: sympy.Matrix) -> NDArray[np.float64]:
    """The float64 copy of an exact matrix (for eigenvalues and the rounding demo)."""
    return np.array(A.tolist(), dtype=np.float64)
