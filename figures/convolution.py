"""Figures of the convolution pages: what a filter reads, costs, MobileNet's layers, kernels,
timings (depthwise separable convolution), and the sub-pixel shuffle and upsampled images.

Arrays in, ``go.Figure`` out (plain dict traces, ``figures.style.figure``); no maths here.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from PIL import Image

from figures.style import (
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    PALETTE,
    PURPLE,
    SKY,
    VERMILLION,
    figure,
    layout,
    panel_titles,
)

UNREAD = "#EDEDED"
KIND_COLOURS = {"conv": GREY, "dw": ORANGE, "pw": BLUE, "fc": PURPLE}
DIVERGING = "RdBu"


def _list(x: Any, digits: int = 5) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def _discrete(n: int) -> list[list[Any]]:
    """A colorscale for the integers 0 … n: 0 light grey, k the palette's k-th colour."""
    colours = [UNREAD, *(PALETTE[(k - 1) % len(PALETTE)] for k in range(1, n + 1))]
    scale = []
    for k, colour in enumerate(colours):
        scale += [[k / (n + 1), colour], [(k + 1) / (n + 1), colour]]
    return scale


def _tile(grids: np.ndarray, gap: int = 1) -> np.ndarray:
    """(M, S, S) → (S, M·(S + gap) − gap): the channels side by side, NaN columns between."""
    M, S, _ = grids.shape
    out = np.full((S, M * (S + gap) - gap), np.nan)
    for m in range(M):
        out[:, m * (S + gap) : m * (S + gap) + S] = grids[m]
    return out


def _blank_axis(**extra: Any) -> dict[str, Any]:
    return {
        "showgrid": False,
        "zeroline": False,
        "showline": False,
        "ticks": "",
        "showticklabels": False,
        **extra,
    }


def filters_figure(
    grids: Sequence[np.ndarray],
    row: int,
    col: int,
    *,
    titles: Sequence[str],
    hover: str,
) -> go.Figure:
    """Three rows of M channel grids (each (M, S, S)): which input cells one filter reads.

    ``grids`` = (standard, depthwise, pointwise) from ``core.convolution.touched``: 0 unread,
    k read by filter k. ``hover`` may use %{customdata[0]} (channel, from 1) and
    %{customdata[1]} (column).
    Traces: one heatmap per row, then one marker trace per row at the output position.
    """
    M, S, _ = grids[0].shape
    n_colours = int(max(float(np.max(g)) for g in grids)) if len(grids) else 1
    lay = layout(title="", x="", y="", height=150 + 120 * len(grids))
    lay["margin"] = {"l": 10, "r": 10, "t": 30, "b": 10}
    lay["showlegend"] = False
    width = M * (S + 1) - 1
    channel = np.repeat(np.arange(1, M + 1), S + 1)[:width]
    column = np.tile(np.arange(S + 1), M)[:width]
    custom = np.broadcast_to(np.stack([channel, column], -1), (S, width, 2)).tolist()
    data, notes, gap = [], [], 0.12
    height = (1 - gap * (len(grids) - 1)) / len(grids)
    for r, grid in enumerate(grids):
        sfx = "" if r == 0 else str(r + 1)
        top = 1 - r * (height + gap)
        lay[f"xaxis{sfx}"] = _blank_axis(
            domain=[0, 1], anchor=f"y{sfx}", range=[-0.5, width - 0.5], constrain="domain"
        )
        lay[f"yaxis{sfx}"] = _blank_axis(
            domain=[max(top - height, 0.0), top],
            anchor=f"x{sfx}",
            range=[S - 0.5, -0.5],
            scaleanchor=f"x{sfx}",
            constrain="domain",
        )
        data.append(
            {
                "type": "heatmap",
                "z": _list(_tile(grid), 0),
                "xaxis": f"x{sfx}",
                "yaxis": f"y{sfx}",
                "zmin": -0.5,
                "zmax": n_colours + 0.5,
                "colorscale": _discrete(n_colours),
                "showscale": False,
                "xgap": 1,
                "ygap": 1,
                "customdata": custom,
                "hovertemplate": hover + "<extra></extra>",
                "hoverongaps": False,
            }
        )
        notes.append(
            {
                "text": f"<b>{titles[r]}</b>",
                "x": 0,
                "y": top,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 13},
            }
        )
    for r in range(len(grids)):
        sfx = "" if r == 0 else str(r + 1)
        xs = [m * (S + 1) + col for m in range(M)]
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": xs,
                "y": [row] * M,
                "xaxis": f"x{sfx}",
                "yaxis": f"y{sfx}",
                "hoverinfo": "skip",
                "marker": {
                    "symbol": "x-thin",
                    "size": 9,
                    "color": "black",
                    "line": {"width": 2, "color": "black"},
                },
            }
        )
    lay["annotations"] = notes
    return figure(data, lay)


