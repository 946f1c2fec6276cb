"""Figures of the reverse-diffusion page: arrays in, ``go.Figure`` out.

- :func:`scrub_figure`: particle clouds walking from noise to data, one panel per denoiser
  (exact ε*, learned ε_θ), with precomputed ``frames`` and a Plotly slider over the sampler's
  steps, so dragging t happens in the browser (as the forward-diffusion scrub).
- :func:`field_figure`: the denoising direction −ε̂ on a grid at one t, over samples of q(x_t)
  and, when it is known, the contours of the exact density q(x_t).
- :func:`quality_figure`: sliced Wasserstein distance to the data against the number of
  sampling steps, one curve per sampler and denoiser.
- :func:`loss_figure`: a training run's loss, raw and smoothed.

Points are (N, 2) arrays; every panel shows the square [−R, R]² with equal axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from core import contours
from figures.style import (
    BLUE,
    GREY,
    ORANGE,
    PALETTE,
    VERMILLION,
    figure,
    layout,
    panel_titles,
    scrub_controls,
)

Array = NDArray[np.float64]
SOURCE_COLOURS = {"exact": BLUE, "learned": ORANGE}
# the field's contours of log q(x_t): this far below its highest value, light to dark
# (#C7D9EE to #08306B in sixths: the highest value itself, 0 below, is a point, not drawn)
CONTOUR_DROPS = (6.0, 5.0, 4.0, 3.0, 2.0, 1.0)
CONTOUR_COLOURS = ("#C7D9EE", "#A7BDD8", "#87A1C2", "#6884AC", "#486897", "#284C81")
DATA_DOT_PX = 4  # the scrub's data points (a layout image's dots, see dots_image)
TRAJECTORY_COLOURS = (VERMILLION, "#009E73", "#CC79A7", "#56B4E9", "#6A3D9A", "#B15928")


def _list(x: Any, digits: int = 3) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def _notes(note: str, shown: Sequence[bool], radius: float) -> list[dict[str, Any]]:
    """One text trace a panel: ``note`` near the top of a panel where ``shown``, else one
    gap (the traces are there either way, so the figure's skeleton does not change)."""
    return [
        {
            "type": "scatter",
            "x": [0.0 if on else None],
            "y": [0.8 * radius if on else None],
            "mode": "text",
            "text": [note],
            "textfont": {"size": 13, "color": "#444444", "shadow": "auto"},
            "showlegend": False,
            "hoverinfo": "skip",
            "xaxis": f"x{p + 1}" if p else "x",
            "yaxis": f"y{p + 1}" if p else "y",
        }
        for p, on in enumerate(shown)
    ]


def dots_image(points: Array, radius: float, dot: float, colour: str) -> str:
    """Points as round dots of diameter ``dot`` (in axis units) on the square [−R, R]², as an
    SVG data URI for a layout image stretched over that square: each dot is a zero-length
    line with round caps, in hundredths of a unit (the particles' two decimals). Plotly's
    moves never draw a layout image again, where a scatter trace's 200 markers are styled
    again on every move (bench/controls_report.md, round 21)."""
    at = np.rint(np.asarray(points, dtype=float) * 100).astype(int)
    d = "".join(f"M{x},{-y}h0" for x, y in at)
    return _picture(
        radius,
        f"<path d='{d}' stroke='{colour}' stroke-width='{100 * dot:.2f}' "
        "stroke-linecap='round' fill='none'/>",
    )


def _picture(radius: float, body: str) -> str:
    """SVG elements drawn in hundredths of a unit (y up) on the square [−R, R]², as a data
    URI for a layout image stretched over that square."""
    r = round(100 * radius)
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='{-r} {-r} {2 * r} {2 * r}' "
        f"preserveAspectRatio='none'>{body}</svg>"
    )
    return "data:image/svg+xml," + quote(svg, safe="=:/',-.")


def _polylines(lines: Sequence[Array], close: bool = False) -> str:
    """Polylines (each (k, 2)) as one SVG path's ``d`` in hundredths of a unit, y up; with
    ``close``, each a closed polygon."""
    out = []
    for line in lines:
        at = np.rint(np.asarray(line, dtype=float) * 100).astype(int)
        if len(at):
            out.append("M" + "L".join(f"{x},{-y}" for x, y in at) + ("Z" if close else ""))
    return "".join(out)


