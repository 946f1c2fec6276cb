"""Figures of the Swin windows page: arrays in, ``go.Figure`` out.

Plain dict specs wrapped by figures.style.figure. Within one figure the layout depends only
on the sizes chosen outside the page's fragment (H, M, shift), never on the probe slider.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import (
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    PALETTE,
    SEQUENTIAL,
    VERMILLION,
    figure,
    layout,
    panel_titles,
)

Array = NDArray[np.float64]
REGION_COLOURS = (*PALETTE, GREY, "#B0B0B0")  # 9 colours for region ids 0..8
REGION_SCALE = [
    [(k + e) / 9, c] for k, c in enumerate(REGION_COLOURS) for e in (0, 1)
]  # piecewise-constant: id k -> colour k (zmin -0.5, zmax 8.5)
MASK_SCALE = [[0.0, "#440154"], [1.0, "#FDE725"]]
CURRENT = {"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}}
HIGHLIGHT = {"color": "#E8000B", "width": 4}
# hover texts (English defaults; the page passes them translated)
REGION_HOVER = "row %{y}, col %{x}: region %{z}<extra></extra>"
MASK_HOVER = "query %{y}, key %{x}: %{z}<extra>1 = same region</extra>"
BIAS_HOVERS = (
    "i = %{y}, j = %{x}: index %{z}<extra></extra>",
    "Δy = %{y}, Δx = %{x}: %{z:.3f}<extra>B̂</extra>",
    "key (%{y}, %{x}): %{z:.3f}<extra>B[i]</extra>",
)


def _list(x: Any, digits: int = 5) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def _panels(sides: Sequence[int], titles: Sequence[str], height: int) -> dict[str, Any]:
    """Square panels side by side (row 0 on top), panel i spanning ``sides[i]`` cells."""
    lay = layout(title="", x="", y="", height=height)
    n, gap = len(sides), 0.05
    width = (1.0 - gap * (n - 1)) / n
    for i, side in enumerate(sides):
        sfx = "" if i == 0 else str(i + 1)
        lo = i * (width + gap)
        axis = {
            "showgrid": False,
            "zeroline": False,
            "showline": False,
            "ticks": "",
            "showticklabels": side <= 16,
            "tickfont": {"size": 10},
            "dtick": 1 if side <= 8 else 4,
        }
        lay[f"xaxis{sfx}"] = {
            **axis,
            "domain": [lo, lo + width],
            "anchor": f"y{sfx}",
            "range": [-0.5, side - 0.5],
            "constrain": "domain",
        }
        lay[f"yaxis{sfx}"] = {
            **axis,
            "anchor": f"x{sfx}",
            "range": [side - 0.5, -0.5],
            "scaleanchor": f"x{sfx}",
            "constrain": "domain",
        }
    lay["annotations"] = panel_titles(titles, [i * (width + gap) for i in range(len(titles))], 13)
    lay["margin"] = {"l": 30, "r": 10, "t": 36, "b": 20}
    lay["showlegend"] = False
    return lay


def _grid_lines(side: int, window: int, offset: int, axes: str) -> list[dict[str, Any]]:
    """Window borders every M cells, moved by ``offset`` (the shifted partition)."""
    xref, yref = (f"x{axes}", f"y{axes}")
    cuts = sorted({(k * window + offset) % side for k in range(side // window)} - {0})
    line = {"color": "black", "width": 2}
    shapes = []
    for c in cuts:
        shapes.append(
            {
                "type": "line",
                "xref": xref,
                "yref": yref,
                "x0": c - 0.5,
                "x1": c - 0.5,
                "y0": -0.5,
                "y1": side - 0.5,
                "line": line,
            }
        )
        shapes.append(
            {
                "type": "line",
                "xref": xref,
                "yref": yref,
                "y0": c - 0.5,
                "y1": c - 0.5,
                "x0": -0.5,
                "x1": side - 0.5,
                "line": line,
            }
        )
    return shapes


def _ids_trace(z: Any, small: bool, hover: str = REGION_HOVER) -> dict[str, Any]:
    trace = {
        "type": "heatmap",
        "z": np.asarray(z).tolist(),
        "colorscale": REGION_SCALE,
        "zmin": -0.5,
        "zmax": 8.5,
        "showscale": False,
        "xgap": 1,
        "ygap": 1,
        "hovertemplate": hover,
    }
    if small:
        trace |= {"texttemplate": "%{z}", "textfont": {"size": 11, "color": "black"}}
    return trace


def ids_image(z: NDArray[np.int64]) -> str:
    """Each cell's id written in its cell, as an SVG data URI for a layout image stretched over
    the panel's cells, [−0.5, W − 0.5] × [−0.5, H − 0.5] with row 0 on top (:func:`_ids_layer`).

    The region map's ids were a heatmap's cell text: Plotly lays each text out on every draw,
    and at H = 12–16 (288–512 texts in the two panels) that doubled the time a new H took to
    appear (bench/controls_report.md, round 22). A picture is drawn by the browser in one
    piece. The digits are about 12 px on the page's panels at every H (H / 28 of a cell, at
    most 0.55)."""
    H, W = z.shape
    size = min(0.55, H / 28)
    texts = "".join(f"<text x='{c}' y='{r}'>{int(v)}</text>" for (r, c), v in np.ndenumerate(z))
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='-0.5 -0.5 {W} {H}' "
        f"preserveAspectRatio='none' font-family='sans-serif' font-size='{size:.3f}' "
        f"text-anchor='middle' dominant-baseline='central'>{texts}</svg>"
    )
    return "data:image/svg+xml," + quote(svg, safe="=:/',-.")


def _ids_layer(z: NDArray[np.int64], axes: str) -> dict[str, Any]:
    """:func:`ids_image` over the cells of the panel on axes ``x<axes>``/``y<axes>``."""
    H, W = z.shape
    return {
        "source": ids_image(z),
        "xref": f"x{axes}",
        "yref": f"y{axes}",
        "x": -0.5,
        "y": -0.5,
        "sizex": W,
        "sizey": H,
        "xanchor": "left",
        "yanchor": "top",
        "sizing": "stretch",
        "layer": "above",
    }


def regions_figure(
    regions: NDArray[np.int64],
    window: int,
    shift: int,
    *,
    titles: tuple[str, str],
    height: int = 380,
    hover: str = REGION_HOVER,
) -> go.Figure:
    """The cyclic shift step by step: region ids before and after roll(-s).

    Args:
        regions: (H, W) region ids of the rolled map (core.windows.shifted_window_regions).
        window: M. shift: s (0 = plain W-MSA).
        hover: the hover text of a token (``%{z}`` = its region id).

    Panels: [left] the original map, each token coloured by its region id (the ids rolled
    back by +s, which is also the reverse roll after attention), with the shifted windows'
    borders; [right] after roll(-s): regular windows numbered k = 0, 1, … (annotations).
    Traces: [0] left ids, [1] right ids. Up to H = 16 each panel's ids are also written in
    its cells, by a layout image each (:func:`ids_image`; [0] left, [1] right).
    """
    H, W = regions.shape
    M, s = window, shift
    before = np.roll(regions, (s, s), axis=(0, 1))  # reverse roll: ids at original places
    lay = _panels([H, H], titles, height)
    lay["shapes"] = _grid_lines(H, M, s, "") + _grid_lines(H, M, 0, "2")
    small = H <= 16
    lay["annotations"] += (
        [
            {
                "text": f"k={k}",
                "x": (k % (W // M)) * M + M / 2 - 0.5,
                "y": (k // (W // M)) * M + M / 2 - 0.5,
                "xref": "x2",
                "yref": "y2",
                "showarrow": False,
                "font": {"size": 12, "color": "black"},
                "bgcolor": "rgba(255,255,255,0.85)",
            }
            for k in range((H // M) * (W // M))
        ]
        if (H // M) * (W // M) <= 16
        else []
    )
    if small:  # the ids as pictures (ids_image), not as the heatmaps' cell text
        lay["images"] = [_ids_layer(before, ""), _ids_layer(regions, "2")]
    data = [
        _ids_trace(before, False, hover),
        {**_ids_trace(regions, False, hover), "xaxis": "x2", "yaxis": "y2"},
    ]
    return figure(data, lay)


def window_mask_figure(
    window_ids: NDArray[np.int64],
    mask: NDArray[np.bool_],
    *,
    titles: tuple[str, str],
    height: int = 330,
    hovers: tuple[str, str] = (REGION_HOVER, MASK_HOVER),
) -> go.Figure:
    """One window after the roll: its tokens' region ids and its attention mask.

    Args:
        window_ids: (M, M) region ids of window k.
        mask: (M², M²) bool mask of window k, True = same region = may attend.
        hovers: hover texts of the ids and of the mask.

    Traces: [0] the window's ids, [1] the mask (1 = may attend); :func:`window_traces` is
    what changes from one window to the next.
    """
    M = window_ids.shape[0]
    lay = _panels([M, M * M], titles, height)
    moving = window_traces(window_ids, mask)
    data = [
        {**_ids_trace(window_ids, False, hovers[0]), **moving[0]},  # no text: cheaper redraw
        {
            "type": "heatmap",
            **moving[1],
            "zmin": 0,
            "zmax": 1,
            "colorscale": MASK_SCALE,
            "showscale": False,
            "xaxis": "x2",
            "yaxis": "y2",
            "hovertemplate": hovers[1],
        },
    ]
    return figure(data, lay)


def window_traces(
    window_ids: NDArray[np.int64], mask: NDArray[np.bool_]
) -> dict[int, dict[str, Any]]:
    """What changes from one window k to another in :func:`window_mask_figure` (a
    ``ui.live`` state patches these): trace 0's region ids, trace 1's mask as 0/1 ints."""
    return {
        0: {"z": np.asarray(window_ids).astype(int).tolist()},
        1: {"z": np.asarray(mask, dtype=np.int8).tolist()},
    }


def bias_figure(
    index: NDArray[np.int64],
    table: Array,
    query: int,
    *,
    titles: tuple[str, str, str],
    height: int = 380,
    hovers: tuple[str, str, str] = BIAS_HOVERS,
) -> go.Figure:
    """Relative position index, the bias table B̂ and the bias row of one query token.

    Args:
        index: (M², M²) relative position index. table: (2M-1, 2M-1) bias table B̂.
        query: token i of the window (row-major).
        hovers: hover texts of the index, the table and the bias row.

    Traces: [0] index heatmap, [1] table heatmap, [2] B[i] as an M×M map, [3] row i outline
    on the index, [4] the M×M block of the table that row i reads.
    """
    M2 = index.shape[0]
    M = int(round(np.sqrt(M2)))
    K = 2 * M - 1
    yi, xi = divmod(query, M)
    bias_row = table.ravel()[index[query]].reshape(M, M)
    lay = _panels([M2, K, M], titles, height)
    heat = {"type": "heatmap", "colorscale": SEQUENTIAL, "showscale": False}
    # the block of the table read by query i: rows yi..yi+M-1 reversed, same for columns
    ty0, tx0 = yi, xi
    data = [
        {**heat, "z": index.tolist(), "zmin": 0, "zmax": K * K - 1, "hovertemplate": hovers[0]},
        {**heat, "z": _list(table, 3), "xaxis": "x2", "yaxis": "y2", "hovertemplate": hovers[1]},
        {
            **heat,
            "z": _list(bias_row, 3),
            "zmin": float(table.min()),
            "zmax": float(table.max()),
            "xaxis": "x3",
            "yaxis": "y3",
            "hovertemplate": hovers[2],
        },
        {
            "type": "scatter",
            "x": [-0.5, M2 - 0.5, M2 - 0.5, -0.5, -0.5],
            "y": [query - 0.5, query - 0.5, query + 0.5, query + 0.5, query - 0.5],
            "mode": "lines",
            "line": HIGHLIGHT,
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": [tx0 - 0.5, tx0 + M - 0.5, tx0 + M - 0.5, tx0 - 0.5, tx0 - 0.5],
            "y": [ty0 - 0.5, ty0 - 0.5, ty0 + M - 0.5, ty0 + M - 0.5, ty0 - 0.5],
            "mode": "lines",
            "line": HIGHLIGHT,
            "xaxis": "x2",
            "yaxis": "y2",
            "hoverinfo": "skip",
        },
    ]
    return figure(data, lay)


def stage_figure(
    rows: Sequence[Any],
    *,
    title: str,
    y_title: str,
    names: tuple[str, str],
    stage_label: str = "stage {n}",
) -> go.Figure:
    """Tokens and channels of the four Swin stages (log y). Traces: [0] tokens, [1] C.

    ``stage_label`` names the bars' categories (``{n}`` = the stage number).
    """
    stages = [stage_label.format(n=r.stage) for r in rows]
    data = [
        {
            "type": "bar",
            "x": stages,
            "y": [r.tokens for r in rows],
            "name": names[0],
            "marker": {"color": BLUE},
        },
        {
            "type": "bar",
            "x": stages,
            "y": [r.C for r in rows],
            "name": names[1],
            "marker": {"color": GREEN},
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


def complexity_figure(
    sides: Array,
    msa: Array,
    wmsa: Array,
    side: int,
    current: tuple[float, float],
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str] = ("Ω(MSA)", "Ω(W-MSA)"),
) -> go.Figure:
    """Ω(MSA) and Ω(W-MSA) against the token map side h = w (log-log), current h marked.

    Traces: [0] Ω(MSA), [1] Ω(W-MSA), [2] the current pair.
    """
    data = [
        {
            "type": "scatter",
            "x": _list(sides),
            "y": _list(msa),
            "mode": "lines",
            "name": names[0],
            "line": {"color": VERMILLION},
            "hovertemplate": "h = w = %{x}<br>%{y:,.0f} FLOPs<extra></extra>",
        },
        {
            "type": "scatter",
            "x": _list(sides),
            "y": _list(wmsa),
            "mode": "lines",
            "name": names[1],
            "line": {"color": BLUE},
            "hovertemplate": "h = w = %{x}<br>%{y:,.0f} FLOPs<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [side, side],
            "y": list(current),
            "mode": "markers",
            "showlegend": False,
            "marker": CURRENT,
            "hovertemplate": "h = w = %{x}<br>%{y:,.0f}<extra></extra>",
        },
    ]
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=380,
        xaxis={"type": "log"},
        yaxis={"type": "log", "exponentformat": "power"},
    )
    lay["legend"] = {"orientation": "v", "x": 0.01, "y": 0.99, "xanchor": "left", "yanchor": "top"}
    return figure(data, lay)
