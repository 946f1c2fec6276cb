"""A control over a few precomputed states that redraws in the browser (issue 21).

Where a control only picks one of a small set of states (a temperature grid, a query row,
a step t), the server computes every state once, and a Streamlit component (components v2,
``ui/live/live.js``) draws the chart and the state's numbers with no server round trip: an
arrow key on its slider swaps in that state's trace data and its block of numbers. Where the
states change only scatter and bar data on fixed axes (:func:`pack` checks), the traces are
moved (``Plotly.animate`` with no redraw, in the next frame: no axis or tick label is drawn
again; where only scatter traces move, ``live.js`` draws them from their new calcdata itself,
without Plotly.animate's defaults pass over the whole figure: ``quickMove``); where they
change only heatmaps' values on a fixed colour range, those heatmaps are repainted alone
(Plotly's own heatmap drawing; see ``live.js``); otherwise the chart is redrawn
(``Plotly.react``). The browser never computes anything: every number it shows was
computed here, by ``core``.

Where there are many states, what the browser receives can stay small: with
``share_patches`` a trace patch that several states share (Swin's shifted windows: most
windows have the same mask) is sent once, in a table the states refer to by index, and checks
that hold the same for every state (``shared_checks``) are sent once.

When the slider settles (``SETTLE_MS`` after the last step) the component reports the
state's value; the rerun that follows updates the session, the rest of the part (e.g. the
KaTeX formula) and the URL (``?<key>=``, as a select-slider's), and the component keeps its
chart: same data, nothing is drawn again.

Plotly.js comes from the installed plotly package (``plotly/package_data/plotly.min.js``),
served by this Streamlit server; nothing is fetched from anywhere else.

>>> T = live.current(page.key("T"), TEMPERATURES, 1.0)              # doctest: +SKIP
>>> states = [live.State(t, f"{t:g}", figs.temperature_updates(...), numbers, checks)
...           for t in TEMPERATURES]                                  # doctest: +SKIP
>>> live.slider(page.tr("temperature"), page.key("T"), states, T, fig,
...             chart_key=page.key("probs_chart"))                    # doctest: +SKIP
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import html
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import plotly
import plotly.graph_objects as go
import streamlit as st
from streamlit.components.v2 import component

from ui import kit, state
from ui.i18n import current_lang
from ui.streamlit_internals import serve_component_files

PACKAGE = "adlab"
NAME = f"{PACKAGE}.live"  # ui/live/: live.js, live.css
PLOTLY = f"{PACKAGE}.plotly"  # plotly/package_data/: plotly.min.js (same version as the figures)
FOLDER = Path(__file__).with_name("live")
# kept charts' payloads cached by their memo, for every session, least recently used out:
# the warm-up's 96 (the reverse scrub's 24 settings and the forward scrub's 24 images and T,
# each in 2 languages, at most about 140 KB), a class's, and the reverse field's t (about
# 57 KB each): ≤ ~24 MB
MEMO_ENTRIES = 192
PACK_SCALE = 100  # a frame's coordinates with two decimals go packed (_packed) ...
PACK_MIN = 16  # ... in lists of this many numbers or more (a short one gains nothing)
SETTLE_MS = 250  # report the value this long after the last step (a held arrow key: once)
# trace types whose data Plotly.animate moves without redrawing the axes (redraw: false)
MOVABLE = frozenset({"scatter", "bar"})
_AXIS = re.compile(r"[xy]axis\d*")  # a layout's axis keys: xaxis, yaxis2, …
_STORE = "_live_value_"  # st.session_state[_STORE + key]: the value (the component owns `key`)

Value = float | int | str


@dataclass(frozen=True)
class State:
    """One state the control can pick.

    Attributes:
        value: what the URL holds (``?<key>=``) and what :func:`slider` returns.
        label: the value as the slider shows and announces it (``aria-valuetext``).
        traces: trace index → the properties of that trace in this state (only what changes:
            e.g. ``{0: {"y": p}, 3: {"x": [T], "y": [H]}}``); every state patches the same.
        numbers: (name, value) pairs shown under the chart, e.g. ``("H(p)", "0.4367")``; a
            pair with no name shows its value alone (a sentence the translation words, e.g.
            ``("", "128 of 16² = 256 pairs may attend")``).
        checks: the invariants checked for this state, shown as badges.
    """

    value: Value
    label: str
    traces: Mapping[int, Mapping[str, Any]]
    numbers: Sequence[tuple[str, str]] = ()
    checks: Sequence[kit.Check] = ()


def encode(value: Value) -> str:
    """A value as the URL writes it (floats as a select-slider's: 6 significant digits)."""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def decode(raw: object, options: Sequence[Value]) -> Value:
    """The option ``raw`` names (a URL string or a value the browser reported).

    Raises:
        ValueError: ``raw`` is none of the options.
    """
    for option in options:
        if isinstance(option, str):
            if raw == option:
                return option
            continue
        try:
            x = float(raw)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        if math.isfinite(x) and abs(option - x) <= 1e-9 * max(1.0, abs(x)):
            return option
    raise ValueError(f"not one of the options: {raw!r}")


def current(key: str, options: Sequence[Value], default: Value) -> Value:
    """The control's value: the last one the browser reported, else the link's
    (``?<key>=``; a bad one falls back to ``default`` with the usual notice)."""
    store = _STORE + key
    value = state.seed(store, key, default, lambda raw: decode(raw, options))
    if value not in options:  # the options moved: the nearest one
        value = min(options, key=lambda o: (abs(o - value), o)) if _numeric(options) else default
        st.session_state[store] = value
    return value


def hand_over(key: str) -> None:
    """Before a Streamlit widget takes ``key`` in a run where the live control of that key is
    not drawn (another view of the page shows the same value as a widget): the widget starts
    from the live control's value, not from the component's state Streamlit still holds under
    ``key``, and the live control, drawn again, starts from what the widget's URL value is
    then. Call it in every full run that draws the widget (a view switch is one); it does
    nothing when the live control was not drawn since."""
    held = st.session_state.pop(_STORE + key, None)
    if held is not None:
        st.session_state[key] = held


def _numeric(options: Sequence[Value]) -> bool:
    return all(isinstance(o, int | float) for o in options)


def _take_reported(key: str, options: tuple[Value, ...]) -> None:
    """Callback: the browser reported a value; keep it if it is one of the options."""
    reported = (st.session_state.get(key) or {}).get("value")
    with contextlib.suppress(ValueError):  # not one of ours: keep the value we have
        st.session_state[_STORE + key] = decode(reported, options)


def _badges(checks: Sequence[kit.Check]) -> str:
    out = []
    for c in checks:
        text = html.escape(f"{c.label}{' — ' + c.detail if c.detail else ''}")
        mark, kind = ("✓", "ok") if c.ok else ("✗", "bad")
        out.append(f'<span class="live-badge live-{kind}">{mark} {text}</span>')
    return "".join(out)


def numbers_html(s: State) -> str:
    """The state's block of numbers and badges (every piece escaped)."""
    nums = "".join(
        f'<span class="live-num"><span class="live-name">{html.escape(name)}</span> = '
        f"<b>{html.escape(value)}</b></span>"
        if name
        else f'<span class="live-num">{html.escape(value)}</span>'
        for name, value in s.numbers
    )
    return f'<div class="live-nums">{nums}</div><div class="live-badges">{_badges(s.checks)}</div>'


def _round(x: Any) -> Any:
    """Trace data as JSON with 7 significant digits (the hover shows 6): a smaller payload."""
    if isinstance(x, float):
        return float(f"{x:.7g}")
    if isinstance(x, list | tuple):
        return [_round(v) for v in x]
    if hasattr(x, "tolist"):
        return _round(x.tolist())
    return x


def _patches(
    states: Sequence[State], share: bool
) -> tuple[list[list[list[Any]]], list[dict[str, Any]]]:
    """Each state's trace patches as ``[i, props]``; with ``share``, a patch that two or more
    states share becomes ``[i, n]``: entry ``n`` of the table of shared patches (sent once)."""
    rounded = [
        [[i, {k: _round(v) for k, v in props.items()}] for i, props in s.traces.items()]
        for s in states
    ]
    if not share:  # no keys to build on every rerun of a control that shares nothing
        return rounded, []
    keys = [[json.dumps(props, sort_keys=True) for _, props in r] for r in rounded]
    count = Counter(key for row in keys for key in row)
    table: dict[str, int] = {}
    shared: list[dict[str, Any]] = []
    for r, row in zip(rounded, keys, strict=True):
        for patch, key in zip(r, row, strict=True):
            if count[key] > 1:
                if key not in table:
                    table[key] = len(shared)
                    shared.append(patch[1])
                patch[1] = table[key]
    return rounded, shared


def state_traces(data: Mapping[str, Any], n: int) -> dict[int, dict[str, Any]]:
    """What state ``n`` of packed ``data`` patches (trace index → properties), shared
    patches looked up in the table as the browser does (``ui/live/live.js``)."""
    return {
        i: data["patches"][p] if isinstance(p, int) else p for i, p in data["states"][n]["traces"]
    }


def _moves_traces(spec: Mapping[str, Any], states: Sequence[State]) -> bool:
    """Whether a state can be drawn by moving its traces alone (``Plotly.animate`` with no
    redraw, about a third of ``Plotly.react``'s time): every trace of the figure is a scatter
    or a bar, and every axis whose coordinates a state patches has a fixed range (nothing the
    states change could move an axis, which that path does not redraw). A heatmap or a
    contour anywhere in the figure, patched or not, rules it out: such a move leaves its
    layer empty in plotly.js 4 (tests/browser/test_live_in_chromium.py)."""
    data, lay = spec["data"], spec["layout"]
    if any(trace.get("type", "scatter") not in MOVABLE for trace in data):
        return False
    for i in {i for s in states for i in s.traces}:
        trace = data[i]
        for letter in {k for s in states for k in s.traces.get(i, {})} & {"x", "y"}:
            if not _fixed_axis(lay, trace, letter):
                return False
    return True


def _fixed_axis(lay: Mapping[str, Any], trace: Mapping[str, Any], letter: str) -> bool:
    """Whether the trace's ``letter`` axis ("x" or "y") has a range that data cannot move."""
    ref = trace.get(f"{letter}axis", letter)  # "x", "x2", …
    axis = lay.get(f"{letter}axis{ref[1:]}", {})
    return axis.get("range") is not None and axis.get("autorange") in (None, False)


def _repaints_heatmaps(spec: Mapping[str, Any], states: Sequence[State]) -> bool:
    """Whether a state can be drawn by repainting heatmaps alone: every patched trace is a
    heatmap, a state patches only its ``z``, and its colour range is fixed (``zmin`` and
    ``zmax``), so neither the colour bar nor anything else in the figure changes."""
    data = spec["data"]
    patched = {i for s in states for i in s.traces}
    return bool(patched) and all(
        data[i].get("type") == "heatmap"
        and data[i].get("zmin") is not None
        and data[i].get("zmax") is not None
        and not data[i].get("zauto")
        and all(set(s.traces.get(i, {})) <= {"z"} for s in states)
        for i in patched
    )


def pack(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The component's data as the browser reads it: :func:`wire`'s JSON (same arguments),
    parsed (:func:`read`)."""
    return read(wire(*args, **kwargs))


def read(raw: bytes) -> dict[str, Any]:
    """A payload as the browser reads it (``read`` in ``ui/live/live.js``): the JSON parsed,
    the frames' packed coordinates (:func:`_packed`) back to the numbers they were."""
    data = json.loads(raw)
    for frame in data.get("frames", ()):
        for trace in frame.get("data", ()):
            for axis in ("x", "y"):
                if isinstance(trace.get(axis), dict) and "i2" in trace[axis]:
                    codes = np.frombuffer(base64.b64decode(trace[axis]["i2"]), dtype="<i2")
                    trace[axis] = (codes / PACK_SCALE).tolist()
    return data


def _packed(values: Any) -> Any:
    """A frame's coordinates, where each has at most two decimals and is under 327.68 in
    size, as ``{"i2": base64}``: PACK_SCALE × each value as little-endian 16-bit integers,
    which the browser divides by PACK_SCALE again (the same doubles: both divisions are
    correctly rounded). 2.7 characters a number where the JSON takes about 5.5: the
    reverse scrub's frames, 111 KB of its 141, become 59 KB. Anything else as it was."""
    if isinstance(values, np.ndarray):
        values = values.tolist()
    if not isinstance(values, list | tuple) or len(values) < PACK_MIN:
        return values
    if not all(type(v) is float or type(v) is int for v in values):  # no gaps, no bools
        return values
    a = np.asarray(values, dtype=float)
    codes = np.round(a * PACK_SCALE)
    if not (
        np.all(np.abs(codes) <= np.iinfo(np.int16).max) and np.array_equal(codes / PACK_SCALE, a)
    ):
        return values
    return {"i2": base64.b64encode(codes.astype("<i2").tobytes()).decode()}


def _pack_frames(frames: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The frames with their traces' x and y packed where they can be (:func:`_packed`)."""
    out = []
    for frame in frames:
        data = [
            {k: _packed(v) if k in ("x", "y") else v for k, v in trace.items()}
            for trace in frame.get("data", ())
        ]
        out.append({**frame, "data": data} if "data" in frame else dict(frame))
    return out


def wire(
    label: str,
    states: Sequence[State],
    value: Value,
    figure: go.Figure,
    *,
    chart_key: str,
    config: Mapping[str, Any] | None = None,
    shared_checks: Sequence[kit.Check] = (),
    share_patches: bool = False,
    kept: bool = False,
    move: bool = False,
) -> bytes:
    """The component's data, as the JSON bytes sent: the figure once, each state's changing
    traces and numbers.

    The figure's traces that the states patch take the first state's data, so the payload
    does not depend on ``value`` except for ``index``: a rerun that only moves the value
    leaves ``digest`` as it was, and the browser keeps its chart. With ``share_patches`` a
    patch that several states share is sent once (``patches``; read a state's with
    :func:`state_traces`); ``shared_checks``, the same in every state, are sent once
    (``sharedHtml``) and shown before each state's badges.

    The payload is encoded once (:func:`_json`), ``digest`` is taken from that text, and
    the bytes go to the component as they are: Streamlit forwards bytes without encoding
    them again, where a dict costs it two more encodings (one sorted, for the element's
    identity). Round 14: an η step of the reverse scrub spent 18–34 ms of its run in the
    chart, most of it encoding JSON; now 9–10 ms (bench/controls_report.md).
    """
    if not states:
        raise ValueError("a live control needs at least one state")
    values = [s.value for s in states]
    if value not in values:
        raise ValueError(f"{value!r} is not one of the states")
    spec = figure.to_plotly_json()
    if spec.get("frames") and not kept:  # a slider's states patch data and layout only
        raise ValueError(f"{chart_key}: a live control cannot draw a figure with frames")
    data = [dict(t) for t in spec["data"]]
    for i, props in states[0].traces.items():
        data[i].update(props)
    traces, shared = _patches(states, share_patches)
    packed_states = [
        {"value": s.value, "label": s.label, "traces": t, "html": numbers_html(s)}
        for s, t in zip(states, traces, strict=True)
    ]
    body = {
        "label": label,
        "chartKey": chart_key,
        "figure": {"data": data, "layout": spec["layout"]},
        "config": dict(config or kit.PLOTLY_CONFIG),
        "states": packed_states,
        "settleMs": SETTLE_MS,
        "moveTraces": _moves_traces(spec, states),
        "repaintHeatmaps": _repaints_heatmaps(spec, states),
    }
    if kept:
        body["kept"] = True
        if spec.get("frames"):
            body["frames"] = _pack_frames(spec["frames"])
        if move:
            body["skeleton"], body["movable"] = _skeleton(body), _movable(spec)
            if _swappable(spec):
                body["swappable"], body["coords"] = True, _coords(body)
    if shared:
        body["patches"] = shared
    if shared_checks:
        body["sharedHtml"] = _badges(shared_checks)
    text = _json(body)
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    return f'{text[:-1]},"digest":"{digest}","index":{values.index(value)}}}'.encode()


def _skeleton(body: Mapping[str, Any]) -> str:
    """A kept chart's figure with its traces' coordinates, its frames and its sliders' steps
    left out, and its layout images' sources and its axes' title texts: the same skeleton on
    the chart drawn and a new figure means the new one differs only in x and y, in its
    frames (their names and number too), in the frame slider's steps, in the layout images'
    pictures and in the axes' titles, which the browser replaces in place (an image's title
    that names its step: the forward chain's "chain: 213 steps"). Which coordinates are empty
    stays in (``Plotly.animate`` neither clears a trace's old points nor draws a trace that
    had none), and so do the traces a frame patches."""
    figure = body["figure"]
    traces = [
        {k: v for k, v in t.items() if k not in ("x", "y", "source")}
        | {"empty": [_no_points(t.get(k)) for k in ("x", "y")]}
        for t in figure["data"]
    ]
    layout = dict(figure["layout"])
    for name, axis in layout.items():
        if _AXIS.fullmatch(name) and isinstance(axis.get("title"), Mapping):
            title = {k: v for k, v in axis["title"].items() if k != "text"}
            layout[name] = {**axis, "title": title}
    if "images" in layout:  # the browser swaps their pictures in place
        layout["images"] = [{k: v for k, v in i.items() if k != "source"} for i in layout["images"]]
    if "sliders" in layout:
        layout["sliders"] = [
            {k: v for k, v in s.items() if k not in ("steps", "active")} for s in layout["sliders"]
        ]
    frames = sorted({tuple(f.get("traces") or ()) for f in body.get("frames", ())})
    text = _json([traces, layout, body["config"], frames], sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _coords(body: Mapping[str, Any]) -> str:
    """The figure's traces' x and y and its layout images' sources, hashed: with the same
    skeleton and the same coordinates a new figure differs from the one drawn only in its
    image traces' sources (and frames)."""
    xy = [[t.get("x"), t.get("y")] for t in body["figure"]["data"]]
    xy.append([i.get("source") for i in body["figure"]["layout"].get("images", ())])
    return hashlib.sha1(_json(xy).encode()).hexdigest()[:16]


def _swappable(spec: Mapping[str, Any]) -> bool:
    """Whether the figure shows images from sources (``go.Image(source=...)``), which the
    browser can swap in place: their pictures change, nothing else is drawn again."""
    return any(_sourced(t) for t in spec["data"])


def _no_points(v: Any) -> bool:
    """Whether a trace's x or y is there and empty (a list, a tuple or a numpy array)."""
    return v is not None and not isinstance(v, str | Mapping) and len(v) == 0


def _movable(spec: Mapping[str, Any]) -> bool:
    """Whether every trace is a scatter or a bar, or an image from a source, on axes with
    fixed ranges, and no frame changes the layout: a new figure with the same skeleton can
    then be drawn by moving the traces (``Plotly.animate``, no redraw; a heatmap or contour
    would be left empty) and swapping the images' pictures."""
    lay = spec["layout"]
    return all(
        (trace.get("type", "scatter") in MOVABLE or _sourced(trace))
        and all(_fixed_axis(lay, trace, letter) for letter in ("x", "y"))
        for trace in spec["data"]
    ) and not any("layout" in f for f in spec.get("frames", ()))


def _sourced(trace: Mapping[str, Any]) -> bool:
    """Whether the trace is an image drawn from a source (a picture the browser can swap)."""
    return trace.get("type") == "image" and bool(trace.get("source"))


def _jsonable(x: Any) -> Any:
    """Plotly's JSON (numpy arrays as lists) back as plain Python."""
    return json.loads(plotly.io.json.to_json_plotly(x))


def _json(x: Any, *, sort_keys: bool = False) -> str:
    """``x`` as compact JSON text, as Plotly's encoder writes it (numpy arrays as lists,
    numpy numbers as numbers, NaN and infinities as null), in one pass of Python's C
    encoder where it can: Plotly's own encodes twice and parses once (for the NaN it
    replaces), and :func:`_jsonable` parses again."""
    try:
        return json.dumps(
            x, allow_nan=False, default=_numpy, separators=(",", ":"), sort_keys=sort_keys
        )
    except (TypeError, ValueError):  # NaN, or a value only Plotly's encoder knows
        return json.dumps(_jsonable(x), separators=(",", ":"), sort_keys=sort_keys)


def _numpy(x: Any) -> Any:
    """A numpy array or number as Python lists and numbers (``json.dumps``' ``default``)."""
    if hasattr(x, "tolist") and hasattr(x, "dtype"):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON")


def kept_chart(
    figure: go.Figure | Callable[[], go.Figure],
    chart_key: str,
    *,
    move: bool = False,
    memo: Hashable = None,
) -> bytes:
    """A chart that stays on the page and takes each new figure in place (``Plotly.react``).

    ``st.plotly_chart`` draws a changed figure as a new chart (``ui.streamlit_internals``):
    its element is built again, Plotly draws it from scratch, then lays it out once more at
    its measured width. This element (the live control's, with one state and no slider or
    numbers) keeps its plot, and Plotly draws only what changed. The chart has the class
    ``st-key-<chart_key>`` as a ``st.plotly_chart`` would; the element's key is
    ``<chart_key>_kept``. Use it through ``kit.chart(..., kept=True)``.

    A figure with frames (a scrub with Plotly's own slider) keeps them: they go with the
    payload (their coordinates packed where they fit, :func:`_packed`), and Plotly plays
    them in the browser. With ``move``, where a new figure differs from the one drawn only
    in its traces' x and y, its frames, its frame slider's steps and its axes' titles (the
    same ``skeleton``) on fixed axes (``movable``), the browser moves the traces to it
    (``Plotly.animate`` with no redraw), retitles the axes, replaces the frames and the
    slider's steps, and a student who scrubbed elsewhere stays at their frame if the new
    frames have one of that name: a figure names its frames by what should stay (the
    reverse scrub by t, the same step at every step count; the forward scrub by its place
    along t/T, as T changes). A figure of images from sources (``swappable``) that differs
    only in those sources and its frames' (the same ``skeleton`` and ``coords``) has its
    pictures swapped in place, the student's frame kept. Otherwise the chart is redrawn
    (``Plotly.react``, the frames with it). Round 10 kept the scrubs with ``Plotly.react``
    alone, and they became slower; round 13 moves the reverse scrub's traces, round 14 also
    across a new step count, and swaps the forward scrub's pictures; round 29 moves the
    forward chain, retitled (bench/controls_report.md).

    With ``memo`` (``figure`` then builds the figure), the payload comes from a cache every
    session shares, keyed by ``chart_key``, ``move``, ``memo`` and the language: the figure
    is built and encoded on a miss only.

    Returns the payload (``kit.payload_sent``: the browser may already show it).
    """
    if memo is None:
        assert isinstance(figure, go.Figure)
        data = _kept_wire(figure, chart_key, move)
    else:
        data = memo_payload(chart_key, move, memo, current_lang(), figure)
    manager = serve_component_files(PACKAGE, "live", FOLDER.parent, FOLDER.name)
    if manager is not None:  # a server run (AppTest included): mount the component
        _component(manager)(key=f"{chart_key}_kept", data=data)
    return data


def _kept_wire(figure: go.Figure, chart_key: str, move: bool) -> bytes:
    return wire("", [State(0, "", {})], 0, figure, chart_key=chart_key, kept=True, move=move)


def memo_payload(
    chart_key: str, move: bool, memo: Hashable, lang: str, build: Callable[[], go.Figure]
) -> bytes:
    """A kept chart's payload by what its figure depends on (``memo``, and the language its
    labels are in), built once for every session (``kit.chart``'s ``memo``; a warm-up may
    build it before any session asks)."""
    return _memo_wire(chart_key, move, memo, lang, build)


@st.cache_data(max_entries=MEMO_ENTRIES, show_spinner=False)
def _memo_wire(
    chart_key: str, move: bool, memo: Hashable, lang: str, _build: Callable[[], go.Figure]
) -> bytes:
    return _kept_wire(_build(), chart_key, move)


@functools.lru_cache(maxsize=4)
def _component(manager: Any) -> Any:
    """The component, registered once per server (an AppTest run has a server of its own)."""
    serve_component_files(PACKAGE, "plotly", Path(plotly.__file__).parent, "package_data")
    return component(NAME, js=entry_js(), css="live.css", isolate_styles=False)


def entry_js() -> str:
    """The component's JavaScript as Streamlit runs it: a module, given inline, that imports
    ``live.js`` from this server once and hands every call on to it.

    Given as a file, the component's script is added to the page again as a
    ``<script type="module">`` on every new payload, and Streamlit calls it on that
    element's ``load`` event: a task of its own, which waits behind whatever the browser has
    queued by then (the formula's rendering, 30 ms behind the chart; bench/controls_report.md,
    round 21: a payload reached ``live.js`` 7–81 ms after it arrived). Given inline, the
    same module is imported again at once, and the call follows in the same task.
    ``live.js`` keeps its own address (``import.meta.url``: Plotly is found beside it).
    """
    url = json.dumps(f"{state.app_root()}_stcore/bidi-components/{NAME}/live.js")
    return (
        f"const live = import(new URL({url}, location.origin).href);\n"
        "export default async function (args) {\n"
        "  return (await live).default(args);\n"
        "}\n"
    )


def slider(
    label: str,
    key: str,
    states: Sequence[State],
    value: Value,
    figure: go.Figure,
    *,
    chart_key: str,
    shared_checks: Sequence[kit.Check] = (),
    share_patches: bool = False,
) -> Value:
    """Draw the live control (slider, chart, numbers) at ``value`` and queue it for the URL.

    ``value`` is :func:`current`'s; ``figure`` is the chart at that value (kept for "data &
    export"); the states patch its traces. ``shared_checks``: badges that do not depend on
    the state (shown with every state's, sent once); ``share_patches``: send a patch that
    several states share once (many states, few distinct patches; see :func:`pack`).

    The component's element has the key ``key`` (``.st-key-<key>``, its slider inside) and
    the chart the class ``st-key-<chart_key>``, as a ``st.plotly_chart`` with that key would,
    so the browser tests and the benchmark find both. Returns ``value``.
    """
    options = tuple(s.value for s in states)
    data = wire(
        label,
        states,
        value,
        figure,
        chart_key=chart_key,
        shared_checks=shared_checks,
        share_patches=share_patches,
    )
    manager = serve_component_files(PACKAGE, "live", FOLDER.parent, FOLDER.name)
    kit.let_the_chart_go_first()  # a chart sent just before (Swin's regions) is drawn alone
    if manager is not None:  # a server run (AppTest included): mount the component
        _component(manager)(
            key=key,
            data=data,
            on_value_change=functools.partial(_take_reported, key, options),
        )
    kit.payload_sent(key, data)  # the formula after it lets it go first, as after any chart
    kit.keep_chart(figure, chart_key)
    state.publish(key, encode(value))
    return value