def _image(source: str, name: str, sfx: str, radius: float, k: int = 0) -> dict[str, Any]:
    """A layout image named ``name`` (a legend group: ui/live/live.js shows and hides it with
    that group's traces) over the panel on axes ``x<sfx>``/``y<sfx>``, the square [−R, R]².

    ``k``: the image's place among the panel's pictures. Plotly (4.1) draws a subplot's
    layout images keyed by their place and size, so a second picture over the same square
    would not be drawn: the k-th is k millionths of a unit wider (a 20-thousandth of a pixel
    here)."""
    return {
        "source": source,
        "name": name,
        "xref": f"x{sfx}",
        "yref": f"y{sfx}",
        "x": -radius,
        "y": radius,
        "sizex": 2 * radius + k * 1e-6,
        "sizey": 2 * radius,
        "xanchor": "left",
        "yanchor": "top",
        "sizing": "stretch",
        "layer": "below",
    }


def _path_of(lines: Sequence[Array]) -> tuple[list, list]:
    """Polylines of different lengths as one trace's x and y (None between them, 2
    decimals: under a pixel on the panels); no line at all is one gap, so that the trace is
    never empty."""
    if not lines:
        return [None], [None]
    out: tuple[list, list] = ([], [])
    for line in lines:
        for axis in (0, 1):
            out[axis].extend(np.round(line[:, axis], 2).tolist() + [None])
    return out


def _coords(x: Array) -> list:
    """A panel's particle coordinates to 2 decimals, or one gap where it has none."""
    return _list(x, 2) if len(x) else [None]


def _square_axes(lay: dict, sfx: str, domain: Sequence[float], radius: float) -> None:
    """An x/y axis pair over [−R, R]² with equal scales, the panel's x domain ``domain``."""
    axis = {
        "range": [-radius, radius],
        "zeroline": False,
        "showgrid": True,
        "gridcolor": "#EFEFEF",
        "linecolor": "#C8C8C8",
        "showline": True,
        "ticks": "outside",
        "tickcolor": "#C8C8C8",
        "automargin": False,
    }
    lay[f"xaxis{sfx}"] = {**axis, "domain": list(domain), "anchor": f"y{sfx}"}
    lay[f"yaxis{sfx}"] = {
        **axis,
        "domain": [0.0, 1.0],
        "anchor": f"x{sfx}",
        "scaleanchor": f"x{sfx}",
        "constrain": "domain",
    }


def _domains(n: int, gap: float = 0.06) -> list[tuple[float, float]]:
    width = (1.0 - gap * (n - 1)) / n
    return [(i * (width + gap), i * (width + gap) + width) for i in range(n)]


def _path(points: Array) -> tuple[list, list]:
    """Several polylines (m, k, 2) as one trace's x and y, None between them; none at all
    (m = 0) as one gap, so that the trace is never empty (a kept chart moves it)."""
    m, k, _ = points.shape
    if not m:
        return [None], [None]
    out = []
    for axis in (0, 1):
        cells = np.full((m, k + 1), None, dtype=object)
        cells[:, :k] = np.round(points[..., axis].astype(float), 3).tolist()
        out.append(cells.ravel().tolist())
    return out[0], out[1]


def _arrow_heads(starts: Array, ends: Array, length: float) -> Array:
    """(m, 3, 2) triangles at the arrows' ends, pointing along them: tip, then both barbs.

    A head is ``length`` long (at most half its arrow) and 0.9 of that wide; an arrow of
    length 0 gets a triangle of size 0.
    """
    d = ends - starts
    norm = np.linalg.norm(d, axis=1, keepdims=True)
    u = np.divide(d, norm, out=np.zeros_like(d), where=norm > 0)  # unit direction
    h = np.minimum(length, 0.5 * norm)  # (m, 1)
    side = 0.45 * h * np.stack([-u[:, 1], u[:, 0]], axis=1)  # half the base, across
    base = ends - h * u
    return np.stack([ends, base + side, base - side], axis=1)


