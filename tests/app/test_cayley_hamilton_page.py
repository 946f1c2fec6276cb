"""The Cayley–Hamilton page, driven through AppTest by widget keys."""

from __future__ import annotations

import pytest

from tests.app.conftest import latex, open_page, url

PAGE = "cayley_hamilton.py"
HOSTILE = [
    "__import__('os').system('id')",
    "9**9**9",
    "1e999999",
    "1/0",
    "nan",
    "",
    "(1 1)",
    "(1 2",
    "(0 999)",
    "2 2 1",
    "1 2; 3",
    "; ".join([" ".join(["1"] * 9)] * 9),
]


def test_typed_matrix_gives_its_polynomial_and_a_zero_residual():
    at = open_page(PAGE)
    at.text_input(key="cayley_hamilton_matrix").input("1 2; 3 4").run()
    text = latex(at)
    assert "t^{2} - 5 t - 2" in text
    assert "((A" not in text and "A - 5I)A - 2I" in text
    assert ":red-badge[" not in text


def test_power_slider_reduces_t_to_the_k():
    at = open_page(PAGE, {"cayley_hamilton_matrix": "1 2; 3 4"})
    at.slider(key="cayley_hamilton_k").set_value(3).run()
    assert "t^{3} \\bmod F_A(t) = 27 t + 10" in latex(at)  # t³ = (t + 5)F + 27t + 10
    assert ":red-badge[" not in latex(at)
    assert url(at)["cayley_hamilton_k"] == "3"


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_shows_an_error_and_the_page_keeps_working(text):
    at = open_page(PAGE)
    at.text_input(key="cayley_hamilton_matrix").input(text).run()
    assert not at.exception
    assert at.error and "can't be used" in at.error[0].value
    assert any("Try this" in m.value for m in at.markdown)
    at.text_input(key="cayley_hamilton_matrix").input("1/2 1/3; 1/4 1/5").run()
    assert not at.error and ":red-badge[" not in latex(at)


def test_singular_matrix_says_there_is_no_inverse():
    at = open_page(PAGE, {"cayley_hamilton_matrix": "1 2; 2 4"})
    assert not at.exception and not at.error
    assert "no inverse" in latex(at) and ":red-badge[" not in latex(at)


def test_random_eight_by_eight_is_exact():
    query = {"cayley_hamilton_random": "1", "cayley_hamilton_n": "8", "cayley_hamilton_seed": "7"}
    at = open_page(PAGE, query)
    assert not at.exception and not at.error
    assert "O_{8\\times 8}" in latex(at) and ":red-badge[" not in latex(at)
    at.slider(key="cayley_hamilton_k").set_value(60).run()
    assert ":red-badge[" not in latex(at)


def test_two_by_two_part_is_symbolic():
    at = open_page(PAGE, {"cayley_hamilton_view": "two_by_two"})
    assert not at.exception and not at.error
    assert "a^{2} + b c" in latex(at) and "expands to the zero matrix" in latex(at)


def test_five_thousand_characters_in_the_link_are_refused_with_a_notice():
    at = open_page(PAGE, {"cayley_hamilton_matrix": "1 " * 2500})
    assert not at.exception and not at.error
    assert "cayley_hamilton_matrix" in " ".join(c.value for c in at.caption)
