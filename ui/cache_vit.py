"""Cached work of the Vision Transformer page: the sample images, decoded once."""

from __future__ import annotations

import base64
import io

import numpy as np
import streamlit as st

from core import vit
from ui.registry import ROOT

SAMPLES = ("scene", "shapes", "checker", "sunset")


@st.cache_data(max_entries=8, show_spinner=False)
def sample_image(name: str, side: int) -> np.ndarray:
    """A sample image of ``assets/images`` as (side, side, 3) uint8 (validated like an upload)."""
    if name not in SAMPLES:
        raise KeyError(name)
    return vit.load_image((ROOT / "assets" / "images" / f"{name}.png").read_bytes(), side)


@st.cache_resource(max_entries=4, show_spinner=False)
def weights(patch: int, side: int, channels: int, d_model: int, seed: int) -> vit.ViTWeights:
    """The page's untrained weights for patch size P (read only: ~1.6 M random numbers at
    P = 32, drawn once per P instead of on every slider step)."""
    n_patches = (side // patch) ** 2
    return vit.init_vit(patch, channels, d_model, n_patches, np.random.default_rng(seed))


def png_source(rgb: np.ndarray) -> str:
    """The image as a PNG data URI for a Plotly image trace (~1 ms; a few KB instead of the
    ~45 KB of its pixel list on every slider step)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.asarray(rgb, dtype=np.uint8)).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
