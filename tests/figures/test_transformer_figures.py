"""figures.transformer: trace types, counts, data, and full Plotly validation of every builder."""

from __future__ import annotations

import numpy as np
import pytest

from core import transformer as tf
from figures import transformer as figs
from tests.figures.validation import assert_valid_plotly

SRC, TGT = ("the", "cat", "sat"), ("<s>", "a", "b", "c")
MAPS = tf.family_maps(SRC, SRC, SRC, TGT, 8, 2, 0)
D = np.array([64.0, 128.0, 256.0])
ENC = np.array([tf.block_parameters(int(d), 4 * int(d)).total for d in D], float)
DEC = np.array([tf.block_parameters(int(d), 4 * int(d), True).total for d in D], float)
PARTS = {
    "self_attention": (10, 10),
    "cross_attention": (0, 10),
    "feed_forward": (20, 20),
    "norms": (4, 6),
}

BUILDERS = {
    "family_figure": lambda: figs.family_figure(
        (MAPS.masks.encoder, tf.family_masks(3, 3).decoder, MAPS.masks.cross),
        (SRC, SRC, SRC),
        (SRC, SRC, TGT),
        titles=("a", "b", "c"),
        subtitle="m",
        masks=True,
    ),
    "family_figure_weights": lambda: figs.family_figure(
        (MAPS.encoder[0], MAPS.decoder[0], MAPS.cross[0]),
        (SRC, SRC, SRC),
        (SRC, SRC, TGT),
        titles=("a", "b", "c"),
        subtitle="w",
    ),
    "parameters_figure": lambda: figs.parameters_figure(
        D,
        ENC,
        DEC,
        (128, ENC[1], DEC[1]),
        PARTS,
        titles=("a", "b"),
        x_title="x",
        y_title="y",
        names=("e", "d"),
        part_names={k: k for k in PARTS},
        bar_names=("e", "d"),
    ),
    "cache_figure": lambda: figs.cache_figure(
        np.array([128.0, 256.0]),
        {6: np.array([1.0, 2.0]), 12: np.array([2.0, 4.0])},
        (256, 4.0),
        title="t",
        x_title="x",
        y_title="y",
        name="L = {L}",
    ),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_transformer_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_family_figure_draws_masks_or_weights_with_token_ticks():
    fig = BUILDERS["family_figure"]()
    assert [t.type for t in fig.data] == ["heatmap"] * 3
    assert np.array_equal(np.array(fig.data[1].z), np.tril(np.ones((3, 3), int)))
    assert fig.data[0].colorscale[-1][1] == figs.BLUE
    weights = BUILDERS["family_figure_weights"]()
    assert np.allclose(np.array(weights.data[1].z), MAPS.decoder[0], atol=1e-4)
    assert weights.data[2].showscale and not weights.data[0].showscale
    assert list(fig.layout.xaxis3.ticktext) == list(SRC)
    assert list(fig.layout.yaxis3.ticktext) == ["&lt;s&gt;", "a", "b", "c"]
    assert fig.data[2].customdata[0][1] == "&lt;s&gt; → cat"  # hover: query → key


def test_parameters_figure_has_lines_a_marker_and_stacked_parts():
    fig = BUILDERS["parameters_figure"]()
    assert [t.type for t in fig.data] == ["scatter"] * 3 + ["bar"] * 4
    assert list(fig.data[0].y) == ENC.tolist() and list(fig.data[2].y) == [ENC[1], DEC[1]]
    assert fig.layout.barmode == "stack" and fig.layout.xaxis.type == "log"
    assert [t.y[1] for t in fig.data[3:]] == [10, 10, 20, 6]


def test_cache_figure_has_one_line_per_layer_count_and_the_current_point():
    fig = BUILDERS["cache_figure"]()
    assert [t.name for t in fig.data[:2]] == ["L = 6", "L = 12"]
    assert list(fig.data[-1].x) == [256] and list(fig.data[-1].y) == [4.0]
