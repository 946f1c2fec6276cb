"""Figures of the backpropagation page: trace types and counts, panels, data on the figure."""

from __future__ import annotations

import numpy as np

from core import backprop as bp
from figures import backprop as figs
from tests.figures.validation import assert_valid_plotly


def case():
    x, p, t = bp.example(4, 8, 2, 16, 0)
    y, cache = bp.block_forward(x, p)
    return cache, bp.all_gradients(bp.squared_error_loss(y, t)[1], cache)


def test_as_matrix_puts_heads_side_by_side_and_vectors_in_a_row():
    t = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    m = figs.as_matrix(t)
    assert m.shape == (3, 8)
    np.testing.assert_array_equal(m[:, :4], t[0])
    np.testing.assert_array_equal(m[:, 4:], t[1])
    assert figs.as_matrix(np.arange(5)).shape == (1, 5)


def test_tensors_figure_has_one_heatmap_per_tensor_in_its_own_panel():
    c, _ = case()
    fig = figs.tensors_figure(
        [c.x, c.A, c.y],
        ["x", "A", "y"],
        title="t",
        x_title="ch",
        y_title="tok",
        hover="%{z}",
        signed=[True, False, True],
    )
    assert [tr.type for tr in fig.data] == ["heatmap"] * 3
    assert [tr.xaxis for tr in fig.data] == ["x", "x2", "x3"]
    np.testing.assert_array_equal(fig.data[1].z, figs.as_matrix(c.A))
    assert fig.data[0].zmid == 0 and fig.data[1].zmin == 0  # signed: centred; weights: from 0
    assert [a.text for a in fig.layout.annotations] == ["x", "A", "y"]
    domains = [fig.layout[f"xaxis{k}"].domain for k in ("", "2", "3")]
    assert domains[0][0] == 0 and domains[-1][1] <= 1 and domains[0][1] < domains[1][0]
    assert_valid_plotly(fig)


def test_tensors_traces_are_what_the_figure_of_those_tensors_draws():
    """The live N's patches (pages/backprop_by_hand.py): each trace's z and colour range as
    tensors_figure of the same tensors has them, on a layout given by ``widths``."""
    c, _ = case()
    x, p, _ = bp.example(7, 8, 2, 16, 0)
    _, wide = bp.block_forward(x, p)
    widths = figs.panel_widths([wide.x, wide.A, wide.y])
    assert widths == [10, 16, 10]
    signed = [True, False, True]
    kw = dict(title="t", x_title="ch", y_title="tok", hover="%{z}", signed=signed)
    fig = figs.tensors_figure([c.x, c.A, c.y], ["x", "A", "y"], widths=widths, **kw)
    wide_fig = figs.tensors_figure([wide.x, wide.A, wide.y], ["x", "A", "y"], **kw)
    assert fig.layout.to_plotly_json() == wide_fig.layout.to_plotly_json()
    patches = figs.tensors_traces([c.x, c.A, c.y], signed)
    for i, tr in enumerate(fig.data):
        np.testing.assert_array_equal(patches[i]["z"], tr.z)
        assert (patches[i]["zmin"], patches[i]["zmax"]) == (tr.zmin, tr.zmax)
    assert patches[0]["zmin"] == -patches[0]["zmax"] == -np.abs(c.x).max()
    assert patches[1]["zmin"] == 0 and patches[1]["zmax"] == c.A.max()


def test_gradient_figure_draws_the_gradient_and_log_errors():
    _, g = case()
    err = np.full(g["S"].shape, 1e-20)
    fig = figs.gradient_figure(
        g["S"],
        [err, err * 1e10],
        ["g", "e1", "e2"],
        title="",
        x_title="c",
        y_title="r",
        hover="%{z}",
        error_hover="%{z}",
    )
    assert len(fig.data) == 3
    np.testing.assert_array_equal(fig.data[0].z, figs.as_matrix(g["S"]))
    assert np.all(np.asarray(fig.data[1].z) == -17.0)  # clipped at the floor
    np.testing.assert_allclose(fig.data[2].z, -10.0)
    assert fig.data[1].zmin == -17 and fig.data[1].zmax == -3
    assert_valid_plotly(fig)


def test_jacobian_figure_heatmap_and_two_bar_series():
    a = np.array([0.2, 0.3, 0.5])
    J, g = bp.softmax_jacobian(a), np.array([1.0, -1.0, 0.5])
    fig = figs.jacobian_figure(
        J,
        J @ g,
        bp.diagonal_only_softmax_backward(a, g),
        titles=("J", "ds"),
        x_titles=("j", "k"),
        y_titles=("i", "v"),
        names=("exact", "course"),
        hover="%{z}",
    )
    assert [tr.type for tr in fig.data] == ["heatmap", "bar", "bar"]
    np.testing.assert_allclose(fig.data[1].y, J @ g)
    assert fig.layout.xaxis2.title.text == "k"
    assert_valid_plotly(fig)


def test_layernorm_figure_four_bar_series_on_two_panels():
    rows = [np.arange(8.0) * k for k in range(4)]
    fig = figs.layernorm_figure(
        rows, ("u", "x̂", "ĝ", "du"), titles=("f", "b"), x_title="d", y_title="v"
    )
    assert [tr.type for tr in fig.data] == ["bar"] * 4
    assert [tr.xaxis for tr in fig.data] == ["x", "x", "x2", "x2"]
    np.testing.assert_array_equal(fig.data[3].y, rows[3])
    assert_valid_plotly(fig)


def test_training_figure_shows_the_run_up_to_the_step():
    task = bp.tiny_task("reverse", 3, 2)
    run = bp.train(task, bp.init_model(task, 4, 2, 8, 0), 20, 0.5)
    fig = figs.training_figure(
        (run.losses, run.losses),
        run.accuracies,
        7,
        run.attention[7, 0],
        names=("np", "torch", "acc", "all"),
        titles=("loss", "attn"),
        x_titles=("t", "k"),
        y_titles=("L", "acc", "q"),
        hover="%{z}",
    )
    assert [tr.type for tr in fig.data] == ["scatter"] * 4 + ["heatmap"]
    assert len(fig.data[0].y) == 8 and len(fig.data[3].y) == 21
    np.testing.assert_array_equal(fig.data[4].z, run.attention[7, 0])
    assert fig.layout.yaxis.type == "log" and fig.data[2].yaxis == "y3"
    assert_valid_plotly(fig)


def test_a_zero_gradient_is_drawn_white_not_as_amplified_rounding():
    _, g = case()
    fig = figs.gradient_figure(
        g["b_k"],
        [np.zeros(8)],
        ["g", "e"],
        title="",
        x_title="c",
        y_title="r",
        hover="%{z}",
        error_hover="%{z}",
    )
    assert fig.data[0].zmax >= 1e-9 > 1e6 * float(np.abs(g["b_k"]).max())
