"""Figures of the Wallis page: arrays in, ``go.Figure`` out.

Both figures keep their layout independent of the slider (fixed axis ranges, constant trace
names), so a slider step only changes trace data and Plotly redraws without a relayout.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import BLUE, GREEN, GREY, ORANGE, VERMILLION, layout, panel_titles

Array = NDArray[np.float64]
LOG_TICKS = (1, 10, 100, 1000, 10_000, 100_000)


def _two_panels(
    titles: tuple[str, str], x_titles: tuple[str, str], y_titles: tuple[str, str], height: int = 380
) -> dict:
    lay = layout(title="", x=x_titles[0], y=y_titles[0], height=height)
    lay["xaxis"]["domain"] = [0.0, 0.44]
    lay["xaxis2"] = {
        **lay["xaxis"],
        "domain": [0.56, 1.0],
        "anchor": "y2",
        "title": {"text": x_titles[1]},
    }
    lay["yaxis2"] = {**lay["yaxis"], "anchor": "x2", "title": {"text": y_titles[1]}}
    lay["annotations"] = panel_titles(titles[:2], (0.0, 0.56))
    lay["margin"] = {"l": 60, "r": 15, "t": 40, "b": 90}
    lay["legend"] = {"orientation": "h", "x": 0.0, "y": -0.24, "yanchor": "top"}
    return lay


def product_figure(
    N: Array,
    two_P: Array,
    n: int,
    *,
    titles: tuple[str, str],
    x_title: str,
    y_titles: tuple[str, str],
    names: tuple[str, ...] = ("2·P_N", "π − 2·P_N", "π/(4N)", "current n"),
    n_max: int = 100_000,
) -> go.Figure:
    """Left: 2·P_N against N (log x) rising to π. Right: π − 2·P_N against the asymptote
    π/(4N) on log–log axes. ``N``/``two_P`` are samples up to the current n (last = n).

    Traces: [0] 2P_N (x/y), [1] current point (x/y), [2] π − 2P_N (x2/y2),
    [3] π/(4N) over the whole range (x2/y2), [4] current point (x2/y2). Shape [0]: y = π.
    """
    x_log = {
        "type": "log",
        "range": [-0.05, math.log10(n_max) + 0.05],
        "tickvals": LOG_TICKS,
        "ticktext": ["1", "10", "100", "1k", "10k", "100k"],
    }
    lay = _two_panels(titles, (x_title, x_title), y_titles)
    lay["xaxis"].update(x_log)
    lay["xaxis2"].update(x_log)
    lay["yaxis"]["range"] = [2.6, 3.22]
    lo = math.log10(math.pi / (4 * n_max)) - 0.4
    lay["yaxis2"].update({"type": "log", "range": [lo, 0.1], "exponentformat": "power"})
    lay["shapes"] = [
        {
            "type": "line",
            "xref": "x domain",
            "yref": "y",
            "x0": 0,
            "x1": 1,
            "y0": math.pi,
            "y1": math.pi,
            "line": {"color": GREY, "dash": "dash", "width": 1.5},
        },
    ]
    lay["annotations"].append(
        {
            "text": "π",
            "x": 0.44,
            "y": math.pi,
            "xref": "paper",
            "yref": "y",
            "xanchor": "right",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": 12, "color": GREY},
        }
    )
    fig = go.Figure(layout=lay)
    error = math.pi - two_P
    marker = {"size": 11, "color": ORANGE, "line": {"color": "black", "width": 1}}
    fig.add_scatter(
        x=N,
        y=two_P,
        mode="lines",
        name=names[0],
        line={"color": BLUE},
        hovertemplate="N = %{x}<br>2P_N = %{y:.8f}<extra></extra>",
    )
    fig.add_scatter(
        x=[n],
        y=[two_P[-1]],
        mode="markers",
        name=names[3],
        marker=marker,
        hovertemplate="n = %{x}<br>2P_n = %{y:.10f}<extra></extra>",
    )
    fig.add_scatter(
        x=N,
        y=error,
        mode="lines",
        name=names[1],
        line={"color": VERMILLION},
        xaxis="x2",
        yaxis="y2",
        hovertemplate="N = %{x}<br>π − 2P_N = %{y:.3e}<extra></extra>",
    )
    grid = np.geomspace(1, n_max, 60)
    fig.add_scatter(
        x=grid,
        y=math.pi / (4 * grid),
        mode="lines",
        name=names[2],
        line={"color": GREEN, "dash": "dot"},
        xaxis="x2",
        yaxis="y2",
        hoverinfo="skip",
    )
    fig.add_scatter(
        x=[n],
        y=[error[-1]],
        mode="markers",
        showlegend=False,
        marker=marker,
        xaxis="x2",
        yaxis="y2",
        hovertemplate="n = %{x}<br>π − 2P_n = %{y:.4e}<extra></extra>",
    )
    return fig


def integrals_traces(curves: Array, W: Array, N: int) -> dict[int, dict]:
    """What :func:`integrals_figure` draws of ``N`` alone, by trace index: [0..2] the
    integrands' heights (``curves``, 4 decimals: a tenth of a pixel), [4] the three W of the
    sandwich."""
    sel = [2 * N, 2 * N + 1, 2 * N + 2]
    return {
        **{j: {"y": np.round(curves[j], 4)} for j in range(3)},
        4: {"x": sel, "y": W[sel]},
    }


def integrals_figure(
    x: Array,
    curves: Array,
    k: Array,
    W: Array,
    N: int,
    *,
    titles: tuple[str, str],
    x_titles: tuple[str, str],
    y_titles: tuple[str, str],
    names: tuple[str, ...] = ("sin²ᴺx", "sin²ᴺ⁺¹x", "sin²ᴺ⁺²x", "W_k", "W_2N ≥ W_2N+1 ≥ W_2N+2"),
) -> go.Figure:
    """Left: the three integrands sin^{2N}, sin^{2N+1}, sin^{2N+2} on [0, π/2], nested.
    Right: W_k for every k, the three of the sandwich highlighted.

    ``curves`` is ``(3, len(x))``. Traces: [0..2] the integrands (filled, x/y),
    [3] all W_k (x2/y2), [4] the three highlighted W (x2/y2).
    """
    lay = _two_panels(titles, x_titles, y_titles)
    lay["xaxis"].update(
        {
            "range": [0, math.pi / 2],
            "tickvals": [0, math.pi / 4, math.pi / 2],
            "ticktext": ["0", "π/4", "π/2"],
        }
    )
    lay["yaxis"]["range"] = [0, 1.05]
    lay["xaxis2"]["range"] = [-0.5, float(k[-1]) + 0.5]
    lay["yaxis2"]["range"] = [0, 1.7]
    fig = go.Figure(layout=lay)
    for row, name, colour in zip(curves, names[:3], (BLUE, ORANGE, GREEN), strict=True):
        fig.add_scatter(
            x=x,
            y=row,
            mode="lines",
            name=name,
            fill="tozeroy",
            opacity=0.5,
            line={"color": colour},
            hovertemplate="%{y:.4f}<extra>" + name + "</extra>",
        )
    fig.add_scatter(
        x=k,
        y=W,
        mode="markers",
        name=names[3],
        marker={"color": GREY, "size": 6},
        xaxis="x2",
        yaxis="y2",
        hovertemplate="W_%{x} = %{y:.6f}<extra></extra>",
    )
    sel = [2 * N, 2 * N + 1, 2 * N + 2]
    fig.add_scatter(
        x=sel,
        y=W[sel],
        mode="markers",
        name=names[4],
        xaxis="x2",
        yaxis="y2",
        marker={"color": [BLUE, ORANGE, GREEN], "size": 12, "line": {"color": "black", "width": 1}},
        hovertemplate="W_%{x} = %{y:.6f}<extra></extra>",
    )
    return fig
