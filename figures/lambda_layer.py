"""Figures of the lambda layers page: arrays in, ``go.Figure`` out.

Plain dict specs wrapped by figures.style.figure. Within one figure the layout depends only
on sizes chosen outside the page's fragment (image side, k, v, r), never on the probe slider:
the query position and the cost side move trace data only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import BLUE, GREEN, ORANGE, SEQUENTIAL, VERMILLION, figure, layout, panel_titles

Array = NDArray[np.float64]
DIVERGING = "RdBu"  # signed values: Plotly's RdBu runs blue (< 0) → grey (0) → red (> 0)
CURRENT = {"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}}
QUERY = {"size": 9, "color": ORANGE, "symbol": "x", "line": {"color": "black", "width": 1}}
HIGHLIGHT = {"color": "#E8000B", "width": 3}
_HIDDEN = {
    "showgrid": False,
    "zeroline": False,
    "showline": False,
    "ticks": "",
    "showticklabels": False,
}


def _list(x: Any, digits: int = 5) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def _signed(z: Array, digits: int = 4, **extra: Any) -> dict[str, Any]:
    """A diverging heatmap centred at 0 with a symmetric colour range."""
    bound = float(np.abs(z).max()) or 1.0
    return {
        "type": "heatmap",
        "z": _list(z, digits),
        "colorscale": DIVERGING,
        "zmid": 0.0,
        "zmin": -bound,
        "zmax": bound,
        "showscale": False,
        "xgap": 1,
        "ygap": 1,
        **extra,
    }


def _box(x0: float, x1: float, y0: float, y1: float, axes: str = "") -> dict[str, Any]:
    """A rectangle outline as a scatter trace (it moves with the slider: not a layout shape)."""
    return {
        "type": "scatter",
        "x": [x0, x1, x1, x0, x0],
        "y": [y0, y0, y1, y1, y0],
        "mode": "lines",
        "line": HIGHLIGHT,
        "hoverinfo": "skip",
        "showlegend": False,
        "xaxis": f"x{axes}",
        "yaxis": f"y{axes}",
    }


def _axes(
    lay: dict[str, Any],
    i: int,
    x_dom: Sequence[float],
    y_dom: Sequence[float],
    x_range: Sequence[float],
    y_range: Sequence[float],
    square: bool,
) -> None:
    """Axis pair i (1-based) on the given paper domains; row 0 on top."""
    sfx = "" if i == 1 else str(i)
    lay[f"xaxis{sfx}"] = {
        **_HIDDEN,
        "domain": list(x_dom),
        "anchor": f"y{sfx}",
        "range": list(x_range),
        "constrain": "domain",
        "constraintoward": "left",
    }
    lay[f"yaxis{sfx}"] = {
        **_HIDDEN,
        "domain": list(y_dom),
        "anchor": f"x{sfx}",
        "range": [y_range[1], y_range[0]],
        "constrain": "domain",
        "constraintoward": "top",
    }
    if square:
        lay[f"yaxis{sfx}"]["scaleanchor"] = f"x{sfx}"


def content_figure(
    keys: Array,
    values: Array,
    content: Array,
    position: int,
    side: int,
    *,
    titles: tuple[str, str, str],
    x_title: str,
    height: int = 440,
) -> go.Figure:
    """The content lambda: softmax(K)ᵀ (k×m), Vᵀ (v×m) and λᶜ = softmax(K)ᵀV (k×v).

    Args:
        keys: (m, k) normalised keys K̄, each column sums to 1 over the m positions.
        values: (m, v) values V.
        content: (k, v) λᶜ.
        position: the query position n: its column is outlined on both strips (λᶜ does not
            depend on it).
        side: the image side (positions are row-major: a tick at the start of every row).

    Traces: [0] K̄ᵀ, [1] Vᵀ, [2] λᶜ, [3, 4] the outline of column n on K̄ᵀ and on Vᵀ.
    """
    m, k = keys.shape
    v = values.shape[1]
    lay = layout(title="", x="", y="", height=height)
    _axes(lay, 1, (0.0, 0.7), (0.6, 0.94), (-0.5, m - 0.5), (-0.5, k - 0.5), False)
    _axes(lay, 2, (0.0, 0.7), (0.12, 0.46), (-0.5, m - 0.5), (-0.5, v - 0.5), False)
    _axes(lay, 3, (0.78, 1.0), (0.12, 0.94), (-0.5, v - 0.5), (-0.5, k - 0.5), True)
    starts = list(range(0, m, side))
    for sfx in ("", "2"):
        lay[f"xaxis{sfx}"] |= {
            "showticklabels": True,
            "tickmode": "array",
            "tickvals": starts,
            "ticktext": [str(a) for a in starts],
            "tickfont": {"size": 10},
            "ticks": "outside",
            "tickcolor": "#C8C8C8",
        }
    lay["xaxis2"]["title"] = {"text": x_title, "font": {"size": 12}}
    for i, (rows, cols) in enumerate(((k, m), (v, m), (k, v)), start=1):
        sfx = "" if i == 1 else str(i)
        lay[f"yaxis{sfx}"] |= {
            "showticklabels": True,
            "tickmode": "array",
            "tickvals": list(range(rows)),
            "ticktext": [str(j + 1) for j in range(rows)],
            "tickfont": {"size": 10},
        }
        if i == 3:
            lay["xaxis3"] |= {
                "showticklabels": True,
                "tickmode": "array",
                "tickvals": list(range(cols)),
                "ticktext": [str(j + 1) for j in range(cols)],
                "tickfont": {"size": 10},
            }
    lay["annotations"] = [
        {**a, "y": y, "yref": "paper"}
        for a, y in zip(panel_titles(titles, [0.0, 0.0, 0.78], 13), (0.95, 0.47, 0.95), strict=True)
    ]
    lay["margin"] = {"l": 30, "r": 10, "t": 20, "b": 20}
    lay["showlegend"] = False
    data = [
        {
            "type": "heatmap",
            "z": _list(keys.T),
            "colorscale": SEQUENTIAL,
            "zmin": 0.0,
            "showscale": False,
            "hovertemplate": "key %{y}, position %{x}: %{z:.4f}<extra>K̄ᵀ</extra>",
        },
        {
            **_signed(values.T),
            "xaxis": "x2",
            "yaxis": "y2",
            "xgap": 0,
            "ygap": 0,
            "hovertemplate": "value %{y}, position %{x}: %{z:.3f}<extra>Vᵀ</extra>",
        },
        {
            **_signed(content),
            "xaxis": "x3",
            "yaxis": "y3",
            "hovertemplate": "λᶜ[%{y}, %{x}] = %{z:.4f}<extra></extra>",
        },
        _box(position - 0.5, position + 0.5, -0.5, k - 0.5),
        _box(position - 0.5, position + 0.5, -0.5, v - 0.5, "2"),
    ]
    # row j of the matrices is drawn at y = j (0-based), labelled j + 1
    for trace, rows in zip(data[:3], (k, v, k), strict=True):
        trace["y"] = list(range(rows))
    return figure(data, lay)


def position_figure(
    rgb: Array,
    embedding: Array,
    lam: Array,
    position: int,
    r: int | None,
    *,
    row_title: str,
    channel_title: str,
    lambda_title: str,
    image_title: str,
    height: int = 250,
) -> go.Figure:
    """One context's position embeddings E_n and position lambda λᵖ_n = E_nᵀV.

    The page draws the local context (``r``) and the global one (``r=None``) as two charts:
    the radius slider redraws the local one only.

    Args:
        rgb: (H, W, 3) the input image in [0, 1].
        embedding: E_n, (m, k) with m = H·W. lam: λᵖ_n, (k, v).
        position: n (row-major). r: the local context size, ``None`` for the global context
            (no window drawn on the image).
        channel_title: title of key channel j's map, with a ``{j}`` placeholder.

    Panels: the image, E_n[:, j] as an H×W map for every key channel j, and λᵖ_n. Traces:
    [image, k maps, λᵖ_n], then the query marker on the image and on every map, then (local
    only) the r×r window on the image.
    """
    H, W = rgb.shape[:2]
    k, v = lam.shape
    y, x = divmod(position, W)
    cols = k + 2  # image, k maps, λᵖ
    gap = 0.025
    width = (1.0 - gap * (cols - 1)) / cols
    lefts = [c * (width + gap) for c in range(cols)]
    y_dom = (0.0, 0.78)
    lay = layout(title="", x="", y="", height=height)
    ids = []
    for c in range(cols):
        cells = (v, k) if c == cols - 1 else (W, H)  # λᵖ, or an image-sized map
        _axes(
            lay,
            c + 1,
            (lefts[c], lefts[c] + width),
            y_dom,
            (-0.5, cells[0] - 0.5),
            (-0.5, cells[1] - 0.5),
            True,
        )
        ids.append("" if c == 0 else str(c + 1))
    titles = [image_title, *(channel_title.format(j=j + 1) for j in range(k)), lambda_title]
    notes = [{**a, "y": y_dom[1] + 0.03} for a in panel_titles(titles, lefts, 12)]
    notes.append(
        {
            "text": f"<b>{row_title}</b>",
            "x": 0.0,
            "y": 1.0,
            "xref": "paper",
            "yref": "paper",
            "xanchor": "left",
            "yanchor": "top",
            "showarrow": False,
            "font": {"size": 14},
        }
    )
    lay["annotations"] = notes
    lay["margin"] = {"l": 10, "r": 10, "t": 10, "b": 10}
    lay["showlegend"] = False
    data: list[dict[str, Any]] = [
        {
            "type": "image",
            "z": np.round(np.asarray(rgb) * 255).astype(int).tolist(),
            "hovertemplate": "row %{y}, col %{x}<extra></extra>",
        }
    ]
    bound = float(np.abs(embedding).max()) or 1.0  # one colour range for the k maps
    for j in range(k):
        data.append(
            {
                **_signed(embedding[:, j].reshape(H, W)),
                "zmin": -bound,
                "zmax": bound,
                "xgap": 0,
                "ygap": 0,
                "xaxis": f"x{ids[j + 1]}",
                "yaxis": f"y{ids[j + 1]}",
                "hovertemplate": f"context (%{{y}}, %{{x}}): %{{z:.4f}}"
                f"<extra>E_n[:, {j + 1}]</extra>",
            }
        )
    data.append(
        {
            **_signed(lam),
            "xaxis": f"x{ids[-1]}",
            "yaxis": f"y{ids[-1]}",
            "hovertemplate": "λᵖ_n[%{y}, %{x}] = %{z:.4f}<extra></extra>",
        }
    )
    marker = {
        "type": "scatter",
        "x": [x],
        "y": [y],
        "mode": "markers",
        "marker": QUERY,
        "hoverinfo": "skip",
        "showlegend": False,
    }
    data += [{**marker, "xaxis": f"x{i}", "yaxis": f"y{i}"} for i in ids[:-1]]
    if r is not None:
        p = r // 2
        data.append(_box(x - p - 0.5, x + p + 0.5, y - p - 0.5, y + p + 0.5, ids[0]))
    return figure(data, lay)


def cost_figure(
    sides: Array,
    flops: Sequence[Array],
    memory: Sequence[Array],
    side: int,
    current: tuple[Sequence[float], Sequence[float]],
    *,
    titles: tuple[str, str],
    x_title: str,
    y_titles: tuple[str, str],
    flop_names: Sequence[str],
    memory_names: Sequence[str],
    height: int = 420,
) -> go.Figure:
    """FLOPs and memory (MB) of attention vs lambda layers against the image side (log-log).

    Args:
        sides: image sides s (n = s² positions).
        flops: 3 curves: attention, global lambda, local lambda.
        memory: 4 curves (MB): attention maps, λᵖ of all positions (global = local),
            global E (weights), local R (weights).
        side: the current side; current: (its 3 FLOPs, its 4 MB) marked on the curves.

    Traces: [0..2] FLOPs, [3..6] memory, [7] current FLOPs, [8] current memory.
    """
    styles = (
        {"color": VERMILLION, "width": 6},
        {"color": BLUE},
        {"color": GREEN},
        {"color": VERMILLION},
        {"color": BLUE},
        {"color": BLUE, "dash": "dash"},
        {"color": GREEN, "dash": "dash"},
    )
    units = ("FLOPs",) * 3 + ("MB",) * 4
    names = (*flop_names, *memory_names)
    curves = (*flops, *memory)
    data: list[dict[str, Any]] = []
    for i, (y, name, style, unit) in enumerate(zip(curves, names, styles, units, strict=True)):
        ax = "" if i < 3 else "2"
        data.append(
            {
                "type": "scatter",
                "x": _list(sides),
                "y": [float(t) for t in y],
                "mode": "lines",
                "name": name,
                "line": {"width": 2.5, **style},
                "opacity": 0.55 if i == 0 else 1.0,
                "xaxis": f"x{ax}",
                "yaxis": f"y{ax}",
                "legend": "legend" if i < 3 else "legend2",
                "hovertemplate": f"side %{{x}}: %{{y:.4g}} {unit}<extra>{name}</extra>",
            }
        )
    for ax, values in (("", current[0]), ("2", current[1])):
        data.append(
            {
                "type": "scatter",
                "x": [side] * len(values),
                "y": [float(t) for t in values],
                "mode": "markers",
                "marker": CURRENT,
                "showlegend": False,
                "xaxis": f"x{ax}",
                "yaxis": f"y{ax}",
                "hovertemplate": "side %{x}: %{y:.4g}<extra></extra>",
            }
        )
    ticks = [int(a) for a in sides]
    lay = layout(
        title="",
        x=x_title,
        y=y_titles[0],
        height=height,
        xaxis={
            "type": "log",
            "domain": [0.0, 0.44],
            "tickvals": ticks,
            "ticktext": [str(a) for a in ticks],
        },
        yaxis={"type": "log", "exponentformat": "power", "dtick": 1},
    )
    lay["xaxis2"] = {**lay["xaxis"], "domain": [0.56, 1.0], "anchor": "y2"}
    lay["yaxis2"] = {**lay["yaxis"], "title": {"text": y_titles[1]}, "anchor": "x2"}
    lay["annotations"] = panel_titles(titles, [0.0, 0.56], 14)
    box = {
        "orientation": "v",
        "y": 0.99,
        "xanchor": "left",
        "yanchor": "top",
        "bgcolor": "rgba(255,255,255,0.85)",
        "font": {"size": 12},
    }
    lay["legend"] = {**box, "x": 0.01}
    lay["legend2"] = {**box, "x": 0.57}
    lay["margin"] = {"l": 70, "r": 15, "t": 36, "b": 48}
    return figure(data, lay)
