"""Figures of the Vision Transformer page: arrays in, ``go.Figure`` out.

Plain dict specs wrapped by figures.style.figure. Images are drawn as ``image`` traces with
row 0 on top; patch grids and the chosen patch are layout shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import BLUE, ORANGE, SEQUENTIAL, VERMILLION, figure, layout, panel_titles

Array = NDArray[np.float64]
CURRENT = {"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}}


def _list(x: Any, digits: int = 3) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def _panels(
    domains: Sequence[tuple[float, float]],
    titles: Sequence[str],
    height: int,
    square: Sequence[bool],
) -> dict[str, Any]:
    """Side-by-side panels without ticks, row 0 on top; ``square`` panels keep 1:1 pixels."""
    lay = layout(title="", x="", y="", height=height, showlegend=False)
    for i, ((lo, hi), sq) in enumerate(zip(domains, square, strict=True)):
        sfx = "" if i == 0 else str(i + 1)
        axis = {"showgrid": False, "zeroline": False, "showline": False}
        lay[f"xaxis{sfx}"] = {
            **axis,
            "domain": [lo, hi],
            "anchor": f"y{sfx}",
            "constrain": "domain",
        }
        lay[f"yaxis{sfx}"] = {
            **axis,
            "anchor": f"x{sfx}",
            "autorange": "reversed",
            "constrain": "domain",
        }
        if sq:
            lay[f"yaxis{sfx}"]["scaleanchor"] = f"x{sfx}"
    lay["annotations"] = panel_titles(titles, [lo for lo, _ in domains], 13)
    lay["margin"] = {"l": 40, "r": 20, "t": 40, "b": 50}
    return lay


def _image_trace(rgb: NDArray[np.uint8], source: str | None) -> dict[str, Any]:
    """The image as an ``image`` trace: a PNG data URI when given (a few KB), else pixels."""
    trace: dict[str, Any] = {"type": "image", "hovertemplate": "(%{y}, %{x})<extra></extra>"}
    if source is not None:
        trace["source"] = source
    else:
        trace["z"] = np.asarray(rgb).astype(int).tolist()
    return trace


def _grid_shapes(side: int, patch: int, xref: str = "x", yref: str = "y") -> list[dict]:
    """White lines between the P × P patches of an S × S image (pixel centres at integers)."""
    cuts = np.arange(patch, side, patch) - 0.5
    line = {"color": "white", "width": 1}
    return [
        *(
            {
                "type": "line",
                "xref": xref,
                "yref": yref,
                "x0": c,
                "x1": c,
                "y0": -0.5,
                "y1": side - 0.5,
                "line": line,
            }
            for c in cuts
        ),
        *(
            {
                "type": "line",
                "xref": xref,
                "yref": yref,
                "y0": c,
                "y1": c,
                "x0": -0.5,
                "x1": side - 0.5,
                "line": line,
            }
            for c in cuts
        ),
    ]


def patches_figure(
    rgb: NDArray[np.uint8],
    patch: int,
    patches: NDArray[np.uint8],
    tokens: Array,
    *,
    titles: tuple[str, str, str],
    x_titles: tuple[str, str],
    y_titles: tuple[str, str],
    source: str | None = None,
    height: int = 420,
) -> go.Figure:
    """The image cut into patches, the patch matrix x_p (N, P²C) and the tokens z₀.

    Args:
        rgb: (S, S, 3) uint8 image; patches: (N, P²C) uint8 rows, one per patch.
        source: the same image as a PNG data URI (sent instead of its pixels).
        tokens: (T, k) the first k channels of z₀, row 0 the [class] token.

    Traces: [0] image, [1] patch-matrix heatmap, [2] token heatmap.
    """
    S = rgb.shape[0]
    lay = _panels([(0.0, 0.28), (0.35, 0.64), (0.71, 1.0)], titles, height, (True, False, False))
    for i, sfx in enumerate(("2", "3")):
        lay[f"xaxis{sfx}"]["title"] = {"text": x_titles[i]}
        lay[f"yaxis{sfx}"]["title"] = {"text": y_titles[i]}
    lay["xaxis"].update(showticklabels=False, ticks="", range=[-0.5, S - 0.5])
    lay["yaxis"].update(showticklabels=False, ticks="", range=[S - 0.5, -0.5], autorange=False)
    lay["shapes"] = _grid_shapes(S, patch)
    lay["margin"] = {"l": 20, "r": 20, "t": 40, "b": 50}
    data = [
        _image_trace(rgb, source),
        {
            "type": "heatmap",
            "z": np.asarray(patches).astype(int).tolist(),
            "xaxis": "x2",
            "yaxis": "y2",
            "colorscale": "Greys",
            "showscale": False,
            "hovertemplate": "patch %{y}, entry %{x}: %{z}<extra></extra>",
        },
        {
            "type": "heatmap",
            "z": _list(tokens, 2),
            "xaxis": "x3",
            "yaxis": "y3",
            "colorscale": "RdBu",
            "zmid": 0.0,
            "showscale": False,
            "hovertemplate": "token %{y}, channel %{x}: %{z}<extra></extra>",
        },
    ]
    return figure(data, lay)


def attention_figure(
    rgb: NDArray[np.uint8],
    patch: int,
    query: int,
    grid: Array,
    *,
    titles: tuple[str, str],
    zmax: float = 2.0,
    colorbar_title: str = "T·a",
    source: str | None = None,
    hovertemplate: str = "patch (%{y}, %{x}): %{z:.3f}<extra></extra>",
    height: int = 400,
) -> go.Figure:
    """Left: the image with the query patch outlined ([class]: the whole image). Right: the
    query's weights over the patches on the patch grid, scaled by T (1 = uniform).

    Args:
        query: 0 for the [class] token, else patch query − 1 in row-major order.
        grid: (S/P, S/P) T · weights of the query on the patches.

    Traces: [0] image, [1] heatmap.
    """
    S, g = rgb.shape[0], grid.shape[0]
    lay = _panels([(0.0, 0.42), (0.52, 0.94)], titles, height, (True, True))
    lay["xaxis"].update(showticklabels=False, ticks="", range=[-0.5, S - 0.5])
    lay["yaxis"].update(showticklabels=False, ticks="", range=[S - 0.5, -0.5], autorange=False)
    lay["xaxis2"].update(range=[-0.5, g - 0.5], dtick=max(1, g // 8))
    lay["yaxis2"].update(range=[g - 0.5, -0.5], autorange=False, dtick=max(1, g // 8))
    if query == 0:
        box = (-0.5, -0.5, S - 0.5, S - 0.5)
    else:
        r, c = divmod(query - 1, g)
        box = (c * patch - 0.5, r * patch - 0.5, (c + 1) * patch - 0.5, (r + 1) * patch - 0.5)
    outline = {
        "type": "rect",
        "x0": box[0],
        "y0": box[1],
        "x1": box[2],
        "y1": box[3],
        "line": {"color": VERMILLION, "width": 3},
    }
    lay["shapes"] = [*_grid_shapes(S, patch), {**outline, "xref": "x", "yref": "y"}]
    if query:
        lay["shapes"].append(
            {
                "type": "rect",
                "xref": "x2",
                "yref": "y2",
                "x0": c - 0.5,
                "y0": r - 0.5,
                "x1": c + 0.5,
                "y1": r + 0.5,
                "line": {"color": VERMILLION, "width": 3},
            }
        )
    data = [
        _image_trace(rgb, source),
        {
            "type": "heatmap",
            "z": _list(grid),
            "xaxis": "x2",
            "yaxis": "y2",
            "zmin": 0.0,
            "zmax": zmax,
            "colorscale": SEQUENTIAL,
            "hovertemplate": hovertemplate,
            "colorbar": {"title": {"text": colorbar_title}, "thickness": 12},
        },
    ]
    return figure(data, lay)


def cost_figure(
    patches: Sequence[int],
    tokens: Array,
    entries: Array,
    current: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str],
) -> go.Figure:
    """Tokens T and attention weights h·T² against the patch size P (log y).

    Traces: [0] tokens, [1] entries, [2] today's P on both.
    """
    P = list(patches)
    i = P.index(current)
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=360,
        xaxis={"type": "log", "tickmode": "array", "tickvals": P},
        yaxis={"type": "log", "dtick": 1, "exponentformat": "SI"},
    )
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": P,
            "y": _list(tokens, 0),
            "name": names[0],
            "line": {"color": BLUE},
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": P,
            "y": _list(entries, 0),
            "name": names[1],
            "line": {"color": VERMILLION},
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [current, current],
            "y": [float(tokens[i]), float(entries[i])],
            "marker": CURRENT,
            "showlegend": False,
            "hovertemplate": "P = %{x}: %{y:,}<extra></extra>",
        },
    ]
    return figure(data, lay)
