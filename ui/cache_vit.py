"""Cached work of the Vision Transformer page: the sample images, decoded once, and each view's
computation for one image and patch size, so a step of another control (a head, a query, a
patch size seen before) only reads it."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

import numpy as np
import streamlit as st

from core import attention as att
from core import vit
from ui.registry import ROOT

SAMPLES = ("scene", "shapes", "checker", "sunset")
SIDE, CHANNELS, D_MODEL, HEADS, SEED = 64, 3, 384, 3, 0  # the course's D = 384 with 3 heads
PATCHES = (4, 8, 16, 32)  # the patch sizes P the page offers
SHOWN = 32  # channels of z₀ drawn


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


@dataclass(frozen=True)
class Patches:
    """The patches view's numbers for one image and patch size P.

    Attributes:
        pixels: (N, P²·C) uint8, the patches flattened; tokens: (T, SHOWN) the first columns
        of z₀; conv_gap: max |Conv2d − x_p E − b|; unpatchify_gap: max |unpatchify − image|.
    """

    pixels: np.ndarray
    tokens: np.ndarray
    conv_gap: float
    unpatchify_gap: float


@st.cache_data(max_entries=16, show_spinner=False)
def patches(rgb: np.ndarray, patch: int) -> Patches:
    """:class:`Patches` of the (SIDE, SIDE, 3) image ``rgb`` at patch size ``patch``: a step
    back to a P seen before reads it. Computed, 2–3 ms at P ≤ 16 and 22–28 ms at P = 32
    (torch's Conv2d initialises its C·D·P² weights before they are overwritten)."""
    w = weights(patch, SIDE, CHANNELS, D_MODEL, SEED)
    x = rgb / 255.0
    xp = vit.patchify(x, patch)
    conv = vit.conv_patch_embedding(x, w.E, w.b, patch)
    return Patches(
        pixels=vit.patchify(rgb, patch).astype(np.uint8),
        tokens=vit.input_tokens(x, w, patch)[:, :SHOWN],
        conv_gap=float(np.abs(conv - vit.patch_embedding(xp, w.E, w.b)).max()),
        unpatchify_gap=float(np.abs(vit.unpatchify(xp, patch, SIDE, SIDE) - x).max()),
    )


@dataclass(frozen=True)
class Attention:
    """The attention view's numbers for one image and patch size P (h heads, T tokens).

    Attributes:
        weights: (h, T, T) softmax(q kᵀ / √d) of :func:`core.vit.mhsa_steps`.
        torch_gap: max |Δ| of the output and the weights against ``torch.nn.MultiheadAttention``;
        core_gap: max |Δ| of the output against ``core.attention.multi_head_attention``;
        rows_sum_to_one: every row of ``weights`` sums to 1;
        unscaled_gap: max |Δa| of the weights when the scores are divided by √h instead.
    """

    weights: np.ndarray
    torch_gap: float
    core_gap: float
    rows_sum_to_one: bool
    unscaled_gap: float


@st.cache_data(max_entries=16, show_spinner=False)
def attention(rgb: np.ndarray, patch: int) -> Attention:
    """:class:`Attention` of the (SIDE, SIDE, 3) image ``rgb`` at patch size ``patch``, with
    HEADS heads: every head and query of one image and P read the same. The four attention
    runs (ours, torch's layer, ``core``'s, the course's scale) took 130–145 ms at P = 4 and
    29 ms at P = 8 on every step of any control of the view; a hit takes 0.3–0.8 ms."""
    w, h = weights(patch, SIDE, CHANNELS, D_MODEL, SEED), HEADS
    z0 = vit.input_tokens(rgb / 255.0, w, patch)
    s = vit.mhsa_steps(z0, w.w_q, w.w_k, w.w_v, w.w_o, h)
    out, ref = vit.torch_mha(z0, w.w_q, w.w_k, w.w_v, w.w_o, h)
    core_out, _ = att.multi_head_attention(z0, w.w_q, w.w_k, w.w_v, w.w_o, h)
    wrong = vit.mhsa_steps(z0, w.w_q, w.w_k, w.w_v, w.w_o, h, scale=1 / np.sqrt(h))
    return Attention(
        weights=s.weights,
        torch_gap=max(float(np.abs(out - s.out).max()), float(np.abs(ref - s.weights).max())),
        core_gap=float(np.abs(core_out - s.out).max()),
        rows_sum_to_one=bool(np.allclose(s.weights.sum(-1), 1)),
        unscaled_gap=float(np.abs(wrong.weights - s.weights).max()),
    )


def warm_defaults() -> None:
    """Both views at every P for the default image (``ui.warmup``): a student's first step
    to P = 4 (257 tokens) is then a cache hit too."""
    rgb = sample_image(SAMPLES[0], SIDE)
    for patch in PATCHES:
        patches(rgb, patch)
        attention(rgb, patch)
