"""figures.parameterisations: trace types, counts, axes and the numbers on the figure object."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import reverse as rev
from core import snr_schedules as snr
from figures import parameterisations as figs
from tests.figures.validation import assert_valid_plotly

S = snr.named_schedule("linear", 1000)
STEPS = np.unique(np.geomspace(1, 1000, 50).round().astype(int))
PREDICTIONS = ("eps", "x0", "v", "score")
WEIGHTS = {p: rev.x0_loss_weights(S, p)[STEPS - 1] for p in PREDICTIONS}
NAMES = {"point": "p", "xt_axis": "xa", "v_axis": "va", "xt": "xt", "v": "v"}
WEIGHT_NAMES = {p: f"w_{p}" for p in PREDICTIONS}


def rotation(x0=1.0, eps=-0.5, t=500):
    phi = rev.v_angle(float(S.alpha_bars[t - 1]))
    return figs.rotation_figure(
        x0,
        eps,
        phi,
        t,
        STEPS.astype(float),
        WEIGHTS,
        titles=("a", "b"),
        axis_titles=("x0", "eps", "t", "w"),
        names=NAMES,
        weight_names=WEIGHT_NAMES,
    )


def test_rotation_figure_projects_the_point_on_the_turned_axes():
    fig = rotation()
    assert len(fig.data) == 5 + 4 + 1
    a = float(S.alpha_bars[499])
    c, s = math.sqrt(a), math.sqrt(1 - a)
    x_t, v = c * 1.0 + s * -0.5, -s * 1.0 + c * -0.5
    foot_xt = (fig.data[3].x[1], fig.data[3].y[1])
    foot_v = (fig.data[4].x[1], fig.data[4].y[1])
    # the feet are x_t·(cos φ, sin φ) and v·(−sin φ, cos φ); they add up to the point
    assert np.allclose(foot_xt, (x_t * c, x_t * s), atol=1e-4)
    assert np.allclose(foot_v, (-v * s, v * c), atol=1e-4)
    assert np.allclose(np.add(foot_xt, foot_v), (1.0, -0.5), atol=2e-4)
    assert [tr.name for tr in fig.data[5:9]] == [f"w_{p}" for p in PREDICTIONS]
    assert fig.data[4].name == "v" and {tr.legend for tr in fig.data[5:9]} == {"legend2"}
    assert np.allclose(fig.data[5].y, np.round(WEIGHTS["eps"], 6))
    assert fig.layout.yaxis2.type == "log" and fig.layout.yaxis.scaleanchor == "x"
    assert list(fig.data[-1].x) == [500, 500]
    assert_valid_plotly(fig)


def test_rotation_layout_does_not_follow_the_slider():
    a, b = rotation(t=10).to_plotly_json()["layout"], rotation(t=900).to_plotly_json()["layout"]
    assert a == b


def test_snr_figure_draws_schedules_and_marked_variants():
    x = np.arange(1, 1001) / 1000
    zero = snr.rescale_zero_terminal_snr(S)
    fig = figs.snr_figure(
        [
            ("lin", x, snr.log_snr(S), 0, None),
            ("cos", x, snr.log_snr(snr.named_schedule("cosine")), 1, None),
            ("zero", x, snr.log_snr(zero), 0, "x"),
        ],
        title="t",
        x_title="t/T",
        y_title="log SNR",
    )
    assert [tr.name for tr in fig.data] == ["lin", "cos", "zero"]
    assert fig.data[0].line.dash != fig.data[1].line.dash  # not colour alone
    assert fig.data[2].mode == "lines+markers" and fig.data[2].marker.symbol == "x"
    assert fig.data[2].line.color == fig.data[0].line.color
    assert fig.data[2].y[-1] is None  # −∞ at ᾱ_T = 0 is left out
    assert math.isclose(fig.data[0].y[0], round(math.log(9999), 3))
    assert_valid_plotly(fig)


def test_weights_figure_puts_the_measured_ratios_at_t():
    measured = {p: float(rev.x0_loss_weights(S, p)[99]) for p in PREDICTIONS}
    fig = figs.weights_figure(
        STEPS.astype(float),
        WEIGHTS,
        100,
        measured,
        title="w",
        x_title="t",
        y_title="w",
        names={p: p for p in PREDICTIONS},
        measured_name="m",
    )
    assert len(fig.data) == 4 + 2
    assert list(fig.data[4].x) == [100] * 4
    assert np.allclose(fig.data[4].y, [round(measured[p], 6) for p in PREDICTIONS])
    assert fig.layout.yaxis.type == "log"
    assert_valid_plotly(fig)


@pytest.mark.parametrize("block", [1, 8])
def test_leak_figure_has_four_images_and_two_traces_per_schedule(block):
    rng = np.random.default_rng(0)
    image = rng.uniform(-1, 1, (32, 32, 3))
    blocks = [1, 2, 4, 8]
    found = snr.leak(image, 0.005, blocks, rng.standard_normal(image.shape))
    fig = figs.leak_figure(
        [image, np.clip(found.x_T, -1, 1), snr.blocky(image, block), snr.blocky(found.x_T, block)],
        blocks,
        [("sd", found.expected, found.measured), ("zero", found.expected * 0, found.measured)],
        block,
        image_titles=["a", "b", "c", "d"],
        titles=("", "corr"),
        axis_titles=("b", "corr"),
        names=("formula", "measured"),
    )
    assert [tr.type for tr in fig.data[:4]] == ["image"] * 4
    assert fig.data[0].source.startswith("data:image/jpeg;base64,")
    assert len(fig.data) == 4 + 2 * 2 + 1
    assert fig.data[4].name == "sd formula" and fig.data[5].mode == "markers"
    assert np.allclose(fig.data[4].y, np.round(found.expected, 4))
    assert list(fig.data[-1].x) == [block, block]
    assert fig.layout.xaxis5.type == "log"
    assert_valid_plotly(fig)
