"""figures.contrastive: trace types, counts, axis titles and data on the figure objects."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from core import contrastive as ct
from figures import contrastive as figs
from tests.figures.validation import assert_valid_plotly


def batch(n: int = 3):
    images = np.stack([ct.synthetic_image(name, 16) for name in ct.SYNTHETIC[:n]])
    return images, ct.two_views(images, np.random.default_rng(0), 8)


def test_view_labels():
    assert figs.view_labels(2) == ["1", "2", "1′", "2′"]


def test_views_figure_is_one_mosaic_with_both_crops_drawn():
    images, v = batch(3)
    fig = figs.views_figure(
        images,
        v.images,
        [a.box for a in v.augmentations],
        title="T",
        row_titles=("a", "b", "c"),
        names=("v", "v′"),
    )
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["image", "scatter", "scatter"]
    uri = fig.data[0].source
    assert uri.startswith("data:image/png;base64,")
    pic = np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))))
    T, G = figs.TILE, figs.GAP
    assert pic.shape == (3 * T + 2 * G, 3 * T + 2 * G, 3)
    # tile (row 1, column 0) is view 1 enlarged: its top-left pixel is view 1's
    np.testing.assert_allclose(pic[T + G, 0] / 255, v.images[0, 0, 0], atol=1 / 255)
    assert [a.text for a in fig.layout.annotations] == ["a", "b", "c"]
    # three boxes a trace, each a closed line of five points and a gap
    assert len(fig.data[1].x) == 3 * 6 and fig.data[1].x[5] is None
    top, left, h, w = v.augmentations[0].box
    scale = T / 16
    assert fig.data[1].x[0] == round(left * scale - 0.5, 2)


def test_similarity_figure_marks_positives_and_the_anchor():
    z = np.random.default_rng(1).standard_normal((6, 4))
    r = ct.explain_nt_xent(z, 0.5)
    fig = figs.similarity_figure(
        r.similarity, 4, title="s", axis_titles=("k", "i"), name="pairs", colorbar_title="sim"
    )
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["heatmap", "scatter", "scatter"]
    np.testing.assert_allclose(fig.data[0].z, np.round(r.similarity, 3))
    assert list(fig.data[1].x) == [3, 4, 5, 0, 1, 2]  # the positive of each row
    assert set(fig.data[2].y) == {3.5, 4.5}  # anchor row 4 outlined
    assert fig.layout.xaxis.title.text == "k" and fig.layout.yaxis.title.text == "i"


@pytest.mark.parametrize("anchor", range(6))
def test_anchor_figure_is_the_anchors_softmax_and_its_traces_move(anchor):
    """The bars of anchor i: its positive (i + N mod 2N) apart, every other view but i
    itself, summing to 1; :func:`anchor_traces` is exactly what the figure draws of it, on
    axes that no anchor's bars can move (a live step moves them: ``ui.live``)."""
    z = np.random.default_rng(1).standard_normal((6, 4))
    r = ct.explain_nt_xent(z, 0.5)
    fig = figs.anchor_figure(
        r.probs[anchor], anchor, title="p", axis_titles=("k", "p"), names=("pos", "neg")
    )
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["bar", "bar"]
    assert list(fig.data[0].x) == [(anchor + 3) % 6]
    assert sorted([*fig.data[0].x, *fig.data[1].x]) == sorted(set(range(6)) - {anchor})
    assert abs(sum(fig.data[0].y) + sum(fig.data[1].y) - 1) < 1e-3
    traces = figs.anchor_traces(r.probs[anchor], anchor)
    for i, props in traces.items():
        assert set(props) == {"x", "y"}
        assert list(fig.data[i].x) == props["x"] and list(fig.data[i].y) == props["y"]
    assert tuple(fig.layout.xaxis.range) == (-0.6, 5.6) and tuple(fig.layout.yaxis.range) == (
        0,
        1.05,
    )


def test_temperature_figure_data():
    taus = np.array([0.1, 1.0, 10.0])
    z = np.random.default_rng(2).standard_normal((8, 3))
    losses = np.array([ct.nt_xent(z, t) for t in taus])
    bound = np.array([ct.loss_lower_bound(4, t) for t in taus])
    ns = [2, 3, 4]
    fig = figs.temperature_figure(
        taus,
        losses,
        1.0,
        losses[1],
        ct.chance_level(4),
        bound,
        ns,
        np.array([1.0, 1.5, 2.0]),
        np.array([ct.chance_level(n) for n in ns]),
        np.array([0.1, 0.2, 0.3]),
        3,
        3.0,
        titles=("a", "b"),
        x_titles=("τ", "N"),
        y_title="L",
        names=("z", "c", "b", "now"),
    )
    assert_valid_plotly(fig)
    assert len(fig.data) == 8 and fig.layout.xaxis.type == "log"
    assert list(fig.data[2].y) == [ct.chance_level(4)] * 2
    assert list(fig.data[7].x) == [3] and list(fig.data[7].y) == [1.5]
    assert list(fig.layout.yaxis.range) == [0, 3.0]


def test_training_figure_data():
    steps = 5
    sims = np.stack([np.eye(4)] * (steps + 1))
    fig = figs.training_figure(
        np.linspace(2, 1, steps),
        np.linspace(2, 1, steps + 1),
        2,
        1.9,
        0.1,
        sims[0],
        sims[2],
        titles=("a", "b", "c"),
        x_title="step",
        y_title="L",
        names=("s", "f", "c", "b"),
        colorbar_title="sim",
    )
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["scatter"] * 4 + ["heatmap"] * 3 + ["scatter"] * 2
    assert list(fig.data[0].x) == [1, 2, 3, 4, 5] and len(fig.data[1].x) == steps + 1
    # the step's column: one row over every step, 1 at the step, the panel's full height
    assert list(fig.data[4].x) == list(range(steps + 1))
    assert np.array_equal(fig.data[4].z, [[0, 0, 1, 0, 0, 0]])
    top = fig.layout.yaxis.range[1]
    assert fig.data[4].y0 - fig.data[4].dy / 2 == 0 and fig.data[4].y0 + fig.data[4].dy / 2 == top
    assert (fig.data[4].zmin, fig.data[4].zmax) == (0, 1)
    assert fig.layout.xaxis.title.text == "step"


def test_progress_figure_draws_the_loss_so_far_on_the_whole_runs_axis():
    fig = figs.progress_figure(
        np.array([2.3, 2.1, 1.8]),
        60,
        np.log(11),
        title="t",
        x_title="step",
        y_title="L",
        names=("fixed", "chance"),
    )
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["scatter", "scatter"]
    assert list(fig.data[0].x) == [0, 1, 2] and list(fig.data[0].y) == [2.3, 2.1, 1.8]
    assert list(fig.data[1].x) == [0, 60] and fig.data[1].y[0] == np.log(11)
    assert list(fig.layout.xaxis.range) == [0, 60] and fig.layout.yaxis.range[1] > 2.3
    assert fig.layout.xaxis.title.text == "step" and fig.layout.yaxis.title.text == "L"
