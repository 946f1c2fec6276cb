"""Figures of the attention pages (maps, sparse patterns, linear attention).

Arrays in, ``go.Figure`` out. Heatmaps put query 0 at the top (rows = queries, columns =
keys) and use the colour-blind-safe ``SEQUENTIAL`` scale; token axes are numeric with the
tokens as tick text, so a repeated word does not merge two rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray
from plotly.subplots import make_subplots

from figures.style import BLUE, GREY, ORANGE, SEQUENTIAL, VERMILLION, figure, layout

Array = NDArray[np.float64]


def _token_axis(labels: Sequence[str] | None, n: int, reverse: bool = False) -> dict:
    axis: dict = {"showgrid": False, "zeroline": False, "range": [-0.5, n - 0.5]}
    if reverse:
        axis["range"] = [n - 0.5, -0.5]
    if labels is not None:
        axis.update(tickmode="array", tickvals=list(range(n)), ticktext=list(labels))
    return axis


def attention_heatmap(
    weights: Array,
    labels: Sequence[str] | None = None,
    *,
    title: str,
    x_title: str,
    y_title: str,
    customdata: Array | None = None,
    hovertemplate: str | None = None,
    zmax: float = 1.0,
    height: int = 420,
    colorbar_title: str = "a",
) -> go.Figure:
    """(L, S) weights as a heatmap, query 0 on top. Traces: [0] the heatmap."""
    L, S = weights.shape
    fig = go.Figure(
        layout=layout(
            title=title,
            x=x_title,
            y=y_title,
            height=height,
            xaxis=_token_axis(labels, S),
            yaxis=_token_axis(labels, L, reverse=True),
            margin={"l": 80, "r": 15, "t": 56, "b": 70},
        )
    )
    fig.add_heatmap(
        z=weights,
        zmin=0.0,
        zmax=zmax,
        colorscale=SEQUENTIAL,
        customdata=customdata,
        hovertemplate=hovertemplate or "query %{y}, key %{x}: %{z:.4f}<extra></extra>",
        # ×10ⁿ ticks, never Plotly's SI prefixes: a gap of 4e-16 would read "0.4f" (femto)
        colorbar={"title": {"text": colorbar_title}, "thickness": 12, "exponentformat": "power"},
    )
    return fig


def query_row_figure(
    labels: Sequence[str],
    row: Array,
    output: Array,
    *,
    titles: tuple[str, str],
    y_titles: tuple[str, str],
    x_titles: tuple[str, str],
    output_range: float,
    hovertemplate: str = "key %{x}: a = %{y:.4f}<extra></extra>",
) -> go.Figure:
    """One query: its weights over the keys (left) and its output o_i = sum_j a_ij v_j (right).

    The axes are fixed (weights in [0, 1], outputs in ±``output_range``) so moving the query
    only changes trace data; ``hovertemplate`` is the hover text of a weight bar.
    Traces: [0] weight bars, [1] output bars; :func:`query_row_updates` is what a query
    changes (a live control swaps it in, ``ui/live.py``).
    """
    # two panels by axis domains (make_subplots costs tens of ms on every slider step)
    n = len(labels)
    lay = layout(
        title="",
        x=x_titles[0],
        y=y_titles[0],
        height=330,
        showlegend=False,
        xaxis={
            "domain": [0.0, 0.5],
            "tickmode": "array",
            "tickvals": list(range(n)),
            "ticktext": list(labels),
        },
        yaxis={"range": [0, 1.02]},
        margin={"l": 60, "r": 15, "t": 40, "b": 70},
    )
    lay["xaxis2"] = {
        **lay["xaxis"],
        "domain": [0.62, 1.0],
        "anchor": "y2",
        "title": {"text": x_titles[1]},
        "tickmode": "auto",
    }
    lay["xaxis2"].pop("tickvals"), lay["xaxis2"].pop("ticktext")
    lay["yaxis2"] = {
        **lay["yaxis"],
        "anchor": "x2",
        "title": {"text": y_titles[1]},
        "range": [-output_range, output_range],
    }
    lay["annotations"] = [
        {
            "text": text,
            "x": x,
            "y": 1.0,
            "xref": "paper",
            "yref": "paper",
            "xanchor": "center",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": 14},
        }
        for text, x in zip(titles, (0.25, 0.81), strict=True)
    ]
    fig = go.Figure(layout=lay)
    fig.add_bar(x=list(range(n)), marker_color=BLUE, hovertemplate=hovertemplate)
    fig.add_bar(
        x=list(range(len(output))),
        marker_color=ORANGE,
        xaxis="x2",
        yaxis="y2",
        hovertemplate="o[%{x}] = %{y:.4f}<extra></extra>",
    )
    for i, props in query_row_updates(row, output).items():
        fig.data[i].update(props)
    return fig


def query_row_updates(row: Array, output: Array) -> dict[int, dict[str, Array]]:
    """What one query changes in :func:`query_row_figure`: its weights and its output."""
    return {0: {"y": np.asarray(row)}, 1: {"y": np.asarray(output)}}


def head_grid(
    weights: Array,
    labels: Sequence[str],
    *,
    title: str,
    head_title: str,
    cols: int = 4,
    hover: str = "query %{y}, key %{x}: %{z:.4f}",
) -> go.Figure:
    """(h, N, N) weights as a grid of h maps, ``cols`` per row, in ONE heatmap trace: the heads
    are tiles of one array with a column and a row of gaps (NaN) between them. One trace on
    one pair of axes draws far faster than h subplots (a step of d or h redraws all of it).

    ``head_title`` names a head (``{i}`` = 1, 2, …, an annotation over its tile); ``hover`` is
    a cell's hover text, where ``%{x}``/``%{y}`` are the key and query words (``customdata``).
    """
    h, N, _ = weights.shape
    cols = min(cols, h)
    rows = -(-h // cols)
    step = N + 1  # a tile and its gap
    z = np.full((rows * step - 1, cols * step - 1), np.nan)
    words = np.full(z.shape + (2,), "", dtype=object)  # query word, key word
    for i in range(h):
        r, c = divmod(i, cols)
        z[r * step : r * step + N, c * step : c * step + N] = weights[i]
        words[r * step : r * step + N, c * step : c * step + N, 0] = np.array(labels)[:, None]
        words[r * step : r * step + N, c * step : c * step + N, 1] = np.array(labels)[None, :]
    # the words, not the tiled positions; the head is named over its tile
    cell = hover.replace("%{x}", "%{customdata[1]}").replace("%{y}", "%{customdata[0]}")
    lay = layout(
        title=title,
        x="",
        y="",
        height=70 + 260 * rows,
        margin={"l": 60, "r": 15, "t": 70, "b": 50},
    )
    ticks = {"tickmode": "array", "tickfont": {"size": 9}, "showgrid": False, "zeroline": False}
    lay["xaxis"] |= {
        **ticks,
        "tickvals": [c * step + j for c in range(cols) for j in range(N)],
        "ticktext": list(labels) * cols,
        "showticklabels": N <= 16,
    }
    lay["yaxis"] |= {
        **ticks,
        "tickvals": [r * step + j for r in range(rows) for j in range(N)],
        "ticktext": list(labels) * rows,
        "autorange": "reversed",
    }
    lay["annotations"] = [
        {
            "x": c * step + (N - 1) / 2,
            "y": r * step - 0.5,
            "yanchor": "bottom",
            "text": head_title.format(i=i + 1),
            "showarrow": False,
        }
        for i in range(h)
        for r, c in [divmod(i, cols)]
    ]
    heatmap = {
        "type": "heatmap",
        "z": z,
        "zmin": 0.0,
        "zmax": 1.0,
        "colorscale": SEQUENTIAL,
        "colorbar": {"thickness": 12, "title": {"text": "a"}},
        "customdata": words,
        "hovertemplate": f"{cell}<extra></extra>",
        "hoverongaps": False,
    }
    return figure([heatmap], lay)  # a plain spec: validating the (h·N²) words took ~18 ms


def scaling_figure(
    dims: Sequence[int],
    entropy: Array,
    top_weight: Array,
    current: int,
    max_entropy: float,
    *,
    titles: tuple[str, str],
    x_title: str,
    y_titles: tuple[str, str],
    names: tuple[str, str],
) -> go.Figure:
    """Mean row entropy (left) and mean largest weight (right) against D, two scalings each.

    ``entropy`` and ``top_weight`` are (len(dims), 2): column 0 = 1/sqrt(D/h) (correct),
    column 1 = 1/sqrt(h) (the tutorial). Traces: [0, 1] entropy lines, [2, 3] top-weight
    lines, [4, 5] the current D on each panel.
    """
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.12)
    fig.update_layout(
        layout(
            title="",
            x=x_title,
            y=y_titles[0],
            height=370,
            margin={"l": 60, "r": 15, "t": 90, "b": 50},
        )
    )
    # the legend above the panels' titles (the house place, y = 1, is where they are)
    fig.update_layout(legend={"y": 1.13})
    x = list(dims)
    colors = (BLUE, VERMILLION)
    for panel, data in ((1, entropy), (2, top_weight)):
        for j in range(2):
            fig.add_scatter(
                x=x,
                y=data[:, j],
                mode="lines+markers",
                name=names[j],
                row=1,
                col=panel,
                line={"color": colors[j], "dash": "solid" if j == 0 else "dash"},
                showlegend=panel == 1,
                legendgroup=names[j],
                hovertemplate="D = %{x}<br>%{y:.3f}<extra>" + names[j] + "</extra>",
            )
    k = x.index(current)
    for panel, data in ((1, entropy), (2, top_weight)):
        fig.add_scatter(
            x=[current, current],
            y=list(data[k]),
            mode="markers",
            showlegend=False,
            marker={"size": 12, "color": "black", "symbol": "circle-open", "line": {"width": 2}},
            hoverinfo="skip",
            row=1,
            col=panel,
        )
    log_ticks = {"type": "log", "tickvals": x, "ticktext": [str(v) for v in x]}
    fig.update_xaxes(**log_ticks)
    fig.update_xaxes(title_text=x_title, row=1, col=2, showline=True, ticks="outside")
    fig.update_yaxes(range=[0, max_entropy * 1.08], row=1, col=1)
    fig.update_yaxes(
        title_text=y_titles[1], range=[0, 1.02], row=1, col=2, showline=True, ticks="outside"
    )
    fig.add_hline(y=max_entropy, line={"color": GREY, "dash": "dot"}, row=1, col=1)
    return fig


def mask_heatmap(
    mask: Array,
    *,
    title: str,
    x_title: str,
    y_title: str,
    height: int = 400,
    on_label: str = "attends",
    off_label: str = "blocked",
    hover: str = "query %{y}, key %{x}: %{z}",
) -> go.Figure:
    """A bool (n, n) mask or reachability matrix: dark = blocked, yellow = allowed.

    ``hover`` is a cell's hover text, followed by what 1 (``on_label``) and 0 mean.

    Traces: [0] the heatmap (z in {0, 1}).
    """
    n = mask.shape[0]
    fig = go.Figure(
        layout=layout(
            title=title,
            x=x_title,
            y=y_title,
            height=height,
            xaxis={"showgrid": False, "range": [-0.5, n - 0.5]},
            yaxis={"showgrid": False, "range": [n - 0.5, -0.5], "scaleanchor": "x"},
            margin={"l": 60, "r": 15, "t": 56, "b": 48},
        )
    )
    fig.add_heatmap(
        z=np.asarray(mask, dtype=np.int8),
        zmin=0,
        zmax=1,
        showscale=False,
        colorscale=[[0.0, "#440154"], [1.0, "#FDE725"]],
        hovertemplate=hover + "<extra>1 = " + on_label + ", 0 = " + off_label + "</extra>",
    )
    return fig


def cost_figure(
    lengths: Array,
    full: Array,
    sparse: Array,
    current: int,
    current_cost: tuple[float, float],
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str],
    hovertemplate: str = "n = %{x}<br>%{y:,.0f} pairs<extra></extra>",
) -> go.Figure:
    """Allowed query-key pairs against n, log-log: full n² vs the sparse pattern.

    ``hovertemplate`` is the hover text of every point.
    Traces: [0] full, [1] sparse, [2] the current n on both curves.
    """
    fig = go.Figure(
        layout=layout(
            title=title,
            x=x_title,
            y=y_title,
            height=360,
            xaxis={"type": "log"},
            yaxis={"type": "log"},
        )
    )
    fig.add_scatter(
        x=lengths,
        y=full,
        mode="lines",
        name=names[0],
        line={"color": GREY},
        hovertemplate=hovertemplate,
    )
    fig.add_scatter(
        x=lengths,
        y=sparse,
        mode="lines",
        name=names[1],
        line={"color": BLUE},
        hovertemplate=hovertemplate,
    )
    fig.add_scatter(
        x=[current, current],
        y=list(current_cost),
        mode="markers",
        showlegend=False,
        marker={"size": 11, "color": ORANGE, "line": {"color": "black", "width": 1}},
        hovertemplate=hovertemplate,
    )
    return fig


def timing_figure(
    lengths: Array,
    explicit: Array,
    reordered: Array,
    fits: tuple[tuple[float, float], ...],
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str],
    fit_names: tuple[str, str] = ("slope {slope}", "fit: N^{slope}"),
) -> go.Figure:
    """Measured median seconds against N (log-log) with the fitted power laws.

    ``fits`` = ((slope, intercept) explicit, (slope, intercept) reordered) of log t vs log N.
    ``fit_names``: a fitted line's name and hover text (``{slope}`` = the fitted slope).
    Traces: [0] explicit points, [1] reordered points, [2] explicit fit, [3] reordered fit.
    """
    fig = go.Figure(
        layout=layout(
            title=title,
            x=x_title,
            y=y_title,
            height=380,
            xaxis={"type": "log"},
            yaxis={"type": "log"},
        )
    )
    for data, name, color in ((explicit, names[0], VERMILLION), (reordered, names[1], BLUE)):
        fig.add_scatter(
            x=lengths,
            y=data,
            mode="markers",
            name=name,
            marker={"color": color, "size": 9},
            hovertemplate="N = %{x}<br>%{y:.3s}s<extra></extra>",
        )
    n = np.asarray(lengths, dtype=float)
    for (slope, intercept), color in zip(fits, (VERMILLION, BLUE), strict=True):
        fig.add_scatter(
            x=n,
            y=np.exp(intercept) * n**slope,
            mode="lines",
            showlegend=False,
            line={"color": color, "dash": "dash"},
            name=fit_names[0].format(slope=f"{slope:.2f}"),
            hovertemplate=fit_names[1].format(slope=f"{slope:.2f}") + "<extra></extra>",
        )
    return fig
