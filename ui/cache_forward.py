"""Cached work of the forward-diffusion page: the scrub figure's images and the chain's run.

The scrub's 82 JPEGs (x₀, ε and 40 frames under each schedule) and the chain's links are
the page's slow part (about 24 ms for the JPEGs, 18 ms for 200 links). The JPEGs depend only
on the image, T and the seed, so a class moving between the sample images, or back to a T it
saw, reruns from the cache. The chain (of an image, schedule, T and seed) is run as far as
anyone asked and kept, so a step of its t runs a few links. Keyed by x₀'s values, so an
uploaded image is cached like a sample. The warm-up (``ui.warmup``) encodes every sample at
the defaults.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

from core import diffusion as dif
from core import images
from figures import diffusion as figs
from ui.i18n import LANGUAGES, tr_in
from ui.registry import ROOT

if TYPE_CHECKING:
    import plotly.graph_objects as go

SIDE = 48  # working size: x₀ is SIDE × SIDE × 3, the frames cost ~1 KB each at this size
N_FRAMES = 40  # timesteps the browser can scrub without asking the server
KINDS = ("linear", "cosine")
SAMPLES = ("sunset", "shapes", "checker", "scene")
DEFAULT_T = 1000
STEPS = (50, 100, 250, 500, 1000, 2000)  # the T a student can pick
SCRUB_CHART = "forward_diffusion_scrub_chart"  # the page's kept chart (kit.chart's key)


@st.cache_data(max_entries=len(SAMPLES), show_spinner=False)
def sample_image(name: str) -> np.ndarray:
    """A shipped sample image at the working size, as uint8 pixels: read and scaled once, not
    on every step of the page's controls (0.4 ms a step, before the scrub's message)."""
    return images.load_image((ROOT / "assets" / "images" / f"{name}.png").read_bytes(), SIDE)


def noise(x0: np.ndarray, seed: int) -> np.ndarray:
    """ε, fixed by the seed (the same for every frame and both schedules)."""
    return np.random.default_rng(seed).standard_normal(x0.shape)


@functools.cache
def log_snr_range() -> tuple[float, float]:
    """The scrub's log-SNR axis: one range that holds both schedules at every T in STEPS,
    so that a new T moves the curves on the same axes (figures.diffusion.scrub_figure)."""
    curves = [dif.log_snr(dif.make_schedule(k, T)) for k in KINDS for T in STEPS]
    return figs.log_snr_axis(curves)


def frame_steps(T: int) -> np.ndarray:
    """The N_FRAMES steps t (1..T) the scrub shows."""
    return np.unique(np.round(np.linspace(1, T, N_FRAMES)).astype(int))


@st.cache_data(max_entries=32, show_spinner=False)
def scrub_images(x0: np.ndarray, T: int, seed: int) -> figs.ScrubImages:
    """The scrub figure's JPEGs for x₀ (signed, in [−1, 1]), T and the seed."""
    eps, steps = noise(x0, seed), frame_steps(T)
    schedules = [dif.make_schedule(k, T) for k in KINDS]
    frames = [dif.q_sample_steps(x0, steps, s, eps) for s in schedules]
    return figs.scrub_images(
        x0, eps, steps.tolist(), *frames, tuple(s.alpha_bars for s in schedules)
    )


def scrub_figure(x0: np.ndarray, T: int, seed: int, lang: str) -> go.Figure:
    """The scrub: x₀, ε and x_t under both schedules at every frame, labelled in ``lang``."""
    schedules = [dif.make_schedule(k, T) for k in KINDS]
    steps = frame_steps(T)
    kind = [tr_in(lang, f"forward_diffusion.kind_{k}") for k in KINDS]
    title = functools.partial(tr_in, lang)
    return figs.scrub_figure(
        x0,
        noise(x0, seed),
        steps.tolist(),
        None,
        None,
        tuple(s.alpha_bars for s in schedules),
        tuple(dif.log_snr(s) for s in schedules),
        int(np.argmin(np.abs(steps - T / 5))),
        image_titles=(
            title("forward_diffusion.x0_title"),
            title("forward_diffusion.eps_title"),
            *(title("forward_diffusion.xt_title", kind=k) for k in kind),
        ),
        curve_titles=(
            title("forward_diffusion.alpha_bar_title"),
            title("forward_diffusion.roots_title"),
            title("forward_diffusion.log_snr_title"),
        ),
        names=tuple(kind),
        x_title="t / T",
        images=scrub_images(x0, T, seed),
        log_snr_range=log_snr_range(),
    )


def scrub_memo(x0: np.ndarray, T: int, seed: int) -> tuple[str, int, int]:
    """What the scrub depends on besides the language (``kit.chart``'s memo): x₀ by its
    values, so an upload is kept as a sample is."""
    x0 = np.ascontiguousarray(x0, dtype=np.float64)
    digest = hashlib.blake2b(x0.tobytes() + repr(x0.shape).encode(), digest_size=16)
    return digest.hexdigest(), T, seed


def scrub_payload(x0: np.ndarray, T: int, seed: int, lang: str) -> bytes:
    """The scrub's payload as the page sends it (``ui.live.memo_payload``): from the cache
    every session shares, or built now and cached. A step of T to a T seen neither builds
    the figure nor encodes it (about 8 ms of the step's server time)."""
    from ui import live  # ui.live builds on ui.kit, which a data module does not need

    build = functools.partial(scrub_figure, x0, T, seed, lang)
    return live.memo_payload(SCRUB_CHART, True, scrub_memo(x0, T, seed), lang, build)


@dataclass
class _Chain:
    """One chain's trace, run on as far as any session asked, and the lock to run it on."""

    trace: dif.ChainTrace
    lock: threading.Lock


@st.cache_resource(max_entries=8, show_spinner=False)
def _chain(x0: np.ndarray, kind: str, T: int, seed: int) -> _Chain:
    rng = np.random.default_rng([seed, 1])
    return _Chain(dif.start_chain(x0, dif.make_schedule(kind, T), rng), threading.Lock())


def chain(x0: np.ndarray, t: int, kind: str, T: int, seed: int) -> dif.ChainRun:
    """t links of the chain from x₀ under the schedule (``kind``, T), noise from the seed.

    From the chain's trace (``core.diffusion.ChainTrace``) every session shares: a step of t
    past the furthest t asked runs the links in between, a step back at most 49 links from
    a saved state, where running all t links took 18 ms at t = 200 (record run 18: the
    chain's t, 88 / 101 ms, 1.05)."""
    held = _chain(x0, kind, T, seed)
    with held.lock:
        held.trace = trace = dif.extend_chain(held.trace, t)
    return dif.chain_at(trace, t)


def warm_defaults() -> None:
    """Encode every sample image's scrub at the default seed (0) for every T a student can
    pick, the default first, and its payload in each language: 24 calls of about 11 ms for
    the JPEGs, 48 of about 8 ms for the payloads (about 140 KB each). With T = 1000 alone,
    the first step of T to each other value computed its scrub inside the step (record run
    19: the slowest T steps were the first visits, 130–145 ms where the others took 85–90)."""
    for T in (DEFAULT_T, *(T for T in STEPS if T != DEFAULT_T)):
        for name in SAMPLES:
            x0 = images.to_signed(sample_image(name))
            for lang in LANGUAGES:
                scrub_payload(x0, T, 0, lang)
