"""The attention-maps page, driven through AppTest by widget keys."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from core import attention as att
from tests.app.conftest import chart_specs, latex, live_states, open_page, url

PAGE = "attention_maps.py"
SENTENCE = "the cat sat on the mat because it was tired"


def report(at, i: int):
    """What the browser does when the live query slider settles on ``i`` (ui.live)."""
    at.session_state["_live_value_attention_maps_query"] = i
    return at.run()


@pytest.mark.parametrize("view", ["map", "heads", "scaling", "masks", "torch"])
def test_every_part_runs_with_green_badges(view):
    at = open_page(PAGE, {"attention_maps_view": view})
    assert not at.exception and not at.error
    # the map view's query part draws its badges in the live control, one set per query
    badges = latex(at) + "".join(s["html"] for s in live_states(at).values())
    assert ":green-badge[" in badges or "live-badge live-ok" in badges
    assert ":red-badge[" not in badges and ' live-bad"' not in badges


def test_the_live_query_control_carries_every_row_and_output():
    """Each query's state is that query's row of weights and its output, as core computes
    them: the browser redraws any of them with no round trip."""
    at = open_page(PAGE)
    states = live_states(at)
    tokens = SENTENCE.split()
    assert sorted(states) == list(range(len(tokens)))
    x = att.token_embeddings(tokens, 16, 0)
    ws = att.projections(16, "random", np.random.default_rng(0))
    out, w = att.scaled_dot_product_attention(x @ ws[0], x @ ws[1], x @ ws[2])
    for i, s in states.items():
        traces = dict((j, props) for j, props in s["traces"])
        np.testing.assert_allclose(traces[0]["y"], w[i], rtol=1e-6, atol=1e-12)
        np.testing.assert_allclose(traces[1]["y"], out[i], rtol=1e-6, atol=1e-12)
        assert s["label"] == f"{i}: {tokens[i]}"
        assert f"{i} ({tokens[i]})" in s["html"] and ' live-bad"' not in s["html"]
        top = int(np.argmax(w[i]))
        assert f"= {w[i, top]:.4f} ({tokens[top]})" in s["html"]


def test_a_reported_query_moves_the_formula_and_the_url():
    at = report(open_page(PAGE), 7)
    assert not at.exception
    assert "a_{7,j}" in latex(at) and "o_{7}" in latex(at)
    assert url(at)["attention_maps_query"] == "7"
    assert ":green-badge[" not in latex(at)  # the live control shows them


def test_identity_projections_make_each_token_attend_most_to_itself():
    at = open_page(PAGE, {"attention_maps_proj": "identity", "attention_maps_d": "64"})
    for i in (0, 2, 5):
        assert f"a_{{{i},{i}}}" in latex(report(at, i))


@pytest.mark.parametrize("text", ["", "   ", "word " * 40, "x" * 30])
def test_bad_sentence_shows_an_error_not_a_traceback(text):
    at = open_page(PAGE)
    at.text_input(key="attention_maps_sentence").input(text).run()
    assert not at.exception
    assert at.error
    at.text_input(key="attention_maps_sentence").input("a short one").run()
    assert not at.error and sorted(live_states(at)) == [0, 1, 2]
    assert "a_{2,j}" in latex(at)  # query 3 of the old sentence: the nearest of the new


def test_the_heads_control_offers_only_the_heads_that_divide_d():
    at = open_page(PAGE, {"attention_maps_view": "heads", "attention_maps_d": "12"})
    assert at.select_slider(key="attention_maps_heads").options == ["1", "2", "3", "4", "6"]
    at.select_slider(key="attention_maps_heads").set_value(6).run()
    assert not at.error and "(1,6,10,2)" in latex(at)
    at.select_slider(key="attention_maps_d").set_value(16).run()  # 6 does not divide 16
    heads = at.select_slider(key="attention_maps_heads")
    assert heads.options == ["1", "2", "4", "8"] and heads.value == 4  # the nearest that does
    assert not at.exception and not at.error and "(1,4,10,4)" in latex(at)


def test_tutorial_scaling_saturates_for_large_D():
    at = open_page(PAGE, {"attention_maps_view": "scaling"})
    at.select_slider(key="attention_maps_D").set_value(1024).run()
    assert "\\tfrac{128}{8} = 16" in latex(at)
    assert ":red-badge[" not in latex(at)


def test_all_padding_gives_zero_rows_and_no_nan():
    at = open_page(PAGE, {"attention_maps_view": "masks", "attention_maps_mask": "padding"})
    at.slider(key="attention_maps_pad").set_value(10).run()
    assert not at.exception and not at.error
    assert "(10 \\text{ of } 10 \\text{ rows})" in latex(at)
    assert ":red-badge[" not in latex(at)


def test_torch_panel_agrees_without_the_causal_mask_and_with_many_heads():
    at = open_page(PAGE, {"attention_maps_view": "torch", "attention_maps_torch_causal": "0"})
    at.select_slider(key="attention_maps_torch_heads").set_value(8).run()
    assert not at.exception and not at.error
    assert "h = 8" in latex(at) and ":red-badge[" not in latex(at)


def test_url_restores_the_view():
    query = {
        "attention_maps_sentence": "one two three four",
        "attention_maps_query": "2",
        "attention_maps_seed": "9",
    }
    at = open_page(PAGE, query)
    assert at.number_input(key="attention_maps_seed").value == 9
    assert "a_{2,j}" in latex(at)


def test_the_badge_counts_the_rows_whose_maximum_is_on_the_diagonal():
    """Identity projections do not make every token attend most to itself (issue found by a
    reader): at d = 4, seed 0, 6 of the 10 rows."""
    at = open_page(PAGE, {"attention_maps_proj": "identity", "attention_maps_d": "4"})
    for s in live_states(at).values():
        assert "diagonal brightest in 6 of 10 rows" in s["html"] and ' live-bad"' not in s["html"]


def test_a_bad_query_link_falls_back_with_a_notice():
    at = open_page(PAGE, {"attention_maps_query": "99"})
    assert not at.exception and "a_{3,j}" in latex(at)
    assert "attention_maps_query" in " ".join(c.value for c in at.caption)


def test_torch_view_ignores_a_link_with_heads_that_do_not_divide_d():
    at = open_page(
        PAGE,
        {
            "attention_maps_view": "torch",
            "attention_maps_d": "16",
            "attention_maps_torch_heads": "3",
        },
    )
    assert not at.exception and not at.error
    assert at.select_slider(key="attention_maps_torch_heads").value == 2  # the default
    assert any("attention_maps_torch_heads" in c.value for c in at.caption)  # said so


def test_the_scaling_chart_marks_the_D_chosen_also_from_the_shared_cache():
    """The chart is kept and cached by D (``memo``): a D seen before comes from the cache
    and must still mark that D, not the one drawn before it."""
    at = open_page(PAGE, {"attention_maps_view": "scaling"})

    def marked() -> set:
        traces = chart_specs(at)["attention_maps_scaling_chart"]["data"][4:]
        return {x for t in traces for x in t["x"]}

    assert marked() == {256}
    at.select_slider(key="attention_maps_D").set_value(1024).run()
    assert marked() == {1024}
    at.select_slider(key="attention_maps_D").set_value(256).run()
    assert not at.exception and marked() == {256}


def test_the_torch_gap_map_reads_its_tiny_numbers_as_powers_of_ten():
    """The gaps to torch are near 1e-16: the colour bar ticks as ×10ⁿ (Plotly's default SI
    prefix would label 4e-16 "0.4f", femto) and the hover shows the gap in e-notation (".4f"
    would read 0.0000)."""
    at = open_page(PAGE, {"attention_maps_view": "torch"})
    (heat,) = chart_specs(at)["attention_maps_torch_chart"]["data"]
    assert heat["colorbar"]["exponentformat"] == "power"
    assert "%{z:.1e}" in heat["hovertemplate"] and ".4f" not in heat["hovertemplate"]
    z = np.frombuffer(base64.b64decode(heat["z"]["bdata"]), dtype=heat["z"]["dtype"])
    assert 0 < z.max() < 1e-12  # what the format is for
