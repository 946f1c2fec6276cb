"""Figures of the Transformer-families page: arrays in, ``go.Figure`` out.

Plain dict specs wrapped by figures.style.figure; the head slider changes only trace data.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import (
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    SEQUENTIAL,
    VERMILLION,
    figure,
    layout,
    panel_titles,
)

Array = NDArray[np.float64]
MASK_SCALE = [[0.0, "#EDEDED"], [0.5, "#EDEDED"], [0.5, BLUE], [1.0, BLUE]]
CURRENT = {"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}}


def _list(x: Any, digits: int = 5) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def family_figure(
    arrays: Sequence[Array],
    x_labels: Sequence[Sequence[str]],
    y_labels: Sequence[Sequence[str]],
    *,
    titles: Sequence[str],
    subtitle: str,
    masks: bool = False,
    hovertemplate: str | None = None,
    height: int = 360,
) -> go.Figure:
    """One heatmap per family side by side: their masks or the weights of one head.

    Args:
        arrays: three (L, S) arrays: bool masks (``masks=True``) or attention weights.
        x_labels, y_labels: the key and query tokens of each panel.
        titles: the three panel titles; subtitle: a line under them (what is drawn).
        hovertemplate: default "query → key: value" (the pair is the trace's customdata).

    Token labels are HTML-escaped (Plotly reads "<s>" as a tag).

    Traces: [0..2] one heatmap per panel (axes 1..3).
    """
    lay = layout(title="", x="", y="", height=height, showlegend=False)
    gap, n = 0.07, len(arrays)
    width = (1.0 - gap * (n - 1)) / n
    hover = hovertemplate or (
        "%{customdata}: %{z}<extra></extra>" if masks else "%{customdata}: %{z:.3f}<extra></extra>"
    )
    data: list[dict[str, Any]] = []
    weights = {} if masks else weight_traces(arrays)
    for i, z in enumerate(arrays):
        sfx = "" if i == 0 else str(i + 1)
        lo = i * (width + gap)
        lay[f"xaxis{sfx}"] = {
            "domain": [lo, lo + width],
            "anchor": f"y{sfx}",
            "showgrid": False,
            "tickmode": "array",
            "tickvals": list(range(len(x_labels[i]))),
            "ticktext": [html.escape(t) for t in x_labels[i]],
            "tickangle": -45,
            "tickfont": {"size": 11},
        }
        lay[f"yaxis{sfx}"] = {
            "domain": [0.0, 0.88],
            "anchor": f"x{sfx}",
            "showgrid": False,
            "autorange": "reversed",
            "tickmode": "array",
            "tickvals": list(range(len(y_labels[i]))),
            "ticktext": [html.escape(t) for t in y_labels[i]],
            "tickfont": {"size": 11},
        }
        pairs = [[html.escape(f"{q} → {k}") for k in x_labels[i]] for q in y_labels[i]]
        trace = {
            "type": "heatmap",
            "xaxis": f"x{sfx}",
            "yaxis": f"y{sfx}",
            "hovertemplate": hover,
            "showscale": False,
            "customdata": pairs,
        }
        if masks:
            trace.update(
                z=np.asarray(z, dtype=int).tolist(),
                zmin=0,
                zmax=1,
                colorscale=MASK_SCALE,
                xgap=1,
                ygap=1,
            )
        else:
            trace.update(
                **weights[i],
                zmin=0.0,
                zmax=1.0,
                colorscale=SEQUENTIAL,
                showscale=i == n - 1,
                colorbar={"thickness": 12},
            )
        data.append(trace)
    notes = panel_titles(titles, [i * (width + gap) for i in range(n)], 13)
    notes.append(
        {
            "text": f"<i>{subtitle}</i>",
            "x": 0.0,
            "y": 0.89,
            "xref": "paper",
            "yref": "paper",
            "xanchor": "left",
            "yanchor": "bottom",
            "showarrow": False,
        }
    )
    lay["annotations"] = notes
    lay["margin"] = {"l": 70, "r": 20, "t": 40, "b": 70}
    return figure(data, lay)


def weight_traces(arrays: Sequence[Array]) -> dict[int, dict[str, list]]:
    """What changes from one head to another in :func:`family_figure` (weights): each
    panel's z (traces 0..2); a ``ui.live`` state patches these, the layout stays."""
    return {i: {"z": _list(z, 4)} for i, z in enumerate(arrays)}


def parameters_figure(
    d_values: Array,
    encoder: Array,
    decoder: Array,
    current: tuple[float, float, float],
    parts: dict[str, tuple[int, int]],
    *,
    titles: tuple[str, str],
    x_title: str,
    y_title: str,
    names: tuple[str, str],
    part_names: dict[str, str],
    bar_names: tuple[str, str],
) -> go.Figure:
    """Left: parameters of one block against d_model (log–log), today's d marked.
    Right: today's blocks split into their parts (stacked bars).

    Args:
        current: (d, encoder count, decoder count).
        parts: part name → (encoder count, decoder count).

    Traces: [0] encoder line, [1] decoder line, [2] current markers, [3..] one bar per part.
    """
    ticks = {
        "tickmode": "array",
        "tickvals": _list(d_values),
        "tickangle": -45,
        "ticktext": [f"{int(v)}" for v in d_values],
    }
    lay = layout(
        title="",
        x=x_title,
        y=y_title,
        height=420,
        barmode="stack",
        xaxis={"type": "log", "domain": [0.0, 0.55], **ticks},
        yaxis={"type": "log", "exponentformat": "SI", "dtick": 1},
    )
    lay["xaxis2"] = {"domain": [0.68, 1.0], "anchor": "y2", "showgrid": False}
    lay["yaxis2"] = {"anchor": "x2", "exponentformat": "SI", "gridcolor": "#E5E5E5"}
    lay["annotations"] = panel_titles(titles, [0.0, 0.68])
    lay["legend"] = {"orientation": "h", "y": -0.36, "x": 0.0, "yanchor": "top"}
    lay["margin"] = {"l": 60, "r": 15, "t": 40, "b": 130}
    d, e, dec = current
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": _list(d_values),
            "y": _list(encoder),
            "name": names[0],
            "line": {"color": BLUE},
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": _list(d_values),
            "y": _list(decoder),
            "name": names[1],
            "line": {"color": VERMILLION},
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [d, d],
            "y": [e, dec],
            "marker": CURRENT,
            "showlegend": False,
            "hovertemplate": "d = %{x}: %{y:,}<extra></extra>",
        },
    ]
    colours = (BLUE, VERMILLION, GREEN, GREY)
    for (key, (enc_n, dec_n)), colour in zip(parts.items(), colours, strict=False):
        data.append(
            {
                "type": "bar",
                "x": list(bar_names),
                "y": [enc_n, dec_n],
                "name": part_names[key],
                "xaxis": "x2",
                "yaxis": "y2",
                "marker": {"color": colour},
                "hovertemplate": f"{part_names[key]}: %{{y:,}}<extra></extra>",
            }
        )
    return figure(data, lay)


def cache_figure(
    lengths: Array,
    sizes: dict[int, Array],
    current: tuple[float, float],
    *,
    title: str,
    x_title: str,
    y_title: str,
    name: str,
) -> go.Figure:
    """KV-cache size against the length, one line per number of layers (log–log).

    Args:
        sizes: L → size at each length (same unit as the y axis).
        current: (length, size) of today's settings.
        name: line name template with ``{L}``.

    Traces: one line per L, then [-1] the current point.
    """
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=360,
        xaxis={"type": "log", "dtick": 1},
        yaxis={"type": "log", "dtick": 1},
    )
    colours = (BLUE, GREEN, VERMILLION, GREY, ORANGE)
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": _list(lengths),
            "y": _list(y, 6),
            "name": name.format(L=L),
            "line": {"color": colours[i % len(colours)]},
        }
        for i, (L, y) in enumerate(sizes.items())
    ]
    data.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": [current[0]],
            "y": [current[1]],
            "marker": CURRENT,
            "showlegend": False,
            "hovertemplate": "n = %{x}: %{y:.4g}<extra></extra>",
        }
    )
    return figure(data, lay)
