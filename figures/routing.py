"""Figures of the routing-by-clustering page: arrays in, ``go.Figure`` out (plain dict specs).

Layouts do not depend on the slider values; every builder documents its traces in order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.lsh import BUCKET_COLOURS, CURRENT
from figures.style import BLUE, GREY, VERMILLION, figure, layout

if TYPE_CHECKING:  # the curves' type only; figures take arrays and never call core
    from core.routing import RecallCurves

Array = NDArray[np.float64]


def _list(x: Any) -> list:
    return np.asarray(x).tolist()


def _colours(labels: Array) -> list[str]:
    return [BUCKET_COLOURS[int(c) % len(BUCKET_COLOURS)] for c in np.asarray(labels).ravel()]


def clusters_figure(
    points: Array,
    labels: Array,
    centroids: Array,
    query: int,
    *,
    title: str,
    names: tuple[str, str, str] = ("keys", "centroids μⱼ", "query → its centroid"),
    limits: tuple[float, float] = (-1.6, 1.6),
    height: int = 420,
    hover: str = "token %{pointNumber}: cluster %{customdata}",
) -> go.Figure:
    """2-D tokens coloured by cluster, the centroids, and token ``query`` routed to its centroid.

    ``hover`` is a token's hover text (``%{customdata}`` = its cluster).

    Traces: [0] tokens, [1] centroids, [2] the query and the segment to its centroid.
    """
    points, centroids = np.asarray(points), np.asarray(centroids)
    c = int(labels[query])
    data = [
        {
            "type": "scatter",
            "x": _list(points[:, 0]),
            "y": _list(points[:, 1]),
            "mode": "markers",
            "name": names[0],
            "customdata": _list(labels),
            "marker": {
                "color": _colours(labels),
                "size": 9,
                "line": {"color": "white", "width": 1},
            },
            "hovertemplate": hover + "<extra></extra>",
        },
        {
            "type": "scatter",
            "x": _list(centroids[:, 0]),
            "y": _list(centroids[:, 1]),
            "mode": "markers",
            "name": names[1],
            "marker": {
                "color": _colours(np.arange(len(centroids))),
                "size": 16,
                "symbol": "x",
                "line": {"color": "black", "width": 1.5},
            },
            "hovertemplate": "μ%{pointNumber}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [float(points[query, 0]), float(centroids[c, 0])],
            "y": [float(points[query, 1]), float(centroids[c, 1])],
            "mode": "lines+markers",
            "name": names[2],
            "line": {"color": "black", "width": 2},
            "marker": {"symbol": ["star", "x"], "size": [18, 1], "color": "black"},
            "hoverinfo": "skip",
        },
    ]
    axis = {"range": list(limits), "showgrid": False}
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


def mask_figure(
    mask: Array,
    *,
    title: str,
    x_title: str,
    y_title: str,
    height: int = 420,
    hovertemplate: str = "query %{y}, key %{x}: %{z}<extra>1 = attends</extra>",
) -> go.Figure:
    """A bool (N, N) mask (yellow = may attend). Traces: [0] the heatmap (z in {0, 1})."""
    n = np.asarray(mask).shape[0]
    ax = {"showgrid": False, "zeroline": False, "range": [-0.5, n - 0.5]}
    data = [
        {
            "type": "heatmap",
            "z": np.asarray(mask, dtype=np.int8).tolist(),
            "zmin": 0,
            "zmax": 1,
            "showscale": False,
            "colorscale": [[0.0, "#440154"], [1.0, "#FDE725"]],
            "hovertemplate": hovertemplate,
        }
    ]
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=height,
        xaxis=ax,
        yaxis={**ax, "range": [n - 0.5, -0.5], "scaleanchor": "x"},
        margin={"l": 60, "r": 15, "t": 40, "b": 80},
    )
    return figure(data, lay)


def recall_figure(
    curves: RecallCurves,
    probe: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str, str] = ("flat k-means", "hierarchical k-means", "exhaustive"),
    hovers: tuple[str, str, str] = (
        "%{customdata:.0f} clusters: %{x:.0f} products, recall %{y:.3f}",
        "%{customdata:.0f} leaves: %{x:.0f} products, recall %{y:.3f}",
        "%{x:.0f} products, recall %{y:.3f}",
    ),
) -> go.Figure:
    """Recall of the true top-K against the dot products computed, flat vs tree.

    ``curves``: a :class:`core.routing.RecallCurves` (any object with its array attributes).

    ``hovers``: hover texts of the flat curve, the tree curve and the current points.

    Traces: [0] flat, [1] tree, [2] the current number of probed clusters on both.
    Shapes: [0] x = N (exhaustive search).
    """
    i = int(probe) - 1
    n = float(curves.n_keys)
    data = [
        {
            "type": "scatter",
            "x": _list(curves.flat_dots),
            "y": _list(curves.flat_recall),
            "mode": "lines+markers",
            "name": names[0],
            "line": {"color": BLUE},
            "customdata": _list(curves.probes),
            "hovertemplate": hovers[0] + "<extra></extra>",
        },
        {
            "type": "scatter",
            "x": _list(curves.tree_dots),
            "y": _list(curves.tree_recall),
            "mode": "lines+markers",
            "name": names[1],
            "line": {"color": VERMILLION},
            "customdata": _list(curves.probes),
            "hovertemplate": hovers[1] + "<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [float(curves.flat_dots[i]), float(curves.tree_dots[i])],
            "y": [float(curves.flat_recall[i]), float(curves.tree_recall[i])],
            "mode": "markers",
            "showlegend": False,
            "marker": CURRENT,
            "hovertemplate": hovers[2] + "<extra></extra>",
        },
    ]
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=400,
        xaxis={"range": [0, n * 1.12]},
        yaxis={"range": [0, 1.04]},
        margin={"l": 60, "r": 15, "t": 40, "b": 100},
        legend={"orientation": "h", "x": 0.0, "y": -0.24, "yanchor": "top"},
    )
    lay["shapes"] = [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": n,
            "x1": n,
            "y0": 0,
            "y1": 1,
            "line": {"color": GREY, "dash": "dash"},
        }
    ]
    lay["annotations"] = [
        {
            "text": names[2] + f" N = {n:.0f}",
            "x": n,
            "y": 0.02,
            "xref": "x",
            "yref": "paper",
            "xanchor": "right",
            "showarrow": False,
            "font": {"size": 11, "color": GREY},
        }
    ]
    return figure(data, lay)