def ratio_figure(
    N: np.ndarray,
    ratios: dict[int, np.ndarray],
    current: tuple[int, int, float],
    *,
    title: str,
    x_title: str,
    y_title: str,
    name: str,
    current_name: str,
) -> go.Figure:
    """Separable / standard mult-adds against N (log-log), one line per D_K, today's point.

    ``name`` has a ``{k}`` placeholder (D_K). Traces: one line per kernel, then the point.
    """
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": _list(N),
            "y": _list(y, 8),
            "name": name.format(k=k),
            "line": {"color": PALETTE[i % len(PALETTE)]},
            "hovertemplate": "N = %{x}<br>%{y:.4f}<extra>" + name.format(k=k) + "</extra>",
        }
        for i, (k, y) in enumerate(ratios.items())
    ]
    k, n, ratio = current
    data.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": [n],
            "y": [ratio],
            "name": current_name,
            "marker": {"color": "black", "size": 11, "symbol": "diamond"},
            "hovertemplate": f"D_K = {k}, N = %{{x}}<br>%{{y:.4f}}<extra></extra>",
        }
    )
    lay = layout(
        title=title, x=x_title, y=y_title, height=360, xaxis={"type": "log"}, yaxis={"type": "log"}
    )
    lay["shapes"] = [
        {
            "type": "line",
            "xref": "paper",
            "x0": 0,
            "x1": 1,
            "y0": 1,
            "y1": 1,
            "line": {"color": GREY, "dash": "dot", "width": 1},
        }
    ]
    return figure(data, lay)


def mobilenet_figure(
    kinds: Sequence[str],
    mult_adds: np.ndarray,
    params: np.ndarray,
    labels: Sequence[str],
    *,
    titles: tuple[str, str],
    x_title: str,
    y_titles: tuple[str, str],
    kind_names: dict[str, str],
) -> go.Figure:
    """Mult-adds and weights (millions) of every layer, coloured by kind; two panels.

    Traces: for each kind present, its mult-adds bars (left) then its weights bars (right).
    """
    x = np.arange(1, len(kinds) + 1)
    data = []
    for kind, name in kind_names.items():
        pick = np.array([k == kind for k in kinds])
        if not pick.any():
            continue
        text = [labels[i] for i in np.flatnonzero(pick)]
        for axis, values, show in (("", mult_adds, True), ("2", params, False)):
            data.append(
                {
                    "type": "bar",
                    "x": x[pick].tolist(),
                    "y": _list(values[pick], 6),
                    "name": name,
                    "legendgroup": kind,
                    "showlegend": show,
                    "marker": {"color": KIND_COLOURS[kind]},
                    "xaxis": f"x{axis}",
                    "yaxis": f"y{axis}",
                    "customdata": text,
                    "hovertemplate": "%{customdata}<br>%{y:.3f} M<extra></extra>",
                }
            )
    lay = layout(
        title="",
        x=x_title,
        y=y_titles[0],
        height=360,
        xaxis={"domain": [0, 0.46], "dtick": 2},
        yaxis={"anchor": "x"},
    )
    lay["xaxis2"] = {**lay["xaxis"], "domain": [0.56, 1], "anchor": "y2"}
    lay["yaxis2"] = {**lay["yaxis"], "anchor": "x2", "title": {"text": y_titles[1]}}
    lay["annotations"] = panel_titles(titles, [0, 0.56], 13)
    lay["margin"] = {"l": 60, "r": 15, "t": 80, "b": 48}
    lay["legend"] = {
        "orientation": "h",
        "yanchor": "bottom",
        "y": 1.09,
        "x": 1.0,
        "xanchor": "right",
    }
    lay["bargap"] = 0.15
    return figure(data, lay)


def _blocks(K: np.ndarray, gap: int = 1) -> np.ndarray:
    """(R, C, k, k) → (R·(k+gap) − gap, C·(k+gap) − gap) with NaN gaps between the blocks."""
    R, C, k, _ = K.shape
    out = np.full((R * (k + gap) - gap, C * (k + gap) - gap), np.nan)
    for r in range(R):
        for c in range(C):
            out[r * (k + gap) : r * (k + gap) + k, c * (k + gap) : c * (k + gap) + k] = K[r, c]
    return out


