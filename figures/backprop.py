"""Figures of the backpropagation page: tensors as heatmaps side by side, the softmax
Jacobian, LayerNorm's backward for one token, and the training curves.

Arrays in, ``go.Figure`` out (plain dict traces, panels by axis domains). Signed tensors use
a diverging scale centred on 0; rows are tokens, token 0 on top. A tensor with heads
(h, N, c) is drawn as its heads side by side, (N, h·c).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from core.arrays import Array
from figures.style import BLUE, GREY, ORANGE, SEQUENTIAL, VERMILLION, figure, layout

DIVERGING = "RdBu"
ERROR_SCALE = [[0.0, "#f7f7f7"], [1.0, "#7a0177"]]  # light (tiny) → dark purple (large)
LEGEND_BELOW = {"orientation": "h", "x": 0.0, "xanchor": "left", "y": -0.42, "yanchor": "top"}


def as_matrix(t: Array) -> Array:
    """A tensor as a 2-D picture: (n,) → (1, n); (h, N, c) → heads side by side (N, h·c)."""
    t = np.asarray(t, dtype=np.float64)
    if t.ndim == 1:
        return t[None, :]
    if t.ndim == 3:
        return np.concatenate(list(t), axis=1)
    return t


def _domains(widths: Sequence[float], gap: float) -> list[tuple[float, float]]:
    """Paper-x domains of panels as wide as ``widths`` (relative), ``gap`` (paper) apart."""
    scale = (1.0 - gap * (len(widths) - 1)) / sum(widths)
    out, x = [], 0.0
    for w in widths:
        out.append((round(x, 6), min(round(x + w * scale, 6), 1.0)))
        x += w * scale + gap
    return out


def _panels_layout(
    titles: Sequence[str],
    widths: Sequence[float],
    *,
    title: str,
    height: int,
    x_title: str,
    y_title: str,
    gap: float = 0.025,
    shared_rows: bool = True,
) -> dict[str, Any]:
    """Side-by-side panels; ``shared_rows``: only the first panel labels the rows."""
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=height,
        showlegend=False,
        margin={"l": 60, "r": 20, "t": 86 if title else 36, "b": 48},
    )
    base_x, base_y = lay.pop("xaxis"), lay.pop("yaxis")
    notes = []
    for i, ((lo, hi), text) in enumerate(zip(_domains(widths, gap), titles, strict=True)):
        k = "" if i == 0 else str(i + 1)
        lay[f"xaxis{k}"] = {
            **base_x,
            "domain": [lo, hi],
            "anchor": f"y{k}",
            "showgrid": False,
            "zeroline": False,
            "title": {"text": x_title if i == 0 else ""},
        }
        lay[f"yaxis{k}"] = {
            **base_y,
            "anchor": f"x{k}",
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
            "showticklabels": i == 0 or not shared_rows,
            "title": {"text": y_title if i == 0 else ""},
        }
        notes.append(
            {
                "text": text,
                "x": lo,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 13},
            }
        )
    lay["annotations"] = notes
    return lay


def _heatmap(
    z: Array, k: str, *, scale: Any, zmin: float, zmax: float, hover: str, zmid: float | None = None
) -> dict[str, Any]:
    trace = {
        "type": "heatmap",
        "z": z,
        "colorscale": scale,
        "zmin": zmin,
        "zmax": zmax,
        "showscale": False,
        "xaxis": f"x{k}",
        "yaxis": f"y{k}",
        "hovertemplate": hover + "<extra></extra>",
    }
    if zmid is not None:
        trace["zmid"] = zmid
    return trace


def tensors_figure(
    tensors: Sequence[Array],
    titles: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str,
    hover: str,
    signed: Sequence[bool],
    height: int = 330,
    widths: Sequence[float] | None = None,
) -> go.Figure:
    """Tensors side by side, each as a heatmap (signed ones on a diverging scale around 0).

    Traces: one heatmap per tensor, in order. ``hover`` may use %{x}, %{y}, %{z}.
    ``widths``: the panels' relative widths, by default each tensor's columns + 2 (a caller
    that swaps in tensors of other shapes keeps one layout: :func:`panel_widths` of the
    widest).
    """
    mats = [as_matrix(t) for t in tensors]
    lay = _panels_layout(
        titles,
        panel_widths(mats) if widths is None else widths,
        title=title,
        height=height,
        x_title=x_title,
        y_title=y_title,
    )
    for k in range(len(mats)):  # rows are tokens: whole numbers (N = 2 drew ticks at 0.5)
        lay[f"yaxis{k + 1 if k else ''}"]["dtick"] = 1
    data = []
    for i, (m, sign) in enumerate(zip(mats, signed, strict=True)):
        k = "" if i == 0 else str(i + 1)
        data.append(
            _heatmap(
                m,
                k,
                scale=DIVERGING if sign else SEQUENTIAL,
                zmid=0.0 if sign else None,
                hover=hover,
                **_z_range(m, sign),
            )
        )
    return figure(data, lay)


def panel_widths(tensors: Sequence[Array]) -> list[float]:
    """The panels' relative widths for these tensors: each one's columns + 2."""
    return [as_matrix(t).shape[1] + 2 for t in tensors]


def _z_range(m: Array, signed: bool) -> dict[str, float]:
    """A heatmap's colour range: ±max|m| around 0 when signed, else 0 to max."""
    top = float(np.abs(m).max()) or 1.0
    return {"zmin": -top, "zmax": top} if signed else {"zmin": 0.0, "zmax": max(top, 1e-12)}


