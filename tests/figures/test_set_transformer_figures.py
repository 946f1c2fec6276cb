"""figures.set_transformer: trace types, counts, data, fixed layouts, full Plotly validation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core import set_transformer as stf
from core import toydata
from figures import set_transformer as figs
from tests.figures.validation import assert_valid_plotly

X, LABELS = toydata.circle_clusters(40, 3, np.random.default_rng(0))
ORDER = np.argsort(LABELS, kind="stable")
X, LABELS = X[ORDER], LABELS[ORDER]
AXES = {"points_x": "x1", "points_y": "x2", "elements": "e", "inducing": "i"}


def isab_case(m: int, seed: int = 0):
    isab = stf.ISAB(2, 8, 2, m, generator=torch.Generator().manual_seed(seed)).double()
    with torch.no_grad():
        result = isab.explain(torch.from_numpy(X)[None])
        Z, A_IX, A_XH = result.out, result.weights_ix, result.weights_xh
    return Z[0].numpy(), A_IX[0, 0].numpy(), A_XH[0, 0].numpy()


Z, A_IX, A_XH = isab_case(5)
PERM = np.random.default_rng(1).permutation(40)
NS = np.array([4.0, 16, 64, 256, 1024])


def maps(m: int = 5, j: int = 2):
    _, a_ix, a_xh = isab_case(m)
    return figs.maps_figure(
        LABELS, a_ix, a_xh, j, titles=("b", "c"), axis_titles=AXES, colorbar_title="w"
    )


def points(m: int = 5, j: int = 2):
    _, a_ix, _ = isab_case(m)
    return figs.points_figure(X, LABELS, len(X) * a_ix[j], title="a", axis_titles=("x1", "x2"))


BUILDERS = {
    "maps_figure": maps,
    "points_figure": points,
    "cost_figure": lambda: figs.cost_figure(
        NS, NS**2, 2 * 8 * NS, 64, (4096, 1024), title="t", x_title="x", y_title="y"
    ),
    "equivariance_figure": lambda: figs.equivariance_figure(
        Z,
        Z[PERM],
        Z[PERM],
        [(0, int(np.argsort(PERM)[0]))],
        titles=("a", "b", "c"),
        x_title="x",
        y_title="y",
        colorbar_title="v",
    ),
    "pooling_figure": lambda: figs.pooling_figure(
        [(Z.sum(0), Z[PERM].sum(0)), (Z.max(0), Z[PERM].max(0))],
        titles=("s", "m"),
        x_title="c",
        names=("a", "b"),
    ),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_set_transformer_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_maps_figure_shows_both_maps_relative_to_uniform():
    fig = maps(m=5, j=2)
    assert [tr.type for tr in fig.data] == ["heatmap", "heatmap", "scatter", "scatter"]
    n, m = 40, 5
    assert np.asarray(fig.data[0].z).shape == (m, n)
    assert np.allclose(np.asarray(fig.data[0].z), n * A_IX, atol=1e-3)
    assert np.asarray(fig.data[1].z).shape == (n, m)
    assert np.allclose(np.asarray(fig.data[1].z), m * A_XH, atol=1e-3)
    # row j outlined in the m×n map, column j in the n×m map
    assert min(fig.data[2].y) == 1.5 and max(fig.data[2].y) == 2.5
    assert min(fig.data[3].x) == 1.5 and max(fig.data[3].x) == 2.5
    # cluster borders: two cuts, in both maps
    cuts = sorted({sh.x0 for sh in fig.layout.shapes if sh.xref == "x"})
    assert cuts == [i + 0.5 for i in np.flatnonzero(np.diff(LABELS))]
    assert len(fig.layout.shapes) == 4
    assert fig.layout.coloraxis.cmin == 0 and fig.layout.coloraxis.cmax == 2


def test_points_are_coloured_by_row_j_on_the_maps_colour_scale():
    fig, ref = points(m=5, j=2), maps(m=5, j=2)
    assert [tr.type for tr in fig.data] == ["scatter"]
    assert np.allclose(fig.data[0].marker.color, 40 * A_IX[2], atol=1e-3)
    assert len(set(fig.data[0].marker.symbol)) == 3  # one symbol per cluster
    for key in ("colorscale", "cmin", "cmax"):
        assert fig.layout.coloraxis[key] == ref.layout.coloraxis[key]
    assert fig.layout.coloraxis.showscale is False and ref.layout.coloraxis.showscale is not False


def test_maps_layout_does_not_depend_on_m_or_j():
    assert maps(m=3, j=0).layout == maps(m=12, j=7).layout
    assert points(m=3, j=0).layout == points(m=12, j=7).layout


def test_cost_figure_marks_the_current_pair():
    fig = BUILDERS["cost_figure"]()
    assert len(fig.data) == 3 and fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert list(fig.data[2].x) == [64, 64] and list(fig.data[2].y) == [4096, 1024]
    assert list(fig.data[0].y) == (NS**2).tolist()


def test_equivariance_figure_stacks_three_channel_by_element_maps():
    fig = BUILDERS["equivariance_figure"]()
    assert [tr.type for tr in fig.data[:3]] == ["heatmap"] * 3 and len(fig.data) == 6
    top, middle, bottom = (np.asarray(tr.z) for tr in fig.data[:3])
    assert top.shape == (8, 40)  # channels × elements
    assert np.allclose(top, Z.T, atol=1e-3) and np.array_equal(middle, bottom)
    assert np.array_equal(middle[:, np.argsort(PERM)], top)  # the columns, shuffled back
    where = int(np.argsort(PERM)[0])
    assert min(fig.data[3].x) == -0.5 and min(fig.data[4].x) == where - 0.5
    assert fig.layout.coloraxis.cmin == -fig.layout.coloraxis.cmax


def test_equivariance_layout_does_not_depend_on_the_shuffle():
    other = np.random.default_rng(9).permutation(40)
    a = BUILDERS["equivariance_figure"]()
    b = figs.equivariance_figure(
        Z,
        Z[other],
        Z[other],
        [(0, 5)],
        titles=("a", "b", "c"),
        x_title="x",
        y_title="y",
        colorbar_title="v",
    )
    assert a.layout == b.layout


def test_pooling_figure_has_a_bar_and_markers_per_panel():
    fig = BUILDERS["pooling_figure"]()
    assert [tr.type for tr in fig.data] == ["bar", "scatter", "bar", "scatter"]
    assert np.allclose(fig.data[0].y, Z.sum(0), atol=1e-4)
    assert np.allclose(fig.data[1].y, fig.data[0].y, atol=1e-4)  # invariant: same values
    assert [tr.showlegend for tr in fig.data] == [True, True, False, False]
    assert fig.data[2].xaxis == "x2" and [a.text for a in fig.layout.annotations] == [
        "<b>s</b>",
        "<b>m</b>",
    ]
