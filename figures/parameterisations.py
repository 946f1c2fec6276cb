"""Figures of the parameterisation page: arrays in, ``go.Figure`` out.

- :func:`rotation_figure`: one coordinate's (x₀, ε) as a point of the plane; x_t and v are
  its coordinates in the frame turned by φ (cos φ = √ᾱ_t), beside the weight that training
  on ε, v or the score puts on the x₀ error at each t.
- :func:`snr_figure`: log-SNR against t/T for several schedules.
- :func:`weights_figure`: the x₀-loss weight of each prediction against t, with the ratios
  measured on a batch.
- :func:`leak_figure`: an image, its x_T, both averaged over b × b blocks, and how well the
  block means of x_T still predict those of x₀, against b, per schedule.

Layouts do not depend on the slider a figure follows (only trace data changes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.diffusion import jpeg_data_uri
from figures.style import (
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    PALETTE,
    PURPLE,
    VERMILLION,
    figure,
    layout,
    panel_titles,
)

Array = NDArray[np.float64]
PREDICTION_COLOURS = {"eps": BLUE, "x0": GREEN, "v": ORANGE, "score": PURPLE}
R = 3.2  # the plane shows [−R, R]²


def _list(x: Any, digits: int = 4) -> list:
    return [
        None if not math.isfinite(v) else round(v, digits)
        for v in np.asarray(x, dtype=float).ravel().tolist()
    ]


def rotation_figure(
    x0: float,
    eps: float,
    phi: float,
    t: int,
    steps: Array,
    weights: dict[str, Array],
    *,
    titles: tuple[str, str],
    axis_titles: tuple[str, str, str, str],
    names: dict[str, str],
    weight_names: dict[str, str],
    height: int = 460,
) -> go.Figure:
    """(x₀, ε) in the plane with the x_t and v axes turned by φ, and the loss weights.

    Args:
        x0, eps: one coordinate of the data and of the noise.
        phi: the angle (radians), cos φ = √ᾱ_t.
        t: the current step (a vertical line on the right).
        steps: (k,) the t of the weight curves. weights: prediction → (k,) w_t.
        titles: the two panels. axis_titles: x₀, ε, t, weight.
        names: legend names of the plane: ``point``, ``xt_axis``, ``v_axis``, ``xt``, ``v``.
        weight_names: legend names of the weight curves, one per prediction in ``weights``.

    Traces: [0] the x_t axis, [1] the v axis, [2] the point (x₀, ε), [3] its projection on
    the x_t axis, [4] its projection on the v axis, [5 …] one weight curve per prediction,
    [last] the current-t line.
    """
    lay = layout(title="", x="", y="", height=height)
    left, right = (0.0, 0.4), (0.52, 1.0)
    square = {**lay["xaxis"], "range": [-R, R], "zeroline": True, "zerolinecolor": "#999999"}
    lay["xaxis"] = {**square, "domain": list(left), "title": {"text": axis_titles[0]}}
    lay["yaxis"] = {
        **square,
        "title": {"text": axis_titles[1]},
        "scaleanchor": "x",
        "constrain": "domain",
    }
    lay["xaxis2"] = {
        **layout(title="", x="", y="")["xaxis"],
        "domain": list(right),
        "anchor": "y2",
        "title": {"text": axis_titles[2]},
        "range": [float(np.min(steps)), float(np.max(steps))],  # fixed: a new t moves the line
    }
    lay["yaxis2"] = {
        **layout(title="", x="", y="")["yaxis"],
        "anchor": "x2",
        "type": "log",
        "title": {"text": axis_titles[3]},
        "range": [-5, 5],
    }
    lay["annotations"] = panel_titles(titles, [left[0], right[0]])
    lay["margin"] = {"l": 60, "r": 15, "t": 110, "b": 48}
    c, s = math.cos(phi), math.sin(phi)
    x_t, v = c * x0 + s * eps, -s * x0 + c * eps
    p_xt, p_v = (x_t * c, x_t * s), (-v * s, v * c)
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": _list([-R * c, R * c]),
            "y": _list([-R * s, R * s]),
            "mode": "lines",
            "name": names["xt_axis"],
            "line": {"color": BLUE, "dash": "dash"},
        },
        {
            "type": "scatter",
            "x": _list([R * s, -R * s]),
            "y": _list([-R * c, R * c]),
            "mode": "lines",
            "name": names["v_axis"],
            "line": {"color": ORANGE, "dash": "dot"},
        },
        {
            "type": "scatter",
            "x": [round(x0, 4)],
            "y": [round(eps, 4)],
            "mode": "markers",
            "name": names["point"],
            "marker": {"color": VERMILLION, "size": 13, "symbol": "circle"},
        },
        {
            "type": "scatter",
            "x": _list([x0, p_xt[0], 0.0]),
            "y": _list([eps, p_xt[1], 0.0]),
            "mode": "lines+markers",
            "name": names["xt"],
            "line": {"color": BLUE, "width": 2.5, "dash": "solid"},
            "marker": {"size": [0, 10, 0], "color": BLUE, "symbol": "square"},
        },
        {
            "type": "scatter",
            "x": _list([x0, p_v[0], 0.0]),
            "y": _list([eps, p_v[1], 0.0]),
            "mode": "lines+markers",
            "name": names["v"],
            "line": {"color": ORANGE, "width": 2.5, "dash": "longdash"},
            "marker": {"size": [0, 10, 0], "color": ORANGE, "symbol": "diamond"},
        },
    ]
    for key, w in weights.items():
        data.append(
            {
                "type": "scatter",
                "x": _list(steps, 0),
                "y": _list(w, 6),
                "mode": "lines",
                "name": weight_names[key],
                "xaxis": "x2",
                "yaxis": "y2",
                "legend": "legend2",
                "line": {"color": PREDICTION_COLOURS.get(key, GREY), "width": 2},
            }
        )
    data.append(
        {
            "type": "scatter",
            "x": [t, t],
            "y": [1e-5, 1e5],
            "mode": "lines",
            "showlegend": False,
            "xaxis": "x2",
            "yaxis": "y2",
            "hoverinfo": "skip",
            "line": {"color": GREY, "dash": "dot", "width": 1},
        }
    )
    # the plane's legend above it; the weights' legend in the empty top right of their panel
    lay["legend"] = {
        "orientation": "h",
        "x": 0.0,
        "xanchor": "left",
        "y": 1.09,
        "yanchor": "bottom",
    }
    lay["legend2"] = {
        "orientation": "v",
        "x": 1.0,
        "xanchor": "right",
        "y": 1.0,
        "yanchor": "top",
        "bgcolor": "rgba(255,255,255,0.85)",
    }
    return figure(data, lay)


def snr_figure(
    curves: Sequence[tuple[str, Array, Array, int, str | None]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    height: int = 440,
) -> go.Figure:
    """log-SNR against t/T; a curve is (name, t/T (k,), log SNR (k,), colour index, symbol).

    A curve without a symbol is a schedule (each gets its own dash, see
    ``figures.style.distinguishable``); a variant of a schedule (rescaled, shifted) shares
    its colour index and is a thin solid line carrying the marker ``symbol``. −∞ (ᾱ_T = 0
    after rescaling) is left out of the line; the y axis shows [−22, 12].
    """
    data = []
    for name, x, y, colour, symbol in curves:
        trace = {
            "type": "scatter",
            "x": _list(x),
            "y": _list(y, 3),
            "mode": "lines",
            "name": name,
            "line": {"color": PALETTE[colour % len(PALETTE)], "width": 2.5},
            "hovertemplate": f"{name}<br>t/T = %{{x:.3f}}: %{{y:.2f}}<extra></extra>",
        }
        if symbol is not None:
            trace["mode"] = "lines+markers"
            trace["line"] = {**trace["line"], "width": 1.5, "dash": "solid"}
            trace["marker"] = {
                "symbol": symbol,
                "size": 8,
                "maxdisplayed": 14,
                "color": PALETTE[colour % len(PALETTE)],
            }
        data.append(trace)
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=height,
        xaxis={"range": [0, 1.0]},
        yaxis={"range": [-22, 12]},
    )
    lay["legend"] = {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1.0}
    lay["margin"] = {"l": 60, "r": 250, "t": 50, "b": 48}
    return figure(data, lay)


def shift_updates(index: int, log_snr: Array) -> dict[int, dict[str, list]]:
    """What changes in :func:`snr_figure` from one image side to another: the shifted
    curve's log SNR (trace ``index``, the last curve); trace index → properties.

    The live resolution control (``ui.live``) sends one of these per side.
    """
    return {index: {"y": _list(log_snr, 3)}}


def weights_figure(
    steps: Array,
    weights: dict[str, Array],
    t: int,
    measured: dict[str, float],
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: dict[str, str],
    measured_name: str,
    height: int = 420,
) -> go.Figure:
    """The weight w_t each prediction's loss puts on the x₀ error, against t (log y), and
    the ratios measured on a batch at the current t as markers.

    Traces: one line per prediction in ``weights``, then one marker trace (the measured
    ratios at t, one point per prediction), then the current-t line.
    """
    data: list[dict[str, Any]] = []
    for key, w in weights.items():
        data.append(
            {
                "type": "scatter",
                "x": _list(steps, 0),
                "y": _list(w, 6),
                "mode": "lines",
                "name": names[key],
                "line": {"color": PREDICTION_COLOURS.get(key, GREY), "width": 2.5},
            }
        )
    keys = list(measured)
    data.append(
        {
            "type": "scatter",
            "x": [t] * len(keys),
            "y": _list([measured[k] for k in keys], 6),
            "mode": "markers",
            "name": measured_name,
            "marker": {
                "color": [PREDICTION_COLOURS.get(k, GREY) for k in keys],
                "size": 12,
                "symbol": "diamond",
                "line": {"color": "black", "width": 1},
            },
        }
    )
    data.append(
        {
            "type": "scatter",
            "x": [t, t],
            "y": [1e-6, 1e6],
            "mode": "lines",
            "showlegend": False,
            "hoverinfo": "skip",
            "line": {"color": GREY, "dash": "dot", "width": 1},
        }
    )
    lay = layout(
        title=title, x=x_title, y=y_title, height=height, yaxis={"type": "log", "range": [-5, 5]}
    )
    lay["legend"] = {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1.0}
    lay["margin"] = {"l": 60, "r": 200, "t": 50, "b": 48}
    return figure(data, lay)


def _image_axes(
    lay: dict, sfx: str, domain: Sequence[float], side: int, y_domain: Sequence[float]
) -> None:
    hidden = {
        "showgrid": False,
        "zeroline": False,
        "showline": False,
        "ticks": "",
        "showticklabels": False,
    }
    lay[f"xaxis{sfx}"] = {
        **hidden,
        "domain": list(domain),
        "anchor": f"y{sfx}",
        "range": [-0.5, side - 0.5],
        "constrain": "domain",
    }
    lay[f"yaxis{sfx}"] = {
        **hidden,
        "domain": list(y_domain),
        "anchor": f"x{sfx}",
        "range": [side - 0.5, -0.5],
        "scaleanchor": f"x{sfx}",
        "constrain": "domain",
    }


def leak_figure(
    images: Sequence[Array],
    blocks: Sequence[int],
    curves: Sequence[tuple[str, Array, Array]],
    block: int,
    *,
    image_titles: Sequence[str],
    titles: tuple[str, str],
    axis_titles: tuple[str, str],
    names: tuple[str, str],
    height: int = 560,
) -> go.Figure:
    """Four images in [−1, 1] (x₀, x_T, and both averaged over b × b blocks) above the
    correlation between block means of x₀ and of x_T against b, per schedule.

    Args:
        images: four (S, S, 3) arrays. blocks: (k,) the block sides b.
        curves: (schedule name, expected corr (k,), measured corr (k,)).
        block: the current b (a vertical line).
        names: legend suffixes of the formula line and the measured points.

    Traces: [0–3] images; then per schedule a line (formula) and markers (measured);
    [last] the current-b line.
    """
    S = images[0].shape[0]
    lay = layout(title="", x="", y="", height=height)
    del lay["xaxis"], lay["yaxis"]
    gap, top = 0.03, (0.55, 0.95)
    w4 = (1.0 - 3 * gap) / 4
    data: list[dict[str, Any]] = []
    for i, image in enumerate(images):
        sfx = str(i + 1) if i else ""
        _image_axes(lay, sfx, (i * (w4 + gap), i * (w4 + gap) + w4), S, top)
        data.append(
            {
                "type": "image",
                "source": jpeg_data_uri(image, 85),
                "xaxis": f"x{sfx}",
                "yaxis": f"y{sfx}",
                "hoverinfo": "skip",
                "name": image_titles[i],
            }
        )
    base = layout(title="", x="", y="")
    lay["xaxis5"] = {
        **base["xaxis"],
        "domain": [0.0, 0.62],
        "anchor": "y5",
        "type": "log",
        "title": {"text": axis_titles[0]},
        "tickvals": list(blocks),
        "ticktext": [str(b) for b in blocks],
    }
    lay["yaxis5"] = {
        **base["yaxis"],
        "domain": [0.0, 0.4],
        "anchor": "x5",
        "range": [-0.1, 1.05],
        "title": {"text": axis_titles[1]},
    }
    for k, (name, expected, measured) in enumerate(curves):
        colour = PALETTE[k % len(PALETTE)]
        data += [
            {
                "type": "scatter",
                "x": list(blocks),
                "y": _list(expected),
                "mode": "lines",
                "name": f"{name} {names[0]}",
                "xaxis": "x5",
                "yaxis": "y5",
                "legendgroup": name,
                "line": {"color": colour, "width": 2},
            },
            {
                "type": "scatter",
                "x": list(blocks),
                "y": _list(measured),
                "mode": "markers",
                "name": f"{name} {names[1]}",
                "xaxis": "x5",
                "yaxis": "y5",
                "legendgroup": name,
                "marker": {"color": colour, "size": 9, "line": {"color": "black", "width": 1}},
            },
        ]
    data.append(
        {
            "type": "scatter",
            "x": [block, block],
            "y": [-0.1, 1.05],
            "mode": "lines",
            "showlegend": False,
            "xaxis": "x5",
            "yaxis": "y5",
            "hoverinfo": "skip",
            "line": {"color": GREY, "dash": "dot", "width": 1},
        }
    )
    xs = [i * (w4 + gap) for i in range(4)]
    lay["annotations"] = [
        *[{**note, "y": top[1] + 0.01} for note in panel_titles(image_titles, xs, 13)],
        *[{**note, "y": 0.41} for note in panel_titles([titles[1]], [0.0], 13)],
    ]
    lay["legend"] = {"orientation": "v", "x": 0.66, "xanchor": "left", "y": 0.4, "yanchor": "top"}
    lay["margin"] = {"l": 50, "r": 15, "t": 40, "b": 48}
    return figure(data, lay)
