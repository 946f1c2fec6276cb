"""Figures of the "pieces of the DDPM loss" page: arrays in, ``go.Figure`` out.

Plain dict specs wrapped by figures.style.figure. Within one figure the layout depends only
on the schedule and T (chosen outside the page's fragments), never on the probe slider t or
the Gaussians' sliders: a slider step changes trace data only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from figures.style import BLUE, GREEN, GREY, ORANGE, SKY, VERMILLION, figure, layout, panel_titles

Array = NDArray[np.float64]
CURRENT = {"size": 11, "color": ORANGE, "line": {"color": "black", "width": 1}}


def _list(x: ArrayLike) -> list[float | None]:
    """Five significant digits (values span many decades); non-finite or ≤ 0 on log axes → gap."""
    return [float(f"{v:.5g}") if math.isfinite(v) else None for v in np.asarray(x, float)]


def _positive(x: ArrayLike) -> list[float | None]:
    return [v if v is not None and v > 0 else None for v in _list(x)]


def _log_y(values: ArrayLike, pad: float = 0.15) -> dict[str, Any]:
    """A log y axis spanning the positive ``values``: ticks at powers of 10, at most ~7."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    lo, hi = (math.log10(v.min()), math.log10(v.max())) if v.size else (-1.0, 0.0)
    return {
        "type": "log",
        "exponentformat": "power",
        "range": [lo - pad, hi + pad],
        "dtick": max(1, math.ceil((hi - lo + 2 * pad) / 7)),
    }


def _two_panels(
    titles: Sequence[str], x_title: str, y_titles: Sequence[str], height: int = 380
) -> dict[str, Any]:
    lay = layout(title="", x=x_title, y=y_titles[0], height=height)
    lay["xaxis"]["domain"] = [0.0, 0.44]
    lay["xaxis2"] = {
        **lay["xaxis"],
        "domain": [0.56, 1.0],
        "anchor": "y2",
        "title": {"text": x_title},
    }
    lay["yaxis2"] = {**lay["yaxis"], "anchor": "x2", "title": {"text": y_titles[1]}}
    lay["annotations"] = panel_titles(titles, (0.0, 0.56))
    lay["margin"] = {"l": 64, "r": 15, "t": 40, "b": 96}
    lay["legend"] = {"orientation": "h", "x": 0.0, "y": -0.25, "yanchor": "top"}
    return lay


def _t_axis(T: int) -> dict[str, Any]:
    """A log t axis from 1 to T with 1-2-5 ticks."""
    ticks = [m * 10**e for e in range(5) for m in (1, 2, 5) if m * 10**e <= T]
    return {
        "type": "log",
        "range": [-0.05, math.log10(max(T, 2)) + 0.05],
        "tickvals": ticks,
        "ticktext": [f"{v:g}" for v in ticks],
    }


def _line(x: ArrayLike, y: list, name: str, colour: str, axes: str = "", **extra: Any) -> dict:
    return {
        "type": "scatter",
        "mode": "lines",
        "x": _list(x),
        "y": y,
        "name": name,
        "line": {"color": colour, "width": 2.5, **extra.pop("line", {})},
        "xaxis": f"x{axes}",
        "yaxis": f"y{axes}",
        "hovertemplate": "t = %{x}<br>%{y:.4g}<extra>" + name + "</extra>",
        **extra,
    }


def _marker(x: float, y: float, name: str, axes: str = "", show: bool = False) -> dict:
    return {
        "type": "scatter",
        "mode": "markers",
        "x": [x],
        "y": _list([y]),
        "name": name,
        "marker": CURRENT,
        "xaxis": f"x{axes}",
        "yaxis": f"y{axes}",
        "showlegend": show,
        "hovertemplate": "t = %{x}<br>%{y:.5g}<extra></extra>",
    }


