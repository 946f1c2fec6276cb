"""Figures of the forward-diffusion page: arrays in, ``go.Figure`` out.

The scrub figure is one Plotly figure with precomputed ``frames`` and a Plotly slider whose
steps ``animate`` to a frame: dragging t happens in the browser, with no server round trip.
Its images are small JPEG data URIs (``go.Image(source=...)``), so the whole figure stays
small enough to send once. The other builders keep their layout independent of the slider
that drives them (only trace data changes, so Plotly.react skips the relayout).

Images are (S, S, 3) float arrays in DDPM's data range [−1, 1]; x_t is shown clipped to it.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray
from PIL import Image

from core.images import to_uint8
from figures.style import (
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    VERMILLION,
    figure,
    layout,
    panel_titles,
    scrub_controls,
)

Array = NDArray[np.float64]
SCHEDULE_COLOURS = (BLUE, ORANGE)  # linear, cosine: the same colour in every panel
MARKER = {"size": 10, "line": {"color": "black", "width": 1}}
IMAGE_AXIS = {
    "showgrid": False,
    "zeroline": False,
    "showline": False,
    "ticks": "",
    "showticklabels": False,
}
# JPEG quality by noise level: clean images keep their edges, noisy ones cost few bytes
# (JPEG artefacts vanish in noise of standard deviation ≥ 0.5, and noise is what costs:
# ~1 KB per 48² frame at quality 30, ~1.6 KB at 50).
QUALITY_CLEAN, QUALITY_NOISY, MASKING_STD = 80, 25, 0.5
FRAME_TRACES = (2, 3, 12, 13, 14)  # what a frame of the scrub figure replaces


def frame_name(k: int, count: int) -> str:
    """The scrub's frame ``k`` (0-based) of ``count`` by its place along the path, ``"k+1/K"``
    (the same name at every T: the frames sit at the same t/T)."""
    return f"{k + 1}/{count}"


def _list(x: Any, digits: int = 5) -> list:
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def jpeg_data_uri(x: Array, quality: int = QUALITY_CLEAN) -> str:
    """An (S, S, 3) image in [−1, 1] as a ``data:image/jpeg;base64,...`` URI."""
    buf = io.BytesIO()
    subsampling = 0 if quality >= QUALITY_CLEAN else 2  # 4:4:4 keeps colour edges when clean
    Image.fromarray(to_uint8(x)).save(
        buf, "JPEG", quality=quality, optimize=True, subsampling=subsampling
    )
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _quality(noise_std: float) -> int:
    """JPEG quality for an x_t whose noise has standard deviation √(1 − ᾱ_t)."""
    drop = (QUALITY_CLEAN - QUALITY_NOISY) * min(noise_std / MASKING_STD, 1.0)
    return int(round(QUALITY_CLEAN - drop))


def log_snr_axis(log_snrs: Sequence[Array]) -> tuple[float, float]:
    """A log-SNR axis range holding these curves, in whole units with one to spare."""
    lo = float(np.floor(min(np.min(v) for v in log_snrs))) - 1
    hi = float(np.ceil(max(np.max(v) for v in log_snrs))) + 1
    return lo, hi


def curve_steps(T: int, n: int = 80) -> list[int]:
    """≤ ~2n steps 1..T to draw a smooth curve: evenly spaced, plus log-spaced near t = 1
    (where log-SNR of the linear schedule changes fastest)."""
    steps = np.concatenate([np.linspace(1, T, n), np.geomspace(1, T, n // 2)])
    return np.unique(np.round(steps).astype(int)).tolist()


def _image_axes(
    lay: dict,
    sfx: str,
    domain: Sequence[float],
    side: int,
    y_domain: Sequence[float],
    title: str = "",
    colour: str | None = None,
) -> None:
    """Axes for an S × S image (row 0 on top), its title just above the image itself."""
    font = {"size": 13, **({"color": colour} if colour else {})}
    lay[f"xaxis{sfx}"] = {
        **IMAGE_AXIS,
        "domain": list(domain),
        "anchor": f"y{sfx}",
        "range": [-0.5, side - 0.5],
        "constrain": "domain",
        "side": "top",
        "title": {"text": f"<b>{title}</b>" if title else "", "font": font, "standoff": 6},
    }
    lay[f"yaxis{sfx}"] = {
        **IMAGE_AXIS,
        "domain": list(y_domain),
        "anchor": f"x{sfx}",
        "range": [side - 0.5, -0.5],
        "scaleanchor": f"x{sfx}",
        "constrain": "domain",
    }


def _image(uri: str, sfx: str, name: str) -> dict[str, Any]:
    return {
        "type": "image",
        "source": uri,
        "xaxis": f"x{sfx}",
        "yaxis": f"y{sfx}",
        "name": name,
        "hovertemplate": f"{name}<br>pixel (%{{y}}, %{{x}})<extra></extra>",
    }


def _titles_at(titles: Sequence[str], xs: Sequence[float], y: float) -> list[dict]:
    """figures.style.panel_titles at paper height ``y`` (a lower row of panels)."""
    return [{**note, "y": y} for note in panel_titles(titles, xs, 13)]


@dataclass(frozen=True)
class ScrubImages:
    """The scrub figure's images as JPEG data URIs: x₀, ε, and x_t at each step under the
    linear and the cosine schedule (noisier frames at a lower quality, see ``_quality``)."""

    x0: str
    noise: str
    linear: tuple[str, ...]
    cosine: tuple[str, ...]


def scrub_images(
    x0: Array,
    noise: Array,
    steps: Sequence[int],
    frames_linear: Array,
    frames_cosine: Array,
    alpha_bars: tuple[Array, Array],
) -> ScrubImages:
    """Encode what :func:`scrub_figure` shows (the page caches this: 82 JPEGs a figure)."""
    if not len(frames_linear) == len(frames_cosine) == len(steps):
        raise ValueError("frames_linear and frames_cosine need one image per step")
    quality = [[_quality(np.sqrt(1.0 - float(ab[t - 1]))) for t in steps] for ab in alpha_bars]
    return ScrubImages(
        jpeg_data_uri(x0),
        jpeg_data_uri(noise, QUALITY_NOISY),
        tuple(jpeg_data_uri(x, q) for x, q in zip(frames_linear, quality[0], strict=True)),
        tuple(jpeg_data_uri(x, q) for x, q in zip(frames_cosine, quality[1], strict=True)),
    )


def scrub_figure(
    x0: Array,
    noise: Array,
    steps: Sequence[int],
    frames_linear: Array | None,
    frames_cosine: Array | None,
    alpha_bars: tuple[Array, Array],
    log_snrs: tuple[Array, Array],
    start: int,
    *,
    image_titles: tuple[str, str, str, str],
    curve_titles: tuple[str, str, str],
    names: tuple[str, str],
    x_title: str,
    play: tuple[str, str] = ("▶", "❚❚"),
    height: int = 720,
    images: ScrubImages | None = None,
    log_snr_range: tuple[float, float] | None = None,
) -> go.Figure:
    """x₀, ε and x_t under both schedules, and ᾱ_t, √ᾱ_t, √(1−ᾱ_t), log-SNR against t/T
    (as improved DDPM's Fig. 5 draws them), with a Plotly slider that scrubs t in the
    browser (frames, no server round trip).

    The curves' axes do not depend on T: x is t/T on [0, 1.02], and the log-SNR range is
    ``log_snr_range`` where given (the page gives one that holds every T it offers), so a
    new T changes only the traces' data, the pictures and the frames, which the browser
    moves and swaps in place (``ui.live``).

    Args:
        x0, noise: (S, S, 3) the clean image (in [−1, 1]) and the fixed noise ε.
        steps: (K,) the timesteps t (1..T) that get a frame.
        frames_linear, frames_cosine: (K, S, S, 3) x_t at those steps under each schedule.
        alpha_bars: ((T,), (T,)) ᾱ_t of the linear and the cosine schedule, index t − 1.
        log_snrs: ((T,), (T,)) their log-SNR log(ᾱ_t / (1 − ᾱ_t)) (core.diffusion.log_snr).
        start: index into ``steps`` of the frame shown first.
        image_titles: x₀, ε, x_t linear, x_t cosine. curve_titles: the three curve panels.
        names: legend names of the two schedules. x_title: the t/T axis title.
        images: :func:`scrub_images` of these arrays, already encoded (the frames may then
            be ``None``).

    Traces: [0] x₀, [1] ε, [2] x_t linear, [3] x_t cosine (images, axes 1–4);
    [4, 5] ᾱ_t linear, cosine (x5); [6, 7] √ᾱ_t and [8, 9] √(1−ᾱ_t) linear, cosine (x6);
    [10, 11] log-SNR linear, cosine (x7); [12, 13, 14] current-t line + markers in panels
    5, 6, 7. Each frame replaces traces 2, 3 and 12–14 only. Frame k of K is named
    ``"k/K"`` (1-based), its place along the path, and the slider labels it with its t: every
    T has its frames at the same t/T, so a new T keeps the student's place along t/T
    (``ui.live`` keeps a scrubbed frame by name).
    """
    S = x0.shape[0]
    T = len(alpha_bars[0])
    if images is None:
        if frames_linear is None or frames_cosine is None:
            raise ValueError("the scrub figure needs the frames or their images")
        images = scrub_images(x0, noise, steps, frames_linear, frames_cosine, alpha_bars)
    if not len(images.linear) == len(images.cosine) == len(steps):
        raise ValueError("frames_linear and frames_cosine need one image per step")
    lay = layout(title="", x="", y="", height=height)
    del lay["xaxis"], lay["yaxis"]
    gap, row1, row2 = 0.03, (0.6, 1.0), (0.0, 0.42)
    w4 = (1.0 - 3 * gap) / 4
    colours = (None, None, *SCHEDULE_COLOURS)
    for i in range(4):
        _image_axes(
            lay,
            str(i + 1) if i else "",
            (i * (w4 + gap), i * (w4 + gap) + w4),
            S,
            row1,
            image_titles[i],
            colours[i],
        )
    gap3 = 0.06
    w3 = (1.0 - 2 * gap3) / 3
    log_snr = [np.asarray(v, dtype=float) for v in log_snrs]
    lo, hi = log_snr_range or log_snr_axis(log_snr)
    y_ranges = ([-0.02, 1.05], [-0.02, 1.05], [lo, hi])
    for j in range(3):
        sfx = str(5 + j)
        x_lo = j * (w3 + gap3)
        lay[f"xaxis{sfx}"] = {
            **layout(title="", x=x_title, y="")["xaxis"],
            "anchor": f"y{sfx}",
            "domain": [x_lo, x_lo + w3],
            "range": [0, 1.02],
            "dtick": 0.25,
        }
        lay[f"yaxis{sfx}"] = {
            **layout(title="", x="", y="")["yaxis"],
            "anchor": f"x{sfx}",
            "domain": list(row2),
            "range": y_ranges[j],
        }
    xs3 = [j * (w3 + gap3) for j in range(3)]
    lay["annotations"] = _titles_at(curve_titles, xs3, row2[1] + 0.01)
    lay["margin"] = {"l": 50, "r": 15, "t": 46, "b": 150}  # t: room for the mode bar
    lay["legend"] = {
        "orientation": "h",
        "x": 1.0,
        "xanchor": "right",
        "y": row2[1] + 0.08,
        "yanchor": "bottom",
    }

    t_curve = curve_steps(T)
    idx = np.array(t_curve) - 1
    x_curve = _list(np.array(t_curve) / T, 5)  # t/T

    def curve(
        y: Array, k: int, sfx: str, name: str, dash: str = "solid", legend: bool = False
    ) -> dict:
        # the second schedule also carries open diamonds: colour is not its only mark
        diamonds = {
            "symbol": "diamond-open",
            "size": 7,
            "color": SCHEDULE_COLOURS[k],
            "maxdisplayed": 10,
        }
        marks = {"mode": "lines+markers", "marker": diamonds} if k else {"mode": "lines"}
        return {
            "type": "scatter",
            "x": x_curve,
            "y": _list(y[idx], 4),
            **marks,
            "name": name,
            "legendgroup": name,
            "showlegend": legend,
            "xaxis": f"x{sfx}",
            "yaxis": f"y{sfx}",
            "line": {"color": SCHEDULE_COLOURS[k], "dash": dash},
            "hovertemplate": f"{name}<br>t/T = %{{x:.3f}}: %{{y:.4f}}<extra></extra>",
        }

    data: list[dict[str, Any]] = [
        _image(images.x0, "", "x₀"),
        _image(images.noise, "2", "ε"),
        _image("", "3", f"x_t {names[0]}"),
        _image("", "4", f"x_t {names[1]}"),
    ]
    data += [curve(alpha_bars[k], k, "5", names[k], legend=True) for k in (0, 1)]
    data += [curve(np.sqrt(alpha_bars[k]), k, "6", names[k]) for k in (0, 1)]
    data += [curve(np.sqrt(1 - alpha_bars[k]), k, "6", names[k], "dash") for k in (0, 1)]
    data += [curve(log_snr[k], k, "7", names[k]) for k in (0, 1)]
    data += [{}, {}, {}]  # the current-t traces, filled from the start frame

    def current(
        t: int, sfx: str, ys: Sequence[float], colours: Sequence[str], y_range: Sequence[float]
    ) -> tuple[dict, dict]:
        """A vertical line at t and one marker per curve (None breaks the line).

        Returns the full trace and the frame's update (x and y only: the style stays).
        """
        x = round(t / T, 5)
        update = {
            "type": "scatter",
            "x": [x, x, None, *([x] * len(ys))],
            "y": [y_range[0], y_range[1], None, *_list(ys, 4)],
        }
        return {
            **update,
            "mode": "lines+markers",
            "xaxis": f"x{sfx}",
            "yaxis": f"y{sfx}",
            "showlegend": False,
            "line": {"color": GREY, "width": 1, "dash": "dot"},
            "marker": {
                **MARKER,
                "size": [0, 0, 0, *([10] * len(ys))],
                "color": [GREY, GREY, GREY, *colours],
            },
            "hovertemplate": "t/T = %{x:.3f}: %{y:.4f}<extra></extra>",
        }, update

    frames, full = [], {}
    places = [frame_name(i, len(steps)) for i in range(len(steps))]
    for i, t in enumerate(steps):
        a = [float(ab[t - 1]) for ab in alpha_bars]
        marks = [
            current(t, "5", a, SCHEDULE_COLOURS, y_ranges[0]),
            current(
                t, "6", [*np.sqrt(a), *np.sqrt(1 - np.array(a))], SCHEDULE_COLOURS * 2, y_ranges[1]
            ),
            current(t, "7", [float(v[t - 1]) for v in log_snr], SCHEDULE_COLOURS, y_ranges[2]),
        ]
        frame_data = [
            {"type": "image", "source": images.linear[i]},
            {"type": "image", "source": images.cosine[i]},
            *(update for _, update in marks),
        ]
        frames.append({"name": places[i], "data": frame_data, "traces": list(FRAME_TRACES)})
        if i == start:
            full = dict(
                zip(FRAME_TRACES, [*frame_data[:2], *(trace for trace, _ in marks)], strict=True)
            )
    for trace, spec in full.items():
        data[trace] = {**data[trace], **spec}

    scrub_controls(lay, places, start, play=play, labels=steps, redraw=True, duration=120, pad=62)
    return figure(data, lay, frames)


def pixel_locator_figure(x0: Array, pixel: tuple[int, int], *, height: int = 140) -> go.Figure:
    """x₀ with one pixel framed: which pixel the histogram below is about.

    Drawn outside the probe's fragment (it changes with the pixel, never with t).
    Traces: [0] x₀ (image), [1] the pixel (an open square marker).
    """
    S = x0.shape[0]
    row, col = pixel
    lay = layout(title="", x="", y="", height=height)
    _image_axes(lay, "", (0.0, 1.0), S, (0.0, 1.0))
    lay["margin"] = {"l": 0, "r": 0, "t": 0, "b": 0}
    lay["showlegend"] = False
    data = [
        _image(jpeg_data_uri(x0, 90), "", "x₀"),
        {
            "type": "scatter",
            "x": [col],
            "y": [row],
            "mode": "markers",
            "showlegend": False,
            "marker": {
                "symbol": "square-open",
                "size": 12,
                "color": VERMILLION,
                "line": {"width": 3, "color": VERMILLION},
            },
            "hovertemplate": f"pixel ({row}, {col})<extra></extra>",
        },
    ]
    return figure(data, lay)


def pixel_figure(
    edges: Array,
    density: Array,
    grid: Array,
    pdf: Array,
    standard: Array,
    mean: float,
    x0_value: float,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str, str, str, str],
    height: int = 360,
) -> go.Figure:
    """Many draws of x_t at one pixel (a density histogram) against N(√ᾱ_t x₀, 1−ᾱ_t).

    The histogram is binned on the server (``edges``, ``density``): sending the bins, not
    the draws, keeps a slider step to a few KB. The x axis follows the distribution
    (autorange), so a narrow x_t at small t is as readable as a wide one.

    Args:
        edges: (n+1,) bin edges; density: (n,) histogram heights (area 1).
        grid: (m,) x values; pdf: (m,) the closed-form density; standard: (m,) N(0, 1).
        mean: √ᾱ_t x₀. x0_value: x₀ at this pixel.
        names: histogram, closed form, N(0, 1), mean, x₀.

    Traces: [0] histogram bars, [1] closed-form density, [2] N(0, 1) (the t → T limit),
    [3] the mean √ᾱ_t x₀, [4] x₀ (vertical lines).
    """
    centres = (edges[:-1] + edges[1:]) / 2
    top = float(max(np.max(density), np.max(pdf))) * 1.05
    data = [
        {
            "type": "bar",
            "x": _list(centres),
            "y": _list(density),
            "width": _list(np.diff(edges)),
            "name": names[0],
            "marker": {"color": "#9DC3E6", "line": {"width": 0}},
            "hovertemplate": "x = %{x:.3f}: %{y:.3f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": _list(grid),
            "y": _list(pdf),
            "mode": "lines",
            "name": names[1],
            "line": {"color": BLUE, "width": 2.5},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": _list(grid),
            "y": _list(standard),
            "mode": "lines",
            "name": names[2],
            "line": {"color": GREY, "dash": "dot"},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": [mean, mean],
            "y": [0, top],
            "mode": "lines",
            "name": names[3],
            "line": {"color": VERMILLION, "width": 2},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": [x0_value, x0_value],
            "y": [0, top],
            "mode": "lines",
            "name": names[4],
            "line": {"color": GREEN, "width": 2, "dash": "dash"},
            "hoverinfo": "skip",
        },
    ]
    lay = layout(title=title, x=x_title, y=y_title, height=height, bargap=0)
    lay["yaxis"]["rangemode"] = "tozero"
    return figure(data, lay)


def chain_figure(
    x_chain: Array,
    x_closed: Array,
    t_axis: Array,
    slope: Array,
    variance: Array,
    alpha_bar: Array,
    t: int,
    *,
    titles: tuple[str, str, str],
    x_title: str,
    names: tuple[str, str, str, str],
    height: int = 400,
) -> go.Figure:
    """The chain run t times next to one jump, and the chain's moments step by step.

    Args:
        x_chain: (S, S, 3) x_t after t steps of q(x_s | x_{s−1}).
        x_closed: (S, S, 3) one draw of q(x_t | x₀).
        t_axis: (n,) steps s ≤ t where the chain was measured.
        slope: (n,) Σ x_s x₀ / Σ x₀² (estimates √ᾱ_s). variance: (n,) mean of
            (x_s − √ᾱ_s x₀)² (estimates 1 − ᾱ_s).
        alpha_bar: (T,) ᾱ of the schedule (index s − 1). t: the current step.
        names: √ᾱ_s, 1 − ᾱ_s, and the chain's two estimates.

    Traces: [0] chain image, [1] closed-form image, [2] √ᾱ_s, [3] 1 − ᾱ_s (lines over
    1..T), [4] chain slope, [5] chain variance (markers up to t), [6] the current t.
    """
    S = x_chain.shape[0]
    T = len(alpha_bar)
    lay = layout(title="", x="", y="", height=height)
    del lay["xaxis"], lay["yaxis"]
    w_img, gap = 0.2, 0.03
    _image_axes(lay, "", (0.0, w_img), S, (0.0, 1.0), titles[0])
    _image_axes(lay, "2", (w_img + gap, 2 * w_img + gap), S, (0.0, 1.0), titles[1])
    x_lo = 2 * w_img + 2 * gap + 0.04
    lay["xaxis3"] = {
        **layout(title="", x=x_title, y="")["xaxis"],
        "anchor": "y3",
        "domain": [x_lo, 1.0],
        "range": [0, T * 1.02],
    }
    lay["yaxis3"] = {
        **layout(title="", x="", y="")["yaxis"],
        "anchor": "x3",
        "domain": [0.0, 1.0],
        "range": [-0.03, 1.08],
    }
    lay["annotations"] = panel_titles(titles[2:], (x_lo,), 13)
    lay["margin"] = {"l": 10, "r": 15, "t": 36, "b": 96}
    lay["legend"] = {"orientation": "h", "x": x_lo, "xanchor": "left", "y": -0.2, "yanchor": "top"}
    s = np.arange(1, T + 1)
    every = max(1, T // 400)
    grid = s[::every]
    ab = alpha_bar[grid - 1]
    line = {"type": "scatter", "mode": "lines", "xaxis": "x3", "yaxis": "y3"}
    dots = {"type": "scatter", "mode": "markers", "xaxis": "x3", "yaxis": "y3"}
    data = [
        _image(jpeg_data_uri(x_chain, 90), "", "chain"),
        _image(jpeg_data_uri(x_closed, 90), "2", "closed form"),
        {
            **line,
            "x": grid.tolist(),
            "y": _list(np.sqrt(ab)),
            "name": names[0],
            "line": {"color": GREEN},
            "hoverinfo": "skip",
        },
        {
            **line,
            "x": grid.tolist(),
            "y": _list(1 - ab),
            "name": names[1],
            "line": {"color": VERMILLION},
            "hoverinfo": "skip",
        },
        {
            **dots,
            "x": np.asarray(t_axis).tolist(),
            "y": _list(slope),
            "name": names[2],
            "marker": {"color": GREEN, "size": 6, "symbol": "circle-open"},
            "hovertemplate": "s = %{x}: %{y:.4f}<extra></extra>",
        },
        {
            **dots,
            "x": np.asarray(t_axis).tolist(),
            "y": _list(variance),
            "name": names[3],
            "marker": {"color": VERMILLION, "size": 6, "symbol": "x-thin-open"},
            "hovertemplate": "s = %{x}: %{y:.4f}<extra></extra>",
        },
        {
            **line,
            "x": [t, t],
            "y": [-0.03, 1.08],
            "showlegend": False,
            "line": {"color": GREY, "dash": "dot", "width": 1},
            "hoverinfo": "skip",
        },
    ]
    return figure(data, lay)
