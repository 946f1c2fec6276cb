"""figures.lambda_layer: trace types, counts, data, and full Plotly validation of every builder."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core import lambda_layer as ll
from figures import lambda_layer as figs
from tests.figures.validation import assert_valid_plotly

SIDE, K, V, R = 8, 4, 3, 3
RNG = np.random.default_rng(0)
KEYS = RNG.dirichlet(np.ones(SIDE * SIDE), size=K).T  # (m, k), columns sum to 1
VALUES = RNG.standard_normal((SIDE * SIDE, V))
CONTENT = KEYS.T @ VALUES
RGB = RNG.uniform(size=(SIDE, SIDE, 3))
LOCAL = ll.LambdaLayer(5, 2 * V, K, 2, r=R, generator=torch.Generator().manual_seed(0))
E_GLOBAL = RNG.standard_normal((SIDE * SIDE, K))
SIDES = np.array([8, 16, 32, 64])


def e_local(n: int) -> np.ndarray:
    return LOCAL.position_embedding(n, SIDE, SIDE).detach().numpy()


def content(n: int = 10):
    return figs.content_figure(KEYS, VALUES, CONTENT, n, SIDE, titles=("a", "b", "c"), x_title="x")


def position(n: int = 27, local: bool = True):
    E = e_local(n) if local else E_GLOBAL
    return figs.position_figure(
        RGB,
        E,
        E.T @ VALUES,
        n,
        R if local else None,
        row_title="l" if local else "g",
        channel_title="E[:, {j}]",
        lambda_title="λ",
        image_title="w" if local else "i",
    )


def cost(side: int = 16):
    att = [ll.attention_cost(int(s), 2, K, V) for s in SIDES]
    glo = [ll.lambda_cost(int(s), 2, K, V) for s in SIDES]
    loc = [ll.lambda_cost(int(s), 2, K, V, R) for s in SIDES]
    flops = [np.array([c.flops for c in cs], float) for cs in (att, glo, loc)]
    memory = [
        np.array([getattr(c, k) for c in cs], float) * 4e-6
        for cs, k in ((att, "entries"), (glo, "largest"), (glo, "embeddings"), (loc, "embeddings"))
    ]
    i = list(SIDES).index(side)
    return figs.cost_figure(
        SIDES,
        flops,
        memory,
        side,
        ([f[i] for f in flops], [m[i] for m in memory]),
        titles=("f", "m"),
        x_title="s",
        y_titles=("FLOPs", "MB"),
        flop_names=("a", "g", "l"),
        memory_names=("a", "λ", "E", "R"),
    )


BUILDERS = {"content_figure": content, "position_figure": position, "cost_figure": cost}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_lambda_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_content_figure_shows_keys_values_and_the_content_lambda():
    fig = content(10)
    assert [tr.type for tr in fig.data] == ["heatmap"] * 3 + ["scatter"] * 2
    assert np.allclose(np.asarray(fig.data[0].z), KEYS.T, atol=1e-5)
    assert np.allclose(np.asarray(fig.data[0].z).sum(axis=1), 1, atol=1e-3)
    assert np.allclose(np.asarray(fig.data[1].z), VALUES.T, atol=1e-4)
    assert np.allclose(np.asarray(fig.data[2].z), CONTENT, atol=1e-4)
    assert min(fig.data[3].x) == 9.5 and max(fig.data[3].x) == 10.5  # column n outlined
    assert list(fig.layout.xaxis.tickvals) == [0, 8, 16, 24, 32, 40, 48, 56]


def test_content_figure_layout_and_lambda_do_not_depend_on_the_query():
    a, b = content(0), content(63)
    assert a.layout == b.layout
    assert a.data[2].z == b.data[2].z  # λᶜ is the same picture for every query
    assert a.data[3].x != b.data[3].x


def test_position_figure_maps_are_the_embedding_columns():
    n = 27
    k = K
    glob, loc = position(n, local=False), position(n)
    assert len(glob.data) == (k + 2) + (k + 1)  # image, k maps, λᵖ; k + 1 query markers
    assert len(loc.data) == len(glob.data) + 1  # and the r × r window on the image
    assert glob.data[0].type == "image" == loc.data[0].type
    y, x = divmod(n, SIDE)
    for j in range(k):
        assert np.allclose(
            np.asarray(glob.data[1 + j].z), E_GLOBAL[:, j].reshape(SIDE, SIDE), atol=1e-4
        )
        local = np.asarray(loc.data[1 + j].z)
        assert np.allclose(local, e_local(n)[:, j].reshape(SIDE, SIDE), atol=1e-4)
        outside = np.ones((SIDE, SIDE), bool)
        outside[y - 1 : y + 2, x - 1 : x + 2] = False  # r = 3 window around the query
        assert (local[outside] == 0).all()
    assert np.allclose(np.asarray(loc.data[k + 1].z), e_local(n).T @ VALUES, atol=1e-4)
    assert np.allclose(np.asarray(glob.data[k + 1].z), E_GLOBAL.T @ VALUES, atol=1e-4)
    markers = loc.data[k + 2 : -1]
    assert len(markers) == k + 1
    assert all(tr.x == (3,) and tr.y == (3,) for tr in markers)  # n = 27 = (3, 3)
    box = loc.data[-1]
    assert (min(box.x), max(box.x), box.xaxis) == (1.5, 4.5, "x")


def test_position_figure_layout_does_not_depend_on_the_query():
    assert position(0).layout == position(50).layout
    assert position(0, local=False).layout == position(50, local=False).layout


def test_cost_figure_data_and_current_side():
    fig = cost(16)
    assert len(fig.data) == 9 and fig.layout.xaxis.type == "log" == fig.layout.yaxis2.type
    n = 16 * 16
    assert fig.data[7].x == (16, 16, 16)
    assert fig.data[7].y[0] == 2 * 2 * n * n * (K + V)  # 2hn²(k+v)
    assert fig.data[8].y[1] == pytest.approx(n * K * V * 4e-6)  # all λᵖ, MB
    assert fig.data[0].y[-1] == 2 * 2 * 64**4 * (K + V)
    assert [tr.legend for tr in fig.data[:7]] == ["legend"] * 3 + ["legend2"] * 4


def test_cost_figure_layout_does_not_depend_on_the_side():
    assert cost(8).layout == cost(64).layout
