"""The Wallis page, driven through AppTest by widget keys."""

from __future__ import annotations

import pytest

from tests.app.conftest import latex, open_page

PAGE = "wallis.py"


@pytest.mark.parametrize(
    ("n", "shown"), [(200, "3.13767"), (400, "3.13963"), (1000, "3.14080"), (100_000, "3.14158")]
)
def test_n_moves_the_numbers_in_the_formula(n, shown):
    at = open_page(PAGE)
    at.select_slider(key="wallis_n").set_value(n).run()
    assert not at.exception and not at.error
    assert f"2P_{{{n}}}" in latex(at) and f"= {shown}" in latex(at)
    assert ":red-badge[" not in latex(at)
    assert at.query_params["wallis_n"] == str(n)


def test_small_n_shows_the_exact_fraction():
    at = open_page(PAGE, {"wallis_n": "2"})
    assert "\\frac{128}{45}" in latex(at)  # 2 · 64/45
    assert "float = exact fraction" in latex(at)


def test_integrals_part_shows_the_exact_sandwich():
    at = open_page(PAGE, {"wallis_view": "integrals", "wallis_N": "1"})
    assert not at.exception and not at.error
    text = latex(at)
    assert "W_{4} = \\frac{3 \\pi}{16}" in text and "W_{3} = \\frac{2}{3}" in text
    assert ":red-badge[" not in text
    at.slider(key="wallis_N").set_value(20).run()
    assert "W_{42}" in latex(at) and ":red-badge[" not in latex(at)


def test_bad_url_parameters_fall_back_with_a_notice():
    at = open_page(PAGE, {"wallis_n": "9**9**9", "wallis_view": "nope", "wallis_N": "1e999999"})
    assert not at.exception and not at.error
    assert at.select_slider(key="wallis_n").value == 10
    notice = " ".join(c.value for c in at.caption)
    assert "wallis_n" in notice and "wallis_view" in notice
