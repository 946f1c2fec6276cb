"""Shared look of every figure: a colour-blind-safe palette and a compact layout.

Okabe & Ito (2008) colours stay distinguishable under the common colour-vision deficiencies.

Speed matters here (every slider step rebuilds a figure, on a server shared by a class):
- a named template such as ``"plotly_white"`` re-validates the whole template (~20 ms a
  figure) and ships ~6 KB of JSON with every chart: figures use ``template="none"`` and
  this explicit style;
- Plotly validates every property as a figure is built (~10 ms for a small figure):
  builders write plain dict specs and :func:`figure` wraps them without validation;
  ``tests/figures`` re-validates every builder's output with full validation instead;
- building a ``go.Figure`` copies it twice more: setting ``frames`` re-validates every frame,
  and ``to_dict`` (Streamlit calls it before encoding) deep-copies the whole spec; the
  :class:`Figure` that :func:`figure` returns does neither (the scrub of 24 frames: 41 → 7 ms
  from spec to JSON);
- ``automargin`` makes the browser draw a chart twice: margins are set explicitly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
from _plotly_utils.basevalidators import is_homogeneous_array
from _plotly_utils.utils import is_skipped_key, to_typed_array_spec

BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"
VERMILLION = "#D55E00"
SKY = "#56B4E9"
PURPLE = "#CC79A7"
YELLOW = "#F0E442"
GREY = "#7F7F7F"
PALETTE = (BLUE, ORANGE, GREEN, VERMILLION, SKY, PURPLE, YELLOW)

# Sequential scale for heatmaps (colour-blind safe, perceptually uniform).
SEQUENTIAL = "Viridis"

_AXIS: dict[str, Any] = {
    "gridcolor": "#E5E5E5",
    "zerolinecolor": "#C8C8C8",
    "linecolor": "#C8C8C8",
    "showline": True,
    "ticks": "outside",
    "tickcolor": "#C8C8C8",
    "automargin": False,
}


def layout(
    *,
    title: str,
    x: str,
    y: str,
    height: int = 340,
    xaxis: dict[str, Any] | None = None,
    yaxis: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The house layout as a dict for ``go.Figure(layout=...)``.

    Args:
        title, x, y: figure and axis titles.
        height: pixels.
        xaxis, yaxis: extra axis settings (``type="log"``, ``range=...``).
        extra: any other layout property (``barmode=...``).
    """
    return {
        "template": "none",
        "title": {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 15}},
        "xaxis": {**_AXIS, "title": {"text": x}, **(xaxis or {})},
        "yaxis": {**_AXIS, "title": {"text": y}, **(yaxis or {})},
        "height": height,
        "margin": {"l": 60, "r": 15, "t": 64, "b": 48},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 1.0, "xanchor": "right"},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "font": {"size": 13, "color": "#262730"},
        "colorway": list(PALETTE),
        "hoverlabel": {"bgcolor": "white"},
        **extra,
    }


class Figure(go.Figure):
    """A ``go.Figure`` whose :meth:`to_dict` shares the figure's own dicts instead of copying.

    Plotly's ``to_dict`` deep-copies every trace and frame and then walks every number
    looking for numpy arrays to send as typed arrays; Streamlit calls it once per chart and
    only encodes the result. Here only a dict that holds a numpy array is copied (to hold the
    typed array instead): the JSON is the same as Plotly's, and a reader of the result must
    not change it (Streamlit, ``ui.live`` and the handout copy what they change).
    """

    _raw_frames: tuple[dict[str, Any], ...] = ()  # frames as given, until someone reads them

    def to_dict(self) -> dict[str, Any]:
        res: dict[str, Any] = {"data": list(self._data), "layout": dict(self._layout)}
        if res["layout"].get("template") == NONE_TEMPLATE:
            res["layout"]["template"] = "none"  # a validated figure's, wrapped by :func:`ours`
        frames = list(self._raw_frames) or [frame._props for frame in self._frame_objs]
        if frames:
            res["frames"] = frames
        return _typed_arrays(res)

    @property
    def frames(self) -> tuple[go.Frame, ...]:
        """The frames as Plotly objects, validated when first read (sending never reads them)."""
        if self._raw_frames:
            self._frame_objs = self._frames_validator.validate_coerce(list(self._raw_frames))
            self._raw_frames = ()
        return self._frame_objs

    @frames.setter
    def frames(self, new_frames: Any) -> None:
        self._raw_frames = ()
        self._frame_objs = self._frames_validator.validate_coerce(new_frames)


