"""figures.lsh: trace types, counts, titles and data; every builder passes full validation."""

from __future__ import annotations

import numpy as np
import pytest

from core import lsh, toydata
from figures import lsh as figs
from tests.figures.validation import assert_valid_plotly

RNG = np.random.default_rng(0)
X = toydata.unit_clusters(12, 2, 3, 0.3, RNG)
R = lsh.random_rotations(2, 6, RNG)
H = lsh.lsh_buckets(X, R)[0]
RING = np.linspace(-np.pi, np.pi, 37)[:-1]
RING_H = lsh.lsh_buckets(np.c_[np.cos(RING), np.sin(RING)], R)[0]
W = lsh.shared_qk_attention(X, 4.0)
THETA = np.linspace(0, np.pi, 7)
P = 1 - THETA / np.pi
SE = np.sqrt(P * (1 - P) / 100)
NAMES5 = ("band", "mc", "closed", "mc n", "formula")


def hash_fig():
    return figs.hash_figure(X, H, RING, RING_H, R[0].T, title="h")


BUILDERS = {
    "hash_figure": hash_fig,
    "hash_figure_projected": lambda: figs.hash_figure(
        X, H, np.zeros(0), np.zeros(0, int), np.zeros((0, 2)), title="h"
    ),
    "attention_pair_figure": lambda: figs.attention_pair_figure(
        W, W, titles=("a", "b"), x_title="k", y_title="q"
    ),
    "mass_curve_figure": lambda: figs.mass_curve_figure(
        [2, 4, 6], np.full((3, 2), 0.5), 4, 2, title="m", x_title="b", y_title="kept"
    ),
    "collision_figure": lambda: figs.collision_figure(
        np.degrees(THETA),
        P,
        SE,
        P,
        P,
        P,
        30.0,
        0.8,
        title="c",
        x_title="θ",
        y_title="p",
        names=NAMES5,
    ),
    "collision_figure_no_closed_form": lambda: figs.collision_figure(
        np.degrees(THETA),
        P,
        SE,
        None,
        P,
        P,
        30.0,
        0.8,
        title="c",
        x_title="θ",
        y_title="p",
        names=NAMES5,
    ),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_lsh_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_hash_figure_colours_points_by_bucket_and_draws_the_directions():
    fig = hash_fig()
    assert [t.type for t in fig.data] == ["scatter"] * 5
    ring, plus, minus, points, mirror = fig.data
    assert mirror.x == (X[0, 0], -X[0, 0]) and mirror.y == (X[0, 1], -X[0, 1])
    assert list(points.customdata) == H.tolist()
    assert list(points.marker.color) == [figs.BUCKET_COLOURS[h] for h in H]
    assert len(ring.x) == len(RING) and list(ring.customdata) == RING_H.tolist()
    # b/2 = 3 rays each way, separated by None
    assert len(plus.x) == 9 and plus.x[2] is None
    np.testing.assert_allclose([minus.x[1], minus.y[1]], [-plus.x[1], -plus.y[1]])
    assert fig.layout.yaxis.scaleanchor == "x"


def test_attention_pair_figure_has_two_heatmaps_on_separate_axes():
    fig = figs.attention_pair_figure(W, W * 0, titles=("full", "lsh"), x_title="k", y_title="q")
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert fig.data[1].xaxis == "x2" and fig.data[1].yaxis == "y2"
    np.testing.assert_allclose(np.asarray(fig.data[0].z), W)
    assert [a.text for a in fig.layout.annotations] == ["<b>full</b>", "<b>lsh</b>"]
    assert fig.layout.yaxis.range == (11.5, -0.5)


def test_mass_curve_has_one_line_per_round_and_marks_the_current_point():
    curve = np.array([[0.5, 0.7], [0.3, 0.6], [0.2, 0.4]])
    fig = figs.mass_curve_figure([2, 4, 6], curve, 4, 2, title="m", x_title="b", y_title="kept")
    assert [t.name for t in fig.data[:2]] == ["n = 1", "n = 2"]
    assert fig.data[2].x == (4,) and fig.data[2].y == (0.6,)
    assert fig.layout.xaxis.title.text == "b"


def test_collision_figure_keeps_its_traces_when_there_is_no_closed_form():
    with_cf = BUILDERS["collision_figure"]()
    without = BUILDERS["collision_figure_no_closed_form"]()
    assert len(with_cf.data) == len(without.data) == 7
    assert len(without.data[3].y) == 0 and len(with_cf.data[3].y) == len(THETA)
    assert with_cf.data[1].fill == "tonexty"
    assert with_cf.layout.to_plotly_json() == without.layout.to_plotly_json()
