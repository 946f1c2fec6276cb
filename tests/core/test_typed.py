"""core.typed.read_numbers: what a student types comes back as exactly those floats."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.typed import read_numbers

finite = st.floats(allow_nan=False, allow_infinity=False)


@given(st.lists(finite, max_size=8), st.sampled_from([", ", " ", ";", " ,  "]))
def test_any_separator_round_trips_repr(values, sep):
    # The oracle is Python's own float repr, which round-trips exactly.
    text = sep.join(repr(v) for v in values)
    assert read_numbers(text, max_chars=10_000, max_count=8, noun="numbers") == values


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"1, 2", "expected text"),
        ("1" * 51, "too long"),
        ("1 2 3 4", "at most 3 numbers"),
        ("1, two", "'two' is not a number"),
        ("1, 1e999", "not a finite number"),
        ("nan", "not a finite number"),
        ("__import__('os')", "is not a number"),
    ],
)
def test_anything_else_is_a_message_for_the_page(text, message):
    with pytest.raises(ValueError, match=message):
        read_numbers(text, max_chars=50, max_count=3, noun="numbers")