@dataclass(frozen=True)
class ScrubPanel:
    """One denoiser's run for :func:`scrub_figure`.

    Attributes:
        title: the panel's title.
        source: ``"exact"`` or ``"learned"`` (its colour).
        clouds: (F, n, 2) the particles at each frame.
        trajectories: (m, k, 2) a few particles' whole paths.
        heads: (F, m, 2) where those particles are at each frame.

    A denoiser not trained yet has no particles (:meth:`waiting`).
    """

    title: str
    source: str
    clouds: Array
    trajectories: Array
    heads: Array

    @classmethod
    def waiting(cls, title: str, source: str, frames: int) -> ScrubPanel:
        """The panel of a denoiser not trained yet: its place, with no particles."""
        return cls(
            title, source, np.zeros((frames, 0, 2)), np.zeros((0, 0, 2)), np.zeros((frames, 0, 2))
        )


def scrub_figure(
    panels: Sequence[ScrubPanel],
    data: Array,
    frame_steps: Sequence[int],
    start: int,
    *,
    names: tuple[str, str, str],
    radius: float = 3.0,
    play: tuple[str, str] = ("▶", "❚❚"),
    prefix: str = "t = ",
    height: int = 460,
    note: str = "",
) -> go.Figure:
    """Particles from x_T to x_0 beside each other, scrubbed in the browser.

    Args:
        panels: one or two :class:`ScrubPanel` with the same number of frames F.
        data: (n, 2) data points drawn faintly under the particles.
        frame_steps: (F,) the step t of each frame (T … 0).
        start: the frame shown first.
        names: legend names of the data, the particles and the trajectories.
        note: with it, one text trace a panel after the panels' traces, shown in a panel with
            no particles (:meth:`ScrubPanel.waiting`).

    Traces per panel p (4 each, in order): [4p] data (its legend entry: one gap; the points
    are a layout image under the panel, :func:`dots_image`, named ``"data"`` as the trace's
    legend group), [4p+1] trajectories (lines), [4p+2] particles, [4p+3] trajectory heads.
    Each frame (named ``str(t)``) replaces the particles and heads of every panel only. A
    panel with no particles has one gap (``[None]``) for each of them, and the note's trace
    has one where the panel has particles: the figure has the same traces and layout trained
    or not, so a kept chart moves from one to the other (``ui.live``: Plotly draws a gap as
    nothing, and moving a trace to it clears its old points).
    """
    F = len(frame_steps)
    if any(len(p.clouds) != F or len(p.heads) != F for p in panels):
        raise ValueError("every panel needs one cloud and one set of heads per frame")
    n_panels = len(panels)
    lay = layout(title="", x="", y="", height=height)
    del lay["xaxis"], lay["yaxis"]
    domains = _domains(n_panels)
    data_traces: list[dict[str, Any]] = []
    moving: list[int] = []
    margin = {"l": 40, "r": 15, "t": 70, "b": 120}
    # the data's dots: DATA_DOT_PX wide on a panel as tall as the plot area
    dots = dots_image(
        data, radius, DATA_DOT_PX / (height - margin["t"] - margin["b"]) * 2 * radius, "#BBBBBB"
    )
    images = []
    for p, (panel, domain) in enumerate(zip(panels, domains, strict=True)):
        sfx = str(p + 1) if p else ""
        _square_axes(lay, sfx, domain, radius)
        colour = SOURCE_COLOURS.get(panel.source, BLUE)
        axes = {"xaxis": f"x{sfx}", "yaxis": f"y{sfx}"}
        tx, ty = _path(panel.trajectories)
        data_traces += [
            {
                "type": "scatter",
                "x": [None],
                "y": [None],
                "mode": "markers",
                "name": names[0],
                "legendgroup": "data",
                "showlegend": p == 0,
                "marker": {"color": "#BBBBBB", "size": 4, "symbol": "circle"},
                "hoverinfo": "skip",
                **axes,
            },
            {
                "type": "scatter",
                "x": tx,
                "y": ty,
                "mode": "lines",
                "name": names[2],
                "legendgroup": "paths",
                "showlegend": p == 0,
                "line": {"color": VERMILLION, "width": 1.2, "dash": "solid"},
                "opacity": 0.7,
                "hoverinfo": "skip",
                **axes,
            },
            {
                "type": "scatter",
                "x": _coords(panel.clouds[start, :, 0]),
                "y": _coords(panel.clouds[start, :, 1]),
                "mode": "markers",
                "name": f"{names[1]} ({panel.title})",
                "marker": {"color": colour, "size": 5, "opacity": 0.75, "symbol": "circle"},
                "hovertemplate": "(%{x:.2f}, %{y:.2f})<extra></extra>",
                **axes,
            },
            {
                "type": "scatter",
                "x": _coords(panel.heads[start, :, 0]),
                "y": _coords(panel.heads[start, :, 1]),
                "mode": "markers",
                "showlegend": False,
                "marker": {
                    "color": VERMILLION,
                    "size": 10,
                    "symbol": "diamond",
                    "line": {"color": "black", "width": 1},
                },
                "hoverinfo": "skip",
                **axes,
            },
        ]
        moving += [4 * p + 2, 4 * p + 3]
        images.append(_image(dots, "data", sfx, radius))
    lay["images"] = images
    if note:
        data_traces += _notes(note, [p.clouds.shape[1] == 0 for p in panels], radius)
    lay["annotations"] = panel_titles([p.title for p in panels], [d[0] for d in domains])
    lay["margin"] = margin
    lay["legend"] = {
        "orientation": "h",
        "x": 1.0,
        "xanchor": "right",
        "y": 1.08,
        "yanchor": "bottom",
    }
    frames = []
    for i, t in enumerate(frame_steps):
        updates = []
        for panel in panels:
            updates += [
                {
                    "type": "scatter",
                    "x": _coords(panel.clouds[i, :, 0]),
                    "y": _coords(panel.clouds[i, :, 1]),
                },
                {
                    "type": "scatter",
                    "x": _coords(panel.heads[i, :, 0]),
                    "y": _coords(panel.heads[i, :, 1]),
                },
            ]
        frames.append({"name": str(t), "data": updates, "traces": moving})
    scrub_controls(
        lay, frame_steps, start, play=play, prefix=prefix, redraw=False, duration=150, pad=40
    )
    return figure(data_traces, lay, frames)


