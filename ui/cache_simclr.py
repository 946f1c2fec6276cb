"""Cached work of the SimCLR page: the sample batch, its views, embeddings, a few training steps.

Every cache is bounded (``max_entries``). torch is imported only by the functions that run
the networks, so the page's first view (the augmentations, numpy only) never loads it.

A training run shows its progress (the loss falling as the student watches), so it cannot
run inside ``st.cache_data`` (a hit would replay every progress message): :func:`cached_run`
looks the cache up without training and :func:`train` trains, then stores the result
(the pattern of ``ui.cache_reverse``). A run takes 0.2–0.5 s on one core (N = 2 … 8,
measured); it never runs inside a slider step: the page trains the default settings once per
server, and any other settings when the student presses "Train" (``ui.train_button``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

from core import contrastive as ct
from core import images
from core.arrays import Array
from ui.registry import ROOT

SOURCE_SIDE = 64  # the sample images
SIDE = 32  # the views the encoder sees
# The sample images of the diffusion pages and four drawn ones, alternating.
PICTURES = ("sunset", "stripes", "shapes", "rings", "checker", "cross", "scene", "dots")
FIXED_DRAW = 1  # the draw of views that the similarity and training parts embed
TRAIN_SECONDS = 1  # what the "Train" button promises: 0.2–0.5 s measured, plus the drawing
STEPS = 60  # Adam steps of a training run (about a second on one core)
TRAINED = (0.2, STEPS)  # τ, steps: the run the "trained" encoder of the similarity parts is from
DEFAULT = (6, 0.5, 0.3, 0)  # N, s, smallest crop, seed: the page's defaults
DEFAULT_KEY = (*DEFAULT, *TRAINED)  # its run is trained once per server (ui/warmup.py)


@st.cache_data(max_entries=1, show_spinner=False)
def sample_batch() -> Array:
    """(8, 64, 64, 3) in [0, 1]: the sample PNGs and the drawn :data:`ct.SYNTHETIC`."""
    out = []
    for name in PICTURES:
        if name in ct.SYNTHETIC:
            out.append(ct.synthetic_image(name, SOURCE_SIDE))
        else:
            data = (ROOT / "assets" / "images" / f"{name}.png").read_bytes()
            out.append(images.load_image(data, SOURCE_SIDE) / 255.0)
    return np.stack(out)


@st.cache_data(max_entries=64, show_spinner=False)
def views(n: int, strength: float, min_area: float, seed: int, draw: int) -> ct.Views:
    """Two views of each of the first n images, drawn from ``[seed, draw]``."""
    rng = np.random.default_rng([seed, draw])
    return ct.two_views(sample_batch()[:n], rng, SIDE, strength, min_area)


@st.cache_data(max_entries=32, show_spinner=False)
def untrained_embeddings(n: int, strength: float, min_area: float, seed: int) -> Array:
    """z (2N, p) of the fixed views by an untrained network drawn from ``seed``."""
    from core import simclr as sc
    from ui.perf import single_threaded_torch

    single_threaded_torch()
    return sc.embed(views(n, strength, min_area, seed, FIXED_DRAW).images, seed)


@st.cache_data(max_entries=64, show_spinner=False)
def temperature_table(z: Array, taus: tuple[float, ...]) -> Array:
    """(N − 1, len(taus)) NT-Xent of the first N′ = 2 … N images' views of z, at every τ
    (the same embeddings with fewer negatives): nothing here depends on the current τ."""
    two_n = z.shape[0]
    N = two_n // 2
    table = np.zeros((N - 1, len(taus)))
    for a, m in enumerate(range(2, N + 1)):
        rows = np.r_[np.arange(m), N + np.arange(m)]  # views 1 … m and 1′ … m′
        table[a] = [ct.nt_xent(z[rows], tau) for tau in taus]
    return table


# ---- training ------------------------------------------------------------------------------
Key = tuple[int, float, float, int, float, int]  # n, strength, min_area, seed, τ, steps


@st.cache_data(max_entries=32, show_spinner=False)
def _runs(key: Key, _run: object | None = None) -> object | None:
    """The cache itself: returns what it was first given for ``key`` (``None``: nothing)."""
    return _run


def cached_run(key: Key):  # noqa: ANN201 (core.simclr.TrainingRun, torch not imported here)
    """The training run of ``key`` if one is cached, without training."""
    hit = _runs(key)
    if hit is None:
        _runs.clear(key)  # forget the empty look-up: the next training stores its result
    return hit


def train(key: Key, on_progress: Callable[[int, Array], None] | None = None):  # noqa: ANN201
    """Train now (a few seconds at most, one torch thread), cache the run and return it."""
    from core import simclr as sc
    from ui.perf import single_threaded_torch

    hit = cached_run(key)
    if hit is not None:
        return hit
    single_threaded_torch()
    n, strength, min_area, seed, tau, steps = key
    run = sc.train_steps(
        sample_batch()[:n],
        views(n, strength, min_area, seed, FIXED_DRAW).images,
        tau,
        steps,
        seed,
        side=SIDE,
        strength=strength,
        min_area=min_area,
        on_progress=on_progress,
    )
    _runs.clear(key)
    return _runs(key, run) or run


@st.cache_data(max_entries=1, show_spinner=False)
def default_run(key: Key):  # noqa: ANN201 (core.simclr.TrainingRun)
    """The run of the page's default settings: trained once per server and never evicted by
    other settings' runs, so coming back to the defaults never trains in a control's step."""
    return train(key)


def warm_default() -> None:
    """Train the default settings' run (``ui/warmup.py``: once per server, in the background)."""
    default_run(DEFAULT_KEY)
