"""The routing-by-clustering page, driven through AppTest by widget keys."""

from __future__ import annotations

import pytest

from tests.app.conftest import latex, open_page, url

PAGE = "routing_clustering.py"
C = "routing_clustering"


@pytest.mark.parametrize("view", ["routing", "mips"])
@pytest.mark.parametrize("query", [{}, {f"{C}_causal": "1", f"{C}_normalise": "1"}])
def test_every_part_runs_with_green_badges(view, query):
    at = open_page(PAGE, {f"{C}_view": view, **query})
    assert not at.exception and not at.error
    assert ":green-badge[" in latex(at) and ":red-badge[" not in latex(at)


@pytest.mark.parametrize("k", [1, 2, 5, 8])
def test_cluster_slider_changes_the_routing(k):
    at = open_page(PAGE)
    at.slider(key=f"{C}_k").set_value(k).run()
    assert not at.exception and ":red-badge[" not in latex(at)
    assert latex(at).count(",\\ ") >= k - 1  # one distance per centroid
    assert url(at)[f"{C}_k"] == str(k)
    if k == 1:
        assert "\\frac{2304}{48^2} = 1.000" in latex(at)


def test_causal_switch_halves_the_pairs_roughly():
    def pairs(at) -> int:
        return int(latex(at).split("\\frac{")[-1].split("}")[0])

    at = open_page(PAGE, {f"{C}_k": "1"})
    full = pairs(at)
    at.toggle(key=f"{C}_causal").set_value(True).run()
    assert pairs(at) == 48 * 49 // 2 and full == 48 * 48


def test_scanning_every_cluster_gives_recall_one_and_normalising_makes_mips_nn():
    at = open_page(PAGE, {f"{C}_view": "mips"})
    at.slider(key=f"{C}_probe").set_value(16).run()
    assert latex(at).count("= 1.000") == 2
    assert "MIPS ∩ NN: 100%" not in latex(at)
    at.toggle(key=f"{C}_normalise").set_value(True).run()
    assert "MIPS ∩ NN: 100%" in latex(at) and ":red-badge[" not in latex(at)


def test_bad_link_parameters_fall_back_with_a_notice():
    at = open_page(PAGE, {f"{C}_k": "0", f"{C}_view": "mips", f"{C}_probe": "99"})
    assert not at.exception and not at.error
    assert at.slider(key=f"{C}_probe").value == 3
    notice = " ".join(c.value for c in at.caption)
    assert f"{C}_probe" in notice


def test_the_causal_rule_is_j_at_most_i_and_every_token_sees_itself():
    at = open_page(PAGE, {f"{C}_causal": "1"})
    text = latex(at)
    assert "j \\le i" in text and "every token sees itself" in text
    assert "Σ nⱼ(nⱼ + 1)/2" in text and ":red-badge[" not in text
    assert "j \\le i" not in latex(open_page(PAGE))