@dataclass(frozen=True)
class FieldPanel:
    """One denoiser's field for :func:`field_figure`.

    Attributes:
        title: the panel's title. source: ``"exact"`` or ``"learned"``.
        starts: (G, 2) the grid points. arrows: (G, 2) the drawn vectors (−ε̂, scaled).
    """

    title: str
    source: str
    starts: Array
    arrows: Array

    @classmethod
    def waiting(cls, title: str, source: str) -> FieldPanel:
        """The panel of a denoiser not trained yet: its place, with no arrows."""
        return cls(title, source, np.zeros((0, 2)), np.zeros((0, 2)))


def field_figure(
    panels: Sequence[FieldPanel],
    noisy: Array,
    density: tuple[Array, Array, Array] | None,
    *,
    names: tuple[str, str, str],
    radius: float = 3.0,
    height: int = 420,
    head: float = 0.09,
    note: str = "",
    pictures: bool = False,
) -> go.Figure:
    """The denoising direction −ε̂(x, t) on a grid, over samples of q(x_t).

    Args:
        panels: one or two :class:`FieldPanel`.
        noisy: (n, 2) samples of q(x_t) (the data pushed to step t).
        density: (xs (a,), ys (b,), log q (b, a)) of the exact q(x_t), or ``None``.
        names: legend names of the samples, the arrows and the contours.
        head: an arrow head's length in data units (at most half its arrow's).
        note: with it, one text trace a panel after the panels' traces, shown in a panel with
            no arrows (:meth:`FieldPanel.waiting`, whose arrows are one gap).

    Traces per panel p: samples, the arrows' shafts, their heads (filled triangles, one
    path), and with a density, its contours last: one line trace a level, at
    ``CONTOUR_DROPS`` below log q's highest value on the grid, traced here
    (:func:`core.contours.level_lines`), a level with no line one gap (``[None]``). Only
    scatter traces on fixed axes, whose number and layout do not depend on t: a kept chart
    moves from one t to the next (``ui.live``) where a contour trace would be drawn again.
    With ``note``, the note's traces follow every panel's.

    ``pictures``: what the traces draw is drawn as pictures instead, none of it hoverable:
    per panel a layout image of the samples (:func:`dots_image`), one of the arrows (shafts
    and heads) and, with a density, one of the contours, each named after its legend group
    (``noisy``, ``arrows<p>``, ``contours``: ``ui/live/live.js`` shows and hides it with that
    group's traces), in that order under the traces. The traces are then one gap each, one a
    legend group and panel (samples, shafts, and one contour trace), and the notes. A kept
    chart takes the next t by swapping the pictures (``ui.live``): Plotly drew the 20
    traces again on every t, about 40 ms of a step in Chromium (bench/controls_report.md,
    round 22). "Data & export" keeps the figure of traces.
    """
    lay = layout(title="", x="", y="", height=height)
    del lay["xaxis"], lay["yaxis"]
    domains = _domains(len(panels))
    margin = {"l": 40, "r": 15, "t": 70, "b": 30}
    px = 2 * radius / (height - margin["t"] - margin["b"])  # a pixel in data units
    gap = ([None], [None])
    level_lines, level_paths = [], []
    if density is not None:  # the same lines in every panel
        gx, gy, log_q = density
        top = float(np.max(log_q))
        for drop in CONTOUR_DROPS:
            lines = contours.level_lines(gx, gy, log_q, top - drop)
            level_lines.append(gap if pictures else _path_of(lines))
            level_paths.append(_polylines(lines) if pictures else "")
    if pictures:  # the same in every panel
        contour_picture = _picture(
            radius,
            "".join(
                f"<path d='{d}' stroke='{c}' stroke-width='{100 * px:.2f}' fill='none'/>"
                for c, d in zip(CONTOUR_COLOURS, level_paths, strict=False)
                if d
            ),
        )
        dots = dots_image(noisy, radius, 4 * px, "#AAAAAA")
    traces: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []
    for p, (panel, domain) in enumerate(zip(panels, domains, strict=True)):
        sfx = str(p + 1) if p else ""
        _square_axes(lay, sfx, domain, radius)
        axes = {"xaxis": f"x{sfx}", "yaxis": f"y{sfx}"}
        colour = SOURCE_COLOURS.get(panel.source, BLUE)
        ends = panel.starts + panel.arrows
        group = f"arrows{p}"
        samples = shafts = heads = gap
        if not pictures:  # the traces' own points (pictures: drawn in the images instead)
            shafts = _path(np.stack([panel.starts, ends], axis=1))
            heads = _path(_arrow_heads(panel.starts, ends, head))
            samples = (_list(noisy[:, 0], 2), _list(noisy[:, 1], 2))
        else:
            arrows = _picture(
                radius,
                f"<path d='{_polylines(np.stack([panel.starts, ends], axis=1))}' "
                f"stroke='{colour}' stroke-width='{150 * px:.2f}' fill='none'/>"
                f"<path d='{_polylines(_arrow_heads(panel.starts, ends, head), close=True)}' "
                f"fill='{colour}'/>"
                if len(ends)
                else "",
            )
            images += [_image(dots, "noisy", sfx, radius), _image(arrows, group, sfx, radius, 1)]
            if density is not None:
                images.append(_image(contour_picture, "contours", sfx, radius, 2))
        traces += [
            {
                "type": "scatter",
                "x": samples[0],
                "y": samples[1],
                "mode": "markers",
                "name": names[0],
                "legendgroup": "noisy",
                "showlegend": p == 0,
                "marker": {"color": "#AAAAAA", "size": 4, "symbol": "circle"},
                "hoverinfo": "skip",
                **axes,
            },
            {
                "type": "scatter",
                "x": shafts[0],
                "y": shafts[1],
                "mode": "lines",
                "name": f"{names[1]} ({panel.title})",
                "legendgroup": group,
                "line": {"color": colour, "width": 1.5, "dash": "solid"},
                "hoverinfo": "skip",
                **axes,
            },
        ]
        if not pictures:
            traces.append(
                {  # every head is a filled triangle of one path (a marker each costs far more)
                    "type": "scatter",
                    "x": heads[0],
                    "y": heads[1],
                    "mode": "none",
                    "fill": "toself",
                    "fillcolor": colour,
                    "name": f"{names[1]} ({panel.title})",
                    "legendgroup": group,
                    "showlegend": False,
                    "hoverinfo": "skip",
                    **axes,
                }
            )
        if density is not None:
            drawn = [gap] if pictures else level_lines  # pictures: one gap, the legend's entry
            for k, line in enumerate(drawn, start=len(level_lines) - len(drawn)):
                traces.append(
                    {
                        "type": "scatter",
                        "x": line[0],
                        "y": line[1],
                        "mode": "lines",
                        "name": names[2],
                        "legendgroup": "contours",
                        "showlegend": p == 0 and k == len(level_lines) - 1,
                        "line": {"color": CONTOUR_COLOURS[k], "width": 1, "dash": "solid"},
                        "hoverinfo": "skip",
                        **axes,
                    }
                )
    if note:
        traces += _notes(note, [len(p.arrows) == 0 for p in panels], radius)
    if pictures:
        lay["images"] = images
    lay["annotations"] = panel_titles([p.title for p in panels], [d[0] for d in domains])
    lay["margin"] = margin
    lay["legend"] = {
        "orientation": "h",
        "x": 1.0,
        "xanchor": "right",
        "y": 1.08,
        "yanchor": "bottom",
    }
    return figure(traces, lay)