def kernels_figure(
    depthwise: np.ndarray,
    pointwise: np.ndarray,
    standard: np.ndarray,
    *,
    titles: tuple[str, str, str],
    hovers: tuple[str, str, str],
) -> go.Figure:
    """The depthwise kernels D (M, k, k), the pointwise weights P (N, M) and the standard
    kernel they equal, K[n, m] = P[n, m]·D[m] (N, M, k, k), as three heatmaps (one colour
    scale, 0 white). Traces: [0] D, [1] P, [2] K."""
    M, k, _ = depthwise.shape
    N = pointwise.shape[0]
    zmax = float(max(np.abs(depthwise).max(), np.abs(pointwise).max(), np.abs(standard).max()))
    panels = [_blocks(depthwise[None]), pointwise, _blocks(standard)]
    widths = [M * (k + 1) - 1, M, M * (k + 1) - 1]
    heights = [k, N, N * (k + 1) - 1]
    domains = [[0, 0.36], [0.42, 0.58], [0.64, 1.0]]
    lay = layout(title="", x="", y="", height=380)
    lay["margin"] = {"l": 10, "r": 10, "t": 36, "b": 10}
    data = []
    for i, (z, w, h) in enumerate(zip(panels, widths, heights, strict=True)):
        sfx = "" if i == 0 else str(i + 1)
        lay[f"xaxis{sfx}"] = _blank_axis(
            domain=domains[i], anchor=f"y{sfx}", range=[-0.5, w - 0.5], constrain="domain"
        )
        lay[f"yaxis{sfx}"] = _blank_axis(
            domain=[0, 1],
            anchor=f"x{sfx}",
            range=[h - 0.5, -0.5],
            scaleanchor=f"x{sfx}",
            constrain="domain",
        )
        data.append(
            {
                "type": "heatmap",
                "z": _list(z, 5),
                "xaxis": f"x{sfx}",
                "yaxis": f"y{sfx}",
                "colorscale": DIVERGING,
                "zmin": -zmax,
                "zmax": zmax,
                "zmid": 0,
                "showscale": i == 2,
                "hoverongaps": False,
                "xgap": 0.5,
                "ygap": 0.5,
                "hovertemplate": hovers[i] + "<extra></extra>",
                "colorbar": {"len": 0.8, "thickness": 12},
            }
        )
    lay["annotations"] = panel_titles(titles, [d[0] for d in domains], 13)
    lay["showlegend"] = False
    return figure(data, lay)


def timing_figure(
    labels: Sequence[str],
    flop_ratio: np.ndarray,
    time_ratio: np.ndarray,
    rates: np.ndarray,
    *,
    titles: tuple[str, str],
    y_titles: tuple[str, str],
    names: tuple[str, str],
    rate_names: tuple[str, str, str],
) -> go.Figure:
    """Per layer shape: separable / standard by mult-adds and by measured time (left), and
    the measured rate (G mult-adds per second) of the standard, depthwise and pointwise
    convolution (right; ``rates`` (3, shapes)).
    Traces: [0] mult-add ratio, [1] time ratio, [2–4] the three rates."""
    data = []
    for name, y, colour in zip(names, (flop_ratio, time_ratio), (SKY, VERMILLION), strict=True):
        data.append(
            {
                "type": "bar",
                "x": list(labels),
                "y": _list(y, 5),
                "name": name,
                "marker": {"color": colour},
                "hovertemplate": "%{x}<br>%{y:.3f}<extra>" + name + "</extra>",
            }
        )
    for name, y, colour in zip(rate_names, rates, (GREY, ORANGE, BLUE), strict=True):
        data.append(
            {
                "type": "bar",
                "x": list(labels),
                "y": _list(y, 4),
                "name": name,
                "marker": {"color": colour},
                "xaxis": "x2",
                "yaxis": "y2",
                "hovertemplate": f"%{{x}}<br>%{{y:.2f}} G/s<extra>{name}</extra>",
            }
        )
    lay = layout(
        title="",
        x="",
        y=y_titles[0],
        height=400,
        xaxis={"domain": [0, 0.44]},
        yaxis={"anchor": "x", "rangemode": "tozero"},
    )
    lay["xaxis2"] = {**lay["xaxis"], "domain": [0.56, 1], "anchor": "y2"}
    lay["yaxis2"] = {**lay["yaxis"], "anchor": "x2", "title": {"text": y_titles[1]}}
    lay["annotations"] = panel_titles(titles, [0, 0.56], 13)
    lay["margin"] = {"l": 60, "r": 15, "t": 100, "b": 60}
    lay["legend"] = {"orientation": "h", "yanchor": "bottom", "y": 1.1, "x": 0.0, "xanchor": "left"}
    return figure(data, lay)


