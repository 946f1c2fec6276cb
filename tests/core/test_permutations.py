"""core.permutations: properties (Hypothesis) and oracles (sympy.combinatorics, course).

sympy's ``Permutation`` is 0-based and ``p * q`` applies p FIRST; our ``compose(s, t)`` is
s∘t (t first), so ``compose(s, t)`` corresponds to ``T * S`` in sympy.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.combinatorics import Permutation

from core import permutations as pm


def perms(min_n: int = 1, max_n: int = pm.MAX_N):
    return st.integers(min_n, max_n).flatmap(
        lambda n: st.permutations(list(range(1, n + 1))).map(tuple)
    )


def to_sympy(p) -> Permutation:
    return Permutation([x - 1 for x in p])


def from_sympy(q: Permutation) -> tuple[int, ...]:
    return tuple(x + 1 for x in q.array_form)


# ---- oracles ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "n_inv"), [("2 4 3 1", 4), ("2 3 5 1 4", 4)])
def test_course_examples(text, n_inv):
    p = pm.parse_permutation(text)
    assert len(pm.inversions(p)) == n_inv
    assert pm.sign(p) == pm.sign_by_cycles(p) == pm.sign_by_difference_product(p) == 1


def test_one_line_and_cycle_notation_agree():
    assert pm.parse_permutation("(1 2 4)(3)") == pm.parse_permutation("2 4 3 1") == (2, 4, 3, 1)
    assert pm.parse_permutation("(1 2)(3 5)") == (2, 1, 5, 4, 3)
    assert pm.parse_permutation("2, 1, 3") == (2, 1, 3)
    assert pm.cycles((2, 4, 3, 1)) == [(1, 2, 4)]
    assert pm.transpositions((2, 4, 3, 1)) == [(1, 4), (1, 2)]


@settings(max_examples=80, deadline=None)
@given(perms())
def test_against_sympy_permutation(p):
    q = to_sympy(p)
    assert pm.sign(p) == q.signature()
    assert len(pm.inversions(p)) == q.inversions()
    assert set(pm.cycles(p)) == {tuple(x + 1 for x in c) for c in q.cyclic_form}
    assert pm.inverse(p) == from_sympy(~q)
    assert pm.order(p) == q.order()


@settings(max_examples=80, deadline=None)
@given(perms(3, 7), st.data())
def test_compose_against_sympy_which_applies_the_left_factor_first(s, data):
    t = data.draw(st.permutations(list(range(1, len(s) + 1))).map(tuple))
    # s∘t applies t first; sympy's T * S applies T first
    assert pm.compose(s, t) == from_sympy(to_sympy(t) * to_sympy(s))


# ---- properties ------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(perms())
def test_three_signs_agree(p):
    assert pm.sign(p) == pm.sign_by_cycles(p) == pm.sign_by_difference_product(p)


@settings(max_examples=60, deadline=None)
@given(perms(), st.data())
def test_sign_is_multiplicative_and_inverse_reverses(s, data):
    t = data.draw(st.permutations(list(range(1, len(s) + 1))).map(tuple))
    st_ = pm.compose(s, t)
    assert pm.sign(st_) == pm.sign(s) * pm.sign(t)
    assert pm.inverse(st_) == pm.compose(pm.inverse(t), pm.inverse(s))
    assert pm.compose(s, pm.inverse(s)) == tuple(range(1, len(s) + 1))
    P = pm.permutation_matrix
    assert np.array_equal(P(s) @ P(t), P(st_))
    assert round(np.linalg.det(P(s))) == pm.sign(s)


@settings(max_examples=60, deadline=None)
@given(perms())
def test_transpositions_compose_back_and_count_the_sign(p):
    n = len(p)
    out = tuple(range(1, n + 1))
    for a, b in pm.transpositions(p):  # leftmost is the outermost: out = τ1∘τ2∘…
        out = pm.compose(out, pm.transposition(n, a, b))
    assert out == p
    assert (-1) ** len(pm.transpositions(p)) == pm.sign(p)
    for c in pm.cycles(p):
        assert len(c) >= 2 and c[0] == min(c)


@settings(max_examples=60, deadline=None)
@given(perms())
def test_round_trip_through_both_notations(p):
    assert pm.parse_permutation(pm.one_line(p)) == p
    if pm.cycles(p):
        q = pm.parse_permutation(pm.cycle_notation(p))
        assert pm.extend(q, len(p)) == p


def test_k_cycle_is_k_minus_1_transpositions():
    for k in range(2, 10):
        c = pm.parse_permutation("(" + " ".join(map(str, range(1, k + 1))) + ")")
        assert len(pm.transpositions(c)) == k - 1
        assert pm.sign(c) == (-1) ** (k - 1)


def test_random_permutation_is_seeded():
    a = pm.random_permutation(9, np.random.default_rng(3))
    assert a == pm.random_permutation(9, np.random.default_rng(3))
    assert sorted(a) == list(range(1, 10))


HOSTILE = [
    "__import__('os').system('id')",
    "9**9**9",
    "1e999999",
    "1/0",
    "nan",
    "x" * 5000,
    "",
    "   ",
    "(1 1)",
    "(1 2",
    "(0 999)",
    "2 2 1",
    "1 2 3 4 5 6 7 8 9 10",
    "((1 2))",
    "1 2)",
    "(1 2) 3",
    "()",
    "-1 2",
    "1 3",
    "٣ ١ ٢",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_raises_a_value_error_with_a_message(text):
    with pytest.raises(ValueError, match=r"\w"):
        pm.parse_permutation(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_parses_to_a_permutation_or_raises_value_error(text):
    try:
        p = pm.parse_permutation(text)
    except ValueError as err:
        assert str(err)
    else:
        assert sorted(p) == list(range(1, len(p) + 1)) and len(p) <= pm.MAX_N


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789 (),", max_size=30))
def test_near_miss_text_parses_or_raises_value_error(text):
    try:
        p = pm.parse_permutation(text)
    except ValueError:
        return
    assert sorted(p) == list(range(1, len(p) + 1))
