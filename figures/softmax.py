"""Figures of the softmax & temperature page: arrays in, ``go.Figure`` out."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import BLUE, GREEN, GREY, ORANGE, VERMILLION, layout

Array = NDArray[np.float64]
LOG_TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20)


def probability_bars(
    labels: Sequence[str], probs: Array, temperature: float, *, title: str, y_title: str,
    names: tuple[str, str, str] = ("softmax(u/T)", "T → 0: argmax", "T → ∞: uniform 1/n"),
) -> go.Figure:  # fmt: skip
    """Bars of softmax(u/T) with the two limits drawn over them.

    Traces: [0] bars p_i, [1] the argmax's limit 1 (T -> 0; the others tend to 0),
    [2] the uniform line 1/n (T -> inf).
    """
    n = len(probs)
    k = int(np.argmax(probs))
    fig = go.Figure(layout=layout(title=title, x="", y=y_title, yaxis={"range": [0, 1.12]}))
    fig.add_bar(
        x=list(labels), y=probs, name=names[0], marker_color=BLUE,
        text=[f"{p:.4f}" for p in probs], textposition="outside", cliponaxis=False,
        hovertemplate="%{x}: p = %{y:.6f}<extra></extra>",
    )  # fmt: skip
    fig.add_scatter(
        x=[labels[k]], y=[1.0], mode="markers", name=names[1],
        marker={"symbol": "x-thin-open", "size": 14, "color": VERMILLION, "line": {"width": 3}},
        hovertemplate="%{x}: %{y}<extra>T → 0</extra>",
    )  # fmt: skip
    fig.add_scatter(
        x=list(labels), y=np.full(n, 1.0 / n), mode="lines", name=names[2],
        line={"color": GREY, "dash": "dash"}, hovertemplate="1/n = %{y:.4f}<extra></extra>",
    )  # fmt: skip
    return fig


def entropy_curve(
    temperatures: Array, entropies: Array, temperature: float, current: float, max_entropy: float,
    *, title: str, x_title: str, y_title: str, names: tuple[str, str] = ("H(T)", "ln n"),
) -> go.Figure:  # fmt: skip
    """Entropy against T on a log axis, the current T marked, ln n as the ceiling.

    Traces: [0] the curve, [1] ln n, [2] the current point.
    """
    fig = go.Figure(
        layout=layout(
            title=title,
            x=x_title,
            y=y_title,
            xaxis={"type": "log", "tickvals": LOG_TICKS, "ticktext": [f"{v:g}" for v in LOG_TICKS]},
            yaxis={"range": [0, max_entropy * 1.1]},
        )
    )
    fig.add_scatter(
        x=temperatures, y=entropies, mode="lines", name=names[0], line={"color": BLUE},
        hovertemplate="T = %{x:.3g}<br>H = %{y:.4f} nats<extra></extra>",
    )  # fmt: skip
    fig.add_scatter(
        x=[temperatures[0], temperatures[-1]], y=[max_entropy, max_entropy], mode="lines",
        name=names[1], line={"color": GREY, "dash": "dash"}, hoverinfo="skip",
    )  # fmt: skip
    fig.add_scatter(
        x=[temperature], y=[current], mode="markers", name=f"T = {temperature:g}",
        marker={"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}},
        hovertemplate="T = %{x:.3g}<br>H = %{y:.4f}<extra></extra>",
    )  # fmt: skip
    return fig


def dot_product_histograms(
    raw: Array, scaled: Array, *, title: str, x_title: str, y_title: str,
    names: tuple[str, str] = ("q·k", "q·k / √d"), bins: int = 60,
) -> go.Figure:  # fmt: skip
    """Two overlaid density histograms (binned here, so the payload stays small).

    Traces: [0] raw q.k, [1] scaled q.k / sqrt(d); each a ``go.Bar`` of densities.
    """
    lim = float(max(np.abs(raw).max(), np.abs(scaled).max(), 4.0))
    edges = np.linspace(-lim, lim, bins + 1)
    centers = 0.5 * (edges[:-1] + edges[1:])
    width = edges[1] - edges[0]
    fig = go.Figure(layout=layout(title=title, x=x_title, y=y_title, barmode="overlay", bargap=0))
    for values, name, colour in ((raw, names[0], ORANGE), (scaled, names[1], BLUE)):
        density, _ = np.histogram(values, bins=edges, density=True)
        fig.add_bar(
            x=centers, y=density, width=width, name=name, marker_color=colour, opacity=0.6,
            hovertemplate="%{x:.2f}: %{y:.3f}<extra>" + name + "</extra>",
        )  # fmt: skip
    return fig


def variance_vs_dimension(
    dims: Sequence[int], variances: Array, d: int, *, title: str, x_title: str, y_title: str,
    names: tuple[str, str, str] = ("var(q·k)", "var(q·k / √d)", "d"),
) -> go.Figure:  # fmt: skip
    """Sample variances against d on log-log axes, with the theory line var = d.

    Traces: [0] var raw, [1] var scaled, [2] theory y = d, [3] current d marker.
    """
    dims = np.asarray(dims, dtype=float)
    fig = go.Figure(
        layout=layout(
            title=title, x=x_title, y=y_title, xaxis={"type": "log"}, yaxis={"type": "log"}
        )
    )
    fig.add_scatter(x=dims, y=variances[:, 0], mode="lines+markers", name=names[0],
                    line={"color": ORANGE})  # fmt: skip
    fig.add_scatter(x=dims, y=variances[:, 1], mode="lines+markers", name=names[1],
                    line={"color": BLUE})  # fmt: skip
    fig.add_scatter(x=dims, y=dims, mode="lines", name=names[2],
                    line={"color": GREY, "dash": "dot"})  # fmt: skip
    i = int(np.argmin(np.abs(dims - d)))
    fig.add_scatter(
        x=[d, d], y=[variances[i, 0], variances[i, 1]], mode="markers", showlegend=False,
        marker={"size": 12, "color": GREEN, "line": {"color": "black", "width": 1}},
        hovertemplate="d = %{x}<br>var = %{y:.3g}<extra></extra>",
    )  # fmt: skip
    return fig


def reliability_diagram(
    edges: Array, acc_before: Array, acc_after: Array, *, title: str, x_title: str,
    y_title: str, names: tuple[str, str, str] = ("before", "after", "perfect calibration"),
) -> go.Figure:  # fmt: skip
    """Accuracy per confidence bin before/after temperature scaling, and the diagonal.

    Empty bins (nan) are drawn as gaps. Traces: [0] before, [1] after, [2] diagonal.
    """
    centers = 0.5 * (edges[:-1] + edges[1:])
    width = float(edges[1] - edges[0])
    fig = go.Figure(
        layout=layout(
            title=title,
            x=x_title,
            y=y_title,
            height=380,
            barmode="group",
            bargap=0.05,
            xaxis={"range": [0, 1]},
            yaxis={"range": [0, 1]},
        )
    )
    for acc, name, colour in ((acc_before, names[0], VERMILLION), (acc_after, names[1], BLUE)):
        fig.add_bar(
            x=centers, y=np.nan_to_num(acc, nan=0.0), width=width * 0.45, name=name,
            marker_color=colour, customdata=np.isnan(acc),
            hovertemplate="confidence ≈ %{x:.2f}<br>accuracy = %{y:.3f}<extra>" + name + "</extra>",
        )  # fmt: skip
    fig.add_scatter(x=[0, 1], y=[0, 1], mode="lines", name=names[2],
                    line={"color": GREY, "dash": "dash"})  # fmt: skip
    return fig


def contrastive_distribution(
    probs: Array, positive: int, anchor: int, *, title: str, x_title: str, y_title: str,
    names: tuple[str, str] = ("positive", "negatives"),
) -> go.Figure:  # fmt: skip
    """The anchor's softmax over the other 2B-1 embeddings; the positive in green.

    Traces: [0] the positive bar, [1] the negative bars (anchor itself left out).
    """
    idx = [k for k in range(len(probs)) if k != anchor]
    neg = [k for k in idx if k != positive]
    fig = go.Figure(layout=layout(title=title, x=x_title, y=y_title, yaxis={"range": [0, 1]}))
    fig.add_bar(x=[f"z{positive}"], y=[probs[positive]], name=names[0], marker_color=GREEN,
                hovertemplate="%{x}: %{y:.4f}<extra></extra>")  # fmt: skip
    fig.add_bar(x=[f"z{k}" for k in neg], y=probs[neg], name=names[1], marker_color=GREY,
                hovertemplate="%{x}: %{y:.4f}<extra></extra>")  # fmt: skip
    return fig


def loss_vs_tau(
    taus: Array, losses: Array, tau: float, current: float, *, title: str, x_title: str,
    y_title: str,
) -> go.Figure:  # fmt: skip
    """NT-Xent loss against tau (log x), current tau marked. Traces: [0] curve, [1] marker."""
    fig = go.Figure(
        layout=layout(
            title=title,
            x=x_title,
            y=y_title,
            xaxis={"type": "log", "tickvals": LOG_TICKS, "ticktext": [f"{v:g}" for v in LOG_TICKS]},
        )
    )
    fig.add_scatter(x=taus, y=losses, mode="lines", name="L(τ)", line={"color": BLUE},
                    hovertemplate="τ = %{x:.3g}<br>L = %{y:.4f}<extra></extra>")  # fmt: skip
    fig.add_scatter(
        x=[tau], y=[current], mode="markers", name=f"τ = {tau:g}",
        marker={"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}},
    )  # fmt: skip
    return fig


def temperature_figure(
    labels: Sequence[str], probs: Array, temperatures: Array, entropies: Array,
    temperature: float, current: float, max_entropy: float, *, titles: tuple[str, str],
    y_titles: tuple[str, str], x_title: str,
    names: tuple[str, ...] = ("p", "T → 0: argmax", "H(T)", "current T"),
    line_labels: tuple[str, str] = ("uniform 1/n (T → ∞)", "ln n"),
) -> go.Figure:  # fmt: skip
    """The probabilities (left) and the entropy curve (right) in one figure.

    Built to redraw cheaply on every slider step (measured with bench/latency): the layout
    does not depend on T, so Plotly.react only re-draws trace data; the two constant
    reference lines (1/n and ln n) are layout shapes, not traces; no text labels on bars.

    Traces: [0] bars p_i, [1] the argmax's limit 1 (left, axes x/y); [2] H(T),
    [3] the current (T, H) (right, axes x2/y2). Shapes: [0] y = 1/n, [1] y2 = ln n.
    """
    n = len(probs)
    k = int(np.argmax(probs))
    lay = layout(title="", x="", y=y_titles[0], height=360)
    lay["xaxis"]["domain"] = [0.0, 0.44]
    lay["yaxis"]["range"] = [0, 1.1]
    lay["xaxis2"] = {
        **lay["xaxis"], "domain": [0.56, 1.0], "anchor": "y2", "type": "log",
        "tickvals": LOG_TICKS, "ticktext": [f"{v:g}" for v in LOG_TICKS],
        "title": {"text": x_title},
    }  # fmt: skip
    lay["yaxis2"] = {
        **lay["yaxis"], "anchor": "x2", "range": [0, max_entropy * 1.12],
        "title": {"text": y_titles[1]},
    }  # fmt: skip
    lay["annotations"] = [
        {"text": f"<b>{text}</b>", "x": x, "y": 1.0, "xref": "paper", "yref": "paper",
         "xanchor": "left", "yanchor": "bottom", "showarrow": False, "font": {"size": 14}}
        for text, x in ((titles[0], 0.0), (titles[1], 0.56))
    ] + [
        {"text": line_labels[0], "x": 0.44, "y": 1.0 / n, "xref": "paper", "yref": "y",
         "xanchor": "right", "yanchor": "bottom", "showarrow": False,
         "font": {"size": 11, "color": GREY}},
        {"text": line_labels[1], "x": 1.0, "y": max_entropy, "xref": "paper", "yref": "y2",
         "xanchor": "right", "yanchor": "bottom", "showarrow": False,
         "font": {"size": 11, "color": GREY}},
    ]  # fmt: skip
    dash = {"color": GREY, "dash": "dash", "width": 1.5}
    lay["shapes"] = [
        {"type": "line", "xref": "x domain", "yref": "y", "x0": 0, "x1": 1,
         "y0": 1.0 / n, "y1": 1.0 / n, "line": dash},
        {"type": "line", "xref": "x2 domain", "yref": "y2", "x0": 0, "x1": 1,
         "y0": max_entropy, "y1": max_entropy, "line": dash},
    ]  # fmt: skip
    lay["margin"] = {"l": 60, "r": 15, "t": 40, "b": 60}
    lay["legend"] = {"orientation": "h", "x": 0.0, "y": -0.16, "yanchor": "top"}
    fig = go.Figure(layout=lay)
    fig.add_bar(
        x=list(labels), y=probs, name=names[0], marker_color=BLUE,
        hovertemplate="%{x}: p = %{y:.6f}<extra></extra>",
    )  # fmt: skip
    fig.add_scatter(
        x=[labels[k]], y=[1.0], mode="markers", name=names[1],
        marker={"symbol": "x-thin-open", "size": 14, "color": VERMILLION, "line": {"width": 3}},
        hovertemplate="%{x}: %{y}<extra>T → 0</extra>",
    )  # fmt: skip
    fig.add_scatter(
        x=temperatures, y=entropies, mode="lines", name=names[2], line={"color": GREEN},
        xaxis="x2", yaxis="y2", hovertemplate="T = %{x:.3g}<br>H = %{y:.4f}<extra></extra>",
    )  # fmt: skip
    fig.add_scatter(
        x=[temperature], y=[current], mode="markers", name=names[3], xaxis="x2", yaxis="y2",
        marker={"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}},
        hovertemplate="T = %{x:.3g}<br>H = %{y:.4f}<extra></extra>",
    )  # fmt: skip
    return fig
