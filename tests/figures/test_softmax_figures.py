"""figures.softmax: trace types, counts, axis titles and the numbers on the figure object."""

from __future__ import annotations

import numpy as np
import pytest

from core import contrastive as ct
from core import softmax as sm
from core import toydata
from figures import softmax as figs


def test_the_zero_temperature_limit_is_shared_by_tied_maxima():
    u = np.array([3.0, 1.0, 3.0])
    fig = figs.temperature_figure(
        ["a", "b", "c"],
        sm.softmax(u, 1.0),
        np.geomspace(0.05, 20, 5),
        np.ones(5),
        1.0,
        0.9,
        np.log(3),
        titles=("p", "H"),
        y_titles=("p", "H"),
        x_title="T",
        zero_limit=sm.zero_temperature_limit(u),
    )
    assert fig.data[1].x == ("a", "c") and fig.data[1].y == (0.5, 0.5)


def test_histograms_are_binned_densities_that_integrate_to_one():
    raw, scaled = sm.sample_dot_products(64, 2000, np.random.default_rng(0))
    fig = figs.dot_product_histograms(raw, scaled, title="h", x_title="s", y_title="d", bins=40)
    assert [tr.type for tr in fig.data] == ["bar", "bar"]
    for tr in fig.data:
        width = tr.x[1] - tr.x[0]
        assert len(tr.y) == 40
        assert np.sum(tr.y) * width == pytest.approx(1.0, rel=1e-9)
    # scaled scores are narrower: their density peak is higher
    assert max(fig.data[1].y) > max(fig.data[0].y)


def test_variance_plot_is_log_log_with_the_theory_line():
    dims = [1, 2, 4, 8]
    var = np.array([[1.0, 1.0], [2.1, 1.05], [3.9, 0.97], [8.2, 1.02]])
    fig = figs.variance_vs_dimension(dims, var, 4, title="v", x_title="d", y_title="var")
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    np.testing.assert_array_equal(fig.data[2].y, [1.0, 2.0, 4.0, 8.0])
    assert fig.data[3].y == (3.9, 0.97)


def test_reliability_diagram_draws_empty_bins_as_zero_height_and_the_diagonal():
    edges = np.linspace(0, 1, 5)
    before = np.array([np.nan, 0.3, 0.5, 0.7])
    after = np.array([0.1, 0.4, 0.6, 0.9])
    fig = figs.reliability_diagram(edges, before, after, title="r", x_title="c", y_title="a")
    np.testing.assert_array_equal(fig.data[0].y, [0.0, 0.3, 0.5, 0.7])
    np.testing.assert_array_equal(fig.data[0].x, [0.125, 0.375, 0.625, 0.875])
    assert fig.data[2].x == (0, 1) and fig.data[2].y == (0, 1)
    assert fig.layout.barmode == "group"


def test_contrastive_distribution_separates_positive_from_negatives_without_the_anchor():
    z = toydata.positive_pairs(3, 4, 0.2, np.random.default_rng(0))
    probs = ct.explain_nt_xent(z, 0.5).probs
    fig = figs.contrastive_distribution(probs[1], 4, 1, title="t", x_title="e", y_title="p")
    assert fig.data[0].x == ("z4",)
    assert fig.data[1].x == ("z0", "z2", "z3", "z5")
    assert fig.data[0].y[0] + sum(fig.data[1].y) == pytest.approx(1.0)


def test_loss_vs_tau_marks_current_tau():
    fig = figs.loss_vs_tau(
        np.array([0.1, 1.0]), np.array([2.0, 1.5]), 1.0, 1.5, title="L", x_title="τ", y_title="L"
    )
    assert fig.layout.xaxis.type == "log"
    assert fig.data[1].x == (1.0,) and fig.data[1].y == (1.5,)


def test_temperature_figure_has_both_panels_and_a_layout_independent_of_T():
    u = np.array([5.0, 6.0, 7.0])
    grid = np.geomspace(0.05, 20, 40)
    curve = sm.entropy(sm.softmax(u[None, :] / grid[:, None]))

    def build(T):
        p = sm.softmax(u, T)
        return figs.temperature_figure(
            ["a", "b", "c"],
            p,
            grid,
            curve,
            T,
            float(sm.entropy(p)),
            np.log(3),
            titles=("P", "H"),
            y_titles=("p", "H"),
            x_title="T",
        )

    cold, hot = build(0.3), build(10.0)
    assert [tr.type for tr in cold.data] == ["bar", "scatter", "scatter", "scatter"]
    np.testing.assert_allclose(cold.data[0].y, [0.00122729, 0.03440292, 0.96436979], atol=1e-8)
    assert cold.data[1].x == ("c",)  # the argmax
    assert [tr.xaxis or "x" for tr in cold.data] == ["x", "x", "x2", "x2"]
    assert cold.layout.xaxis2.type == "log"
    assert cold.data[3].x == (0.3,) and hot.data[3].x == (10.0,)
    # reference lines are shapes at 1/n and ln n
    assert cold.layout.shapes[0].y0 == pytest.approx(1 / 3)
    assert cold.layout.shapes[1].y0 == pytest.approx(np.log(3))
    # only trace data moves with T: the browser can skip a full relayout
    assert cold.layout == hot.layout


def test_house_style_avoids_the_slow_plotly_features():
    from figures.style import layout

    lay = layout(title="t", x="x", y="y")
    assert lay["template"] == "none"  # a named template costs ~20 ms and ~6 KB per figure
    assert lay["xaxis"]["automargin"] is False  # automargin doubles the browser's redraw


def test_temperature_updates_turn_one_temperature_into_another():
    """The live control sends only these per T: applied to the figure at one T they give
    the figure at another (the rest of the figure does not depend on T)."""
    u = np.array([5.0, 6.0, 7.0])

    def at(T: float):
        p = sm.softmax(u, T)
        return p, float(sm.entropy(p))

    def fig(T: float):
        p, H = at(T)
        grid = np.geomspace(0.05, 20, 5)
        return figs.temperature_figure(
            ["a", "b", "c"],
            p,
            grid,
            np.ones(5),
            T,
            H,
            np.log(3),
            titles=("p", "H"),
            y_titles=("p", "H"),
            x_title="T",
        ).to_plotly_json()

    start, goal = fig(0.3), fig(5.0)
    for i, props in figs.temperature_updates(*at(5.0)[:1], 5.0, at(5.0)[1]).items():
        start["data"][i].update(props)
    for a, b in zip(start["data"], goal["data"], strict=True):
        assert {k: np.asarray(v).tolist() for k, v in a.items()} == {
            k: np.asarray(v).tolist() for k, v in b.items()
        }
    assert start["layout"] == goal["layout"]