def posterior_figure(
    t_grid: ArrayLike,
    coef_x0: ArrayLike,
    coef_xt: ArrayLike,
    beta: ArrayLike,
    beta_tilde: ArrayLike,
    t: int,
    current: tuple[float, float, float, float],
    T: int,
    *,
    titles: tuple[str, str],
    x_title: str,
    y_titles: tuple[str, str],
    names: tuple[str, str, str, str, str] = ("coef x₀", "coef xₜ", "βₜ", "β̃ₜ", "current t"),
) -> go.Figure:
    """Left: the posterior mean's coefficients of x₀ and xₜ against t. Right: βₜ and the
    posterior variance β̃ₜ against t (log–log; β̃₁ = 0 falls off the log axis).

    ``t_grid`` and the four curves are samples over 1..T; ``current`` holds the exact values
    (coef x₀, coef xₜ, βₜ, β̃ₜ) at t. Traces: [0] coef x₀, [1] coef xₜ, [2] βₜ (x2/y2),
    [3] β̃ₜ (x2/y2), [4] current coef x₀, [5] current coef xₜ, [6] current βₜ, [7] current β̃ₜ.
    """
    lay = _two_panels(titles, x_title, y_titles)
    lay["xaxis"].update(_t_axis(T))
    lay["xaxis2"].update(_t_axis(T))
    lay["yaxis"]["range"] = [0.0, 1.04]
    lay["yaxis2"].update(
        _log_y(np.concatenate([np.asarray(beta, float), np.asarray(beta_tilde, float)]))
    )
    data = [
        _line(t_grid, _list(coef_x0), names[0], BLUE),
        _line(t_grid, _list(coef_xt), names[1], SKY, line={"dash": "dash"}),
        _line(t_grid, _positive(beta), names[2], GREEN, "2"),
        _line(t_grid, _positive(beta_tilde), names[3], VERMILLION, "2", line={"dash": "dash"}),
        _marker(t, current[0], names[4], show=True),
        _marker(t, current[1], names[4]),
        _marker(t, current[2], names[4], "2"),
        _marker(t, current[3] if current[3] > 0 else math.nan, names[4], "2"),
    ]
    return figure(data, lay)


def kl_figure(
    x: ArrayLike,
    density_p: ArrayLike,
    density_q: ArrayLike,
    integrand: ArrayLike,
    *,
    titles: tuple[str, str],
    x_title: str,
    y_titles: tuple[str, str],
    names: tuple[str, str, str] = ("p", "q", "p · ln(p/q)"),
    x_range: tuple[float, float] = (-9.0, 9.0),
    density_max: float = 1.3,
) -> go.Figure:
    """Left: the densities p and q. Right: the integrand p(x)·ln(p(x)/q(x)), whose area is
    KL(p ‖ q) (negative where q > p, yet the total is never negative), given on ``x``
    (core.diffusion.gaussian_kl_integrand).

    Traces: [0] p, [1] q, [2] the integrand (x2/y2). Shape [0]: y = 0 on the right panel.
    """
    lay = _two_panels(titles, x_title, y_titles, height=360)
    lay["xaxis"]["range"] = list(x_range)
    lay["xaxis2"]["range"] = list(x_range)
    lay["yaxis"]["range"] = [0.0, density_max]
    lay["shapes"] = [
        {
            "type": "line",
            "xref": "x2 domain",
            "yref": "y2",
            "x0": 0,
            "x1": 1,
            "y0": 0,
            "y1": 0,
            "line": {"color": GREY, "width": 1},
        },
    ]
    p = np.asarray(density_p, dtype=float)
    q = np.asarray(density_q, dtype=float)
    hover = "x = %{x:.2f}<br>%{y:.4f}<extra>"
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": _list(x),
            "y": _list(p),
            "name": names[0],
            "fill": "tozeroy",
            "line": {"color": BLUE, "width": 2.5},
            "hovertemplate": hover + names[0] + "</extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": _list(x),
            "y": _list(q),
            "name": names[1],
            "fill": "tozeroy",
            "line": {"color": ORANGE, "width": 2.5, "dash": "dash"},
            "hovertemplate": hover + names[1] + "</extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": _list(x),
            "y": _list(integrand),
            "name": names[2],
            "fill": "tozeroy",
            "line": {"color": VERMILLION, "width": 2},
            "xaxis": "x2",
            "yaxis": "y2",
            "hovertemplate": hover + names[2] + "</extra>",
        },
    ]
    return figure(data, lay)