# ---- sub-pixel convolution -----------------------------------------------------------------


def png_data_uri(rgb: np.ndarray) -> str:
    """An (H, W, 3) uint8 image as a lossless PNG data URI (JPEG would add its own blocks)."""
    buf = io.BytesIO()
    Image.fromarray(np.asarray(rgb, dtype=np.uint8)).save(buf, "PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _hues(n: int) -> list[str]:
    """n distinguishable colours: the palette, then evenly spaced hues."""
    if n <= len(PALETTE):
        return list(PALETTE[:n])
    return [f"hsl({round(360 * k / n)}, 65%, 55%)" for k in range(n)]


def _square_axes(
    lay: dict[str, Any], sfx: str, domain: Sequence[float], width: int, height: int
) -> None:
    lay[f"xaxis{sfx}"] = _blank_axis(
        domain=list(domain), anchor=f"y{sfx}", range=[-0.5, width - 0.5], constrain="domain"
    )
    lay[f"yaxis{sfx}"] = _blank_axis(
        domain=[0, 1],
        anchor=f"x{sfx}",
        range=[height - 0.5, -0.5],
        scaleanchor=f"x{sfx}",
        constrain="domain",
    )


def shuffle_figure(
    source: np.ndarray,
    r: int,
    selected: tuple[int, int],
    *,
    titles: tuple[str, str],
    hovers: tuple[str, str],
) -> go.Figure:
    """The periodic shuffle on a small grid, for one output channel.

    ``source``: (H·r, W·r, 3) ints, for each output pixel its source (channel k of the
    channel's r² inputs, row h, column w), as ``core.convolution.pixel_shuffle`` moves them.
    Left: the r² input channels (each H×W) in an r×r arrangement with gaps, cell colour =
    channel, text "h,w". Right: the output, each pixel in its source channel's colour and
    text. ``hovers`` use %{customdata[0]} (channel), [1] (h), [2] (w). ``selected`` (Y, X):
    an output pixel, outlined on the right and at its source on the left.
    Traces: [0] inputs heatmap, [1] output heatmap, [2] source outline, [3] output outline.
    """
    Hr, Wr, _ = source.shape
    H, W = Hr // r, Wr // r
    k, h, w = source[..., 0], source[..., 1], source[..., 2]
    # inputs: channel k = i·r + j drawn at block (i, j); its pixel (h, w) inside the block
    grid = np.full((r * (H + 1) - 1, r * (W + 1) - 1, 3), -1)
    for Y in range(Hr):
        for X in range(Wr):
            i, j = divmod(int(k[Y, X]), r)
            grid[i * (H + 1) + h[Y, X], j * (W + 1) + w[Y, X]] = source[Y, X]
    n = r * r
    colours = _hues(n)
    scale = [stop for c in range(n) for stop in ([c / n, colours[c]], [(c + 1) / n, colours[c]])]
    lay = layout(title="", x="", y="", height=380)
    lay["margin"] = {"l": 10, "r": 10, "t": 36, "b": 10}
    lay["showlegend"] = False
    data = []
    for sfx, z, domain, hover in (
        ("", grid, (0, 0.46), hovers[0]),
        ("2", source, (0.54, 1.0), hovers[1]),
    ):
        channel = np.where(z[..., 0] < 0, np.nan, z[..., 0]).astype(float)
        text = np.where(
            z[..., 0] < 0,
            "",
            np.char.add(np.char.add(z[..., 1].astype(str), ","), z[..., 2].astype(str)),
        )
        data.append(
            {
                "type": "heatmap",
                "z": _list(channel, 0),
                "text": text.tolist(),
                "texttemplate": "%{text}",
                "textfont": {"size": 11, "color": "white"},
                "customdata": z.tolist(),
                "colorscale": scale,
                "zmin": -0.5,
                "zmax": n - 0.5,
                "showscale": False,
                "xgap": 1,
                "ygap": 1,
                "hoverongaps": False,
                "xaxis": f"x{sfx}",
                "yaxis": f"y{sfx}",
                "hovertemplate": hover + "<extra></extra>",
            }
        )
        _square_axes(lay, sfx, domain, z.shape[1], z.shape[0])
    Y, X = selected
    i, j = divmod(int(k[Y, X]), r)
    spots = ((i * (H + 1) + int(h[Y, X]), j * (W + 1) + int(w[Y, X]), ""), (Y, X, "2"))
    for row, col, sfx in spots:
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": [col],
                "y": [row],
                "xaxis": f"x{sfx}",
                "yaxis": f"y{sfx}",
                "hoverinfo": "skip",
                "marker": {
                    "symbol": "square-open",
                    "size": 26,
                    "color": "black",
                    "line": {"width": 3},
                },
            }
        )
    lay["annotations"] = panel_titles(titles, [0, 0.54], 13)
    return figure(data, lay)


