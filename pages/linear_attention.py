"""Linear attention: phi(Q)(phi(K)^T V) equals the explicit normalised matrix, costs O(N)
instead of O(N^2) (measured), and the causal version is a cumulative sum."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import attention as att
from figures import attention as figs
from ui import cache, exercises, kit, tex

TOKENS = [4, 6, 8, 12, 16, 24, 32, 48, 64]
TIMING_LENGTHS = (128, 256, 512, 1024, 2048)
TIMING_D, TIMING_REPEATS = 64, 5

page = kit.Page(
    "linear_attention",
    views=("equal", "causal", "timing"),
    exercise=exercises.linear_attention,
    code=(
        att.elu_feature_map,
        att.linear_attention_explicit,
        att.linear_attention_reordered,
        att.time_orderings,
    ),
)


@page.view("equal", "causal")
def matrices() -> None:
    """N and the seed outside the live part; the d slider inside it."""
    cols = st.columns([2, 1, 3])
    with cols[0]:
        N = page.select_slider("N", TOKENS, 16)
    with cols[1]:
        seed = page.seed()
    equal_view(N, seed, causal=page.current_view == "causal")
    page.derivation("rows")


@kit.fragment
def equal_view(N: int, seed: int, causal: bool) -> None:
    """The d slider: the explicit matrix and the agreement of both orderings."""
    d = page.select_slider("d", [1, 2, 4, 8, 16, 32, 64], 8)
    rng = np.random.default_rng([seed, N, d])
    q, k, v = (rng.standard_normal((N, d)) for _ in range(3))
    explicit, w = att.linear_attention_explicit(q, k, v, causal)
    reordered = att.linear_attention_reordered(q, k, v, causal)
    diff = float(np.abs(explicit - reordered).max())
    # N * A: 1 = uniform attention; a fixed colour scale keeps the layout still
    page.chart(
        figs.attention_heatmap(
            N * w,
            None,
            title=page.tr("causal_title" if causal else "matrix_title"),
            x_title=page.tr("keys"),
            y_title=page.tr("queries"),
            zmax=3.0,
            colorbar_title="N·A",
            hovertemplate=page.tr("hover_cell", q="%{y}", k="%{x}", v="%{z:.4f}")
            + "<extra></extra>",
        ),
        "matrix_chart",
        kept=True,
    )
    checks = [
        kit.Check(page.tr("check_equal"), diff < 1e-10, f"max |Δ| = {diff:.1e}"),
        kit.Check(page.tr("check_rows"), bool(np.allclose(w.sum(1), 1, atol=1e-12))),
        kit.Check(page.tr("check_positive"), bool(np.all(att.elu_feature_map(q) > 0))),
    ]
    if causal:
        A = np.tril(att.elu_feature_map(q) @ att.elu_feature_map(k).T)  # mask, diagonal kept
        gap = float(np.abs((A / A.sum(1, keepdims=True)) @ v - reordered).max())
        checks.append(kit.Check(page.tr("check_causal"), gap < 1e-10, f"max |Δ| = {gap:.1e}"))
    page.formula(
        "equal",
        checks=checks,
        upto="_{j \\le i}" if causal else "_j",
        N=N,
        d=d,
        diff=tex.sci(diff, 2, moderate=None),
    )


@page.view("timing")
def timing() -> None:
    """Both orderings timed for growing N (cached); the fitted log–log slopes."""
    runs = st.session_state.setdefault(page.key("runs"), 0)
    if st.button(page.tr("again"), key=page.key("again")):
        st.session_state[page.key("runs")] = runs = runs + 1
    bar = st.progress(0.0, text=page.tr("measuring"))
    results = []
    for index, N in enumerate(TIMING_LENGTHS):
        results.append(cache.linear_attention_timing(N, TIMING_D, TIMING_REPEATS, runs))
        bar.progress((index + 1) / len(TIMING_LENGTHS), text=page.tr("measuring"))
    bar.empty()
    explicit, reordered = (np.array(col) for col in zip(*results, strict=True))
    n = np.array(TIMING_LENGTHS, float)
    fits = tuple(tuple(np.polyfit(np.log(n), np.log(y), 1)) for y in (explicit, reordered))
    slope_e, slope_r = fits[0][0], fits[1][0]
    page.chart(
        figs.timing_figure(
            n,
            explicit,
            reordered,
            fits,
            title=page.tr("timing_title", d=TIMING_D, r=TIMING_REPEATS),
            x_title="N",
            y_title=page.tr("seconds"),
            names=(page.tr("explicit"), page.tr("reordered")),
            fit_names=(page.tr("slope_name"), page.tr("fit_hover")),
        ),
        "timing_chart",
    )
    page.formula(
        "timing",
        slope_explicit=f"{slope_e:.2f}",
        slope_reordered=f"{slope_r:.2f}",
        caption=page.tr("timing_caption"),
        checks=[
            kit.Check(
                page.tr("check_faster"),
                bool(reordered[-1] < explicit[-1]),
                f"N = {TIMING_LENGTHS[-1]}: ×{explicit[-1] / reordered[-1]:.1f}",
            ),
            kit.Check(
                page.tr("check_slopes"), bool(slope_e > slope_r), f"{slope_e:.2f} > {slope_r:.2f}"
            ),
        ],
    )


page.run()
