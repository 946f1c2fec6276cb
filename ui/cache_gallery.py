"""Cached work of the efficient-attention gallery (bounded, shared by every session).

One entry per (map side, seed, sharpness, settings): a class on the default view computes
each method once. Weights are kept as float32 (a 32×32 map: 4 MB per method).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import streamlit as st

from core import gallery, lsh
from ui import cache

D_HEAD = 16  # d = dv: the query/key and value width
TOP_K = 8  # the recall column: each query's 8 best keys by score
TIMING_SIDES = (8, 16, 24, 32, 40, 48)  # the time view's map sides: multiples of every
# window and ratio
TIMED = ("full", "linear", "sra", "swin")  # the methods the time view times
# the time view's knobs and their options (the page's controls offer exactly these)
TIMED_KNOBS: dict[str, tuple[int | bool, ...]] = {
    "window": (2, 4, 8),
    "shift": (True, False),
    "ratio": (1, 2, 4, 8),
}
# every knob's control on the page: name → (kind, options or (low, high), default); the
# defaults are core.gallery.Settings()'s
KNOB_WIDGETS: dict[str, tuple[str, tuple[int | bool, ...], int | bool]] = {
    "width": ("select", (1, 2, 4, 8, 16, 32, 64), 8),
    "dilation": ("slider", (1, 4), 2),
    "n_global": ("slider", (0, 4), 2),
    "per_row": ("slider", (0, 8), 4),
    "window": ("select", TIMED_KNOBS["window"], 4),
    "shift": ("toggle", (), True),
    "ratio": ("select", TIMED_KNOBS["ratio"], 2),
    "buckets": ("select", (1, 2, 4, 8, 16, 32), 8),
    "rounds": ("slider", (1, 4), 2),
    "clusters": ("slider", (1, 16), 4),
}
DEFAULT_SIDE, DEFAULT_SHARPNESS = 16, 2.0  # the input controls' defaults (the seed's is 0)
ALL_COMBINATIONS = 32  # a method with at most this many knob combinations is warmed at all


@st.cache_data(max_entries=8, show_spinner=False)
def shared_input(side: int, seed: int, sharpness: float) -> gallery.GalleryInput:
    """The sample image's side×side tokens projected to Q, K, V (``core.gallery.make_input``)."""
    _, x = cache.scene_tokens(side)
    return gallery.make_input(x, side, D_HEAD, np.random.default_rng(seed), sharpness=sharpness)


@st.cache_data(max_entries=8, show_spinner=False)
def _full(
    side: int, seed: int, sharpness: float
) -> tuple[gallery.MethodResult, np.ndarray, np.ndarray]:
    """Full attention on the shared input, its scores q kᵀ/√d (N, N) and each query's top-8
    keys by score (sorted once here, not once per method scored)."""
    inp = shared_input(side, seed, sharpness)
    dots = inp.q @ inp.k.T / np.sqrt(inp.q.shape[1])
    return gallery.run("full", inp), dots, lsh.top_k_keys(dots, TOP_K)


@st.cache_data(max_entries=256, show_spinner=False)  # the warm-up's 100, and a class's
def _score(
    side: int, seed: int, sharpness: float, method: str, own: gallery.Settings
) -> gallery.Score:
    """One method scored against full attention, keyed on its own knobs only."""
    full, dots, top = _full(side, seed, sharpness)
    inp = shared_input(side, seed, sharpness)
    result = full if method == "full" else gallery.run(method, inp, own, seed)
    return gallery.score(method, result, full, dots, TOP_K, top)


def scores(
    side: int, seed: int, sharpness: float, settings: gallery.Settings
) -> list[gallery.Score]:
    """Every method scored against full attention on the shared input (``gallery.compare``'s
    numbers), one cache entry per method and its own knobs: a knob re-scores one method."""
    return [
        _score(side, seed, sharpness, m, gallery.own_settings(m, settings)) for m in gallery.METHODS
    ]


