"""figures.convolution: trace types, counts, data, and full Plotly validation of every builder."""

from __future__ import annotations

import base64
import io

import numpy as np
from PIL import Image

from core import convolution as cv
from figures import convolution as figs
from tests.figures.validation import assert_valid_plotly


def filters(k: int = 3, M: int = 4, side: int = 7, row: int = 3, col: int = 2):
    grids = [
        cv.touched(kind, k, M, side, row, col) for kind in ("standard", "depthwise", "pointwise")
    ]
    return grids, figs.filters_figure(grids, row, col, titles=("a", "b", "c"), hover="%{z}")


def test_filters_figure_tiles_the_channels_and_marks_the_output():
    grids, fig = filters()
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["heatmap"] * 3 + ["scatter"] * 3
    z = np.array(fig.data[1].z, dtype=float)  # the depthwise row
    assert z.shape == (7, 4 * 8 - 1)
    assert np.isnan(z[:, 7]).all()  # the gap column between channels 1 and 2
    for m in range(4):
        assert np.array_equal(z[:, m * 8 : m * 8 + 7], grids[1][m])
    assert list(fig.data[3].x) == [2, 10, 18, 26] and set(fig.data[3].y) == {3}
    custom = np.array(fig.data[0].customdata)
    assert custom[0, 9].tolist() == [2, 1]  # channel 2, column 1
    assert [a.text for a in fig.layout.annotations] == ["<b>a</b>", "<b>b</b>", "<b>c</b>"]


def test_filters_figure_at_the_border_and_with_one_channel():
    _, fig = filters(k=5, M=1, row=0, col=6)
    assert_valid_plotly(fig)
    assert np.nansum(np.array(fig.data[0].z, dtype=float)) == 9  # 3×3 of the 5×5 window inside


def test_ratio_figure():
    N = np.array([1, 2, 4, 8, 128])
    curves = {k: np.array([float(cv.cost_ratio(k, n)) for n in N]) for k in (3, 5)}
    fig = figs.ratio_figure(
        N,
        curves,
        (3, 128, 0.1189),
        title="t",
        x_title="N",
        y_title="r",
        name="D_K = {k}",
        current_name="now",
    )
    assert_valid_plotly(fig)
    assert [t.name for t in fig.data] == ["D_K = 3", "D_K = 5", "now"]
    assert fig.data[0].y[-1] == round(1 / 128 + 1 / 9, 8)
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.title.text == "N"
    assert fig.layout.shapes[0].y0 == 1


def test_mobilenet_figure_has_one_bar_pair_per_kind():
    layers = cv.mobilenet_v1_layers()
    ma = np.array([l.cost.mult_adds for l in layers]) / 1e6
    p = np.array([l.cost.params for l in layers]) / 1e6
    kinds = {"conv": "c", "dw": "d", "pw": "p", "fc": "f"}
    fig = figs.mobilenet_figure(
        [l.kind for l in layers],
        ma,
        p,
        [str(i) for i in range(28)],
        titles=("A", "B"),
        x_title="layer",
        y_titles=("M", "M"),
        kind_names=kinds,
    )
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["bar"] * 8
    assert [t.name for t in fig.data[::2]] == ["c", "d", "p", "f"]
    assert sum(sum(t.y) for t in fig.data[::2]) == np.round(ma, 6).sum()
    assert len(fig.data[2].x) == 13 and fig.data[3].yaxis == "y2"


def test_kernels_figure():
    rng = np.random.default_rng(0)
    D, P = rng.standard_normal((3, 3, 3)), rng.standard_normal((2, 3))
    K = cv.separable_as_standard(D, P)
    fig = figs.kernels_figure(D, P, K, titles=("D", "P", "K"), hovers=("a", "b", "c"))
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["heatmap"] * 3
    assert np.array(fig.data[0].z, dtype=float).shape == (3, 11)
    assert np.array(fig.data[2].z, dtype=float).shape == (7, 11)
    assert fig.data[0].zmax == -fig.data[0].zmin == fig.data[2].zmax
    assert np.allclose(np.array(fig.data[1].z, dtype=float), P, atol=1e-5)


