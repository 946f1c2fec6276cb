"""figures.permutations: strands, crossings (= inversions) and permutation matrices."""

from __future__ import annotations

import numpy as np

from core import permutations as pm
from figures import permutations as figs


def test_wiring_diagram_draws_one_strand_per_point_and_one_crossing_per_inversion():
    p = (2, 4, 3, 1)
    inv = pm.inversions(p)
    fig = figs.wiring_diagram(p, inv, title="T")
    assert [tr.type for tr in fig.data] == ["scatter"] * 3
    assert fig.data[0].x == (1, 2, None, 2, 4, None, 3, 3, None, 4, 1, None)
    assert len(fig.data[1].x) == len(inv) == 4
    assert fig.layout.title.text == "T"


def test_crossings_lie_on_both_strands_between_the_rows():
    p = (3, 1, 4, 2)
    xs, ys = figs.crossings(p, pm.inversions(p))
    for (i, j), x, y in zip(pm.inversions(p), xs, ys, strict=True):
        assert 0 < y < 1
        for a in (i, j):  # strand a: x(y) = p(a) + y (a − p(a))
            assert np.isclose(x, p[a - 1] + y * (a - p[a - 1]))


def test_identity_has_no_crossings_and_layout_depends_on_n_max_only():
    a = figs.wiring_diagram((1, 2, 3), [], title="T")
    b = figs.wiring_diagram((3, 2, 1), pm.inversions((3, 2, 1)), title="T")
    assert len(a.data[1].x) == 0
    assert a.layout.to_plotly_json() == b.layout.to_plotly_json()


def test_matrices_figure_has_one_heatmap_per_matrix():
    mats = [pm.permutation_matrix(p) for p in ((2, 1, 3), (1, 3, 2), (2, 3, 1))]
    fig = figs.matrices_figure(mats, titles=["a", "b", "c"])
    assert [tr.type for tr in fig.data] == ["heatmap"] * 3
    assert fig.data[2].xaxis == "x3"
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), mats[0])
