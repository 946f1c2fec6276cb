"""The Reformer LSH page, driven through AppTest by widget keys."""

from __future__ import annotations

import pytest

from tests.app.conftest import latex, open_page, url

PAGE = "reformer_lsh.py"
C = "reformer_lsh"


@pytest.mark.parametrize("view", ["hash", "attention", "collision"])
@pytest.mark.parametrize("query", [{}, {f"{C}_b": "2", f"{C}_rounds": "3", f"{C}_dim": "16"}])
def test_every_part_runs_with_green_badges(view, query):
    at = open_page(PAGE, {f"{C}_view": view, **query})
    assert not at.exception and not at.error
    assert ":green-badge[" in latex(at) and ":red-badge[" not in latex(at)
    assert url(at)[f"{C}_view"] == view


def test_buckets_slider_moves_the_formula_and_the_url():
    at = open_page(PAGE)
    at.select_slider(key=f"{C}_b").set_value(8).run()
    assert not at.exception
    assert "(b = 8)" in latex(at) and "\\bmod 8" in latex(at)
    assert url(at)[f"{C}_b"] == "8"


def test_an_odd_number_of_buckets_in_the_link_falls_back_with_a_notice():
    at = open_page(PAGE, {f"{C}_b": "5", f"{C}_rounds": "9"})
    assert not at.exception and not at.error
    assert at.select_slider(key=f"{C}_b").value == 4
    assert at.slider(key=f"{C}_rounds").value == 1
    notice = " ".join(c.value for c in at.caption)
    assert f"{C}_b" in notice and f"{C}_rounds" in notice


def test_two_buckets_show_the_closed_form_next_to_the_estimate():
    at = open_page(PAGE, {f"{C}_view": "collision"})
    assert "1 - \\tfrac{\\theta}{\\pi}" not in latex(at)
    at.select_slider(key=f"{C}_b").set_value(2).run()
    at.slider(key=f"{C}_angle").set_value(90).run()
    assert "1 - \\tfrac{\\theta}{\\pi} = 0.500" in latex(at)
    assert "1 − θ/π within error" in latex(at) and ":red-badge[" not in latex(at)


def test_more_rounds_keep_more_attention_mass():
    def kept(at) -> float:
        text = latex(at)
        return float(text.split("a_{ij} = ")[1].split("\\")[0])

    at = open_page(PAGE, {f"{C}_view": "attention", f"{C}_b": "16"})
    one = kept(at)
    at.slider(key=f"{C}_rounds").set_value(4).run()
    assert kept(at) > one
    assert not at.exception and ":red-badge[" not in latex(at)


def test_url_restores_the_view():
    q = {f"{C}_view": "collision", f"{C}_b": "6", f"{C}_angle": "120", f"{C}_seed": "3"}
    at = open_page(PAGE, q)
    assert at.select_slider(key=f"{C}_b").value == 6
    assert at.slider(key=f"{C}_angle").value == 120
    assert at.number_input(key=f"{C}_seed").value == 3
    assert "\\theta = 120^\\circ" in latex(at)


def test_the_plane_shows_the_measured_sectors_and_how_many_buckets_own_one():
    at = open_page(PAGE, {f"{C}_b": "16"})
    text = latex(at)
    first = text.split("\\varphi_{0..7} = (")[1].split(")")[0].split(",\\ ")
    second = text.split("\\varphi_{8..15} = (")[1].split(")")[0].split(",\\ ")
    assert first == second and len(first) == 8  # bucket k + b/2 mirrors bucket k
    assert "\\sum_k \\varphi_k = 360^\\circ" in text
    owned = 2 * sum(float(a) > 0 for a in first)
    assert 2 <= owned < 16  # some buckets are empty
    assert f"{owned} of 16 buckets own one" in text and ":red-badge[" not in text
    at = open_page(PAGE, {f"{C}_dim": "16"})
    assert "varphi" not in latex(at) and "own one" not in latex(at)  # no sectors in 16-D


def test_attention_numbers_are_the_papers_sets_recomputed_from_core():
    import numpy as np

    from core import lsh, toydata

    at = open_page(PAGE, {f"{C}_view": "attention", f"{C}_b": "8", f"{C}_rounds": "2"})
    text = latex(at)
    x = toydata.unit_clusters(32, 8, 4, 0.4, np.random.default_rng(0))
    h = lsh.lsh_buckets(x, lsh.random_rotations(8, 8, np.random.default_rng([0, 8]), 2))
    mask = lsh.chunked_lsh_mask(h, 4)
    mass = lsh.kept_attention_mass(lsh.shared_qk_attention(x, 8.0), mask).mean()
    assert f"a_{{ij}} = {mass:.3f}" in text
    assert f"\\frac{{{int(mask.sum())}}}{{32^2}}" in text and f"|S_0| = {mask[0].sum()}" in text
    assert "every allowed pair shares a bucket" in text and ":red-badge[" not in text
