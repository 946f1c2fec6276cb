"""Cached work of the forward-diffusion page: the scrub figure's images and the chain's run.

The scrub's 82 JPEGs (x₀, ε and 40 frames under each schedule) and the chain's t links are
the page's slow part (about 24 ms, and 20 ms per 200 links); both depend only on the image,
T and the seed (and the chain on the schedule and t), so a class moving between the sample
images, or back to a T it saw, reruns from the cache. Keyed by x₀'s values, so an uploaded image is
cached like a sample. The warm-up (``ui.warmup``) encodes every sample at the defaults.
"""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from core import diffusion as dif
from core import images
from figures import diffusion as figs
from ui.registry import ROOT

SIDE = 48  # working size: x₀ is SIDE × SIDE × 3, the frames cost ~1 KB each at this size
N_FRAMES = 40  # timesteps the browser can scrub without asking the server
KINDS = ("linear", "cosine")
SAMPLES = ("sunset", "shapes", "checker", "scene")
DEFAULT_T = 1000
STEPS = (50, 100, 250, 500, 1000, 2000)  # the T a student can pick


def sample_image(name: str) -> np.ndarray:
    """A shipped sample image at the working size, in [0, 1]."""
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


@st.cache_data(max_entries=32, show_spinner=False)
def chain(x0: np.ndarray, t: int, kind: str, T: int, seed: int) -> dif.ChainRun:
    """t links of the chain from x₀ under the schedule (``kind``, T), noise from the seed."""
    return dif.run_chain(x0, t, dif.make_schedule(kind, T), np.random.default_rng([seed, 1]))


def warm_defaults() -> None:
    """Encode every sample image's scrub at the default seed (0) for every T a student can
    pick, the default first: 24 calls of about 11 ms, 95 KB each. With T = 1000 alone, the
    first step of T to each other value computed its scrub inside the step (record run 19:
    the slowest T steps were the first visits, 130–145 ms where the others took 85–90)."""
    for T in (DEFAULT_T, *(T for T in STEPS if T != DEFAULT_T)):
        for name in SAMPLES:
            scrub_images(images.to_signed(sample_image(name)), T, 0)
