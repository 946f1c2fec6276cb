"""What a server computes once, in the background, after its first page view (issue 21).

A few pages show, at their default settings, results that take seconds to compute: reverse
diffusion's samplers (DDPM's 1000 steps) and quality curves, SimCLR's and the backprop page's
default training runs, the attention gallery's timings (every option of its time view) and
scores (every option of the compare view's knobs), and the forward-diffusion scrub's images
of every sample image. The Vision Transformer's two views at every patch size are shorter
(0.13–0.15 s at P = 4) but sit on its P slider.
Computed inside a student's step, they made the first visit of those views, and the first
click of the sampler, wait 0.5–2.4 s. :func:`start` computes them in
one daemon thread, once per server process, into the same bounded ``st.cache_data`` caches
the pages read, so those views are cache hits by the time a class opens them. Other
settings are still computed when a student picks them.

The thread starts after the first page view has been drawn (the end of ``app.py``), uses
one torch thread (``ui.perf``), and logs what it did and how long it took. ``ADLAB_WARMUP=0``
switches it off (the tests do, so their timings and caches stay their own; a test turns it
back on for a real server).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import streamlit as st
from streamlit.logger import get_logger

ENV = "ADLAB_WARMUP"
LOG = get_logger("adlab.warmup")  # Streamlit's format and level (info): the server's log


def tasks() -> list[tuple[str, Callable[[], None]]]:
    """(name, work) in the order they run: the longest waits a student would meet first."""
    from ui import (
        cache_backprop,
        cache_forward,
        cache_gallery,
        cache_reverse,
        cache_simclr,
        cache_vit,
    )

    return [
        ("reverse_diffusion", cache_reverse.warm_defaults),
        ("simclr", cache_simclr.warm_default),
        ("backprop_by_hand", cache_backprop.warm_default),
        ("attention_gallery", cache_gallery.warm_timings),
        ("attention_gallery_compare", cache_gallery.warm_scores),
        ("forward_diffusion", cache_forward.warm_defaults),
        ("vision_transformer", cache_vit.warm_defaults),
    ]


def enabled() -> bool:
    return os.environ.get(ENV, "1") != "0"


def run() -> dict[str, float]:
    """Run every task here and now; returns each task's seconds (a failure is logged, and the
    page computes that result itself when a student needs it)."""
    from ui.perf import single_threaded_torch

    single_threaded_torch()
    seconds = {}
    for name, work in tasks():
        start = time.perf_counter()
        try:
            work()
        except Exception:  # noqa: BLE001 (the page will compute it, and show any error itself)
            LOG.exception("adlab warm-up: %s failed", name)
            continue
        seconds[name] = time.perf_counter() - start
    frozen = freeze_libraries()
    LOG.info(
        "adlab warm-up: done (%s); %d objects frozen",
        ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items()),
        frozen,
    )
    return seconds


def freeze_libraries() -> int:
    """Import the libraries pages load on first use, then freeze the heap (``ui.perf``).

    ``app.py`` freezes what it imported (pandas included: ``ui.perf.import_lazy_modules``),
    but torch and sympy come later, with the first page that uses them, and Python's full
    collections then walked all of them (with the warm-up's results) each time: 119-164 ms
    holding the GIL, every session stalled; 15-18 ms once they are frozen
    (bench/controls_report.md, round 12). Returns the number of frozen objects.
    """
    import sympy  # noqa: F401
    import torch  # noqa: F401

    from ui.perf import freeze_heap

    return freeze_heap()


@st.cache_resource(show_spinner=False)
def start() -> threading.Thread | None:
    """Start the warm-up thread, once per server process (``None``: switched off)."""
    if not enabled():
        return None
    thread = threading.Thread(target=run, name="adlab-warmup", daemon=True)
    thread.start()
    return thread
