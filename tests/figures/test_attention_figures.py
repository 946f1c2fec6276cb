"""figures.attention: trace types, counts, axis titles and data on the figure objects."""

from __future__ import annotations

import numpy as np

from core import attention as att
from figures import attention as figs
from figures.style import SEQUENTIAL
from tests.figures.validation import assert_valid_plotly


def test_attention_heatmap_puts_query_zero_on_top_and_keeps_repeated_words_apart():
    w = att.masked_softmax(np.random.default_rng(0).standard_normal((3, 3)))
    fig = figs.attention_heatmap(
        w, ["the", "cat", "the"], title="T", x_title="key", y_title="query"
    )
    (trace,) = fig.data
    assert trace.type == "heatmap" and trace.zmin == 0 and trace.zmax == 1
    np.testing.assert_array_equal(np.asarray(trace.z), w)
    assert fig.layout.yaxis.range == (2.5, -0.5)
    assert list(fig.layout.xaxis.ticktext) == ["the", "cat", "the"]
    assert fig.layout.xaxis.title.text == "key" and fig.layout.yaxis.title.text == "query"
    assert trace.colorscale[0][1] == "#440154"  # Viridis
    assert SEQUENTIAL == "Viridis"


def test_query_row_figure_has_fixed_axes_and_two_bar_traces():
    fig = figs.query_row_figure(
        ["a", "b"],
        np.array([0.25, 0.75]),
        np.array([1.0, -2.0, 0.5]),
        titles=("w", "o"),
        y_titles=("a", "v"),
        x_titles=("k", "c"),
        output_range=3.0,
    )
    assert [t.type for t in fig.data] == ["bar", "bar"]
    np.testing.assert_array_equal(fig.data[0].y, [0.25, 0.75])
    assert fig.layout.yaxis.range == (0, 1.02) and fig.layout.yaxis2.range == (-3.0, 3.0)
    assert fig.layout.xaxis2.title.text == "c"


def test_head_grid_tiles_every_head_into_one_heatmap_with_gaps():
    w = np.random.default_rng(0).dirichlet(np.ones(4), size=(6, 4))  # (6 heads, 4, 4)
    fig = figs.head_grid(w, list("abcd"), title="heads", head_title="head {i}")
    assert_valid_plotly(fig)
    (trace,) = fig.data
    assert trace.type == "heatmap" and trace.hoverongaps is False
    z = np.asarray(trace.z, dtype=float)
    assert z.shape == (2 * 5 - 1, 4 * 5 - 1)  # 2 rows of 4 tiles, one gap between tiles
    for i in range(6):  # head i+1 sits at row i // 4, column i % 4, with the words of a cell
        r, c = divmod(i, 4)
        np.testing.assert_array_equal(z[5 * r : 5 * r + 4, 5 * c : 5 * c + 4], w[i])
        assert list(trace.customdata[5 * r + 1][5 * c + 2]) == ["b", "c"]
    assert np.isnan(z[4]).all() and np.isnan(z[:, 4]).all()  # the gaps
    assert np.isnan(z[5:, 10:]).all()  # no heads 7 and 8: empty tiles
    assert [a.text for a in fig.layout.annotations] == [f"head {i}" for i in range(1, 7)]
    assert list(fig.layout.xaxis.ticktext) == list("abcd") * 4
    assert fig.layout.xaxis.tickvals[4] == 5  # the second tile's first key


def test_scaling_figure_traces_and_current_markers():
    dims = (16, 32, 64)
    ent = np.array([[2.0, 2.1], [2.0, 1.5], [2.0, 0.5]])
    top = np.array([[0.2, 0.2], [0.2, 0.5], [0.2, 0.9]])
    fig = figs.scaling_figure(
        dims,
        ent,
        top,
        32,
        np.log(16),
        titles=("H", "max"),
        x_title="D",
        y_titles=("nats", "a"),
        names=("good", "bad"),
    )
    assert len(fig.data) == 6 and all(t.type == "scatter" for t in fig.data)
    np.testing.assert_array_equal(fig.data[1].y, ent[:, 1])
    np.testing.assert_array_equal(fig.data[4].y, ent[1])
    np.testing.assert_array_equal(fig.data[5].y, top[1])
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis2.title.text == "a"


def test_mask_heatmap_is_zero_one_and_square():
    m = att.band_mask(5, 1)
    fig = figs.mask_heatmap(m, title="M", x_title="key", y_title="query")
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), m.astype(int))
    assert fig.layout.yaxis.scaleanchor == "x"


def test_cost_and_timing_figures_are_log_log_with_their_data():
    n = np.array([64, 128, 256])
    fig = figs.cost_figure(
        n,
        n**2.0,
        5.0 * n,
        128,
        (128**2, 640),
        title="c",
        x_title="n",
        y_title="pairs",
        names=("full", "band"),
    )
    assert len(fig.data) == 3 and fig.layout.xaxis.type == fig.layout.yaxis.type == "log"
    np.testing.assert_array_equal(fig.data[1].y, 5.0 * n)
    e, r = 1e-9 * n**2.0, 1e-7 * n
    fits = ((2.0, np.log(1e-9)), (1.0, np.log(1e-7)))
    fig = figs.timing_figure(
        n, e, r, fits, title="t", x_title="N", y_title="s", names=("explicit", "reordered")
    )
    assert [t.mode for t in fig.data] == ["markers", "markers", "lines", "lines"]
    np.testing.assert_allclose(fig.data[2].y, e)
    np.testing.assert_allclose(fig.data[3].y, r)
