"""Figures of the PVT spatial-reduction attention page: arrays in, ``go.Figure`` out.

Plain dict specs wrapped by figures.style.figure; every layout is independent of the value
the page's probe slider moves (only trace data changes, so Plotly.react skips relayout).
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
    GREY,
    ORANGE,
    SEQUENTIAL,
    VERMILLION,
    figure,
    grid_panels,
    layout,
)

Array = NDArray[np.float64]
CURRENT = {"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}}
QUERY = {"symbol": "x", "size": 12, "color": VERMILLION, "line": {"color": "white", "width": 1}}


def _list(x: Any, digits: int = 5) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def image_figure(
    rgb: Array,
    *,
    title: str,
    height: int = 300,
    hovertemplate: str = "row %{y}, col %{x}<extra></extra>",
) -> go.Figure:
    """The (H, W, 3) token colours as an image, row 0 on top. Traces: [0] the image."""
    lay = grid_panels(1, rgb.shape[0], (title,), height)
    data = [
        {
            "type": "image",
            "z": np.round(np.asarray(rgb) * 255).astype(int).tolist(),
            "hovertemplate": hovertemplate,
        }
    ]
    return figure(data, lay)


def attention_maps_figure(
    full: Array,
    reduced: Array,
    ratio: int,
    query: tuple[int, int],
    *,
    titles: tuple[str, str],
    height: int = 380,
    hovers: tuple[str, str] = (
        "key (%{y}, %{x}): %{z:.4f}<extra>full</extra>",
        "patch at (%{y}, %{x}): %{z:.4f}<extra>SRA</extra>",
    ),
) -> go.Figure:
    """The full attention map of one query next to its SRA map, on the image's token grid.

    Args:
        full: (H, W) weights of the query over all H·W keys.
        reduced: (H/R, W/R) weights over the reduced keys, drawn back on the H×W grid
            (each cell covers the R×R tokens it was pooled from).
        ratio: R.
        query: (row, column) of the query token.
        hovers: hover texts of the full map and of the SRA map.

    Traces: [0] full map, [1] SRA map, [2, 3] the query marker on each panel.
    """
    H = full.shape[0]
    R = ratio
    lay = grid_panels(2, H, titles, height)
    r, c = query
    heat = {"type": "heatmap", "colorscale": SEQUENTIAL, "zmin": 0.0, "showscale": False}
    data: list[dict[str, Any]] = [
        {**heat, "z": _list(full), "hovertemplate": hovers[0]},
        {
            **heat,
            "z": _list(reduced),
            "x0": (R - 1) / 2,
            "dx": R,
            "y0": (R - 1) / 2,
            "dy": R,
            "xaxis": "x2",
            "yaxis": "y2",
            "hovertemplate": hovers[1],
        },
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


def cost_figure(
    tokens: Array,
    ratios: Sequence[int],
    entries: Sequence[Array],
    n: int,
    current: Sequence[float],
    *,
    title: str,
    x_title: str,
    y_title: str,
    hovertemplate: str = "H·W = %{x:,}<br>%{y:,.0f} entries<extra></extra>",
) -> go.Figure:
    """Attention entries against HW tokens, log-log, one line per R, current HW marked.

    ``entries[i]`` are the (HW)²/R² entries for ``ratios[i]`` at every token count (computed
    by ``core.sra.attention_cost``); ``hovertemplate`` is the hover text of a line's point.

    Traces: [0..len(ratios)-1] one line per R, [-1] markers at the current HW.
    """
    tokens = np.asarray(tokens, dtype=float)
    colours = (GREY, BLUE, GREEN, ORANGE, VERMILLION)
    data = [
        {
            "type": "scatter",
            "x": _list(tokens),
            "y": _list(np.asarray(y, dtype=float)),
            "mode": "lines",
            "name": "(HW)²" if R == 1 else f"(HW)²/{R * R} (R = {R})",
            "line": {"color": colours[i % len(colours)]},  # a dash pattern each: figures.style
            "hovertemplate": hovertemplate,
        }
        for i, (R, y) in enumerate(zip(ratios, entries, strict=True))
    ]
    data.append(
        {
            "type": "scatter",
            "x": [n] * len(current),
            "y": _list(current),
            "mode": "markers",
            "name": "HW",
            "marker": CURRENT,
            "showlegend": False,
            "hovertemplate": "H·W = %{x:,}<br>%{y:,.0f}<extra></extra>",
        }
    )
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=380,
        xaxis={"type": "log"},
        yaxis={"type": "log", "exponentformat": "power"},
    )
    lay["legend"] = {
        "orientation": "v",
        "x": 0.01,
        "y": 0.99,
        "xanchor": "left",
        "yanchor": "top",
        "bgcolor": "rgba(255,255,255,0.8)",
    }
    return figure(data, lay)


def stage_tokens_figure(
    rows: Sequence[Any],
    *,
    title: str,
    y_title: str,
    names: tuple[str, str],
    stage_label: str = "stage {n}",
) -> go.Figure:
    """Tokens per PVT stage before (H_iW_i) and after (H_iW_i/R_i²) spatial reduction, log y.

    ``stage_label`` names the bars' categories (``{n}`` = the stage number).
    Traces: [0] query tokens H_iW_i, [1] key/value tokens H_iW_i / R_i².
    """
    stages = [stage_label.format(n=r.stage) for r in rows]
    data = [
        {
            "type": "bar",
            "x": stages,
            "y": [r.tokens for r in rows],
            "name": names[0],
            "marker": {"color": BLUE},
            "hovertemplate": "%{x}: %{y:,}<extra>" + names[0] + "</extra>",
        },
        {
            "type": "bar",
            "x": stages,
            "y": [r.kv_tokens for r in rows],
            "name": names[1],
            "marker": {"color": GREEN},
            "hovertemplate": "%{x}: %{y:,}<extra>" + names[1] + "</extra>",
        },
    ]
    lay = layout(
        title=title,
        x="",
        y=y_title,
        height=340,
        barmode="group",
        yaxis={"type": "log", "range": [0, 5]},
    )
    return figure(data, lay)


def equality_figure(
    linear: Array,
    conv: Array,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str] = ("entries", "y = x"),
    hovertemplate: str = "linear %{x:.6f}<br>conv %{y:.6f}<extra></extra>",
) -> go.Figure:
    """Every output entry of patchify + Linear (x) against Conv2d (y): all on the diagonal.

    ``names`` of the two traces; ``hovertemplate`` is a point's hover text.
    Traces: [0] the points, [1] the diagonal y = x.
    """
    a, b = np.ravel(linear), np.ravel(conv)
    data = [
        {
            "type": "scatter",
            "x": _list(a, 6),
            "y": _list(b, 6),
            "mode": "markers",
            "name": names[0],
            "marker": {"color": BLUE, "size": 6, "opacity": 0.7},
            "hovertemplate": hovertemplate,
        },
        {
            "type": "scatter",
            "x": [-3.5, 3.5],
            "y": [-3.5, 3.5],
            "mode": "lines",
            "name": names[1],
            "line": {"color": GREY, "dash": "dash"},
            "hoverinfo": "skip",
        },
    ]
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=380,
        xaxis={"range": [-3.5, 3.5]},
        yaxis={"range": [-3.5, 3.5]},
    )
    return figure(data, lay)
