"""Figures of the SimCLR page: arrays in, ``go.Figure`` out (plain dict specs).

Views are numbered 1 … 2N as in the paper: view i and view i + N are the two views of
image i (labels ``1 … N`` and ``1′ … N′``). Layouts depend only on N (chosen outside the
page's fragments), never on the slider a fragment moves: the outlined row, the current τ and
the current step are traces. Images travel as small PNG data URIs, one mosaic per figure.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray
from PIL import Image

from figures.style import BLUE, GREY, ORANGE, VERMILLION, figure, layout, panel_titles

Array = NDArray[np.float64]
TILE = 64  # pixels of a tile in the mosaic of the views figure
GAP = 4  # white pixels between tiles
DIVERGING = [[0.0, "#2166AC"], [0.5, "#F7F7F7"], [1.0, "#B2182B"]]  # −1 blue … +1 red
STEP_COLUMN = "rgba(230, 159, 0, 0.45)"  # ORANGE, see through: the curves stay on top
CURRENT = {"size": 12, "color": ORANGE, "symbol": "circle", "line": {"color": "black", "width": 1}}
POSITIVE_MARK = {"symbol": "circle-open", "size": 13, "color": "black", "line": {"width": 2.5}}
OUTLINE = {"color": ORANGE, "width": 3}


def _list(x: Any, digits: int = 4) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def view_labels(n: int) -> list[str]:
    """``1 … N, 1′ … N′``: view i and view i + N are the two views of image i."""
    return [str(k + 1) for k in range(n)] + [f"{k + 1}′" for k in range(n)]


def png_data_uri(image: Array) -> str:
    """An (H, W, 3) image in [0, 1] as a ``data:image/png;base64,...`` URI."""
    buf = io.BytesIO()
    pixels = np.clip(np.rint(np.asarray(image) * 255), 0, 255).astype(np.uint8)
    Image.fromarray(pixels).save(buf, "PNG", compress_level=1)  # fast; optimize=True: ~0.2 s
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _tile(image: Array) -> Array:
    """An image enlarged (nearest pixel) to TILE × TILE: a 32² view shows its real pixels."""
    S = image.shape[0]
    k = TILE // S
    big = np.repeat(np.repeat(image, k, axis=0), k, axis=1) if k > 1 else image
    return big[:TILE, :TILE]


def mosaic(rows: Sequence[Sequence[Array]]) -> Array:
    """Rows of images as one picture, tiles TILE² apart by GAP white pixels."""
    R, C = len(rows), len(rows[0])
    out = np.ones((R * TILE + (R - 1) * GAP, C * TILE + (C - 1) * GAP, 3))
    for r, row in enumerate(rows):
        for c, image in enumerate(row):
            y, x = r * (TILE + GAP), c * (TILE + GAP)
            out[y : y + TILE, x : x + TILE] = _tile(image)
    return out


def _boxes(
    boxes: Sequence[tuple[float, float, float, float]], source_side: int
) -> tuple[list, list]:
    """Crop boxes (top, left, h, w) in source pixels as one closed line per tile of row 0."""
    xs: list = []
    ys: list = []
    scale = TILE / source_side
    for c, (top, left, h, w) in enumerate(boxes):
        x0 = c * (TILE + GAP) + left * scale - 0.5
        y0 = top * scale - 0.5
        x1, y1 = x0 + w * scale, y0 + h * scale
        x0, x1, y0, y1 = (round(float(v), 2) for v in (x0, x1, y0, y1))
        xs += [x0, x1, x1, x0, x0, None]  # None: a gap between two boxes
        ys += [y0, y0, y1, y1, y0, None]
    return xs, ys


def views_figure(
    originals: Array,
    views: Array,
    boxes: Sequence[tuple[float, float, float, float]],
    *,
    title: str,
    row_titles: tuple[str, str, str],
    names: tuple[str, str],
    height: int = 360,
) -> go.Figure:
    """The batch and its two views: row 0 the N images with both crop boxes drawn on them,
    row 1 views 1 … N, row 2 views 1′ … N′ (what the encoder sees).

    Args:
        originals: (N, H, H, 3) the images in [0, 1].
        views: (2N, S, S, 3) the views; rows i and i + N come from image i.
        boxes: the 2N crop boxes (top, left, height, width) in pixels of the originals.

    Traces: [0] the mosaic (image), [1] the crop boxes of view i, [2] those of view i + N.
    """
    N = originals.shape[0]
    pic = mosaic([list(originals), list(views[:N]), list(views[N:])])
    Hm, Wm = pic.shape[:2]
    lay = layout(title=f"<b>{title}</b>", x="", y="", height=height)
    centres = [c * (TILE + GAP) + TILE / 2 for c in range(3)]
    lay["xaxis"] = {
        "range": [-0.5, Wm - 0.5],
        "showgrid": False,
        "zeroline": False,
        "showline": False,
        "ticks": "",
        "constrain": "domain",
        "tickmode": "array",
        "tickvals": [c * (TILE + GAP) + TILE / 2 for c in range(N)],
        "ticktext": [str(k + 1) for k in range(N)],
        "side": "top",
    }
    lay["yaxis"] = {
        "range": [Hm - 0.5, -0.5],
        "showgrid": False,
        "zeroline": False,
        "showline": False,
        "ticks": "",
        "scaleanchor": "x",
        "constrain": "domain",
        "showticklabels": False,
    }
    lay["annotations"] = [
        {
            "text": text,
            "x": -0.01,
            "y": y,
            "xref": "x domain",
            "yref": "y",
            "xanchor": "right",
            "showarrow": False,
            "font": {"size": 13},
        }
        for text, y in zip(row_titles, centres, strict=True)
    ]
    lay["margin"] = {"l": 10, "r": 10, "t": 64, "b": 36}
    lay["legend"] = {"orientation": "h", "x": 0.0, "xanchor": "left", "y": 0.0, "yanchor": "top"}
    size = originals.shape[1]
    xs1, ys1 = _boxes(boxes[:N], size)
    xs2, ys2 = _boxes(boxes[N:], size)
    data = [
        {
            "type": "image",
            "source": png_data_uri(pic),
            "name": title,
            "hovertemplate": "(%{x}, %{y})<extra></extra>",
        },
        {
            "type": "scatter",
            "x": xs1,
            "y": ys1,
            "mode": "lines",
            "name": names[0],
            "line": {"color": BLUE, "width": 2.5},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": xs2,
            "y": ys2,
            "mode": "lines",
            "name": names[1],
            "line": {"color": ORANGE, "width": 2.5, "dash": "dot"},
            "hoverinfo": "skip",
        },
    ]
    return figure(data, lay)


def _view_axis(two_n: int) -> dict[str, Any]:
    """An axis of the 2N views, labelled 1 … N, 1′ … N′."""
    return {
        "showgrid": False,
        "zeroline": False,
        "showline": False,
        "ticks": "",
        "tickmode": "array",
        "tickvals": list(range(two_n)),
        "ticktext": view_labels(two_n // 2),
        "tickfont": {"size": 11},
    }


def similarity_figure(
    similarity: Array,
    anchor: int,
    *,
    title: str,
    axis_titles: tuple[str, str],
    name: str,
    colorbar_title: str,
    height: int = 460,
) -> go.Figure:
    """The 2N × 2N cosine similarities, positives circled, the anchor's row outlined (the
    anchor's softmax is :func:`anchor_figure`, beside it).

    Args:
        similarity: (2N, 2N) sim(zᵢ, z_k).
        anchor: 0-based row i.
        axis_titles: (views k, anchors i).
        name: the positive pairs' legend entry.

    Traces: [0] heatmap, [1] positive pairs (open circles), [2] the anchor row's outline.
    """
    two_n = similarity.shape[0]
    N = two_n // 2
    labels = view_labels(N)
    pos = (np.arange(two_n) + N) % two_n
    lay = layout(title=title, x="", y="", height=height)
    lay["xaxis"] = {
        **_view_axis(two_n),
        "range": [-0.5, two_n - 0.5],
        "title": {"text": axis_titles[0]},
    }
    lay["yaxis"] = {
        **_view_axis(two_n),
        "range": [two_n - 0.5, -0.5],
        "scaleanchor": "x",
        "title": {"text": axis_titles[1]},
    }
    lay["margin"] = {"l": 60, "r": 10, "t": 50, "b": 90}
    lay["legend"] = {"orientation": "h", "x": 0.0, "y": -0.2, "yanchor": "top"}
    i = int(anchor)
    data = [
        {
            "type": "heatmap",
            "z": _list(similarity, 3),
            "x": list(range(two_n)),
            "y": list(range(two_n)),
            "zmin": -1,
            "zmax": 1,
            "colorscale": DIVERGING,
            "colorbar": {"title": {"text": colorbar_title, "side": "right"}, "thickness": 12},
            "customdata": [[[labels[r], labels[c]] for c in range(two_n)] for r in range(two_n)],
            "hovertemplate": "sim(z%{customdata[0]}, z%{customdata[1]}) = %{z:.3f}<extra></extra>",
            "showlegend": False,
        },
        {
            "type": "scatter",
            "x": pos.tolist(),
            "y": list(range(two_n)),
            "mode": "markers",
            "marker": POSITIVE_MARK,
            "name": name,
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": [-0.5, two_n - 0.5, two_n - 0.5, -0.5, -0.5],
            "y": [i - 0.5, i - 0.5, i + 0.5, i + 0.5, i - 0.5],
            "mode": "lines",
            "line": {**OUTLINE, "dash": "solid"},
            "hoverinfo": "skip",
            "showlegend": False,
        },
    ]
    return figure(data, lay)


def anchor_traces(probs_row: Array, anchor: int) -> dict[int, dict[str, list]]:
    """What :func:`anchor_figure` draws of ``anchor``, by trace index: [0] the positive's
    bar, [1] the 2N − 2 negatives' bars (the anchor itself has none). Only x and y depend
    on the anchor, on fixed axes, so a live step moves the bars (``ui.live``)."""
    two_n = len(probs_row)
    i, j = int(anchor), (int(anchor) + two_n // 2) % two_n
    rest = [k for k in range(two_n) if k not in (i, j)]
    return {
        0: {"x": [j], "y": _list([probs_row[j]])},
        1: {"x": rest, "y": _list([probs_row[k] for k in rest])},
    }


def anchor_figure(
    probs_row: Array,
    anchor: int,
    *,
    title: str,
    axis_titles: tuple[str, str],
    names: tuple[str, str],
    height: int = 400,
) -> go.Figure:
    """One anchor's softmax over the 2N − 1 other views, the positive in its own colour.

    Args:
        probs_row: (2N,) the anchor's softmax (0 at the anchor itself).
        anchor: 0-based row i.
        axis_titles: (views k, probability).
        names: (positive, negatives).

    Traces (:func:`anchor_traces`): [0] the positive's bar, [1] the negatives' bars.
    """
    two_n = len(probs_row)
    lay = layout(title=title, x="", y="", height=height)
    lay["xaxis"] = {
        **_view_axis(two_n),
        "range": [-0.6, two_n - 0.4],
        "title": {"text": axis_titles[0]},
    }
    lay["yaxis"] = {
        "range": [0, 1.05],
        "showgrid": True,
        "gridcolor": "#E5E5E5",
        "title": {"text": axis_titles[1]},
    }
    lay["margin"] = {"l": 60, "r": 10, "t": 50, "b": 90}
    lay["legend"] = {"orientation": "h", "x": 1.0, "xanchor": "right", "y": -0.2, "yanchor": "top"}
    bars = anchor_traces(probs_row, anchor)
    data = [
        {
            "type": "bar",
            **bars[0],
            "name": names[0],
            "marker": {"color": VERMILLION},
            "hovertemplate": f"p = %{{y:.4f}}<extra>{names[0]}</extra>",
        },
        {
            "type": "bar",
            **bars[1],
            "name": names[1],
            "marker": {"color": GREY, "pattern": {"shape": "/"}},
            "hovertemplate": "p = %{y:.4f}<extra></extra>",
        },
    ]
    return figure(data, lay)


def temperature_figure(
    taus: Array,
    losses: Array,
    tau: float,
    loss: float,
    chance: float,
    bound: Array,
    ns: Sequence[int],
    losses_n: Array,
    chance_n: Array,
    bound_n: Array,
    n: int,
    y_max: float,
    *,
    titles: tuple[str, str],
    x_titles: tuple[str, str],
    y_title: str,
    names: tuple[str, str, str, str],
    height: int = 380,
) -> go.Figure:
    """Left: L(τ) of today's embeddings, the chance level ln(2N − 1) and the smallest possible
    loss. Right: the same three against the batch size N at today's τ.

    Args:
        taus, losses, bound: the τ grid, L at each τ, the lower bound at each τ.
        ns, losses_n, chance_n, bound_n: batch sizes and the three curves at the current τ.
        y_max: the top of both loss axes (the same for every τ).
        names: (this batch, ln(2N − 1), smallest possible, current).

    Traces: [0] L(τ), [1] bound(τ), [2] chance (constant line), [3] current τ marker,
    [4] L(N), [5] bound(N), [6] chance(N), [7] current N marker.
    """
    lay = layout(
        title="",
        x=x_titles[0],
        y=y_title,
        height=height,
        xaxis={"type": "log", "domain": [0.0, 0.45]},
    )
    lay["yaxis"]["range"] = [0, y_max]  # fixed by the page: the layout never moves with τ
    lay["xaxis2"] = {
        **lay["xaxis"],
        "type": "linear",
        "domain": [0.57, 1.0],
        "anchor": "y2",
        "title": {"text": x_titles[1]},
        "dtick": 1,
    }
    lay["yaxis2"] = {**lay["yaxis"], "anchor": "x2", "title": {"text": ""}}
    lay["annotations"] = panel_titles(titles, [0.0, 0.57], 13)
    lay["margin"] = {"l": 60, "r": 15, "t": 80, "b": 48}
    lay["legend"] = {
        "orientation": "h",
        "x": 1.0,
        "xanchor": "right",
        "y": 1.13,
        "yanchor": "bottom",
    }
    line = {"mode": "lines"}
    data = [
        {
            **line,
            "type": "scatter",
            "x": _list(taus, 5),
            "y": _list(losses),
            "name": names[0],
            "line": {"color": BLUE, "width": 2.5, "dash": "solid"},
            "legendgroup": "a",
            "hovertemplate": "τ = %{x:.3g}: L = %{y:.4f}<extra></extra>",
        },
        {
            **line,
            "type": "scatter",
            "x": _list(taus, 5),
            "y": _list(bound),
            "name": names[2],
            "line": {"color": GREY, "dash": "dot"},
            "legendgroup": "b",
            "hovertemplate": "τ = %{x:.3g}: %{y:.4f}<extra></extra>",
        },
        {
            **line,
            "type": "scatter",
            "x": [float(taus[0]), float(taus[-1])],
            "y": [chance, chance],
            "name": names[1],
            "line": {"color": VERMILLION, "dash": "dash"},
            "legendgroup": "c",
            "hovertemplate": "ln(2N − 1) = %{y:.4f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [tau],
            "y": [round(loss, 4)],
            "mode": "markers",
            "marker": CURRENT,
            "name": names[3],
            "legendgroup": "d",
            "hovertemplate": "τ = %{x:.3g}: L = %{y:.4f}<extra></extra>",
        },
        {
            **line,
            "type": "scatter",
            "x": list(ns),
            "y": _list(losses_n),
            "xaxis": "x2",
            "yaxis": "y2",
            "mode": "lines+markers",
            "line": {"color": BLUE, "width": 2.5, "dash": "solid"},
            "marker": {"color": BLUE},
            "legendgroup": "a",
            "showlegend": False,
            "hovertemplate": "N = %{x}: L = %{y:.4f}<extra></extra>",
        },
        {
            **line,
            "type": "scatter",
            "x": list(ns),
            "y": _list(bound_n),
            "xaxis": "x2",
            "yaxis": "y2",
            "line": {"color": GREY, "dash": "dot"},
            "legendgroup": "b",
            "showlegend": False,
            "hovertemplate": "N = %{x}: %{y:.4f}<extra></extra>",
        },
        {
            **line,
            "type": "scatter",
            "x": list(ns),
            "y": _list(chance_n),
            "xaxis": "x2",
            "yaxis": "y2",
            "line": {"color": VERMILLION, "dash": "dash"},
            "legendgroup": "c",
            "showlegend": False,
            "hovertemplate": "N = %{x}: ln(2N − 1) = %{y:.4f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [n],
            "y": [round(float(losses_n[list(ns).index(n)]), 4)],
            "xaxis": "x2",
            "yaxis": "y2",
            "mode": "markers",
            "marker": CURRENT,
            "legendgroup": "d",
            "showlegend": False,
            "hovertemplate": "N = %{x}: L = %{y:.4f}<extra></extra>",
        },
    ]
    return figure(data, lay)


def training_step_traces(fixed_losses: Array, now: Array, step: int) -> dict[int, dict]:
    """What :func:`training_figure` draws of ``step`` alone, by trace index: [4] the step's
    column of the loss panel (one row: 1 at ``step``, 0 elsewhere), [6] the similarities
    after ``step`` steps. Both are heatmaps' values on a fixed colour range, so a live step
    repaints them alone (``ui.live``)."""
    cursor = np.zeros((1, len(fixed_losses)))
    cursor[0, step] = 1
    return {4: {"z": cursor.astype(int).tolist()}, 6: {"z": _list(now, 3)}}


def training_figure(
    losses: Array,
    fixed_losses: Array,
    step: int,
    chance: float,
    bound: float,
    before: Array,
    now: Array,
    *,
    titles: tuple[str, str, str],
    x_title: str,
    y_title: str,
    names: tuple[str, str, str, str],
    colorbar_title: str,
    height: int = 430,
) -> go.Figure:
    """Left: the loss at every step (each step's fresh views, and the fixed views), the chance
    level and the smallest possible loss, the current step marked. Middle and right: the
    fixed views' similarities before training and after ``step`` steps.

    Traces: [0] step losses, [1] fixed-view losses, [2] chance, [3] bound, [4] the step's
    column (a one-row heatmap), [5] similarities before, [6] similarities at the step, [7] [8]
    positives circled.
    """
    steps = len(losses)
    two_n = before.shape[0]
    N = two_n // 2
    lay = layout(
        title="",
        x=x_title,
        y=y_title,
        height=height,
        xaxis={"domain": [0.0, 0.36], "range": [-1, steps + 1]},
    )
    top = float(max(np.max(losses), np.max(fixed_losses), chance)) * 1.08
    lay["yaxis"]["range"] = [0, top]
    axis = {**_view_axis(two_n), "tickfont": {"size": 10}, "range": [-0.5, two_n - 0.5]}
    lay["xaxis2"] = {**axis, "domain": [0.44, 0.68], "anchor": "y2"}
    lay["yaxis2"] = {**axis, "anchor": "x2", "range": [two_n - 0.5, -0.5], "scaleanchor": "x2"}
    lay["xaxis3"] = {**axis, "domain": [0.74, 0.98], "anchor": "y3"}
    lay["yaxis3"] = {
        **axis,
        "anchor": "x3",
        "range": [two_n - 0.5, -0.5],
        "scaleanchor": "x3",
        "showticklabels": False,
    }
    lay["annotations"] = panel_titles(titles, [0.0, 0.44, 0.74], 13)
    lay["margin"] = {"l": 60, "r": 10, "t": 70, "b": 100}
    lay["legend"] = {"orientation": "h", "x": 0.0, "xanchor": "left", "y": -0.25, "yanchor": "top"}
    x = list(range(steps + 1))
    pos = (np.arange(two_n) + N) % two_n
    moved = training_step_traces(fixed_losses, now, step)
    heat = {
        "type": "heatmap",
        "zmin": -1,
        "zmax": 1,
        "colorscale": DIVERGING,
        "showscale": False,
        "hovertemplate": "%{y}, %{x}: %{z:.3f}<extra></extra>",
    }
    data = [
        {
            "type": "scatter",
            "x": list(range(1, steps + 1)),
            "y": _list(losses),
            "mode": "lines",
            "name": names[0],
            "line": {"color": GREY, "width": 1.5, "dash": "solid"},
            "hovertemplate": "step %{x}: L = %{y:.4f}<extra></extra>",
        },
        _fixed_loss_trace(x, fixed_losses, names[1]),
        _chance_trace(steps, chance, names[2]),
        {
            "type": "scatter",
            "x": [0, steps],
            "y": [bound, bound],
            "mode": "lines",
            "name": names[3],
            "line": {"color": GREY, "dash": "dot"},
            "hovertemplate": "%{y:.4f}<extra></extra>",
        },
        {  # the step's column, behind the curves
            "type": "heatmap",
            **moved[4],
            "x": x,
            "y0": top / 2,
            "dy": top,
            "zmin": 0,
            "zmax": 1,
            "colorscale": [[0, "rgba(0, 0, 0, 0)"], [1, STEP_COLUMN]],
            "showscale": False,
            "hoverinfo": "skip",
        },
        {**heat, "z": _list(before, 3), "xaxis": "x2", "yaxis": "y2"},
        {
            **heat,
            **moved[6],
            "xaxis": "x3",
            "yaxis": "y3",
            "showscale": True,
            "colorbar": {
                "title": {"text": colorbar_title, "side": "right"},
                "x": 1.0,
                "thickness": 12,
                "len": 0.8,
            },
        },
        {
            "type": "scatter",
            "x": pos.tolist(),
            "y": list(range(two_n)),
            "mode": "markers",
            "marker": {**POSITIVE_MARK, "size": 9, "line": {"width": 2}},
            "xaxis": "x2",
            "yaxis": "y2",
            "showlegend": False,
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": pos.tolist(),
            "y": list(range(two_n)),
            "mode": "markers",
            "marker": {**POSITIVE_MARK, "size": 9, "line": {"width": 2}},
            "xaxis": "x3",
            "yaxis": "y3",
            "showlegend": False,
            "hoverinfo": "skip",
        },
    ]
    return figure(data, lay)


def progress_figure(
    fixed_losses: Array,
    steps: int,
    chance: float,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str],
    height: int = 260,
) -> go.Figure:
    """The fixed views' loss so far while a run trains (``fixed_losses``: (k + 1,) for steps
    0 … k), against the whole run's step axis 0 … ``steps`` and the chance level.

    Traces: [0] the loss so far, [1] chance ln(2N − 1).
    """
    losses = np.asarray(fixed_losses, dtype=float)
    top = float(max(np.max(losses), chance)) * 1.08
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=height,
        xaxis={"range": [0, steps]},
        yaxis={"range": [0, top]},
    )
    data = [
        _fixed_loss_trace(list(range(len(losses))), losses, names[0]),
        _chance_trace(steps, chance, names[1]),
    ]
    return figure(data, lay)


def _fixed_loss_trace(x: Any, losses: Array, name: str) -> dict[str, Any]:
    """The loss of the fixed draw of views, step by step (the training and progress charts)."""
    return {
        "type": "scatter",
        "x": x,
        "y": _list(losses),
        "mode": "lines",
        "name": name,
        "line": {"color": BLUE, "width": 3, "dash": "solid"},
        "hovertemplate": "step %{x}: L = %{y:.4f}<extra></extra>",
    }


def _chance_trace(steps: int, chance: float, name: str) -> dict[str, Any]:
    """Chance level ln(2N − 1) across the run's steps 0 … ``steps``."""
    return {
        "type": "scatter",
        "x": [0, steps],
        "y": [chance, chance],
        "mode": "lines",
        "name": name,
        "line": {"color": VERMILLION, "dash": "dash"},
        "hovertemplate": "ln(2N − 1) = %{y:.4f}<extra></extra>",
    }
