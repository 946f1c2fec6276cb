"""figures.diffusion_loss: trace types, counts, axes and the numbers on the figure object."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import diffusion as dif
from figures import diffusion_loss as figs
from tests.figures.validation import assert_valid_plotly

S = dif.make_schedule("linear", 1000)
GRID = np.unique(np.geomspace(1, 1000, 60).round().astype(int))
C0, CT, VAR = dif.posterior_coefficients(S)
W_BETA, W_TILDE = dif.eps_loss_weights(S), dif.eps_loss_weights(S, "posterior")
X = np.linspace(-9, 9, 101)


def normal(x, m, v):
    return np.exp(-((x - m) ** 2) / (2 * v)) / math.sqrt(2 * math.pi * v)


def posterior(t: int = 10):
    i, g = t - 1, GRID - 1
    return figs.posterior_figure(
        GRID,
        C0[g],
        CT[g],
        S.betas[g],
        VAR[g],
        t,
        (C0[i], CT[i], S.betas[i], VAR[i]),
        1000,
        titles=("a", "b"),
        x_title="t",
        y_titles=("coef", "var"),
    )


def kl():
    return figs.kl_figure(
        X,
        normal(X, 0, 1),
        normal(X, 1, 2),
        dif.gaussian_kl_integrand(X, 0, 1, 1, 2),
        titles=("a", "b"),
        x_title="x",
        y_titles=("density", "integrand"),
    )


def prior():
    values = [
        dif.prior_kl_bits_per_dim(dif.make_schedule(k, 1000), np.array([-1.0, 0, 1]))
        for k in dif.SCHEDULE_KINDS
    ]
    return figs.prior_kl_figure(
        list(dif.SCHEDULE_KINDS), values, 1, title="L_T", x_title="k", y_title="bits"
    )


def weights(t: int = 10):
    i, g = t - 1, GRID - 1
    return figs.weights_figure(
        GRID,
        W_BETA[g],
        W_TILDE[g],
        t,
        (W_BETA[i], W_TILDE[i]),
        1000,
        title="w",
        x_title="t",
        y_title="λ",
    )


BUILDERS = {"posterior": posterior, "kl": kl, "prior": prior, "weights": weights}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_diffusion_loss_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_posterior_figure_shows_both_coefficients_and_both_variances():
    fig = posterior(10)
    assert [tr.type for tr in fig.data] == ["scatter"] * 8
    np.testing.assert_allclose(fig.data[0].y, C0[GRID - 1], rtol=1e-4)
    np.testing.assert_allclose(fig.data[1].y, CT[GRID - 1], rtol=1e-4)
    assert fig.data[3].y[0] is None  # β̃₁ = 0 has no place on the log axis
    np.testing.assert_allclose(fig.data[3].y[1:], VAR[GRID[1:] - 1], rtol=1e-4)
    assert fig.data[2].xaxis == "x2" and fig.layout.yaxis2.type == "log"
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.title.text == "t"
    assert fig.data[4].x == (10,) and math.isclose(fig.data[4].y[0], C0[9], rel_tol=1e-4)
    assert math.isclose(fig.data[7].y[0], VAR[9], rel_tol=1e-4)
    assert posterior(1).data[7].y == (None,)


def test_layouts_do_not_depend_on_the_slider():
    def spec(fig):
        return fig.layout.to_plotly_json(), [tr.name for tr in fig.data]

    assert spec(posterior(3)) == spec(posterior(700))
    assert spec(weights(2)) == spec(weights(999))


def test_kl_figure_integrand_has_the_kl_as_its_area():
    fig = kl()
    assert [tr.type for tr in fig.data] == ["scatter"] * 3
    x, y = np.asarray(fig.data[2].x), np.asarray(fig.data[2].y, dtype=float)
    area = float(np.sum((y[1:] + y[:-1]) / 2 * np.diff(x)))
    assert math.isclose(area, float(dif.gaussian_kl(0, 1, 1, 2)), rel_tol=2e-3)
    assert min(y) < 0 < max(y)  # the integrand dips below zero where q > p
    assert fig.data[2].xaxis == "x2" and fig.layout.xaxis.range == (-9, 9)


def test_prior_figure_highlights_the_chosen_schedule_and_marks_ddpm():
    fig = prior()
    assert [tr.type for tr in fig.data] == ["bar", "scatter"]
    assert fig.data[0].marker.color[1] != fig.data[0].marker.color[0]
    assert fig.layout.yaxis.type == "log" and fig.layout.shapes[0].y0 == 1e-5
    assert list(fig.data[0].x) == list(dif.SCHEDULE_KINDS)
    assert 1e-6 < fig.data[0].y[0] < 1e-4


def test_weights_figure_has_both_weights_and_the_simple_loss():
    fig = weights(10)
    assert [tr.type for tr in fig.data] == ["scatter"] * 5
    np.testing.assert_allclose(fig.data[0].y, W_BETA[GRID - 1], rtol=1e-4)
    assert fig.data[1].y[0] is None  # λ₁ with σ² = β̃ is infinite
    assert fig.data[2].y == (1.0, 1.0)
    assert math.isclose(fig.data[3].y[0], W_BETA[9], rel_tol=1e-4)