@st.cache_data(max_entries=16, show_spinner=False)
def method_rows(
    side: int, seed: int, sharpness: float, settings: gallery.Settings, method: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(weights (N, N) float32, per-query relative error (N,), mask or None)``."""
    inp = shared_input(side, seed, sharpness)
    full = _full(side, seed, sharpness)[0]
    result = full if method == "full" else gallery.run(method, inp, settings, seed)
    error = gallery.row_errors(result.out, full.out)
    return result.weights.astype(np.float32), error, result.mask


@st.cache_data(max_entries=64, show_spinner=False)
def limits(side: int, seed: int, sharpness: float) -> dict[str, float]:
    """Each method's relative error at its dense limit (``core.gallery.dense_limit``).

    Eight floats an entry, so many entries cost nothing; 4 were fewer than the sharpness
    slider's 6 stops, and walking back along it recomputed them (51 ms a step)."""
    inp = shared_input(side, seed, sharpness)
    full = _full(side, seed, sharpness)[0]
    return {
        m: gallery.relative_error(
            gallery.run(m, inp, gallery.dense_limit(m, side), seed).out, full.out
        )
        for m in gallery.METHODS
        if m != "linear"
    }


@st.cache_data(max_entries=256, show_spinner=False)
def timing_at(side: int, method: str, settings: gallery.Settings, run: int) -> float:
    """Median seconds of one method at one map side (``core.gallery.time_methods``); ``run``
    counts the student's "measure again" presses, so a new press measures anew. One method
    per entry: a knob of one method (PVT's ratio) re-times that method, not full attention.

    The time does not depend on the numbers, so the input is always the same random tokens
    (seed 0): the seed and sharpness controls of the other views never re-time.
    """

    def random_tokens(s: int) -> gallery.GalleryInput:
        rng = np.random.default_rng(0)
        return gallery.make_input(rng.standard_normal((s * s, 7)), s, D_HEAD, rng, 1.0)

    return float(gallery.time_methods(random_tokens, (side,), (method,), settings)[0, 0])


# ---- the server's warm-up (ui/warmup.py) ----------------------------------------------------
def warm_timings() -> None:
    """Time every method of the time view at every side and every option of its own knobs
    (Swin's window and shift, PVT's ratio) before a student asks: a new option was a new
    measurement inside the student's step (0.3–0.5 s). About 3.5 s of one core, once per
    server; "measure again" still measures anew."""
    for method in TIMED:
        timed = {k: TIMED_KNOBS[k] for k in gallery.KNOBS[method] if k in TIMED_KNOBS}
        for own in _knob_settings(method, timed):
            for side in TIMING_SIDES:
                timing_at(side, method, own, 0)


def _knob_settings(
    method: str, options: dict[str, tuple[int | bool, ...]]
) -> list[gallery.Settings]:
    """``method``'s own settings at every combination of these knobs' options, its other
    knobs at their defaults (the warm-up's keys, as the page's ``own_settings``)."""
    return [
        gallery.own_settings(
            method, replace(gallery.Settings(), **dict(zip(options, combo, strict=True)))
        )
        for combo in itertools.product(*options.values())
    ]


def knob_options(knob: str) -> tuple[int | bool, ...]:
    """Every value the page's control of ``knob`` offers."""
    kind, args, _ = KNOB_WIDGETS[knob]
    if kind == "slider":
        return tuple(range(int(args[0]), int(args[1]) + 1))
    return tuple(args) if kind == "select" else (True, False)


def warm_scores() -> None:
    """Score every method of the compare view at every option of its own knobs, at the
    default input, before a student asks: a knob value not scored yet was computed inside
    the student's step (the first message up to 197 ms after the key, against a median 54;
    bench/controls_report.md, round 16). Methods with few combinations of their knobs get
    every one; BigBird (315) gets each knob's options with the others at their defaults.
    A score does not depend on other methods' knobs (``own_settings``), so these are the
    hits whatever else the student has set."""
    side, seed, sharpness = DEFAULT_SIDE, 0, DEFAULT_SHARPNESS
    for method in gallery.METHODS:
        options = {k: knob_options(k) for k in gallery.KNOBS[method]}
        if math.prod(len(o) for o in options.values()) <= ALL_COMBINATIONS:
            settings = _knob_settings(method, options)
        else:
            settings = [s for k, o in options.items() for s in _knob_settings(method, {k: o})]
        for own in settings:
            _score(side, seed, sharpness, method, own)