# Plotly's "none" template (no style at all) as a validated figure holds it
NONE_TEMPLATE = {"data": {"scatter": [{"type": "scatter"}]}}


def ours(fig: go.Figure) -> Figure:
    """``fig`` as a :class:`Figure`, whose JSON names the "none" template instead of holding
    the validated template object: what ``kit.chart`` sends.

    Streamlit draws a new chart twice, the second time with its measured width
    (``ui.streamlit_internals``); with a fixed ``datarevision`` Plotly then only lays it out,
    but a template object in the layout made it compute the whole chart again (counted in
    Chromium: the sparse-attention mask, a heatmap, was computed twice per new chart, once
    with the name; ``bench/controls_report.md``, round 11). Scatter data sent as typed
    arrays does the same (Wallis' product chart is still computed twice); lists would spare
    it at 10–20 % more bytes, with no latency gain measured, so they stay typed. A validated
    ``go.Figure`` is wrapped (Plotly's constructor copies its traces; wrapped and written as
    JSON, a 32 × 32 heatmap takes 0.24 ms more than as it is), the figure itself left as
    built; one of ours is returned as it is.
    """
    if isinstance(fig, Figure):
        return fig
    wrapped = Figure({"data": list(fig._data), "layout": dict(fig._layout)}, _validate=False)
    wrapped._raw_frames = tuple(frame._props for frame in fig._frame_objs)
    return wrapped


def _typed_arrays(x: Any) -> Any:
    """``x`` with every numpy array held by a dict as Plotly's typed-array spec, copying only
    the containers on the way to one (lists of numbers are not walked: they hold none)."""
    if isinstance(x, dict):
        out = x
        for key, value in x.items():
            if is_skipped_key(key):
                continue
            new = (
                to_typed_array_spec(value) if is_homogeneous_array(value) else _typed_arrays(value)
            )
            if new is not value:
                if out is x:
                    out = dict(x)
                out[key] = new
        return out
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], (dict, list, tuple)):
        new_items = [_typed_arrays(v) for v in x]
        if any(a is not b for a, b in zip(new_items, x, strict=True)):
            return new_items
    return x


def figure(
    data: list[dict[str, Any]],
    layout: dict[str, Any],
    frames: Sequence[dict[str, Any]] = (),
) -> Figure:
    """Wrap a plain dict spec as a :class:`Figure` without Plotly's per-property validation.

    ``_validate=False`` is Plotly's own switch for trusted specs; our builders are trusted
    because ``tests/figures/test_validation.py`` rebuilds each of their outputs validated.
    Animation ``frames`` are kept as given and validated only if read as ``fig.frames``
    (assigning ``fig.frames`` validates each frame whatever the switch: 0.8 s for the 40 image
    frames of the forward-diffusion scrub).
    """
    fig = Figure({"data": distinguishable(data), "layout": layout}, _validate=False)
    fig._raw_frames = tuple(frames)
    return fig


DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star")


