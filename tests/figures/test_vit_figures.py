"""figures.vit: trace types, counts, data, shapes, and full Plotly validation of every builder."""

from __future__ import annotations

import numpy as np
import pytest

from core import vit
from figures import vit as figs
from tests.figures.validation import assert_valid_plotly
from ui import cache_vit

RGB = (np.random.default_rng(0).random((16, 16, 3)) * 255).astype(np.uint8)
P = 4
XP = vit.patchify(RGB.astype(float), P).astype(np.uint8)
TOKENS = np.random.default_rng(1).standard_normal((17, 8))
GRID = np.arange(16.0).reshape(4, 4) / 8
COSTS = [vit.vit_cost(224, p, 768, 12) for p in (8, 16, 32)]

BUILDERS = {
    "patches_figure": lambda: figs.patches_figure(
        RGB, P, XP, TOKENS, titles=("a", "b", "c"), x_titles=("x", "y"), y_titles=("p", "t")
    ),
    "attention_figure": lambda: figs.attention_figure(RGB, P, 6, GRID, titles=("a", "b")),
    "attention_figure_class": lambda: figs.attention_figure(RGB, P, 0, GRID, titles=("a", "b")),
    "patches_figure_png": lambda: figs.patches_figure(
        RGB,
        P,
        XP,
        TOKENS,
        titles=("a", "b", "c"),
        x_titles=("x", "y"),
        y_titles=("p", "t"),
        source=cache_vit.png_source(RGB),
    ),
    "cost_figure": lambda: figs.cost_figure(
        [8, 16, 32],
        np.array([c.tokens for c in COSTS], float),
        np.array([c.entries for c in COSTS], float),
        16,
        title="t",
        x_title="x",
        y_title="y",
        names=("T", "hT²"),
    ),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_vit_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_patches_figure_draws_image_patch_rows_and_tokens_with_a_grid():
    fig = BUILDERS["patches_figure"]()
    assert [t.type for t in fig.data] == ["image", "heatmap", "heatmap"]
    assert np.array_equal(np.array(fig.data[1].z), XP)
    assert np.array(fig.data[2].z).shape == (17, 8)
    assert len(fig.layout.shapes) == 2 * (16 // P - 1)  # inner grid lines, both directions


def test_attention_figure_outlines_the_query_patch_on_both_panels():
    fig = BUILDERS["attention_figure"]()
    assert np.allclose(np.array(fig.data[1].z), GRID)
    img_box, grid_box = fig.layout.shapes[-2], fig.layout.shapes[-1]
    r, c = divmod(6 - 1, 4)  # token 6 = patch 5 = row 1, column 1
    assert (img_box.x0, img_box.y0) == (c * P - 0.5, r * P - 0.5)
    assert (grid_box.x0, grid_box.y0, grid_box.xref) == (c - 0.5, r - 0.5, "x2")
    whole = BUILDERS["attention_figure_class"]().layout.shapes[-1]
    assert (whole.x0, whole.x1, whole.xref) == (-0.5, 15.5, "x")


def test_cost_figure_marks_todays_patch():
    fig = BUILDERS["cost_figure"]()
    assert list(fig.data[2].x) == [16, 16]
    assert list(fig.data[2].y) == [197.0, 12 * 197.0**2]
    assert fig.layout.yaxis.type == "log"


def test_the_image_can_travel_as_a_png_that_decodes_to_the_same_pixels():
    import base64
    import io

    from PIL import Image

    trace = BUILDERS["patches_figure_png"]().data[0]
    assert trace.z is None and trace.source.startswith("data:image/png;base64,")
    png = base64.b64decode(trace.source.split(",", 1)[1])
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png))), RGB)
