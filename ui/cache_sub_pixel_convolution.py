"""Cached work of the sub-pixel convolution page (bounded, see ui/cache.py)."""

from __future__ import annotations

import numpy as np
import streamlit as st

LOW_SIDE = 32  # the sample image is upsampled from 32 × 32 to 64 × 64


def _display(y: np.ndarray) -> np.ndarray:
    """An untrained layer's output stretched to 0 … 255 (its own min and max) for display."""
    lo, hi = float(y.min()), float(y.max())
    return np.round(255 * (y - lo) / (hi - lo or 1.0)).astype(np.uint8)


@st.cache_data(max_entries=48, show_spinner=False)
def upsampled(name: str, kernel: int, seed: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The sample image at 32 × 32 and each upsampler's ×2 output, as uint8 RGB."""
    from core import convolution_layers as cl
    from core import images
    from ui import perf
    from ui.registry import ROOT

    perf.single_threaded_torch()
    data = (ROOT / "assets" / "images" / f"{name}.png").read_bytes()
    low = images.load_image(data, LOW_SIDE)
    outputs = cl.upsample_all(images.to_signed(low), 2, seed, kernel)
    return low, {key: _display(y) for key, y in outputs.items()}


@st.cache_data(max_entries=48, show_spinner=False)
def flat_spreads(kernel: int, seed: int) -> dict[str, float]:
    """Checkerboard strength of each upsampler's output for a flat grey 16 × 16 input."""
    from core import convolution as cv
    from core import convolution_layers as cl

    outputs = cl.upsample_all(np.full((16, 16, 3), 0.4), 2, seed, kernel)
    return {key: cv.phase_spread(y.transpose(2, 0, 1), 2) for key, y in outputs.items()}
