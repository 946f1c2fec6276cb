"""Cached work of the depthwise separable convolution page (bounded, see ui/cache.py)."""

from __future__ import annotations

import streamlit as st

COLUMNS = (
    "col_layer",
    "col_kind",
    "col_stride",
    "col_kernel",
    "col_in",
    "col_out",
    "col_mult_adds",
    "col_params",
)


@st.cache_data(max_entries=32, show_spinner=False)
def timing(
    m: int, n: int, kernel: int, side: int, repeats: int, run: int
) -> tuple[float, float, float]:
    """Median seconds (standard, depthwise, pointwise) of one layer shape; ``run`` re-measures."""
    import torch

    from core import convolution_layers as cl
    from ui import perf

    perf.single_threaded_torch()
    t = cl.time_convolutions(m, n, kernel, side, repeats, torch.Generator().manual_seed(run))
    return t.standard, t.depthwise, t.pointwise


@st.cache_data(max_entries=32, show_spinner=False)
def layer_table(alpha: float, side: int, headers: tuple[str, ...]):  # noqa: ANN201 (a DataFrame)
    """MobileNet v1's layers as a table (Table 1 with each layer's cost), headers translated."""
    import pandas as pd  # Streamlit's own dependency; only needed when the table is shown

    from core import convolution as cv

    rows = [
        (
            i + 1,
            layer.kind,
            layer.stride,
            layer.kernel,
            f"{layer.side_in}²×{layer.m}",
            f"{layer.side_out}²×{layer.n}",
            layer.cost.mult_adds,
            layer.cost.params,
        )
        for i, layer in enumerate(cv.mobilenet_v1_layers(alpha, side))
    ]
    return pd.DataFrame(rows, columns=list(headers)).set_index(headers[0])
