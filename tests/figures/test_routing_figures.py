"""figures.routing: trace types, counts, titles and data; every builder passes full validation."""

from __future__ import annotations

import numpy as np
import pytest

from core import routing as rt
from core import toydata
from figures import routing as figs
from tests.figures.validation import assert_valid_plotly

RNG = np.random.default_rng(0)
X = toydata.blobs(20, 2, 3, 0.1, RNG)
KM = rt.kmeans(X, 3, RNG)
MASK = rt.routing_mask(KM.labels, causal=True)
KEYS, Q = toydata.mips_keys(80, 6, 4, 4, RNG)
CURVES = rt.recall_curves(Q, KEYS, 5, 2, 2, RNG)

BUILDERS = {
    "clusters_figure": lambda: figs.clusters_figure(X, KM.labels, KM.centroids, 0, title="c"),
    "mask_figure": lambda: figs.mask_figure(MASK, title="m", x_title="k", y_title="q"),
    "recall_figure": lambda: figs.recall_figure(
        CURVES, 2, title="r", x_title="dots", y_title="recall"
    ),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_routing_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_clusters_figure_routes_the_query_to_its_centroid():
    fig = BUILDERS["clusters_figure"]()
    assert [t.type for t in fig.data] == ["scatter"] * 3
    tokens, centroids, route = fig.data
    assert list(tokens.customdata) == KM.labels.tolist()
    assert len(centroids.x) == 3
    c = KM.labels[0]
    assert route.x == (X[0, 0], KM.centroids[c, 0]) and route.y == (X[0, 1], KM.centroids[c, 1])


def test_mask_figure_draws_the_mask_as_zero_one():
    fig = BUILDERS["mask_figure"]()
    (trace,) = fig.data
    np.testing.assert_array_equal(np.asarray(trace.z), MASK.astype(int))
    assert fig.layout.yaxis.range == (19.5, -0.5)


def test_recall_figure_marks_the_current_probe_on_both_curves_and_the_exhaustive_line():
    fig = figs.recall_figure(CURVES, 3, title="r", x_title="dots", y_title="recall")
    flat, tree, now = fig.data
    np.testing.assert_allclose(flat.y, CURVES.flat_recall)
    np.testing.assert_allclose(now.x, [CURVES.flat_dots[2], CURVES.tree_dots[2]])
    assert fig.layout.shapes[0].x0 == 80
    other = figs.recall_figure(CURVES, 1, title="r", x_title="dots", y_title="recall")
    assert other.layout.to_plotly_json() == fig.layout.to_plotly_json()