def test_timing_figure():
    fig = figs.timing_figure(
        ["a", "b"],
        np.array([0.12, 0.11]),
        np.array([0.2, 0.15]),
        np.ones((3, 2)),
        titles=("l", "r"),
        y_titles=("x", "y"),
        names=("flops", "time"),
        rate_names=("s", "d", "p"),
    )
    assert_valid_plotly(fig)
    assert [t.name for t in fig.data] == ["flops", "time", "s", "d", "p"]
    assert fig.data[2].xaxis == "x2" and list(fig.data[1].y) == [0.2, 0.15]


def test_png_data_uri_is_lossless():
    rgb = np.random.default_rng(1).integers(0, 256, (5, 7, 3)).astype(np.uint8)
    uri = figs.png_data_uri(rgb)
    assert uri.startswith("data:image/png;base64,")
    back = np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))))
    assert np.array_equal(back, rgb)


# ---- sub-pixel convolution -----------------------------------------------------------------


def test_shuffle_figure_draws_each_source_once():
    r, H = 2, 3
    sources = cv.shuffle_sources(1, r, H, H)[0]
    fig = figs.shuffle_figure(sources, r, (2, 3), titles=("in", "out"), hovers=("a", "b"))
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap", "scatter", "scatter"]
    # output (2, 3) comes from channel 1 (block (0, 1)), pixel (1, 1): grid row 1, column 5
    assert (fig.data[2].x[0], fig.data[2].y[0]) == (5, 1)
    assert (fig.data[3].x[0], fig.data[3].y[0], fig.data[3].xaxis) == (3, 2, "x2")
    inputs = np.array(fig.data[0].z, dtype=float)
    assert inputs.shape == (r * (H + 1) - 1,) * 2
    assert np.isnan(inputs[H]).all()  # the gap row between the blocks
    assert np.array_equal(inputs[:H, H + 1 :], np.ones((H, H)))  # block (0, 1) is channel 1
    out = np.array(fig.data[1].z, dtype=float)
    assert np.array_equal(out, sources[..., 0])
    assert fig.data[1].text[2][3] == "1,1" and fig.data[1].customdata[2][3] == [1, 1, 1]
    assert sum(cell != "" for row in fig.data[0].text for cell in row) == r * r * H * H


def test_shuffle_figure_with_many_channels_uses_distinct_colours():
    fig = figs.shuffle_figure(
        cv.shuffle_sources(1, 4, 1, 1)[0], 4, (3, 3), titles=("a", "b"), hovers=("a", "b")
    )
    assert_valid_plotly(fig)
    colours = [stop[1] for stop in fig.data[0].colorscale]
    assert len(set(colours)) == 16


def test_kernel_interleave_figure():
    r, k = 2, 3
    w = np.random.default_rng(0).standard_normal((r * r, 1, k, k))
    T = cv.subpixel_to_transposed(w, r)[0, 0]
    fig = figs.kernel_interleave_figure(w[:, 0], T, r, titles=("W", "T"), hovers=("a", "b"))
    assert_valid_plotly(fig)
    assert np.array(fig.data[0].z, dtype=float).shape == (7, 7)
    assert np.allclose(np.array(fig.data[1].z, dtype=float), T, atol=1e-5)
    assert fig.data[1].showscale and not fig.data[0].showscale


def test_upsampled_and_phases_figures():
    low = np.zeros((4, 4, 3), np.uint8)
    high = np.full((8, 8, 3), 200, np.uint8)
    fig = figs.upsampled_figure([low, high], titles=("low", "high"))
    assert_valid_plotly(fig)
    assert [t.type for t in fig.data] == ["image", "image"]
    assert fig.data[0].source.startswith("data:image/png;base64,")
    assert tuple(fig.layout.xaxis2.range) == (-0.5, 7.5)
    bars = figs.phases_figure(["a", "b"], np.array([0.0, 2.5]), title="t", y_title="y")
    assert_valid_plotly(bars)
    assert list(bars.data[0].y) == [0.0, 2.5]
    assert bars.data[0].marker.color[0] != bars.data[0].marker.color[1]
