"""Figures of the efficient-attention gallery: arrays in, ``go.Figure`` out.

Layouts do not depend on the query slider (fixed ranges, constant names), so a query step
changes only trace data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import GREY, PALETTE, SEQUENTIAL, VERMILLION, figure, grid_panels, layout

Array = NDArray[np.float64]
QUERY = {"symbol": "x", "size": 12, "color": VERMILLION, "line": {"color": "white", "width": 1}}


def _list(x: Any, digits: int = 5) -> list:
    return np.round(np.asarray(x, dtype=np.float64), digits).tolist()


def pareto_figure(
    labels: Sequence[str],
    flops: Sequence[float],
    errors: Sequence[float],
    front: Sequence[bool],
    *,
    title: str,
    x_title: str,
    y_title: str,
    front_name: str,
    height: int = 420,
) -> go.Figure:
    """Relative error against FLOPs (log x), one marker per method, the Pareto front joined.

    Traces: [0] the front as a line through its methods in order of cost, then one marker
    trace per method (named by its label) so the legend and the hover tell them apart.
    """
    c = np.asarray(flops, dtype=np.float64)
    e = np.asarray(errors, dtype=np.float64)
    on = np.flatnonzero(np.asarray(front, dtype=bool))
    order = on[np.argsort(c[on], kind="stable")]
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": _list(c[order]),
            "y": _list(e[order]),
            "mode": "lines",
            "name": front_name,
            "line": {"color": GREY, "dash": "dot", "width": 1.5},
            "hoverinfo": "skip",
        },
    ]
    for i, name in enumerate(labels):
        data.append(
            {
                "type": "scatter",
                "x": [float(c[i])],
                "y": [round(float(e[i]), 5)],
                "mode": "markers+text",
                "name": name,
                "text": [name],
                "textposition": ("top center", "bottom center")[i % 2],
                "marker": {
                    "size": 12,
                    "color": PALETTE[i % len(PALETTE)],
                    "symbol": (
                        "circle",
                        "square",
                        "diamond",
                        "triangle-up",
                        "cross",
                        "x",
                        "star",
                        "hexagon",
                        "pentagon",
                    )[i % 9],
                    "line": {"color": "black", "width": 1 if front[i] else 0},
                },
                "hovertemplate": f"<b>{name}</b><br>FLOPs %{{x:.3s}}<br>error %{{y:.4f}}"
                "<extra></extra>",
            }
        )
    lo, hi = math.log10(max(c.min(), 1.0)), math.log10(max(c.max(), 10.0))
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=height,
        xaxis={"type": "log", "range": [lo - 0.25, hi + 0.25], "exponentformat": "power"},
        yaxis={"range": [-0.05, max(1.0, float(e.max()) * 1.1)]},
        showlegend=False,
    )
    return figure(data, lay)


def row_maps_figure(
    full: Array,
    method: Array,
    query: tuple[int, int],
    *,
    titles: tuple[str, str],
    height: int = 380,
    hovers: tuple[str, str] = (
        "key (%{y}, %{x}): %{z:.4f}<extra>full</extra>",
        "key (%{y}, %{x}): %{z:.4f}<extra>method</extra>",
    ),
) -> go.Figure:
    """One query's weights over the side×side map: full attention next to the method.

    Both panels share one colour scale (0 to the larger maximum) so equal colours mean
    equal weights. Traces: [0] full, [1] method, [2, 3] the query marker on each panel.
    """
    side = full.shape[0]
    zmax = float(max(np.max(full), np.max(method), 1e-12))
    lay = grid_panels(2, side, titles, height)
    heat = {
        "type": "heatmap",
        "colorscale": SEQUENTIAL,
        "zmin": 0.0,
        "zmax": zmax,
        "showscale": False,
    }
    r, c = query
    data: list[dict[str, Any]] = [
        {**heat, "z": _list(full), "hovertemplate": hovers[0]},
        {**heat, "z": _list(method), "xaxis": "x2", "yaxis": "y2", "hovertemplate": hovers[1]},
    ]
    for sfx in ("", "2"):
        data.append(
            {
                "type": "scatter",
                "x": [c],
                "y": [r],
                "mode": "markers",
                "marker": QUERY,
                "xaxis": f"x{sfx}",
                "yaxis": f"y{sfx}",
                "hoverinfo": "skip",
            }
        )
    return figure(data, lay)


def time_figure(
    n_tokens: Sequence[int],
    seconds: Array,
    labels: Sequence[str],
    slopes: Sequence[float],
    *,
    title: str,
    x_title: str,
    y_title: str,
    height: int = 400,
) -> go.Figure:
    """Measured seconds against N on log–log axes, one line per method, slope in the name.

    Traces: one ``lines+markers`` trace per method, named "<label> (slope p)".
    """
    data = [
        {
            "type": "scatter",
            "x": list(map(int, n_tokens)),
            "y": _list(row, 7),
            "mode": "lines+markers",
            "name": f"{label} ({slope:.2f})",
            "line": {"color": PALETTE[i % len(PALETTE)]},
            "hovertemplate": f"{label}<br>N = %{{x}}<br>%{{y:.2e}} s<extra></extra>",
        }
        for i, (row, label, slope) in enumerate(zip(seconds, labels, slopes, strict=True))
    ]
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=height,
        xaxis={"type": "log"},
        yaxis={"type": "log", "exponentformat": "power"},
        legend={"orientation": "h", "x": 0.0, "y": -0.2, "yanchor": "top"},
    )
    lay["margin"] = {"l": 60, "r": 15, "t": 40, "b": 110}
    return figure(data, lay)
