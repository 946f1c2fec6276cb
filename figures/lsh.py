"""Figures of the Reformer LSH page: arrays in, ``go.Figure`` out (plain dict specs).

Layouts never depend on the slider values (only trace data changes, so ``Plotly.react``
skips the relayout); every builder documents its traces in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import BLUE, GREY, ORANGE, SEQUENTIAL, VERMILLION, figure, layout, panel_titles

Array = NDArray[np.float64]
# 16 distinguishable bucket colours: Okabe & Ito first, then Tableau-like extras
BUCKET_COLOURS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#56B4E9",
    "#CC79A7",
    "#F0E442",
    "#000000",
    "#8C564B",
    "#7F7F7F",
    "#17BECF",
    "#BCBD22",
    "#9467BD",
    "#FF9DA7",
    "#1F77B4",
    "#2CA02C",
)
CURRENT = {"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}}


def _list(x: Any) -> list:
    return np.asarray(x).tolist()


def _colours(buckets: Array) -> list[str]:
    return [BUCKET_COLOURS[int(h) % len(BUCKET_COLOURS)] for h in np.asarray(buckets).ravel()]


def _rays(directions: Array, sign: float, length: float = 1.3) -> tuple[list, list]:
    xs: list = []
    ys: list = []
    for u in np.asarray(directions, dtype=float):
        u = sign * length * u / (np.linalg.norm(u) or 1.0)
        xs += [0.0, float(u[0]), None]
        ys += [0.0, float(u[1]), None]
    return xs, ys


def hash_figure(
    points: Array,
    buckets: Array,
    ring_angles: Array,
    ring_buckets: Array,
    directions: Array,
    *,
    title: str,
    names: tuple[str, str, str, str, str] = (
        "sectors h(u)",
        "+R columns",
        "−R columns",
        "tokens",
        "x₀, −x₀",
    ),
    labels: Sequence[str] | None = None,
    height: int = 440,
    mirror: tuple[int, int] = (0, 0),
    bucket_hover: str = "bucket %{customdata}",
) -> go.Figure:
    """Points in the plane coloured by bucket, the bucket sectors as a coloured ring.

    Args:
        points: (N, 2) coordinates (the vectors themselves in 2-D, a projection otherwise).
        buckets: (N,) bucket ids of the points.
        ring_angles, ring_buckets: (K,) angles of unit vectors and their buckets (2-D only;
            empty arrays hide the ring).
        directions: (b/2, 2) columns of R (empty to hide them).
        mirror: buckets of x_0 and of -x_0 (the first point and its mirror image).
        labels: the points' names in the hover (default "token i").
        bucket_hover: the hover text of a bucket id (``%{customdata}``).

    Traces: [0] sector ring, [1] +R rays, [2] −R rays, [3] the points, [4] x_0 and -x_0.
    """
    ring_angles = np.asarray(ring_angles, dtype=float)
    p0 = [float(v) for v in np.asarray(points)[0, :2]]
    xs, ys = _rays(directions, 1.0)
    nx, ny = _rays(directions, -1.0)
    text = list(labels) if labels is not None else [f"token {i}" for i in range(len(points))]
    data = [
        {
            "type": "scatter",
            "x": _list(1.12 * np.cos(ring_angles)),
            "y": _list(1.12 * np.sin(ring_angles)),
            "mode": "markers",
            "name": names[0],
            "marker": {"color": _colours(ring_buckets), "size": 7, "symbol": "square"},
            "customdata": _list(ring_buckets),
            "hovertemplate": bucket_hover + "<extra></extra>",
        },
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "lines",
            "name": names[1],
            "line": {"color": "#262730", "width": 1.5},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": nx,
            "y": ny,
            "mode": "lines",
            "name": names[2],
            "line": {"color": GREY, "width": 1.2, "dash": "dot"},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": _list(np.asarray(points)[:, 0]),
            "y": _list(np.asarray(points)[:, 1]),
            "mode": "markers",
            "name": names[3],
            "marker": {
                "color": _colours(buckets),
                "size": 10,
                "line": {"color": "white", "width": 1},
            },
            "customdata": _list(buckets),
            "text": text,
            "hovertemplate": "%{text}: " + bucket_hover + "<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [p0[0], -p0[0]],
            "y": [p0[1], -p0[1]],
            "mode": "markers",
            "name": names[4],
            "text": ["x₀", "−x₀"],
            "marker": {
                "color": _colours(np.asarray(mirror)),
                "size": 15,
                "symbol": "star",
                "line": {"color": "black", "width": 1},
            },
            "customdata": [int(v) for v in mirror],
            "hovertemplate": "%{text}: " + bucket_hover + "<extra></extra>",
        },
    ]
    axis = {"range": [-1.45, 1.45], "showgrid": False, "zeroline": True}
    lay = layout(
        title=title,
        x="",
        y="",
        height=height,
        xaxis=axis,
        yaxis={**axis, "scaleanchor": "x"},
        margin={"l": 40, "r": 15, "t": 40, "b": 80},
        legend={"orientation": "h", "x": 0.0, "y": -0.08, "yanchor": "top"},
    )
    return figure(data, lay)


def _heatmap(z: Array, axes: tuple[str, str], zmax: float, hover: str) -> dict:
    return {
        "type": "heatmap",
        "z": _list(z),
        "zmin": 0.0,
        "zmax": zmax,
        "colorscale": SEQUENTIAL,
        "xaxis": axes[0],
        "yaxis": axes[1],
        "showscale": axes[0] == "x2",
        "colorbar": {"thickness": 12, "title": {"text": "a"}},
        "hovertemplate": hover,
    }


def attention_pair_figure(
    full: Array,
    kept: Array,
    *,
    titles: tuple[str, str],
    x_title: str,
    y_title: str,
    height: int = 420,
    hovertemplate: str = "query %{y}, key %{x}: %{z:.4f}<extra></extra>",
) -> go.Figure:
    """Full attention (left) and the LSH-chunked attention (right), both (N, N), same order.

    ``hovertemplate`` is a cell's hover text.
    Traces: [0] full weights (x/y), [1] LSH weights (x2/y2).
    """
    n = np.asarray(full).shape[0]
    zmax = float(max(np.max(full), np.max(kept), 1e-12))
    ax = {"showgrid": False, "zeroline": False, "range": [-0.5, n - 0.5]}
    lay = layout(
        title="",
        x=x_title,
        y=y_title,
        height=height,
        xaxis={**ax, "domain": [0.0, 0.44]},
        yaxis={**ax, "range": [n - 0.5, -0.5]},
        margin={"l": 60, "r": 15, "t": 40, "b": 50},
    )
    lay["xaxis2"] = {**lay["xaxis"], "domain": [0.52, 0.96], "anchor": "y2", "title": {"text": ""}}
    lay["yaxis2"] = {**lay["yaxis"], "anchor": "x2", "title": {"text": ""}}
    lay["annotations"] = panel_titles(titles[:2], (0.0, 0.52))
    data = [
        _heatmap(full, ("x", "y"), zmax, hovertemplate),
        _heatmap(kept, ("x2", "y2"), zmax, hovertemplate),
    ]
    data[0]["zmax"] = data[1]["zmax"] = 1.0
    return figure(data, lay)


def mass_curve_figure(
    bucket_options: Sequence[int],
    curve: Array,
    b: int,
    n: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    round_name: str = "n = {n}",
    hover: str = "b = %{x}<br>kept %{y:.3f}",
) -> go.Figure:
    """Kept attention mass against b, one line per number of rounds, the current (b, n) marked.

    ``hover`` is a point's hover text.

    Traces: [0..R-1] one line per n = 1..R, [R] the current point.
    """
    curve = np.asarray(curve)
    bs = [int(v) for v in bucket_options]
    data = [
        {
            "type": "scatter",
            "x": bs,
            "y": _list(curve[:, r]),
            "mode": "lines+markers",
            "name": round_name.format(n=r + 1),
            "line": {"color": BUCKET_COLOURS[r]},
            "hovertemplate": hover + "<extra>" + round_name.format(n=r + 1) + "</extra>",
        }
        for r in range(curve.shape[1])
    ]
    i = bs.index(int(b))
    data.append(
        {
            "type": "scatter",
            "x": [int(b)],
            "y": [float(curve[i, n - 1])],
            "mode": "markers",
            "name": "",
            "showlegend": False,
            "marker": CURRENT,
            "hovertemplate": hover + "<extra></extra>",
        }
    )
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=360,
        xaxis={"tickvals": bs},
        yaxis={"range": [0, 1.02]},
    )
    return figure(data, lay)


def collision_figure(
    theta_deg: Array,
    p_one: Array,
    se_one: Array,
    closed_two: Array | None,
    p_rounds: Array,
    formula_rounds: Array,
    current_deg: float,
    current_p: float,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str, str, str, str],
) -> go.Figure:
    """Collision probability against the angle: Monte Carlo with a ±2 SE band, closed forms.

    Traces: [0] band upper, [1] band lower (filled to [0]), [2] MC one round,
    [3] closed form 1 − θ/π (empty unless b = 2), [4] MC n rounds, [5] 1 − (1 − p̂)ⁿ,
    [6] the current angle.
    """
    x = _list(theta_deg)
    closed = _list(closed_two) if closed_two is not None else []
    band = {
        "type": "scatter",
        "x": x,
        "mode": "lines",
        "line": {"width": 0},
        "hoverinfo": "skip",
        "showlegend": False,
    }
    data = [
        {**band, "y": _list(np.clip(p_one + 2 * se_one, 0, 1))},
        {
            **band,
            "y": _list(np.clip(p_one - 2 * se_one, 0, 1)),
            "fill": "tonexty",
            "fillcolor": "rgba(0,114,178,0.2)",
            "name": names[0],
            "showlegend": True,
        },
        {
            "type": "scatter",
            "x": x,
            "y": _list(p_one),
            "mode": "lines",
            "name": names[1],
            "line": {"color": BLUE},
            "hovertemplate": "θ = %{x:.0f}°: %{y:.3f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": x if closed else [],
            "y": closed,
            "mode": "lines",
            "name": names[2],
            "line": {"color": "black", "dash": "dash"},
            "hovertemplate": "θ = %{x:.0f}°: %{y:.3f}<extra>1 − θ/π</extra>",
        },
        {
            "type": "scatter",
            "x": x,
            "y": _list(p_rounds),
            "mode": "lines",
            "name": names[3],
            "line": {"color": VERMILLION},
            "hovertemplate": "θ = %{x:.0f}°: %{y:.3f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": x,
            "y": _list(formula_rounds),
            "mode": "lines",
            "name": names[4],
            "line": {"color": ORANGE, "dash": "dot", "width": 3},
            "hovertemplate": "θ = %{x:.0f}°: %{y:.3f}<extra>1 − (1 − p)ⁿ</extra>",
        },
        {
            "type": "scatter",
            "x": [current_deg],
            "y": [current_p],
            "mode": "markers",
            "name": "",
            "showlegend": False,
            "marker": CURRENT,
            "hovertemplate": "θ = %{x:.0f}°: %{y:.3f}<extra></extra>",
        },
    ]
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=400,
        xaxis={"range": [0, 180], "tickvals": list(range(0, 181, 30))},
        yaxis={"range": [0, 1.02]},
        margin={"l": 60, "r": 15, "t": 40, "b": 110},
        legend={"orientation": "h", "x": 0.0, "y": -0.27, "yanchor": "top"},
    )
    return figure(data, lay)