def tensors_traces(tensors: Sequence[Array], signed: Sequence[bool]) -> dict[int, dict[str, Any]]:
    """What :func:`tensors_figure` of other tensors (same count) changes in its traces:
    trace index → its ``z`` and colour range (``ui.live`` state patches)."""
    return {
        i: {"z": m, **_z_range(m, sign)}
        for i, (m, sign) in enumerate(zip(map(as_matrix, tensors), signed, strict=True))
    }


def gradient_figure(
    grad: Array,
    errors: Sequence[Array],
    titles: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str,
    hover: str,
    error_hover: str,
    floor: float = -17.0,
) -> go.Figure:
    """The gradient (diverging heatmap) and, beside it, log₁₀ of each error array (same
    shape), on a fixed scale from 10⁻¹⁷ to 10⁻³ so rounding looks pale and a bug dark.

    Traces: [0] gradient, [1:] one error heatmap per array.
    """
    g = as_matrix(grad)
    width = g.shape[1] + 2
    lay = _panels_layout(
        titles,
        [width] * (1 + len(errors)),
        title=title,
        height=330,
        x_title=x_title,
        y_title=y_title,
    )
    top = max(float(np.abs(g).max()), 1e-9)  # a zero gradient (∂L/∂b_k) stays white
    data = [_heatmap(g, "", scale=DIVERGING, zmin=-top, zmax=top, zmid=0.0, hover=hover)]
    for i, e in enumerate(errors):
        log = np.log10(np.maximum(as_matrix(e), 10.0**floor))
        data.append(
            _heatmap(log, str(i + 2), scale=ERROR_SCALE, zmin=floor, zmax=-3.0, hover=error_hover)
        )
    ticks = list(range(int(floor), -2, 2))
    data[-1].update(
        showscale=True,
        colorbar={
            "thickness": 12,
            "title": {"text": "|Δ|"},
            "tickvals": ticks,
            "ticktext": [f"1e{k}" for k in ticks],
        },
    )
    lay["margin"]["r"] = 90
    return figure(data, lay)


def jacobian_figure(
    J: Array,
    exact: Array,
    diagonal_only: Array,
    *,
    titles: Sequence[str],
    x_titles: Sequence[str],
    y_titles: Sequence[str],
    names: Sequence[str],
    hover: str,
) -> go.Figure:
    """The softmax Jacobian of one row (left) and ∂L/∂s two ways (right).

    Traces: [0] J heatmap, [1] J·g bars (exact), [2] diagonal-only bars (the course's).
    """
    n = len(J)
    lay = _panels_layout(
        titles,
        [1.0, 1.3],
        title="",
        height=390,
        x_title=x_titles[0],
        y_title=y_titles[0],
        gap=0.1,
        shared_rows=False,
    )
    lay["xaxis2"].update(title={"text": x_titles[1]}, dtick=1)
    lay["yaxis2"].update(title={"text": y_titles[1]}, autorange=True, zeroline=True)
    lay["xaxis"]["dtick"] = lay["yaxis"]["dtick"] = 1
    lay["showlegend"] = True
    lay["legend"] = LEGEND_BELOW
    lay["margin"]["b"] = 130
    top = float(np.abs(J).max()) or 1.0
    data = [
        _heatmap(J, "", scale=DIVERGING, zmin=-top, zmax=top, zmid=0.0, hover=hover),
        {
            "type": "bar",
            "x": list(range(n)),
            "y": exact,
            "name": names[0],
            "xaxis": "x2",
            "yaxis": "y2",
            "marker": {"color": BLUE},
            "hovertemplate": "j = %{x}: %{y:.6f}<extra></extra>",
        },
        {
            "type": "bar",
            "x": list(range(n)),
            "y": diagonal_only,
            "name": names[1],
            "xaxis": "x2",
            "yaxis": "y2",
            "marker": {"color": VERMILLION, "pattern": {"shape": "/"}},
            "hovertemplate": "j = %{x}: %{y:.6f}<extra></extra>",
        },
    ]
    return figure(data, lay)


