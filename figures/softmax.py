"""Figures of the softmax & temperature page: arrays in, ``go.Figure`` out.

Each builder writes a plain dict spec (see figures/style.py for why) and documents its
traces in order, so tests and pages can rely on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import BLUE, GREEN, GREY, ORANGE, VERMILLION, figure, layout, panel_titles

Array = NDArray[np.float64]
LOG_TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20)
LOG_AXIS: dict[str, Any] = {
    "type": "log",
    "tickvals": list(LOG_TICKS),
    "ticktext": [f"{v:g}" for v in LOG_TICKS],
}
CURRENT = {"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}}


def _list(x: Any) -> list:
    return np.asarray(x).tolist()


def temperature_figure(
    labels: Sequence[str],
    probs: Array,
    temperatures: Array,
    entropies: Array,
    temperature: float,
    current: float,
    max_entropy: float,
    *,
    titles: tuple[str, str],
    y_titles: tuple[str, str],
    x_title: str,
    names: tuple[str, ...] = ("p", "T → 0: argmax", "H(T)", "current T"),
    line_labels: tuple[str, str] = ("uniform 1/n (T → ∞)", "ln n"),
    zero_limit: Sequence[float] | None = None,
) -> go.Figure:
    """The probabilities (left) and the entropy curve (right) in one figure.

    Built to redraw cheaply on every slider step (measured with bench/latency): the layout
    does not depend on T, so Plotly.react only re-draws trace data; the two constant
    reference lines (1/n and ln n) are layout shapes, not traces; no text labels on bars.

    ``zero_limit`` is the T → 0 limit (1/m on each of the m largest logits); by default the
    one-hot of the largest probability.

    Traces: [0] bars p_i, [1] the T → 0 limit on the tied maxima (left, axes x/y); [2] H(T),
    [3] the current (T, H) (right, axes x2/y2). Shapes: [0] y = 1/n, [1] y2 = ln n.
    """
    n = len(probs)
    if zero_limit is None:
        zero_limit = np.eye(len(probs))[int(np.argmax(probs))]
    limit = np.asarray(zero_limit, dtype=float)
    ties = np.flatnonzero(limit > 0)  # where T → 0 puts its mass: 1/m on each of m ties
    lay = layout(title="", x="", y=y_titles[0], height=360, yaxis={"range": [0, 1.1]})
    lay["xaxis"]["domain"] = [0.0, 0.44]
    # the T axis is fixed (the grid's span, a little padding for the marker at its ends): a
    # live step only moves the marker (ui.live), and the axis stays where the student saw it
    lo, hi = np.log10([np.min(temperatures), np.max(temperatures)])
    pad = 0.03 * (hi - lo)
    lay["xaxis2"] = {
        **lay["xaxis"],
        **LOG_AXIS,
        "range": [float(lo - pad), float(hi + pad)],
        "domain": [0.56, 1.0],
        "anchor": "y2",
        "title": {"text": x_title},
    }
    lay["yaxis2"] = {
        **lay["yaxis"],
        "anchor": "x2",
        "range": [0, max_entropy * 1.12],
        "title": {"text": y_titles[1]},
    }
    note = {
        "showarrow": False,
        "xanchor": "right",
        "yanchor": "bottom",
        "xref": "paper",
        "font": {"size": 11, "color": GREY},
    }
    lay["annotations"] = panel_titles(titles[:2], (0.0, 0.56)) + [
        {
            **note,
            "text": line_labels[0],
            "x": 0.0,
            "xanchor": "left",
            "y": 1.0 / n,
            "yref": "y",
            "bgcolor": "rgba(255,255,255,0.85)",
        },
        {**note, "text": line_labels[1], "x": 1.0, "y": max_entropy, "yref": "y2"},
    ]
    dash = {"color": GREY, "dash": "dash", "width": 1.5}
    lay["shapes"] = [
        {
            "type": "line",
            "xref": "x domain",
            "yref": "y",
            "x0": 0,
            "x1": 1,
            "y0": 1.0 / n,
            "y1": 1.0 / n,
            "line": dash,
        },
        {
            "type": "line",
            "xref": "x2 domain",
            "yref": "y2",
            "x0": 0,
            "x1": 1,
            "y0": max_entropy,
            "y1": max_entropy,
            "line": dash,
        },
    ]
    # the legend goes below the T axis's title (at y = −0.16 it ran into it)
    lay["height"] = 400
    lay["margin"] = {"l": 60, "r": 15, "t": 40, "b": 100}
    lay["legend"] = {"orientation": "h", "x": 0.0, "y": -0.3, "yanchor": "top"}
    data = [
        {
            "type": "bar",
            "x": list(labels),
            "y": _list(probs),
            "name": names[0],
            "marker": {"color": BLUE},
            "hovertemplate": "%{x}: p = %{y:.6f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [labels[i] for i in ties],
            "y": _list(limit[ties]),
            "mode": "markers",
            "name": names[1],
            "marker": {
                "symbol": "x-thin-open",
                "size": 14,
                "color": VERMILLION,
                "line": {"width": 3},
            },
            "hovertemplate": "%{x}: %{y}<extra>T → 0</extra>",
        },
        {
            "type": "scatter",
            "x": _list(temperatures),
            "y": _list(entropies),
            "mode": "lines",
            "name": names[2],
            "line": {"color": GREEN},
            "xaxis": "x2",
            "yaxis": "y2",
            "hovertemplate": "T = %{x:.3g}<br>H = %{y:.4f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [temperature],
            "y": [current],
            "mode": "markers",
            "name": names[3],
            "xaxis": "x2",
            "yaxis": "y2",
            "marker": CURRENT,
            "hovertemplate": "T = %{x:.3g}<br>H = %{y:.4f}<extra></extra>",
        },
    ]
    return figure(data, lay)


def temperature_updates(
    probs: Array, temperature: float, current: float
) -> dict[int, dict[str, list[float]]]:
    """What changes in :func:`temperature_figure` from one T to another: the bars p_i
    (trace 0) and the current (T, H) marker (trace 3); trace index → properties.

    The live temperature control (``ui.live``) sends one of these per temperature.
    """
    return {0: {"y": _list(probs)}, 3: {"x": [float(temperature)], "y": [float(current)]}}


def dot_product_histograms(
    raw: Array,
    scaled: Array,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str] = ("q·k", "q·k / √d"),
    bins: int = 60,
) -> go.Figure:
    """Two overlaid density histograms (binned here, so the payload stays small).

    Traces: [0] raw q.k, [1] scaled q.k / sqrt(d); each a bar trace of densities.
    """
    lim = float(max(np.abs(raw).max(), np.abs(scaled).max(), 4.0))
    edges = np.linspace(-lim, lim, bins + 1)
    centers = 0.5 * (edges[:-1] + edges[1:])
    width = float(edges[1] - edges[0])
    data = []
    for values, name, colour in ((raw, names[0], ORANGE), (scaled, names[1], BLUE)):
        density, _ = np.histogram(values, bins=edges, density=True)
        data.append(
            {
                "type": "bar",
                "x": _list(centers),
                "y": _list(density),
                "width": width,
                "name": name,
                "marker": {"color": colour},
                "opacity": 0.6,
                "hovertemplate": "%{x:.2f}: %{y:.3f}<extra>" + name + "</extra>",
            }
        )
    return figure(data, layout(title=title, x=x_title, y=y_title, barmode="overlay", bargap=0))


def variance_vs_dimension(
    dims: Sequence[int],
    variances: Array,
    d: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str, str] = ("var(q·k)", "var(q·k / √d)", "d"),
) -> go.Figure:
    """Sample variances against d on log-log axes, with the theory line var = d.

    Traces: [0] var raw, [1] var scaled, [2] theory y = d, [3] current d marker.
    """
    dims = np.asarray(dims, dtype=float)
    i = int(np.argmin(np.abs(dims - d)))
    data = [
        {
            "type": "scatter",
            "x": _list(dims),
            "y": _list(variances[:, 0]),
            "mode": "lines+markers",
            "name": names[0],
            "line": {"color": ORANGE},
        },
        {
            "type": "scatter",
            "x": _list(dims),
            "y": _list(variances[:, 1]),
            "mode": "lines+markers",
            "name": names[1],
            "line": {"color": BLUE},
        },
        {
            "type": "scatter",
            "x": _list(dims),
            "y": _list(dims),
            "mode": "lines",
            "name": names[2],
            "line": {"color": GREY, "dash": "dot"},
        },
        {
            "type": "scatter",
            "x": [d, d],
            "y": _list(variances[i]),
            "mode": "markers",
            "showlegend": False,
            "marker": {**CURRENT, "color": GREEN},
            "hovertemplate": "d = %{x}<br>var = %{y:.3g}<extra></extra>",
        },
    ]
    lay = layout(title=title, x=x_title, y=y_title, xaxis={"type": "log"}, yaxis={"type": "log"})
    return figure(data, lay)


def reliability_diagram(
    edges: Array,
    acc_before: Array,
    acc_after: Array,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str, str] = ("before", "after", "perfect calibration"),
    hover: str = "confidence ≈ %{x:.2f}<br>accuracy = %{y:.3f}",
) -> go.Figure:
    """Accuracy per confidence bin before/after temperature scaling, and the diagonal.

    ``hover`` is a bar's hover text (the trace name follows it).
    Empty bins (nan) are drawn with zero height. Traces: [0] before, [1] after, [2] diagonal.
    """
    centers = 0.5 * (edges[:-1] + edges[1:])
    width = float(edges[1] - edges[0])
    data = [
        {
            "type": "bar",
            "x": _list(centers),
            "y": _list(np.nan_to_num(acc, nan=0.0)),
            "width": width * 0.45,
            "name": name,
            "marker": {"color": colour},
            "hovertemplate": hover + "<extra>" + name + "</extra>",
        }
        for acc, name, colour in ((acc_before, names[0], VERMILLION), (acc_after, names[1], BLUE))
    ]
    data.append(
        {
            "type": "scatter",
            "x": [0, 1],
            "y": [0, 1],
            "mode": "lines",
            "name": names[2],
            "line": {"color": GREY, "dash": "dash"},
        }
    )
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=380,
        barmode="group",
        bargap=0.05,
        xaxis={"range": [0, 1]},
        yaxis={"range": [0, 1]},
    )
    return figure(data, lay)


def contrastive_distribution(
    probs: Array,
    positive: int,
    anchor: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str] = ("positive", "negatives"),
) -> go.Figure:
    """The anchor's softmax over the other 2B-1 embeddings; the positive in green.

    Traces: [0] the positive bar, [1] the negative bars (anchor itself left out).
    """
    neg = [k for k in range(len(probs)) if k not in (anchor, positive)]
    data = [
        {
            "type": "bar",
            "x": [f"z{positive}"],
            "y": [float(probs[positive])],
            "name": names[0],
            "marker": {"color": GREEN},
            "hovertemplate": "%{x}: %{y:.4f}<extra></extra>",
        },
        {
            "type": "bar",
            "x": [f"z{k}" for k in neg],
            "y": _list(probs[neg]),
            "name": names[1],
            "marker": {"color": GREY},
            "hovertemplate": "%{x}: %{y:.4f}<extra></extra>",
        },
    ]
    return figure(data, layout(title=title, x=x_title, y=y_title, yaxis={"range": [0, 1]}))


def loss_vs_tau(
    taus: Array,
    losses: Array,
    tau: float,
    current: float,
    *,
    title: str,
    x_title: str,
    y_title: str,
) -> go.Figure:
    """NT-Xent loss against tau (log x), current tau marked. Traces: [0] curve, [1] marker."""
    data = [
        {
            "type": "scatter",
            "x": _list(taus),
            "y": _list(losses),
            "mode": "lines",
            "name": "L(τ)",
            "line": {"color": BLUE},
            "hovertemplate": "τ = %{x:.3g}<br>L = %{y:.4f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [tau],
            "y": [current],
            "mode": "markers",
            "name": f"τ = {tau:g}",
            "marker": CURRENT,
        },
    ]
    return figure(data, layout(title=title, x=x_title, y=y_title, xaxis=LOG_AXIS))