def distinguishable(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Traces that differ by more than colour: colour is never the only carrier of meaning.

    Lines that set no dash get one dash pattern each (solid, dash, dot, …) and marker-only
    traces that set no symbol get one symbol each, in order, whenever a figure has two or
    more of them: readers who do not see the colours (or print in grey) can still tell them
    apart. A trace that sets its own dash or symbol keeps it.
    """
    lines = [
        t
        for t in data
        if t.get("type", "scatter") == "scatter"
        and "lines" in t.get("mode", "lines")
        and "dash" not in t.get("line", {})
    ]
    if len(lines) > 1:
        for i, trace in enumerate(lines):
            trace["line"] = {**trace.get("line", {}), "dash": DASHES[i % len(DASHES)]}
    dots = [
        t
        for t in data
        if t.get("type") == "scatter"
        and t.get("mode") == "markers"
        and "symbol" not in t.get("marker", {})
    ]
    if len(dots) > 1:
        for i, trace in enumerate(dots):
            trace["marker"] = {**trace.get("marker", {}), "symbol": SYMBOLS[i % len(SYMBOLS)]}
    return data


def panel_titles(titles: Sequence[str], xs: Sequence[float], size: int = 14) -> list[dict]:
    """Bold titles above side-by-side panels of one figure, left-aligned at paper x ``xs``."""
    return [
        {
            "text": f"<b>{text}</b>",
            "x": x,
            "y": 1.0,
            "xref": "paper",
            "yref": "paper",
            "xanchor": "left",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": size},
        }
        for text, x in zip(titles, xs, strict=True)
    ]


def grid_panels(n: int, side: int, titles: Sequence[str], height: int) -> dict[str, Any]:
    """n square image-like panels side by side, row 0 on top, titles as annotations."""
    lay = layout(title="", x="", y="", height=height)
    gap = 0.04
    width = (1.0 - gap * (n - 1)) / n
    for i in range(n):
        sfx = "" if i == 0 else str(i + 1)
        lo = i * (width + gap)
        axis = {
            "showgrid": False,
            "zeroline": False,
            "ticks": "",
            "showticklabels": False,
            "showline": False,
            "range": [-0.5, side - 0.5],
        }
        lay[f"xaxis{sfx}"] = {
            **axis,
            "domain": [lo, lo + width],
            "anchor": f"y{sfx}",
            "constrain": "domain",
        }
        lay[f"yaxis{sfx}"] = {
            **axis,
            "range": [side - 0.5, -0.5],
            "anchor": f"x{sfx}",
            "scaleanchor": f"x{sfx}",
            "constrain": "domain",
        }
    lay["annotations"] = panel_titles(titles, [i * (width + gap) for i in range(len(titles))], 14)
    lay["margin"] = {"l": 10, "r": 10, "t": 36, "b": 10}
    lay["showlegend"] = False
    return lay


def scrub_controls(
    lay: dict[str, Any],
    frame_names: Sequence[object],
    active: int,
    *,
    play: tuple[str, str],
    labels: Sequence[object] | None = None,
    prefix: str = "t = ",
    redraw: bool = True,
    duration: int = 120,
    pad: int = 62,
) -> None:
    """Add a frame slider and play / pause buttons to ``lay``: the browser scrubs through
    precomputed frames (named ``str(name)``) with no server round trip.

    Args:
        frame_names: the frames' names, in order (the slider's labels too, unless
            ``labels``). A kept chart that gets a new figure keeps the frame the student
            scrubbed to by its name (``ui.live``), so a name says what stays the same.
        active: the index of the frame the slider shows first.
        play: the labels of the play and pause buttons.
        labels: the slider's label of each frame, where it is not the name.
        redraw: whether a frame needs a full redraw (images do; scatter data does not).
        duration: milliseconds per frame when playing.
        pad: the slider's distance below the plot (the buttons sit 22 px lower).
    """
    animate = {
        "mode": "immediate",
        "frame": {"duration": 0, "redraw": redraw},
        "transition": {"duration": 0},
    }
    playing = {**animate, "frame": {"duration": duration, "redraw": redraw}, "fromcurrent": True}
    lay["sliders"] = [
        {
            "active": active,
            "x": 0.1,
            "len": 0.9,
            "y": 0.0,
            "yanchor": "top",
            "pad": {"t": pad, "b": 0},
            "currentvalue": {"prefix": prefix, "font": {"size": 15}},
            "font": {"size": 10},
            "ticklen": 4,
            "steps": [
                {"method": "animate", "label": str(label), "args": [[str(name)], animate]}
                for name, label in zip(
                    frame_names, frame_names if labels is None else labels, strict=True
                )
            ],
        }
    ]
    lay["updatemenus"] = [
        {
            "type": "buttons",
            "direction": "left",
            "showactive": False,
            "x": 0.0,
            "y": 0.0,
            "xanchor": "left",
            "yanchor": "top",
            "pad": {"t": pad + 22, "r": 0},
            "buttons": [
                {"label": play[0], "method": "animate", "args": [None, playing]},
                {"label": play[1], "method": "animate", "args": [[None], animate]},
            ],
        }
    ]