def kernel_interleave_figure(
    w: np.ndarray,
    T: np.ndarray,
    r: int,
    *,
    titles: tuple[str, str],
    hovers: tuple[str, str],
) -> go.Figure:
    """The r² sub-pixel filters (r², k, k) of one input/output channel, in an r×r arrangement,
    and the transposed kernel (r·k, r·k) that interleaves them (one diverging colour scale).
    Traces: [0] filters, [1] transposed kernel."""
    _, k, _ = w.shape
    tiled = _blocks(w.reshape(r, r, k, k))
    zmax = float(np.abs(w).max()) or 1.0
    lay = layout(title="", x="", y="", height=340)
    lay["margin"] = {"l": 10, "r": 10, "t": 36, "b": 10}
    lay["showlegend"] = False
    data = []
    for i, (z, domain) in enumerate(((tiled, (0, 0.44)), (T, (0.52, 0.96)))):
        sfx = "" if i == 0 else "2"
        data.append(
            {
                "type": "heatmap",
                "z": _list(z, 5),
                "colorscale": DIVERGING,
                "zmin": -zmax,
                "zmax": zmax,
                "zmid": 0,
                "showscale": i == 1,
                "hoverongaps": False,
                "xgap": 1,
                "ygap": 1,
                "xaxis": f"x{sfx}",
                "yaxis": f"y{sfx}",
                "hovertemplate": hovers[i] + "<extra></extra>",
                "colorbar": {"len": 0.8, "thickness": 12},
            }
        )
        _square_axes(lay, sfx, domain, z.shape[1], z.shape[0])
    lay["annotations"] = panel_titles(titles, [0, 0.52], 13)
    return figure(data, lay)


def upsampled_figure(images: Sequence[np.ndarray], *, titles: Sequence[str]) -> go.Figure:
    """Images side by side (each (S, S, 3) uint8, drawn pixel for pixel, no smoothing), one
    lossless PNG each. Traces: one image per panel."""
    n = len(images)
    gap = 0.02
    width = (1 - gap * (n - 1)) / n
    lay = layout(title="", x="", y="", height=330)
    lay["margin"] = {"l": 5, "r": 5, "t": 40, "b": 5}
    lay["showlegend"] = False
    data = []
    for i, (image, title) in enumerate(zip(images, titles, strict=True)):
        sfx = "" if i == 0 else str(i + 1)
        side = image.shape[0]
        data.append(
            {
                "type": "image",
                "source": png_data_uri(image),
                "xaxis": f"x{sfx}",
                "yaxis": f"y{sfx}",
                "name": title,
                "hovertemplate": f"{title}<br>(%{{y}}, %{{x}})<extra></extra>",
            }
        )
        lo = i * (width + gap)
        lay[f"xaxis{sfx}"] = _blank_axis(
            domain=[lo, lo + width],
            anchor=f"y{sfx}",
            range=[-0.5, image.shape[1] - 0.5],
            constrain="domain",
        )
        lay[f"yaxis{sfx}"] = _blank_axis(
            domain=[0, 1],
            anchor=f"x{sfx}",
            range=[side - 0.5, -0.5],
            scaleanchor=f"x{sfx}",
            constrain="domain",
        )
    lay["annotations"] = panel_titles(titles, [i * (width + gap) for i in range(n)], 12)
    return figure(data, lay)


def phases_figure(
    names: Sequence[str], spreads: np.ndarray, *, title: str, y_title: str
) -> go.Figure:
    """Checkerboard strength on a flat grey image, one bar per upsampler (log scale would hide
    the exact zeros, so linear). Traces: [0] bars."""
    data = [
        {
            "type": "bar",
            "x": list(names),
            "y": _list(spreads, 6),
            "marker": {"color": [VERMILLION if s > 1e-9 else GREEN for s in spreads]},
            "hovertemplate": "%{x}: %{y:.4f}<extra></extra>",
        }
    ]
    return figure(
        data, layout(title=title, x="", y=y_title, height=300, yaxis={"rangemode": "tozero"})
    )
