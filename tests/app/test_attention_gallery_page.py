"""The efficient-attention gallery, driven through AppTest by widget keys."""

from __future__ import annotations

import re

import pytest

from core import gallery as g
from tests.app.conftest import first_at, kept_charts, latex, open_page, url

PAGE = "attention_gallery.py"


@pytest.mark.parametrize("view", ["maps", "compare", "time"])
def test_every_part_runs_with_green_badges(view):
    at = open_page(PAGE, {"attention_gallery_view": view, "attention_gallery_side": "8"})
    assert not at.exception and not at.error
    assert ":green-badge[" in latex(at) and ":red-badge[" not in latex(at)


def test_the_query_sliders_move_the_row_and_the_url():
    at = open_page(PAGE, {"attention_gallery_side": "8"})
    assert "o_{36}" in latex(at)  # row 4, column 4 of an 8×8 map
    at.slider(key="attention_gallery_col").set_value(7).run()
    assert "o_{39}" in latex(at) and url(at)["attention_gallery_col"] == "7"


@pytest.mark.parametrize(
    "method", ["band", "dilated", "bigbird", "swin", "sra", "linear", "reformer", "routing"]
)
def test_every_method_draws_its_map(method):
    at = open_page(PAGE, {"attention_gallery_side": "8", "attention_gallery_method": method})
    assert not at.exception and not at.error
    kept = "kept mass" in latex(at)
    assert kept == (method not in ("sra", "linear"))  # only a masked method has a kept mass


def test_a_method_at_its_dense_limit_has_error_zero():
    query = {
        "attention_gallery_side": "8",
        "attention_gallery_method": "swin",
        "attention_gallery_window": "8",
        "attention_gallery_shift": "0",
    }
    at = open_page(PAGE, query)
    assert "= 0.0000" in latex(at) and "(64\\ \\text{keys of}\\ 64)" in latex(at)


def test_compare_ranks_full_attention_first_and_names_the_best_method():
    at = open_page(PAGE, {"attention_gallery_view": "compare", "attention_gallery_side": "8"})
    table = at.dataframe[0].value
    assert table.iloc[0, 0] == "full softmax" and float(table.iloc[0, 1]) == 0.0
    errors = [float(e) for e in table.iloc[:, 1]]
    assert errors == sorted(errors) and len(errors) == 9
    best = table.iloc[1, 0]
    assert f"\\text{{{best}}}" in latex(at)


def test_the_ratio_one_limit_puts_pvt_level_with_full_attention():
    at = open_page(
        PAGE,
        {
            "attention_gallery_view": "compare",
            "attention_gallery_side": "8",
            "attention_gallery_ratio": "1",
        },
    )
    table = at.dataframe[0].value
    rows = dict(zip(table.iloc[:, 0], table.iloc[:, 1], strict=True))
    assert float(rows["PVT spatial reduction"]) == 0.0


def test_time_reports_a_slope_per_method():
    at = open_page(PAGE, {"attention_gallery_view": "time"})
    slopes = re.findall(r"\\propto N\^\{(-?[\d.]+)\}", latex(at))
    assert len(slopes) == 4


def test_bad_url_values_fall_back_with_a_notice():
    at = open_page(PAGE, {"attention_gallery_side": "13", "attention_gallery_method": "magic"})
    assert not at.exception and not at.error
    notice = " ".join(c.value for c in at.caption)
    assert "attention_gallery_side" in notice and "attention_gallery_method" in notice


def test_the_time_view_has_no_input_controls_and_times_each_method_with_its_own_knobs(
    monkeypatch,
):
    """Time does not depend on the numbers: no seed or sharpness there. Each method is timed
    keyed on its own knobs only: PVT's ratio re-times PVT alone, and a knob of a method that
    is not timed (Reformer's buckets) re-times nothing."""
    from core import gallery as g
    from ui import cache_gallery

    seen = []
    real = cache_gallery.timing_at
    monkeypatch.setattr(
        cache_gallery, "timing_at", lambda *a: seen.append(a[1:3]) or real(*a)
    )  # records the method and the settings each timing is keyed on
    at = open_page(
        PAGE,
        {
            "attention_gallery_view": "time",
            "attention_gallery_buckets": "2",
            "attention_gallery_ratio": "4",
        },
    )
    assert not at.exception
    keys = {w.key for w in (*at.select_slider, *at.number_input)}
    assert not {"attention_gallery_seed", "attention_gallery_sharpness"} & keys
    by_method = dict(seen)
    assert set(by_method) == {"full", "linear", "sra", "swin"}
    assert by_method["full"] == by_method["linear"] == by_method["swin"] == g.Settings()
    assert by_method["sra"] == g.Settings(ratio=4)


