"""Cached adapters: bounded ``st.cache_data`` wrappers around expensive core calls.

Cache decorators live here, never in ``core/`` (which stays free of Streamlit). Every cache
has ``max_entries`` so a classroom cannot grow memory without bound. ``st.cache_data``
returns a fresh copy on each hit, so pages may not mutate shared state by accident.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import attention as att
from core import softmax as sm


@st.cache_data(max_entries=64, show_spinner=False)
def dot_products(d: int, n_pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    return sm.sample_dot_products(d, n_pairs, np.random.default_rng(seed))


@st.cache_data(max_entries=16, show_spinner=False)
def dot_product_variances(dims: tuple[int, ...], n_pairs: int, seed: int) -> np.ndarray:
    """(len(dims), 2): sample variance of q.k and of q.k/sqrt(d) for each d."""
    rng = np.random.default_rng(seed)
    out = []
    for d in dims:
        raw, scaled = sm.sample_dot_products(d, n_pairs, rng)
        out.append((raw.var(ddof=1), scaled.var(ddof=1)))
    return np.array(out)


@st.cache_data(max_entries=64, show_spinner=False)
def calibration_case(
    n_samples: int, n_classes: int, overconfidence: float, seed: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Synthetic over-confident classifier and its fitted temperature."""
    logits, labels = sm.overconfident_classifier(
        n_samples, n_classes, overconfidence, np.random.default_rng(seed)
    )
    return logits, labels, sm.fit_temperature(logits, labels)


@st.cache_data(max_entries=16, show_spinner=False)
def attention_scaling_curves(
    dims: tuple[int, ...], n_tokens: int, n_heads: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """(len(dims), 2) mean row entropy and mean top weight for scale 1/sqrt(D/h) and 1/sqrt(h)."""
    entropy, top = [], []
    for D in dims:
        rng = np.random.default_rng([seed, D])
        x = rng.standard_normal((n_tokens, D))
        ws = att.random_projections(D, rng)
        row_e, row_t = [], []
        for scale in (1 / np.sqrt(D // n_heads), 1 / np.sqrt(n_heads)):
            _, w = att.multi_head_attention(x, *ws, n_heads, scale=scale)
            row_e.append(att.row_entropy(w).mean())
            row_t.append(w.max(axis=-1).mean())
        entropy.append(row_e)
        top.append(row_t)
    return np.array(entropy), np.array(top)


@st.cache_data(max_entries=32, show_spinner=False)
def linear_attention_timing(length: int, d: int, repeats: int, run: int) -> tuple[float, float]:
    """Median seconds (explicit, reordered) at one N; ``run`` lets the user measure again."""
    explicit, reordered = att.time_orderings(
        [length], d, repeats, np.random.default_rng([run, length])
    )
    return float(explicit[0]), float(reordered[0])
