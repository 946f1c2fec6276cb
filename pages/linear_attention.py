"""Linear attention: phi(Q)(phi(K)^T V) equals the explicit normalised matrix, costs O(N)
instead of O(N^2) (measured), and the causal version is a cumulative sum."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import attention as att
from figures import attention as figs
from ui import cache, exercises, kit, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()

C = "linear_attention"
TOKENS = [4, 6, 8, 12, 16, 24, 32, 48, 64]
TIMING_LENGTHS = (128, 256, 512, 1024, 2048)
TIMING_D, TIMING_REPEATS = 64, 5

kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", ("equal", "causal", "timing"), "equal",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip


@kit.fragment
def equal_view(N: int, seed: int, causal: bool) -> None:
    """The d slider: the explicit matrix and the agreement of both orderings."""
    d = state.select_slider(t(f"{C}.d"), f"{C}_d", [1, 2, 4, 8, 16, 32, 64], 8)
    rng = np.random.default_rng([seed, N, d])
    q, k, v = (rng.standard_normal((N, d)) for _ in range(3))
    explicit, w = att.linear_attention_explicit(q, k, v, causal)
    reordered = att.linear_attention_reordered(q, k, v, causal)
    diff = float(np.abs(explicit - reordered).max())
    title = t(f"{C}.causal_title") if causal else t(f"{C}.matrix_title")
    # N * A: 1 = uniform attention; a fixed colour scale keeps the layout still
    kit.chart(figs.attention_heatmap(N * w, None, title=title, x_title=t(f"{C}.keys"),
                                     y_title=t(f"{C}.queries"), zmax=3.0, colorbar_title="N·A",
                                     hovertemplate=t(f"{C}.hover_cell", q="%{y}", k="%{x}",
                                                     v="%{z:.4f}") + "<extra></extra>"),
              key=f"{C}_matrix_chart")  # fmt: skip
    phi = "\\phi"
    upto = "_{j \\le i}" if causal else "_j"
    checks = [
        kit.Check(t(f"{C}.check_equal"), diff < 1e-10, f"max |Δ| = {diff:.1e}"),
        kit.Check(t(f"{C}.check_rows"), bool(np.allclose(w.sum(1), 1, atol=1e-12))),
        kit.Check(t(f"{C}.check_positive"), bool(np.all(att.elu_feature_map(q) > 0))),
    ]
    if causal:
        A = np.tril(att.elu_feature_map(q) @ att.elu_feature_map(k).T)
        masked = (A / A.sum(1, keepdims=True)) @ v
        gap = float(np.abs(masked - reordered).max())
        checks.append(kit.Check(t(f"{C}.check_causal"), gap < 1e-10, f"max |Δ| = {gap:.1e}"))
    kit.formula(
        f"\\underbrace{{\\frac{{\\big({phi}(Q){phi}(K)^\\top\\big)_{{ij}}}}"
        f"{{\\sum{upto} {phi}(q_i)\\cdot{phi}(k_j)}}\\,V}}"
        f"_{{({N}\\times{N})\\,\\cdot\\,({N}\\times{d})}}"
        f" = \\underbrace{{\\frac{{{phi}(q_i)^\\top \\sum{upto} {phi}(k_j)v_j^\\top}}"
        f"{{{phi}(q_i)^\\top \\sum{upto} {phi}(k_j)}}}}_{{({d}\\times{d})\\ "
        f"\\text{{{t(f'{C}.state_tex')}}}}}"
        f"\\qquad \\max|\\Delta| = {diff:.1e}",
        checks=checks,
    )  # fmt: skip


def timing_part() -> None:
    kit.explain(C, "timing")
    runs = st.session_state.setdefault(f"{C}_runs", 0)
    if st.button(t(f"{C}.again"), key=f"{C}_again"):
        st.session_state[f"{C}_runs"] = runs = runs + 1
    bar = st.progress(0.0, text=t(f"{C}.measuring"))
    results = []
    for index, N in enumerate(TIMING_LENGTHS):
        results.append(cache.linear_attention_timing(N, TIMING_D, TIMING_REPEATS, runs))
        bar.progress((index + 1) / len(TIMING_LENGTHS), text=t(f"{C}.measuring"))
    bar.empty()
    explicit, reordered = (np.array(col) for col in zip(*results, strict=True))
    n = np.array(TIMING_LENGTHS, float)
    fits = tuple(tuple(np.polyfit(np.log(n), np.log(y), 1)) for y in (explicit, reordered))
    slope_e, slope_r = fits[0][0], fits[1][0]
    kit.chart(figs.timing_figure(
        n, explicit, reordered, fits, title=t(f"{C}.timing_title", d=TIMING_D, r=TIMING_REPEATS),
        x_title="N", y_title=t(f"{C}.seconds"), names=(t(f"{C}.explicit"), t(f"{C}.reordered")),
        fit_names=(t(f"{C}.slope_name"), t(f"{C}.fit_hover")),
    ), key=f"{C}_timing_chart")  # fmt: skip
    theory = t(f"{C}.theory_tex")
    kit.formula(
        f"t_{{(\\phi(Q)\\phi(K)^\\top)V}} \\propto N^{{{slope_e:.2f}}}\\ (\\text{{{theory} }} 2),"
        f"\\qquad t_{{\\phi(Q)(\\phi(K)^\\top V)}} \\propto N^{{{slope_r:.2f}}}"
        f"\\ (\\text{{{theory} }} 1)",
        checks=[
            kit.Check(t(f"{C}.check_faster"), bool(reordered[-1] < explicit[-1]),
                      f"N = {TIMING_LENGTHS[-1]}: ×{explicit[-1] / reordered[-1]:.1f}"),
            kit.Check(t(f"{C}.check_slopes"), bool(slope_e > slope_r),
                      f"{slope_e:.2f} > {slope_r:.2f}"),
        ],
        caption=t(f"{C}.timing_caption"),
    )  # fmt: skip


if view == "timing":
    timing_part()
else:
    kit.explain(C, view)
    cols = st.columns([2, 1, 3])
    with cols[0]:
        N = state.select_slider(t(f"{C}.N"), f"{C}_N", TOKENS, 16)
    with cols[1]:
        seed = state.number(t(f"{C}.seed"), f"{C}_seed", 0, 10_000, 0)
    equal_view(N, seed, causal=view == "causal")
    kit.derivation(C, "rows")
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.linear_attention)
kit.show_code(C, att.elu_feature_map, att.linear_attention_explicit, att.linear_attention_reordered,
              att.time_orderings)  # fmt: skip