@pytest.mark.parametrize(
    ("query", "knobs"),
    [
        ({"attention_gallery_method": "bigbird"}, {"width", "n_global", "per_row"}),
        ({"attention_gallery_method": "linear"}, set()),
        ({"attention_gallery_view": "time"}, {"window", "shift", "ratio"}),
        ({"attention_gallery_view": "compare"}, set(g.Settings.__dataclass_fields__)),
    ],
)
def test_each_view_shows_only_the_knobs_of_the_methods_it_draws(query, knobs):
    """A knob no method on screen reads would change nothing (bench.controls listed them)."""
    at = open_page(PAGE, query)
    assert not at.exception and not at.error
    keys = {w.key for w in (*at.select_slider, *at.slider, *at.toggle)}
    shown = {k.removeprefix("attention_gallery_") for k in keys} & set(
        g.Settings.__dataclass_fields__
    )
    assert shown == knobs


def test_the_compare_view_scores_are_core_compare_and_a_knob_rescores_one_method(monkeypatch):
    """The cached per-method scores are gallery.compare's numbers; after a change of Reformer's
    buckets only Reformer runs again (the other methods' entries are keyed on their knobs)."""
    from ui import cache_gallery

    settings = g.Settings(width=4, buckets=4, clusters=3)
    got = cache_gallery.scores(8, 3, 2.0, settings)
    want = g.compare(cache_gallery.shared_input(8, 3, 2.0), settings, 3)
    assert [s.method for s in got] == list(g.METHODS)
    for a, b in zip(got, want, strict=True):
        assert (a.error, a.kept_mass, a.recall, a.flops, a.peak) == (
            b.error,
            b.kept_mass,
            b.recall,
            b.flops,
            b.peak,
        ), a.method
    ran = []
    real = g.run
    monkeypatch.setattr(g, "run", lambda m, *a, **k: ran.append(m) or real(m, *a, **k))
    cache_gallery.scores(8, 3, 2.0, g.Settings(width=4, buckets=8, clusters=3))
    assert ran == ["reformer"]


def test_a_knob_of_one_method_moves_the_pareto_chart_in_place():
    """A knob re-scores one method: the new figure differs from the one drawn only in that
    method's point (and the front through it), so the browser moves the traces (ui.live,
    ``move=True``) instead of drawing the chart again."""
    at = open_page(PAGE, {"attention_gallery_view": "compare"})
    first = kept_charts(at)["attention_gallery_pareto_chart"]
    assert first["movable"]
    for kind, key, value in (("slider", "clusters", 5), ("select_slider", "buckets", 16)):
        getattr(at, kind)(key=f"attention_gallery_{key}").set_value(value).run()
        chart = kept_charts(at)["attention_gallery_pareto_chart"]
        assert chart["skeleton"] == first["skeleton"] and chart["digest"] != first["digest"], key


def test_the_compare_controls_above_the_chart_show_what_it_scored():
    """The input and the knobs are read before the chart and drawn after it, above it
    (``kit.controls_after_the_chart``): from a shared link and after a knob step, the widgets
    show the settings the ranking was scored with, and the URL holds them."""
    link = {
        "attention_gallery_view": "compare",
        "attention_gallery_side": "8",
        "attention_gallery_seed": "3",
        "attention_gallery_ratio": "1",
    }
    at = open_page(PAGE, link)
    assert not at.exception and not at.error
    assert at.select_slider(key="attention_gallery_side").value == 8
    assert at.number_input(key="attention_gallery_seed").value == 3
    assert at.select_slider(key="attention_gallery_ratio").value == 1
    row, chart = first_at(at.main, "select_slider"), first_at(at.main, "bidi_component")
    assert row is not None and chart is not None and row < chart, (row, chart)

    def pvt_error() -> float:
        table = at.dataframe[0].value
        return float(
            dict(zip(table.iloc[:, 0], table.iloc[:, 1], strict=True))["PVT spatial reduction"]
        )

    assert pvt_error() == 0.0  # ratio 1: PVT is full attention
    at.select_slider(key="attention_gallery_ratio").set_value(4).run()
    assert not at.exception and not at.error
    assert at.select_slider(key="attention_gallery_ratio").value == 4
    assert url(at)["attention_gallery_ratio"] == "4"
    assert pvt_error() > 0.0


@pytest.mark.parametrize(
    ("lang", "words"), [("en", "full attention:"), ("ja", "フルアテンション:")]
)
def test_the_compare_formula_speaks_the_pages_language(lang, words):
    at = open_page(
        PAGE, {"attention_gallery_view": "compare", "attention_gallery_side": "8", "lang": lang}
    )
    assert f"\\text{{{words}}}" in latex(at) and "full: " not in latex(at)
