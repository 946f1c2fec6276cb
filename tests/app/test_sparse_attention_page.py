"""The sparse-attention page, driven through AppTest by widget keys."""

from __future__ import annotations

import pytest

from core import attention as att
from tests.app.conftest import first_at, latex, open_page, url
from ui import tex

PAGE = "sparse_attention.py"


@pytest.mark.parametrize(
    "pattern",
    ["band", "dilated", "global", "random", "block_local", "star", "longformer", "etc", "bigbird"],
)
@pytest.mark.parametrize("view", ["pattern", "cost"])
def test_every_pattern_and_part_runs_with_green_badges(pattern, view):
    at = open_page(PAGE, {"sparse_attention_pattern": pattern, "sparse_attention_view": view})
    assert not at.exception and not at.error
    assert ":green-badge[" in latex(at) and ":red-badge[" not in latex(at)


def test_band_receptive_field_grows_by_the_width_per_layer():
    query = {
        "sparse_attention_pattern": "band",
        "sparse_attention_width": "2",
        "sparse_attention_n": "16",
    }
    at = open_page(PAGE, query)
    # band w = 2 on 16 tokens: 16 + 2 * (15 + 14) = 74 pairs
    assert "\\frac{74}{16^2}" in latex(at)
    at.slider(key="sparse_attention_layers").set_value(2).run()
    assert "R_{2}" in latex(at)
    # width 4 after two layers: |i - j| <= 4 -> (16 + 2 * (15 + 14 + 13 + 12)) / 256 = 48.4 %
    assert "48.4\\%" in latex(at)
    assert url(at)["sparse_attention_layers"] == "2"


def test_only_the_knobs_of_the_chosen_pattern_are_shown():
    at = open_page(PAGE, {"sparse_attention_pattern": "block_local"})
    keys = {s.key for s in at.slider}
    assert "sparse_attention_block" in keys and "sparse_attention_width" not in keys


def test_cost_slider_moves_the_numbers():
    at = open_page(PAGE, {"sparse_attention_view": "cost", "sparse_attention_pattern": "band"})
    at.select_slider(key="sparse_attention_cost_n").set_value(64).run()
    # band w = 2, n = 64: 64 + 2 * (63 + 62) = 314 pairs vs 4096
    assert "4{,}096" in latex(at) and "314" in latex(at)


def test_bad_url_values_fall_back_with_a_notice():
    at = open_page(PAGE, {"sparse_attention_pattern": "nonsense", "sparse_attention_layers": "99"})
    assert not at.exception
    assert at.radio(key="sparse_attention_pattern").value == "band"
    notice = " ".join(c.value for c in at.caption)
    assert "sparse_attention_pattern" in notice and "sparse_attention_layers" in notice


def test_the_seed_shows_only_for_patterns_that_draw_random_keys():
    at = open_page(PAGE)  # band: nothing random
    assert "sparse_attention_seed" not in {w.key for w in at.number_input}
    at = open_page(PAGE, {"sparse_attention_pattern": "bigbird"})
    assert "sparse_attention_seed" in {w.key for w in at.number_input}
    before = at.get("plotly_chart")[0].proto.spec
    at.number_input(key="sparse_attention_seed").increment().run()
    assert not at.exception and at.get("plotly_chart")[0].proto.spec != before  # new keys


@pytest.mark.parametrize(
    ("view", "chart_kind"), [("pattern", "plotly_chart"), ("cost", "bidi_component")]
)
def test_the_pattern_row_above_the_charts_shows_the_pattern_they_were_drawn_of(view, chart_kind):
    """The pattern, its knobs and the seed are read before the charts and drawn after them,
    above them (``kit.controls_after_the_chart``): from a shared link and after a new pattern
    (other knobs), the widgets show what the charts count, and the URL holds it."""
    link = {
        "sparse_attention_view": view,
        "sparse_attention_pattern": "bigbird",
        "sparse_attention_width": "3",
        "sparse_attention_seed": "2",
    }
    at = open_page(PAGE, link)
    assert not at.exception and not at.error
    assert at.radio(key="sparse_attention_pattern").value == "bigbird"
    assert at.slider(key="sparse_attention_width").value == 3
    assert at.number_input(key="sparse_attention_seed").value == 2
    row, chart = first_at(at.main, "radio"), first_at(at.main, chart_kind)
    assert row is not None and chart is not None and row < chart, (row, chart)

    at.radio(key="sparse_attention_pattern").set_value("dilated").run()
    assert not at.exception and not at.error
    assert {s.key for s in at.slider} >= {"sparse_attention_width", "sparse_attention_dilation"}
    assert "sparse_attention_seed" not in {w.key for w in at.number_input}
    assert url(at)["sparse_attention_pattern"] == "dilated"
    n = 1024 if view == "cost" else 32
    mask = att.dilated_mask(n, 3, 2)  # the link's width, the default dilation
    pairs = tex.num(int(mask.sum())) if view == "cost" else f"\\frac{{{int(mask.sum())}}}"
    assert pairs in latex(at), (pairs, latex(at))


@pytest.mark.parametrize(("pattern", "knob"), [("global", "n_global"), ("random", "per_row")])
def test_a_pattern_of_one_knob_never_leaves_a_query_without_keys(pattern, knob):
    """0 global tokens or 0 random keys would be a mask with no pair at all (a softmax over
    nothing): that pattern's knob starts at 1, and a link asking for 0 falls back to the
    knob's default with a notice."""
    key = f"sparse_attention_{knob}"
    at = open_page(PAGE, {"sparse_attention_pattern": pattern, key: "0"})
    assert not at.exception and at.slider(key=key).min == 1 and at.slider(key=key).value >= 1
    assert key in " ".join(c.value for c in at.caption)
    assert "\\frac{0}" not in latex(at)
    # a pattern that has other keys keeps 0 on the knob (Longformer's band alone)
    at = open_page(
        PAGE, {"sparse_attention_pattern": "longformer", "sparse_attention_n_global": "0"}
    )
    assert at.slider(key="sparse_attention_n_global").value == 0


def test_the_cost_beyond_the_counted_lengths_says_it_is_extrapolated():
    at = open_page(PAGE, {"sparse_attention_view": "cost", "sparse_attention_pattern": "band"})
    at.select_slider(key="sparse_attention_cost_n").set_value(2048).run()
    assert "n = 2{,}048" in latex(at) and "\\approx" not in latex(at)
    at.select_slider(key="sparse_attention_cost_n").set_value(16384).run()
    # band w = 2 at 2048: 2048 + 2 (2047 + 2046) = 10234 pairs, × 8 at n = 16384
    assert "n = 16{,}384" in latex(at) and "\\approx 81{,}872" in latex(at)
    assert "counted on the mask up to n =" in latex(at)
