"""Sparse attention patterns: band, dilated, global, random, block-local and the published
combinations; density, the receptive field after L layers, and the cost against n."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import attention as att
from figures import attention as figs
from ui import cache, exercises, kit, tex
from ui.i18n import t_tex

LENGTHS = [16, 24, 32, 48, 64]
COST_LENGTHS = [2**k for k in range(6, 15)]  # 64 .. 16384
COUNTED_UP_TO = 2048  # larger n: allowed pairs extrapolated linearly from the largest counted
COUNTED_LENGTHS = tuple(m for m in COST_LENGTHS if m <= COUNTED_UP_TO)
PARAMS = {  # which knobs each pattern uses
    "band": ("width",),
    "dilated": ("width", "dilation"),
    "global": ("n_global",),
    "random": ("per_row",),
    "block_local": ("block",),
    "star": (),
    "longformer": ("width", "dilation", "n_global"),
    "etc": ("width", "n_global"),
    "bigbird": ("width", "n_global", "per_row"),
}
RANGES = {
    "width": (0, 8, 2),
    "dilation": (1, 4, 2),
    "n_global": (0, 4, 1),
    "per_row": (0, 6, 2),
    "block": (1, 16, 4),
}
# a knob's least value where the pattern is that knob alone: 0 global tokens or 0 random keys
# would leave every query with no key at all (a softmax over nothing)
LEAST = {("global", "n_global"): 1, ("random", "per_row"): 1}

page = kit.Page(
    "sparse_attention",
    views=("pattern", "cost"),
    exercise=exercises.sparse_attention,
    code=(
        att.preset_mask,
        att.band_mask,
        att.dilated_mask,
        att.global_mask,
        att.random_mask,
        att.block_local_mask,
        att.star_mask,
        att.receptive_field,
        att._one_layer,
        att.path_counts,
        att.layers_to_full,
    ),
)


def settings(widgets: bool = True) -> tuple[str, dict[str, int], int, int | None]:
    """The pattern, its knobs, the seed (only for the patterns that draw random keys: for the
    others it would change nothing) and, in the pattern view, n: drawn (``widgets``) or only
    read (``kit.controls_after_the_chart``: a new pattern brings other knobs, and those
    widgets, sent before the chart, were rendered again in its pass)."""
    name = page.choice(
        "pattern",
        att.PRESETS,
        "band",
        format_func=lambda v: page.tr(f"p_{v}"),
        widget=widgets,
    )
    knobs = PARAMS[name]
    width = max(len(knobs), 1) + 2
    cols = kit.columns(width, widgets)
    params: dict[str, int] = {}
    for col, knob in zip(cols, knobs, strict=False):
        with col:
            lo, hi, default = RANGES[knob]
            lo = LEAST.get((name, knob), lo)
            params[knob] = page.slider(knob, lo, hi, max(default, lo), widget=widgets)
    seed = 0
    if "per_row" in knobs:
        with cols[-2]:
            seed = page.seed(widget=widgets)
    n = None
    if page.current_view == "pattern":
        with cols[-1]:
            n = page.select_slider("n", LENGTHS, 32, widget=widgets)
    return name, params, seed, n


@page.view("pattern", "cost")
def controls() -> None:
    """The pattern and its knobs rerun the part (the mask changes everywhere); their widgets
    are shown above the charts and sent after them."""
    with kit.controls_after_the_chart(settings) as (name, params, seed, n):

        def build(n: int) -> np.ndarray:
            return att.preset_mask(name, n, rng=np.random.default_rng(seed), **params)  # type: ignore[arg-type]

        if n is not None:
            pattern_view(build(n))
        else:
            counted = cache.pair_counts(name, tuple(sorted(params.items())), seed, COUNTED_LENGTHS)
            cost_view(name, att.extrapolate_pairs(COST_LENGTHS, list(counted)))


@kit.fragment
def pattern_view(mask: np.ndarray) -> None:
    """The layers slider redraws the receptive field; the mask itself is drawn once."""
    n = len(mask)
    L = page.slider("layers", 0, 8, 1)
    reach = att.receptive_field(mask, L)
    full_at = att.layers_to_full(mask)
    hover = page.tr("hover_cell", q="%{y}", k="%{x}", v="%{z}")
    a, b = st.columns(2)
    with a:
        page.chart(
            figs.mask_heatmap(
                mask,
                title=page.tr("mask_title", n=n),
                x_title=page.tr("keys"),
                y_title=page.tr("queries"),
                on_label=page.tr("attends"),
                off_label=page.tr("blocked"),
                hover=hover,
            ),
            "mask_chart",
        )
    with b:
        page.chart(
            figs.mask_heatmap(
                reach,
                title=page.tr("reach_title"),
                x_title=page.tr("keys"),
                y_title=page.tr("queries"),
                on_label=page.tr("reachable"),
                off_label=page.tr("not_yet"),
                hover=hover,
            ),
            "reach_chart",
        )
    page.formula(
        "pattern",
        nnz=int(mask.sum()),
        n=n,
        density=f"{att.density(mask):.3f}",
        L=L,
        connected=t_tex("sparse_attention.connected", p=f"{100 * reach.mean():.1f}\\%"),
        checks=[
            kit.Check(
                page.tr("check_monotone"), bool(np.all(att.receptive_field(mask, L + 1) >= reach))
            ),
            kit.Check(
                page.tr("check_layer1"),
                bool(np.array_equal(att.receptive_field(mask, 1), mask | np.eye(n, dtype=bool))),
            ),
            kit.Check(
                page.tr("check_power"),
                bool(np.array_equal(reach, att.path_counts(mask, L) > 0)),
                page.tr("full_at", L=full_at) if full_at else page.tr("never_full"),
            ),
        ],
    )


@kit.fragment
def cost_view(name: str, costs: np.ndarray) -> None:
    n = page.select_slider("cost_n", COST_LENGTHS, 1024)
    full = np.array(COST_LENGTHS, float) ** 2
    k = COST_LENGTHS.index(n)
    page.chart(
        figs.cost_figure(
            np.array(COST_LENGTHS),
            full,
            costs,
            n,
            (full[k], costs[k]),
            title=page.tr("cost_title"),
            x_title="n",
            y_title=page.tr("pairs"),
            names=(page.tr("full"), page.tr(f"p_{name}")),
            hovertemplate=page.tr("hover_pairs", n="%{x}", k="%{y:,.0f}") + "<extra></extra>",
        ),
        "cost_chart",
        kept=True,
    )
    growth = att.loglog_slope(COST_LENGTHS[:4], costs[:4])
    counted = n <= COUNTED_UP_TO  # larger n: the pairs are extrapolated (att.extrapolate_pairs)
    page.formula(
        "cost",
        n=tex.num(n),
        full=tex.num(full[k]),
        pairs=("" if counted else "\\approx ")
        + t_tex("sparse_attention.pairs_tex", k=tex.num(costs[k])),
        note=""
        if counted
        else "\\\\[4pt]" + t_tex("sparse_attention.extrapolated", m=tex.num(COUNTED_UP_TO)),
        fewer=t_tex("sparse_attention.fewer", r=f"{full[k] / costs[k]:.1f}"),
        checks=[
            kit.Check(page.tr("check_cheaper"), bool(costs[k] <= full[k])),
            kit.Check(
                page.tr("check_linear"),
                name == "global" or growth < 1.2,
                page.tr("slope", s=f"{growth:.2f}"),
            ),
        ],
    )


page.run()
