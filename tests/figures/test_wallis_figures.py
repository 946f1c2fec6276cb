"""figures.wallis: trace types, counts, axes and the numbers on the figure object."""

from __future__ import annotations

import math

import numpy as np

from core import wallis as w
from figures import wallis as figs


def test_product_figure_shows_the_products_the_gap_and_the_asymptote():
    P = w.wallis_partial_products(1000)
    N = np.array([1, 10, 100, 1000])
    fig = figs.product_figure(
        N, 2 * P[N - 1], 1000, titles=("a", "b"), x_title="N", y_titles=("2P", "gap")
    )
    assert [tr.type for tr in fig.data] == ["scatter"] * 5
    np.testing.assert_allclose(fig.data[0].y, 2 * P[N - 1])
    assert fig.data[1].x == (1000,) and fig.data[1].y[0] == 2 * P[-1]
    np.testing.assert_allclose(fig.data[2].y, math.pi - 2 * P[N - 1])
    np.testing.assert_allclose(fig.data[3].y, math.pi / (4 * np.asarray(fig.data[3].x)))
    assert fig.data[2].xaxis == "x2" and fig.layout.yaxis2.type == "log"
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.title.text == "N"
    assert fig.layout.shapes[0].y0 == math.pi


def test_product_figure_layout_does_not_depend_on_n():
    def lay(n):
        P = w.wallis_partial_products(n)
        N = np.arange(1, n + 1)
        fig = figs.product_figure(
            N, 2 * P, n, titles=("a", "b"), x_title="N", y_titles=("2P", "gap")
        )
        return fig.layout.to_plotly_json(), [tr.name for tr in fig.data]

    assert lay(5) == lay(50)


def test_integrals_figure_nests_the_integrands_and_highlights_three_W():
    x = np.linspace(0, math.pi / 2, 50)
    N = 2
    curves = np.stack([np.sin(x) ** m for m in (4, 5, 6)])
    k = np.arange(0, 43)
    W = w.wallis_integral_float(k)
    fig = figs.integrals_figure(
        x, curves, k, W, N, titles=("a", "b"), x_titles=("x", "k"), y_titles=("y", "W")
    )
    assert len(fig.data) == 5
    assert np.all(np.asarray(fig.data[0].y) >= np.asarray(fig.data[2].y))
    assert fig.data[4].x == (4, 5, 6)
    np.testing.assert_allclose(fig.data[4].y, W[[4, 5, 6]])
    assert fig.layout.xaxis2.title.text == "k"
