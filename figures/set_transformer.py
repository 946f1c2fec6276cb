"""Figures of the Set Transformer page: arrays in, ``go.Figure`` out.

Plain dict specs wrapped by figures.style.figure. The layouts depend only on the set (n, its
clusters) chosen outside the page's fragments, never on the probe slider (m) or the shuffle:
the highlighted row/column and the tracked elements are traces, the axis ranges are fixed.
Attention weights are drawn relative to uniform (weight × row length, 1 = uniform) on one
fixed colour axis 0 … 2 with uniform in the middle, so a row of m weights and a row of n
weights read on the same scale and untrained, nearly uniform weights still show a pattern.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import (
    BLUE,
    GREEN,
    ORANGE,
    SEQUENTIAL,
    VERMILLION,
    figure,
    layout,
    panel_titles,
)

Array = NDArray[np.float64]
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x")
FEATURE_MAX = 2.5  # colour axis of LayerNorm outputs: −2.5 … 2.5
RELATIVE_MAX = 2.0  # colour axis of weight × row length: 0 … 2, uniform (1) in the middle
HIGHLIGHT = {"color": "#E8000B", "width": 3}
TRACK_COLOURS = ("black", GREEN, ORANGE)
CURRENT = {"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}}


def _list(x: Any, digits: int = 4) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def _plain_axis(**extra: Any) -> dict[str, Any]:
    return {
        "showgrid": False,
        "zeroline": False,
        "showline": False,
        "ticks": "",
        "automargin": False,
        "tickfont": {"size": 10},
        **extra,
    }


def _box(x0: float, x1: float, y0: float, y1: float) -> tuple[list[float], list[float]]:
    return [x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0]


def _cluster_cuts(clusters: NDArray[np.int64]) -> list[float]:
    """Positions between consecutive elements of different clusters (display order)."""
    c = np.asarray(clusters)
    return [i + 0.5 for i in np.flatnonzero(c[1:] != c[:-1])]


def _relative_colour_axis(colorbar_title: str | None) -> dict[str, Any]:
    """Weights × row length on 0 … 2 (1 = uniform); the colour bar only where it is titled."""
    axis: dict[str, Any] = {"colorscale": SEQUENTIAL, "cmin": 0.0, "cmax": RELATIVE_MAX}
    if colorbar_title is None:
        return {**axis, "showscale": False}
    return {
        **axis,
        "colorbar": {
            "title": {"text": colorbar_title, "side": "right"},
            "thickness": 12,
            "x": 1.0,
            "len": 0.9,
            "tickvals": [0, 0.5, 1, 1.5, 2],
            "ticktext": ["0", "0.5", "1", "1.5", "≥ 2"],
        },
    }


def points_figure(
    points: Array,
    clusters: NDArray[np.int64],
    weights: Array,
    *,
    title: str,
    axis_titles: tuple[str, str],
    height: int = 430,
) -> go.Figure:
    """The set, one marker shape per cluster, coloured by one inducing point's attention.

    Args:
        points: (n, 2) the set, in display order.
        clusters: (n,) cluster id of each point (marker symbol).
        weights: (n,) n·a_ix[j], the weights of inducing point j relative to uniform.

    Traces: [0] the points (colour axis 0 … 2 of :func:`maps_figure`, no colour bar).
    """
    lim = float(np.abs(points).max()) * 1.1 + 0.1
    lay = layout(
        title=f"<b>{title}</b>",
        x=axis_titles[0],
        y=axis_titles[1],
        height=height,
        showlegend=False,
        xaxis={"range": [-lim, lim], "zeroline": False},
        yaxis={"range": [-lim, lim], "scaleanchor": "x", "zeroline": False},
    )
    lay["title"]["font"] = {"size": 13}
    lay["coloraxis"] = _relative_colour_axis(None)
    lay["margin"] = {"l": 48, "r": 10, "t": 40, "b": 48}
    symbols = [SYMBOLS[int(c) % len(SYMBOLS)] for c in clusters]
    data = [
        {
            "type": "scatter",
            "x": _list(points[:, 0], 3),
            "y": _list(points[:, 1], 3),
            "mode": "markers",
            "marker": {
                "color": _list(weights, 3),
                "coloraxis": "coloraxis",
                "symbol": symbols,
                "size": 8,
                "line": {"color": "#444", "width": 0.5},
            },
            "hovertemplate": "(%{x:.2f}, %{y:.2f}): n·a = %{marker.color:.2f}<extra></extra>",
        },
    ]
    return figure(data, lay)


def maps_figure(
    clusters: NDArray[np.int64],
    a_ix: Array,
    a_xh: Array,
    j: int,
    *,
    titles: tuple[str, str],
    axis_titles: dict[str, str],
    colorbar_title: str,
    height: int = 430,
) -> go.Figure:
    """ISAB's two attention maps for one head, relative to uniform, inducing point j outlined.

    Args:
        clusters: (n,) cluster id of each element in display order (white cuts between them).
        a_ix: (m, n) weights inducing point → set (MAB(I, X)); rows sum to 1.
        a_xh: (n, m) weights set element → summaries H (MAB(X, H)); rows sum to 1.
        j: the highlighted inducing point.
        axis_titles: keys ``elements``, ``inducing``.

    Panels: [left] n·a_ix (m×n, row j outlined); [right] m·a_xh (n×m, column j outlined).
    Traces: [0] a_ix, [1] a_xh, [2] row j outline, [3] column j outline.
    """
    m, n = a_ix.shape
    lay = layout(title="", x="", y="", height=height, showlegend=False)
    lay["xaxis"] = _plain_axis(
        domain=[0.0, 0.56], range=[-0.5, n - 0.5], title={"text": axis_titles["elements"]}
    )
    # m sets the rows (columns) of a map: autorange, so the layout stays the same for every m
    ticks = {"tickmode": "array", "tickvals": list(range(0, 257, 4))}  # integers only, any m
    lay["yaxis"] = _plain_axis(
        autorange="reversed", **ticks, title={"text": axis_titles["inducing"]}
    )
    lay["xaxis2"] = _plain_axis(
        domain=[0.67, 0.9],
        anchor="y2",
        autorange=True,
        **ticks,
        title={"text": axis_titles["inducing"]},
    )
    lay["yaxis2"] = _plain_axis(
        anchor="x2", range=[n - 0.5, -0.5], title={"text": axis_titles["elements"], "standoff": 2}
    )
    lay["coloraxis"] = _relative_colour_axis(colorbar_title)
    lay["annotations"] = panel_titles(titles, [0.0, 0.62], 13)
    cut = {"type": "line", "line": {"color": "white", "width": 1.5}}
    cuts = _cluster_cuts(clusters)
    lay["shapes"] = [
        {**cut, "xref": "x", "yref": "y domain", "x0": c, "x1": c, "y0": 0, "y1": 1} for c in cuts
    ] + [
        {**cut, "xref": "x2 domain", "yref": "y2", "x0": 0, "x1": 1, "y0": c, "y1": c} for c in cuts
    ]
    lay["margin"] = {"l": 48, "r": 10, "t": 40, "b": 48}
    heat = {"type": "heatmap", "coloraxis": "coloraxis"}
    row_x, row_y = _box(-0.5, n - 0.5, j - 0.5, j + 0.5)
    col_x, col_y = _box(j - 0.5, j + 0.5, -0.5, n - 0.5)
    data = [
        {
            **heat,
            "z": _list(n * a_ix, 3),
            "hovertemplate": "I %{y} → element %{x}: n·a = %{z:.2f}<extra></extra>",
        },
        {
            **heat,
            "z": _list(m * a_xh, 3),
            "xaxis": "x2",
            "yaxis": "y2",
            "hovertemplate": "element %{y} → H %{x}: m·a = %{z:.2f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": row_x,
            "y": row_y,
            "mode": "lines",
            "line": HIGHLIGHT,
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": col_x,
            "y": col_y,
            "mode": "lines",
            "line": HIGHLIGHT,
            "xaxis": "x2",
            "yaxis": "y2",
            "hoverinfo": "skip",
        },
    ]
    return figure(data, lay)


def cost_figure(
    ns: Array,
    sab: Array,
    isab: Array,
    n: int,
    current: tuple[float, float],
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str] = ("SAB: n²", "ISAB: 2nm"),
    height: int = 360,
) -> go.Figure:
    """Attention weights per head against the set size n (log-log), the current n marked.

    Traces: [0] SAB n², [1] ISAB 2nm (today's m), [2] the current pair (n, n²), (n, 2nm).
    """
    hover = "n = %{x}<br>%{y:,.0f} weights<extra></extra>"
    data = [
        {
            "type": "scatter",
            "x": _list(ns),
            "y": _list(sab),
            "mode": "lines",
            "name": names[0],
            "line": {"color": VERMILLION},
            "hovertemplate": hover,
        },
        {
            "type": "scatter",
            "x": _list(ns),
            "y": _list(isab),
            "mode": "lines",
            "name": names[1],
            "line": {"color": BLUE},
            "hovertemplate": hover,
        },
        {
            "type": "scatter",
            "x": [n, n],
            "y": list(current),
            "mode": "markers",
            "showlegend": False,
            "marker": CURRENT,
            "hovertemplate": hover,
        },
    ]
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=height,
        xaxis={"type": "log"},
        yaxis={"type": "log", "exponentformat": "power"},
    )
    lay["legend"] = {"orientation": "v", "x": 0.01, "y": 0.99, "xanchor": "left", "yanchor": "top"}
    return figure(data, lay)


def equivariance_figure(
    Z: Array,
    Z_of_shuffled: Array,
    shuffled_Z: Array,
    tracked: Sequence[tuple[int, int]],
    *,
    titles: tuple[str, str, str],
    x_title: str,
    y_title: str,
    colorbar_title: str,
    height: int = 560,
) -> go.Figure:
    """ISAB(X), ISAB(πX) and π·ISAB(X) as channel × element heatmaps, stacked.

    Args:
        Z: (n, d) ISAB(X) in the original order. Z_of_shuffled: (n, d) ISAB(πX).
        shuffled_Z: (n, d) ISAB(X) with its rows shuffled by π (equal to Z_of_shuffled).
        tracked: (column in the original order, column after the shuffle) of a few elements,
            outlined in every panel so their move can be followed.

    Traces: [0] Z, [1] ISAB(πX), [2] π·ISAB(X), then one outline per tracked element and panel.
    """
    n, d = Z.shape
    lay = layout(title="", x="", y="", height=height, showlegend=False)
    tops, gap = [1.0, 0.64, 0.28], 0.08
    hp = tops[0] - tops[1] - gap
    heat = {
        "type": "heatmap",
        "coloraxis": "coloraxis",
        "hovertemplate": "element %{x}, channel %{y}: %{z:.3f}<extra></extra>",
    }
    data = []
    for k, (top, M) in enumerate(zip(tops, (Z, Z_of_shuffled, shuffled_Z), strict=True)):
        sfx = "" if k == 0 else str(k + 1)
        last = k == 2
        lay[f"xaxis{sfx}"] = _plain_axis(
            anchor=f"y{sfx}",
            range=[-0.5, n - 0.5],
            showticklabels=last,
            title={"text": x_title if last else ""},
        )
        lay[f"yaxis{sfx}"] = _plain_axis(
            anchor=f"x{sfx}", domain=[top - hp, top], range=[d - 0.5, -0.5], title={"text": y_title}
        )
        data.append({**heat, "z": _list(M.T, 3), "xaxis": f"x{sfx}", "yaxis": f"y{sfx}"})
    for k in range(3):
        sfx = "" if k == 0 else str(k + 1)
        for (before, after), colour in zip(tracked, TRACK_COLOURS, strict=False):
            col = before if k == 0 else after
            x, y = _box(col - 0.5, col + 0.5, -0.5, d - 0.5)
            data.append(
                {
                    "type": "scatter",
                    "x": x,
                    "y": y,
                    "mode": "lines",
                    "line": {"color": colour, "width": 2.5},
                    "xaxis": f"x{sfx}",
                    "yaxis": f"y{sfx}",
                    "hoverinfo": "skip",
                }
            )
    lay["coloraxis"] = {
        "colorscale": "RdBu",
        "cmin": -FEATURE_MAX,
        "cmax": FEATURE_MAX,
        "colorbar": {"title": {"text": colorbar_title}, "thickness": 12, "len": 0.9},
    }
    lay["annotations"] = [
        {
            "text": f"<b>{text}</b>",
            "x": 0.0,
            "y": top,
            "xref": "paper",
            "yref": "paper",
            "xanchor": "left",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": 13},
        }
        for text, top in zip(titles, tops, strict=True)
    ]
    lay["margin"] = {"l": 60, "r": 10, "t": 28, "b": 48}
    return figure(data, lay)


def pooling_figure(
    pooled: Sequence[tuple[Array, Array]],
    *,
    titles: Sequence[str],
    x_title: str,
    names: tuple[str, str],
    height: int = 330,
) -> go.Figure:
    """Pooled vectors of the set in its original order (bars) and shuffled (diamonds).

    Args:
        pooled: per panel (original (d,), shuffled (d,)); an invariant pool puts every
            diamond on top of its bar.

    Traces: per panel [bar original, markers shuffled]; the legend shows the first pair.
    """
    k = len(pooled)
    gap = 0.045
    width = (1.0 - gap * (k - 1)) / k
    lay = layout(title="", x="", y="", height=height)
    data = []
    for i, (orig, shuf) in enumerate(pooled):
        sfx = "" if i == 0 else str(i + 1)
        lo = i * (width + gap)
        d = len(orig)
        lay[f"xaxis{sfx}"] = {
            **lay["xaxis"],
            "domain": [lo, lo + width],
            "anchor": f"y{sfx}",
            "range": [-0.7, d - 0.3],
            "title": {"text": x_title},
            "showgrid": False,
            "dtick": 4,
        }
        lay[f"yaxis{sfx}"] = {**lay["yaxis"], "anchor": f"x{sfx}", "title": {"text": ""}}
        axes = {"xaxis": f"x{sfx}", "yaxis": f"y{sfx}"}
        data.append(
            {
                "type": "bar",
                "x": list(range(d)),
                "y": _list(orig),
                "name": names[0],
                "marker": {"color": BLUE},
                "showlegend": i == 0,
                **axes,
                "hovertemplate": "channel %{x}: %{y:.4f}<extra></extra>",
            }
        )
        data.append(
            {
                "type": "scatter",
                "x": list(range(d)),
                "y": _list(shuf),
                "mode": "markers",
                "name": names[1],
                "showlegend": i == 0,
                **axes,
                "marker": {
                    "symbol": "diamond",
                    "size": 8,
                    "color": ORANGE,
                    "line": {"color": "black", "width": 1},
                },
                "hovertemplate": "channel %{x}: %{y:.4f}<extra></extra>",
            }
        )
    lay["annotations"] = panel_titles(titles, [i * (width + gap) for i in range(k)], 13)
    lay["legend"] = {
        "orientation": "h",
        "x": 1.0,
        "xanchor": "right",
        "y": 1.12,
        "yanchor": "bottom",
    }
    lay["margin"] = {"l": 45, "r": 10, "t": 70, "b": 48}
    return figure(data, lay)
