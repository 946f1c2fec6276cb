"""Cached adapters of the parameterisation page (bounded ``st.cache_data``)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import images
from ui.registry import ROOT


@st.cache_data(max_entries=8, show_spinner=False)
def sample_image(name: str, side: int) -> np.ndarray:
    """A sample image of ``assets/images`` as (side, side, 3) floats in [−1, 1]."""
    data = (ROOT / "assets" / "images" / f"{name}.png").read_bytes()
    return images.to_signed(images.load_image(data, side))