def quality_figure(
    curves: Sequence[tuple[str, str, Array, Array]],
    floor: float,
    *,
    title: str,
    x_title: str,
    y_title: str,
    floor_name: str,
    height: int = 380,
) -> go.Figure:
    """Distance to the data against the number of network calls, log–log.

    Args:
        curves: (name, source, calls (k,), distances (k,)) per sampler and denoiser; the
            exact denoiser is drawn solid, the learned one dashed, each sampler its own marker.
        floor: the distance between two draws of the data of the same size (the noise floor,
            a horizontal line: no sampler can beat sampling itself).
    """
    traces = []
    symbols = ("circle", "square", "diamond", "triangle-up", "x")
    samplers: list[str] = []
    for name, source, calls, dist in curves:
        base = name.split(" (")[0]
        if base not in samplers:
            samplers.append(base)
        k = samplers.index(base)
        traces.append(
            {
                "type": "scatter",
                "x": _list(calls, 0),
                "y": _list(dist, 4),
                "mode": "lines+markers",
                "name": name,
                "line": {
                    "color": PALETTE[k % len(PALETTE)],
                    "dash": "solid" if source == "exact" else "dash",
                },
                "marker": {"symbol": symbols[k % len(symbols)], "size": 8},
                "hovertemplate": f"{name}<br>%{{x}} calls: %{{y:.4f}}<extra></extra>",
            }
        )
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=height,
        xaxis={"type": "log"},
        yaxis={"type": "log"},
    )
    lay["shapes"] = [
        {
            "type": "line",
            "xref": "paper",
            "x0": 0,
            "x1": 1,
            "y0": floor,
            "y1": floor,
            "line": {"color": GREY, "dash": "dot", "width": 1.5},
        }
    ]
    lay["annotations"] = [
        {
            "text": floor_name,
            "xref": "paper",
            "x": 1.0,
            "xanchor": "right",
            "y": float(np.log10(floor)),
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": 11, "color": GREY},
        }
    ]
    lay["legend"] = {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1.0}
    lay["margin"] = {"l": 60, "r": 230, "t": 50, "b": 48}
    return figure(traces, lay)


