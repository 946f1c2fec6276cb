"""The permutations page, driven through AppTest by widget keys."""

from __future__ import annotations

import pytest

from tests.app.conftest import latex, live_states, open_page, url

PAGE = "permutations.py"
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
]


def test_default_is_the_course_example_with_three_agreeing_signs():
    at = open_page(PAGE)
    text = latex(at)
    assert "(-1)^{4} = +1" in text and "(1\\ 2\\ 4)" in text
    assert "three signs agree — +1, +1, +1" in live_states(at)[1]["html"]  # k = 1: σ


def test_every_power_is_sent_with_its_numbers_and_green_badges():
    """The live k control (ui.live) carries all 25 powers: the browser redraws any of them
    with no round trip, so each must already hold its own numbers and checks."""
    states = live_states(open_page(PAGE))
    assert sorted(states) == list(range(-12, 13))
    for k, s in states.items():
        assert "live-badge live-ok" in s["html"] and ' live-bad"' not in s["html"], k
    assert "(1 2 4)" in states[1]["html"] and "(1 4 2)" in states[-1]["html"]
    assert "id" in states[3]["html"] and "id" in states[0]["html"]  # (1 2 4)³ = id


def test_power_slider_moves_the_permutation():
    """What follows when the slider settles: the browser reports k (simulated here, as the
    component's state), the part reruns, the formula and the URL follow."""
    at = open_page(PAGE)
    at.session_state["_live_value_permutations_k"] = 3  # what ui.live keeps from the report
    at.run()
    assert "\\sigma^{3}" in latex(at) and "\\mathrm{id}" in latex(at)  # (1 2 4)³ = id
    assert url(at)["permutations_k"] == "3"
    linked = open_page(PAGE, {"permutations_k": "-2"})  # a shared link opens at its power
    assert "\\sigma^{-2}" in latex(linked) and url(linked)["permutations_k"] == "-2"


def test_odd_permutation_and_cycle_input():
    at = open_page(PAGE)
    at.text_input(key="permutations_sigma").input("(1 2)(3 4 5)").run()
    badges = live_states(at)[1]["html"]
    assert "three signs agree — -1, -1, -1" in badges and ' live-bad"' not in badges


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_shows_an_error_and_the_page_keeps_working(text):
    at = open_page(PAGE)
    at.text_input(key="permutations_sigma").input(text).run()
    assert not at.exception
    assert at.error and "can't be used" in at.error[0].value
    assert any("Try this" in m.value for m in at.markdown)
    at.text_input(key="permutations_sigma").input("2 3 5 1 4").run()
    assert not at.error and "(-1)^{4} = +1" in latex(at)


def test_five_thousand_characters_in_the_link_are_refused_with_a_notice():
    at = open_page(PAGE, {"permutations_sigma": "1 " * 2500})
    assert not at.exception and not at.error
    assert "permutations_sigma" in " ".join(c.value for c in at.caption)


def test_composition_part_checks_the_group_laws():
    at = open_page(PAGE, {"permutations_view": "compose", "permutations_tau": "(1 3)"})
    assert not at.exception and not at.error
    text = latex(at)
    assert "\\operatorname{sgn}(\\sigma\\tau) = -1 = (+1)(-1)" in text
    assert ":red-badge[" not in text and "det P_σ = sgn σ" in text
    at.text_input(key="permutations_tau").input("(1 2").run()
    assert at.error and not at.exception


def test_random_permutation_is_seeded_and_in_the_url():
    query = {"permutations_random": "1", "permutations_n": "7", "permutations_seed": "3"}
    a, b = open_page(PAGE, query), open_page(PAGE, query)
    assert not a.exception and not a.error
    assert latex(a) == latex(b) and ":red-badge[" not in latex(a)
    a.number_input(key="permutations_seed").set_value(4).run()
    assert latex(a) != latex(b)