def layernorm_figure(
    rows: Sequence[Array],
    names: Sequence[str],
    *,
    titles: Sequence[str],
    x_title: str,
    y_title: str,
) -> go.Figure:
    """One token through LayerNorm: left u and x̂; right ĝ = γ⊙g and ∂L/∂u.

    ``rows`` = (u, x̂, ĝ, ∂L/∂u), each (D,). Traces: four bar traces in that order.
    """
    lay = _panels_layout(
        titles,
        [1.0, 1.0],
        title="",
        height=370,
        x_title=x_title,
        y_title=y_title,
        gap=0.08,
        shared_rows=False,
    )
    for k in ("", "2"):
        lay[f"yaxis{k}"].update(autorange=True, zeroline=True)
        lay[f"xaxis{k}"]["dtick"] = 1
    lay["xaxis2"]["title"] = {"text": x_title}
    lay["showlegend"] = True
    lay["legend"] = LEGEND_BELOW
    lay["margin"]["b"] = 130
    colours = (GREY, BLUE, ORANGE, VERMILLION)
    data = [
        {
            "type": "bar",
            "x": list(range(len(r))),
            "y": r,
            "name": name,
            "marker": {"color": c},
            "xaxis": "x" if i < 2 else "x2",
            "yaxis": "y" if i < 2 else "y2",
            "hovertemplate": f"{name}, d = %{{x}}: %{{y:.5f}}<extra></extra>",
        }
        for i, (r, name, c) in enumerate(zip(rows, names, colours, strict=True))
    ]
    return figure(data, lay)


def training_figure(
    losses: Sequence[Array],
    accuracy: Array,
    step: int,
    attention: Array,
    *,
    names: Sequence[str],
    titles: Sequence[str],
    x_titles: Sequence[str],
    y_titles: Sequence[str],
    hover: str,
) -> go.Figure:
    """Loss curves (numpy, torch) on a log axis up to ``step`` with the whole run pale
    behind, accuracy; right: one head's attention at ``step``.

    Traces: [0] numpy loss so far, [1] torch loss so far (markers), [2] accuracy so far,
    [3] the whole numpy run (pale), [4] attention heatmap.
    """
    T = len(losses[0]) - 1
    steps = np.arange(T + 1)
    lay = _panels_layout(
        titles,
        [1.6, 1.0],
        title="",
        height=410,
        x_title=x_titles[0],
        y_title=y_titles[0],
        gap=0.16,
        shared_rows=False,
    )
    lay["yaxis"].update(type="log", autorange=True, showgrid=True)
    lay["yaxis"].pop("autorange")
    lo = float(np.log10(max(min(float(np.min(ls)) for ls in losses), 1e-6)))
    hi = float(np.log10(max(float(np.max(ls)) for ls in losses)))
    lay["yaxis"]["range"] = [lo - 0.1, hi + 0.1]
    lay["xaxis"].update(range=[0, T], showgrid=True)
    lay["yaxis3"] = {
        "overlaying": "y",
        "anchor": "x",
        "side": "right",
        "range": [0, 1.02],
        "title": {"text": y_titles[1]},
        "showgrid": False,
        "tickformat": ".0%",
        "tickmode": "array",
        "tickvals": [0, 0.25, 0.5, 0.75, 1.0],
        "zeroline": False,
    }
    lay["xaxis2"].update(title={"text": x_titles[1]}, dtick=1)
    lay["yaxis2"].update(title={"text": y_titles[2]}, dtick=1)
    lay["showlegend"] = True
    lay["legend"] = LEGEND_BELOW
    lay["margin"].update(b=130, r=30)
    upto = steps[: step + 1]
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": upto,
            "y": losses[0][: step + 1],
            "name": names[0],
            "line": {"color": BLUE, "width": 3},
            "hovertemplate": "%{x}: %{y:.6g}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": upto[::5],
            "y": losses[1][: step + 1 : 5],
            "name": names[1],
            "marker": {"color": ORANGE, "size": 6, "symbol": "x"},
            "hovertemplate": "%{x}: %{y:.6g}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": upto,
            "y": accuracy[: step + 1],
            "name": names[2],
            "yaxis": "y3",
            "line": {"color": VERMILLION, "dash": "dot"},
            "hovertemplate": "%{x}: %{y:.3f}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": steps,
            "y": losses[0],
            "name": names[3],
            "line": {"color": "#cfd8e3", "width": 1, "dash": "solid"},
            "hoverinfo": "skip",
        },
        _heatmap(attention, "2", scale=SEQUENTIAL, zmin=0.0, zmax=1.0, hover=hover),
    ]
    return figure(data, lay)
