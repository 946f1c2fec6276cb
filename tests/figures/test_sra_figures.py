"""figures.sra: trace types, counts, data, and full Plotly validation of every builder."""

from __future__ import annotations

import numpy as np
import pytest

from core import sra
from figures import sra as figs
from tests.figures.validation import assert_valid_plotly

RGB = np.random.default_rng(0).random((8, 8, 3))
FULL = np.full((8, 8), 1 / 64)
REDUCED = np.full((2, 2), 0.25)
SIDES = np.arange(64, 257, 32)
TOKENS, RATIOS = (SIDES // 4) ** 2, [1, 2, 4, 8]

BUILDERS = {
    "image_figure": lambda: figs.image_figure(RGB, title="t"),
    "attention_maps_figure": lambda: figs.attention_maps_figure(
        FULL, REDUCED, 4, (3, 5), titles=("a", "b")
    ),
    "cost_figure": lambda: figs.cost_figure(
        TOKENS,
        RATIOS,
        [[sra.attention_cost(int(n), r).sra_entries for n in TOKENS] for r in RATIOS],
        3136,
        [sra.attention_cost(3136, r).sra_entries for r in RATIOS],
        title="t",
        x_title="x",
        y_title="y",
    ),
    "stage_tokens_figure": lambda: figs.stage_tokens_figure(
        sra.pvt_stages(224), title="t", y_title="y", names=("q", "kv")
    ),
    "equality_figure": lambda: figs.equality_figure(
        np.zeros((4, 2)), np.zeros((4, 2)), title="t", x_title="x", y_title="y"
    ),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_sra_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_attention_maps_draw_reduced_keys_over_their_patches():
    fig = BUILDERS["attention_maps_figure"]()
    types = [tr.type for tr in fig.data]
    assert types == ["heatmap", "heatmap", "scatter", "scatter"]
    reduced = fig.data[1]
    assert (reduced.x0, reduced.dx, reduced.y0, reduced.dy) == (1.5, 4, 1.5, 4)
    assert np.asarray(fig.data[0].z).shape == (8, 8)
    assert all(tr.x == (5,) and tr.y == (3,) for tr in fig.data[2:])
    image = BUILDERS["image_figure"]()
    assert image.data[0].type == "image" and np.asarray(image.data[0].z).shape == (8, 8, 3)


def test_attention_layout_does_not_depend_on_the_query():
    a = figs.attention_maps_figure(FULL, REDUCED, 4, (0, 0), titles=("a", "b"))
    b = figs.attention_maps_figure(FULL, REDUCED, 4, (7, 7), titles=("a", "b"))
    assert a.layout == b.layout


def test_cost_and_stage_data():
    cost = BUILDERS["cost_figure"]()
    assert len(cost.data) == 5 and cost.layout.yaxis.type == "log"
    assert cost.data[3].y[-1] == pytest.approx(((256 // 4) ** 2) ** 2 / 64)  # (HW)²/R², R = 8
    assert list(cost.data[0].x) == list(TOKENS) and cost.data[0].y[0] == TOKENS[0] ** 2
    assert list(cost.data[-1].y) == [3136**2 // r**2 for r in RATIOS]
    stages = BUILDERS["stage_tokens_figure"]()
    assert list(stages.data[0].y) == [3136, 784, 196, 49]
    assert list(stages.data[1].y) == [49, 49, 49, 49]
    assert BUILDERS["equality_figure"]().layout.xaxis.title.text == "x"