def prior_kl_figure(
    labels: Sequence[str],
    values: ArrayLike,
    highlight: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    reference: float = 1e-5,
    reference_label: str = "DDPM ≈ 10⁻⁵",
) -> go.Figure:
    """L_T = KL(q(x_T | x₀) ‖ N(0, I)) in bits per dimension for each schedule (log y), the
    chosen schedule highlighted, DDPM's reported value as a dashed line.

    Traces: [0] the bars (text = the values), [1] a legend entry for the dashed line.
    Shape [0]: y = ``reference``.
    """
    v = np.asarray(values, dtype=float)
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=340,
        yaxis=_log_y(np.append(v, reference), pad=0.6),
    )
    lay["margin"] = {"l": 84, "r": 15, "t": 64, "b": 48}
    lay["shapes"] = [
        {
            "type": "line",
            "xref": "x domain",
            "yref": "y",
            "x0": 0,
            "x1": 1,
            "y0": reference,
            "y1": reference,
            "line": {"color": GREY, "dash": "dash", "width": 1.5},
        },
    ]
    colours = [ORANGE if i == highlight else BLUE for i in range(len(labels))]
    data = [
        {
            "type": "bar",
            "x": list(labels),
            "y": _positive(v),
            "marker": {"color": colours},
            "text": [f"{x:.2e}" for x in v],
            "textposition": "outside",
            "cliponaxis": False,
            "hovertemplate": "%{x}<br>%{y:.3e} bits/dim<extra></extra>",
            "showlegend": False,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": [None],
            "y": [None],
            "name": reference_label,
            "line": {"color": GREY, "dash": "dash", "width": 1.5},
            "hoverinfo": "skip",
        },
    ]
    return figure(data, lay)


def weights_figure(
    t_grid: ArrayLike,
    weight_beta: ArrayLike,
    weight_tilde: ArrayLike,
    t: int,
    current: tuple[float, float],
    T: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str, str, str] = ("σₜ² = βₜ", "σₜ² = β̃ₜ", "L_simple: 1", "current t"),
) -> go.Figure:
    """The weight λₜ = βₜ² / (2σₜ² αₜ (1 − ᾱₜ)) of each ε-loss term against t (log–log), for
    both choices of σₜ², and the simple loss's constant weight 1.

    Traces: [0] λₜ with σ² = β, [1] λₜ with σ² = β̃ (t ≥ 2), [2] the constant 1,
    [3] current λₜ (σ² = β), [4] current λₜ (σ² = β̃). ``current`` holds the exact values at t.
    """
    both = np.concatenate([np.asarray(weight_beta, float), np.asarray(weight_tilde, float), [1]])
    lay = layout(
        title=title, x=x_title, y=y_title, height=380, xaxis=_t_axis(T), yaxis=_log_y(both, pad=0.2)
    )
    lay["margin"] = {"l": 64, "r": 15, "t": 64, "b": 48}
    ends = [1, T]
    data = [
        _line(t_grid, _positive(weight_beta), names[0], BLUE),
        _line(t_grid, _positive(weight_tilde), names[1], VERMILLION, line={"dash": "dash"}),
        _line(ends, [1.0, 1.0], names[2], GREY, line={"dash": "dot", "width": 2}),
        _marker(t, current[0], names[3], show=True),
        _marker(t, current[1] if math.isfinite(current[1]) else math.nan, names[3]),
    ]
    return figure(data, lay)
