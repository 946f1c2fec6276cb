"""Cached work of the attention-maps page (bounded, shared by every session)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import attention as att


@st.cache_data(max_entries=16, show_spinner=False)
def scaling_curves(
    dims: tuple[int, ...], n_tokens: int, n_heads: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`core.attention.scaling_curves`, computed once per argument set."""
    return att.scaling_curves(dims, n_tokens, n_heads, seed)
