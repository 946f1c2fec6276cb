"""Sparse attention patterns: band, dilated, global, random, block-local and the published
combinations; density, the receptive field after L layers, and the cost against n."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import attention as att
from figures import attention as figs
from ui import exercises, kit, state
from ui.boot import require_entrypoint
from ui.i18n import t, t_tex

require_entrypoint()

C = "sparse_attention"
LENGTHS = [16, 24, 32, 48, 64]
COST_LENGTHS = [2**k for k in range(6, 15)]  # 64 .. 16384
PARAMS = {  # which knobs each pattern uses
    "band": ("width",), "dilated": ("width", "dilation"), "global": ("n_global",),
    "random": ("per_row",), "block_local": ("block",), "star": (),
    "longformer": ("width", "dilation", "n_global"), "etc": ("width", "n_global"),
    "bigbird": ("width", "n_global", "per_row"),
}  # fmt: skip
RANGES = {"width": (0, 8, 2), "dilation": (1, 4, 2), "n_global": (0, 4, 1), "per_row": (0, 6, 2),
          "block": (1, 16, 4)}  # fmt: skip


def big(x: float) -> str:
    return f"{x:,.0f}".replace(",", "{,}")


kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", ("pattern", "cost"), "pattern",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip
name = state.choice(t(f"{C}.pattern"), f"{C}_pattern", att.PRESETS, "band",
                    format_func=lambda v: t(f"{C}.p_{v}"))  # fmt: skip
knobs = PARAMS[name]
cols = st.columns(max(len(knobs), 1) + 2)
params: dict[str, int] = {}
for col, knob in zip(cols, knobs, strict=False):
    lo, hi, default = RANGES[knob]
    with col:
        params[knob] = state.slider(t(f"{C}.{knob}"), f"{C}_{knob}", lo, hi, default)
with cols[-2]:
    seed = state.number(t(f"{C}.seed"), f"{C}_seed", 0, 10_000, 0)


def build(n: int) -> np.ndarray:
    return att.preset_mask(name, n, rng=np.random.default_rng(seed), **params)  # type: ignore[arg-type]


@kit.fragment
def pattern_view(n: int) -> None:
    """The layers slider redraws the receptive field; the mask itself is drawn once."""
    mask = build(n)
    L = state.slider(t(f"{C}.layers"), f"{C}_layers", 0, 8, 1)
    reach = att.receptive_field(mask, L)
    cover = float(reach.mean())
    power = np.linalg.matrix_power((mask | np.eye(n, dtype=bool)).astype(float), L)
    full_at = next((k for k in range(1, n + 1) if att.receptive_field(mask, k).all()), None)
    hover = t(f"{C}.hover_cell", q="%{y}", k="%{x}", v="%{z}")
    a, b = st.columns(2)
    with a:
        kit.chart(figs.mask_heatmap(mask, title=t(f"{C}.mask_title", n=n),
                                    x_title=t(f"{C}.keys"), y_title=t(f"{C}.queries"),
                                    on_label=t(f"{C}.attends"), off_label=t(f"{C}.blocked"),
                                    hover=hover), key=f"{C}_mask_chart")  # fmt: skip
    with b:
        kit.chart(figs.mask_heatmap(reach, title=t(f"{C}.reach_title"), x_title=t(f"{C}.keys"),
                                    y_title=t(f"{C}.queries"), on_label=t(f"{C}.reachable"),
                                    off_label=t(f"{C}.not_yet"), hover=hover),
                  key=f"{C}_reach_chart")  # fmt: skip
    nnz = int(mask.sum())
    kit.formula(
        f"\\text{{{t(f'{C}.density_tex')}}} = \\frac{{{nnz}}}{{{n}^2}}"
        f" = {att.density(mask):.3f},\\qquad R_{{{L}}} = (M \\lor I)^{{{L}}}:\\ "
        + t_tex(f"{C}.connected", p=f"{100 * cover:.1f}\\%"),
        checks=[
            kit.Check(t(f"{C}.check_monotone"), bool(np.all(att.receptive_field(mask, L + 1)
                                                             >= reach))),
            kit.Check(t(f"{C}.check_layer1"), bool(np.array_equal(
                att.receptive_field(mask, 1), mask | np.eye(n, dtype=bool)))),
            kit.Check(t(f"{C}.check_power"), bool(np.array_equal(reach, power > 0)),
                      t(f"{C}.full_at", L=full_at) if full_at else t(f"{C}.never_full")),
        ],
    )  # fmt: skip


def pattern_costs() -> np.ndarray:
    """Allowed pairs for each n: counted on the mask up to 2048, then extrapolated linearly."""
    costs = np.array([build(m).sum() if m <= 2048 else np.nan for m in COST_LENGTHS], float)
    known = ~np.isnan(costs)
    last = int(np.flatnonzero(known)[-1])
    costs[~known] = costs[last] / COST_LENGTHS[last] * np.array(COST_LENGTHS)[~known]
    return costs


@kit.fragment
def cost_view(costs: np.ndarray) -> None:
    n = state.select_slider(t(f"{C}.cost_n"), f"{C}_cost_n", COST_LENGTHS, 1024)
    full = np.array(COST_LENGTHS, float) ** 2
    k = COST_LENGTHS.index(n)
    kit.chart(figs.cost_figure(
        np.array(COST_LENGTHS), full, costs, n, (full[k], costs[k]), title=t(f"{C}.cost_title"),
        x_title="n", y_title=t(f"{C}.pairs"), names=(t(f"{C}.full"), t(f"{C}.p_{name}")),
        hovertemplate=t(f"{C}.hover_pairs", n="%{x}", k="%{y:,.0f}") + "<extra></extra>",
    ), key=f"{C}_cost_chart")  # fmt: skip
    growth = np.polyfit(np.log(COST_LENGTHS[:4]), np.log(costs[:4]), 1)[0]
    kit.formula(
        f"n = {n}:\\quad n^2 = {big(full[k])}\\quad\\text{{{t(f'{C}.vs_tex')}}}\\quad "
        + t_tex(f"{C}.pairs_tex", k=big(costs[k])) + "\\quad("
        + t_tex(f"{C}.fewer", r=f"{full[k] / costs[k]:.1f}") + ")",
        checks=[
            kit.Check(t(f"{C}.check_cheaper"), bool(costs[k] <= full[k])),
            kit.Check(t(f"{C}.check_linear"), name == "global" or growth < 1.2,
                      t(f"{C}.slope", s=f"{growth:.2f}")),
        ],
    )  # fmt: skip


with kit.guard():
    if view == "pattern":
        with cols[-1]:
            n = state.select_slider(t(f"{C}.n"), f"{C}_n", LENGTHS, 32)
        kit.explain(C, "pattern")
        pattern_view(n)
    else:
        kit.explain(C, "cost")
        cost_view(pattern_costs())
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.sparse_attention)
kit.show_code(C, att.preset_mask, att.band_mask, att.dilated_mask, att.global_mask,
              att.random_mask, att.block_local_mask, att.receptive_field)  # fmt: skip