def smooth(losses: Array, width: int = 50) -> Array:
    """A trailing moving average over ``width`` steps (shorter at the start)."""
    c = np.cumsum(np.concatenate([[0.0], np.asarray(losses, dtype=float)]))
    n = np.arange(1, len(losses) + 1)
    lo = np.maximum(n - width, 0)
    return (c[n] - c[lo]) / (n - lo)


def loss_figure(
    losses: Array,
    total_steps: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str],
    height: int = 300,
) -> go.Figure:
    """Mini-batch losses (faint) and their moving average, x axis fixed to the whole run.

    At most ~400 points per trace are sent (every k-th step), so a growing curve redrawn
    during training stays small.
    """
    losses = np.asarray(losses, dtype=float)
    every = max(1, len(losses) // 400)
    steps = np.arange(1, len(losses) + 1)[::every]
    traces = [
        {
            "type": "scatter",
            "x": steps.tolist(),
            "y": _list(losses[::every], 4),
            "mode": "lines",
            "name": names[0],
            "line": {"color": "#9DC3E6", "width": 1},
        },
        {
            "type": "scatter",
            "x": steps.tolist(),
            "y": _list(smooth(losses)[::every], 4),
            "mode": "lines",
            "name": names[1],
            "line": {"color": ORANGE, "width": 2.5},
        },
    ]
    top = float(np.percentile(losses, 99)) * 1.1 if len(losses) else 1.0
    lay = layout(
        title=title,
        x=x_title,
        y=y_title,
        height=height,
        xaxis={"range": [0, total_steps]},
        yaxis={"range": [0, top]},
    )
    return figure(traces, lay)
