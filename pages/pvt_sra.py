"""Spatial-reduction attention (PVT): keys and values pooled by R×R patches, attention maps
full vs reduced, the cost (HW)² vs (HW)²/R², Table 1 of PVT, and SR as Conv2d + LayerNorm."""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from core import sra
from figures import sra as figs
from ui import cache, exercises, kit, perf, tex
from ui.i18n import tr

SIDES = [8, 16, 32]
RATIOS = [1, 2, 4, 8]
IMAGE_SIDES = list(range(64, 1025, 32))
BETA = 3.0  # W^Q = β·I: sharper maps on the 7 colour/position channels
COLUMNS = ("stage", "P", "C", "heads", "R", "E", "L", "in_side", "side", "tokens", "kv_tokens")

page = kit.Page(
    "pvt_sra",
    views=("attention", "cost", "stages", "torch"),
    exercise=exercises.pvt_sra,
    code=(
        sra.spatial_reduction,
        sra.reshape_for_reduction,
        sra.layer_norm,
        sra.sra_weights,
        sra.pvt_stages,
        sra.conv_spatial_reduction,
    ),
)


@page.view("attention")
def attention() -> None:
    """The image and H, R outside the live part; the query sliders inside it."""
    left, right = st.columns([1, 2])
    with right:
        side = page.select_slider("side", SIDES, 16)
        R = page.select_slider("ratio", RATIOS, 4, key=page.key("R"))
    with left:  # the image does not change with the query: drawn outside the fragment
        page.chart(
            figs.image_figure(
                cache.scene_tokens(side)[0],
                title=page.tr("image_title"),
                hovertemplate=page.tr("hover_pixel", row="%{y}", col="%{x}") + "<extra></extra>",
            ),
            "image_chart",
        )
    attention_view(side, R)


@kit.fragment
def attention_view(side: int, R: int) -> None:
    """The query sliders redraw the two attention maps."""
    _, x = cache.scene_tokens(side)
    N, D = x.shape
    a, b = st.columns(2)
    with a:
        row = page.slider("row", 0, side - 1, round(0.55 * side))
    with b:
        col = page.slider("col", 0, side - 1, round(0.3 * side))
    w_q, w_k, w_s = BETA * np.eye(D), np.eye(D), sra.mean_pool_projection(R, D)
    q = row * side + col
    full = sra.sra_weights(x, side, side, 1, w_q, w_k, np.eye(D))[q]
    reduced = sra.sra_weights(x, side, side, R, w_q, w_k, w_s)[q]
    kv = sra.spatial_reduction(x, side, side, R, w_s)
    h = side // R
    page.chart(
        figs.attention_maps_figure(
            full.reshape(side, side),
            reduced.reshape(h, h),
            R,
            (row, col),
            titles=(page.tr("full_title"), page.tr("sra_title")),
            hovers=(
                page.tr("hover_key", y="%{y}", x="%{x}", v="%{z:.4f}")
                + f"<extra>{page.tr('full_tex')}</extra>",
                page.tr("hover_patch", y="%{y}", x="%{x}", v="%{z:.4f}") + "<extra>SRA</extra>",
            ),
        ),
        "maps_chart",
    )
    patched = sra.reshape_for_reduction(x, side, side, R)
    cost = sra.attention_cost(N, R)
    page.formula(
        "attention",
        N=N,
        D=D,
        R=R,
        kv=N // R**2,
        RRD=R * R * D,
        row=row,
        col=col,
        max_sra=f"{reduced.max():.4f}",
        max_full=f"{full.max():.4f}",
        entries=tex.num(cost.entries),
        sra_entries=tex.num(cost.sra_entries),
        checks=[
            kit.Check(
                page.tr("check_rows"),
                bool(abs(full.sum() - 1) < 1e-12 and abs(reduced.sum() - 1) < 1e-12),
            ),
            kit.Check(
                page.tr("check_norm"),
                bool(
                    np.allclose(kv.mean(1), 0, atol=1e-9) and np.allclose(kv.var(1), 1, atol=1e-3)
                ),
            ),
            kit.Check(
                page.tr("check_reshape"),
                bool(np.array_equal(np.sort(patched, None), np.sort(x, None))),
            ),
            kit.Check(page.tr("check_keys"), kv.shape == (N // R**2, D), f"{kv.shape[0]}"),
        ],
    )


@page.view("cost")
@kit.fragment
def cost() -> None:
    side = page.select_slider("image_side", IMAGE_SIDES, 224, key=page.key("cost_side"))
    tokens = (np.array(IMAGE_SIDES) // 4) ** 2
    N = (side // 4) ** 2
    costs = [sra.attention_cost(N, r) for r in RATIOS]
    curves = [[sra.attention_cost(int(n), r).sra_entries for n in tokens] for r in RATIOS]
    page.chart(
        figs.cost_figure(
            tokens,
            RATIOS,
            curves,
            N,
            [c.sra_entries for c in costs],
            title=page.tr("cost_title"),
            x_title=page.tr("tokens_axis"),
            y_title=page.tr("entries_axis"),
            hovertemplate=page.tr("hover_entries", n="%{x:,}", k="%{y:,.0f}") + "<extra></extra>",
        ),
        "cost_chart",
    )
    head = f"| R | {page.tr('entries')} | {page.tr('memory')} |\n|---:|---:|---:|\n"
    st.markdown(
        head
        + "\n".join(
            f"| {r} | {c.sra_entries:,} | {c.sra_bytes / 2**20:,.2f} MiB |"
            for r, c in zip(RATIOS, costs, strict=True)
        )
    )
    page.formula(
        "cost",
        side=side,
        N=tex.num(N),
        entries=tex.num(costs[0].entries),
        sra_entries=tex.num(costs[-1].sra_entries),
        checks=[
            kit.Check(
                page.tr("check_ratio"),
                all(c.entries == r * r * c.sra_entries for r, c in zip(RATIOS, costs, strict=True)),
            )
        ],
    )


@page.view("stages")
def stages() -> None:
    stages_view(page.choice("variant", tuple(sra.PVT_DEPTHS), "Tiny", format_func=str))


@kit.fragment
def stages_view(variant: str) -> None:
    side = page.select_slider("image_side", IMAGE_SIDES[:15], 224, key=page.key("stage_side"))
    rows = sra.pvt_stages(side, variant)
    page.chart(
        figs.stage_tokens_figure(
            rows,
            title=page.tr("stages_title"),
            y_title=page.tr("tokens_axis"),
            names=(page.tr("q_tokens"), page.tr("kv_tokens")),
            stage_label=page.tr("stage"),
        ),
        "stages_chart",
    )
    table = [dataclasses.asdict(r) for r in rows]
    st.markdown(
        "| "
        + " | ".join(page.tr(f"col_{c}") for c in COLUMNS)
        + " |\n|"
        + "---:|" * len(COLUMNS)
        + "\n"
        + "\n".join("| " + " | ".join(f"{r[c]:,}" for c in COLUMNS) + " |" for r in table)
    )
    stage = tr("pvt_sra.stage_tex")
    lines = "\\\\".join(
        f"\\text{{{stage} }}{r.stage}{{:}}\\ {r.in_side}/{r.P} = {r.side},\\ "
        f"H_{r.stage}W_{r.stage} = {tex.num(r.tokens)},\\ "
        f"H_{r.stage}W_{r.stage}/{r.R}^2 = {tex.num(r.kv_tokens)},\\ N_{r.stage} = {r.heads}"
        for r in rows
    )
    page.formula(
        "stages",
        lines=lines,
        checks=[
            kit.Check(
                page.tr("check_kv"),
                {r.kv_tokens for r in rows} == {(side // 32) ** 2},
                f"{(side // 32) ** 2}",
            ),
            kit.Check(page.tr("check_stage1"), rows[0].entries == 64 * rows[0].sra_entries),
        ],
    )


@page.view("torch")
@kit.fragment
def torch_view() -> None:
    R = page.select_slider("ratio", RATIOS, 2, key=page.key("torch_R"))
    H, D = 8, 4
    rng = np.random.default_rng(R)
    x, w_s = rng.standard_normal((H * H, D)), rng.standard_normal((R * R * D, D))
    linear = sra.spatial_reduction(x, H, H, R, w_s)
    perf.single_threaded_torch()
    conv = sra.conv_spatial_reduction(x, H, H, R, w_s)  # imports torch
    page.chart(
        figs.equality_figure(
            linear,
            conv,
            title=page.tr("torch_title"),
            x_title=page.tr("linear_axis"),
            y_title=page.tr("conv_axis"),
            names=(page.tr("entries_name"), "y = x"),
            hovertemplate=page.tr("hover_linear_conv", x="%{x:.6f}", y="%{y:.6f}")
            + "<extra></extra>",
        ),
        "torch_chart",
    )
    delta = float(np.abs(linear - conv).max())
    page.formula(
        "torch",
        R=R,
        kv=H * H // R**2,
        D=D,
        RRD=R * R * D,
        checks=[
            kit.Check(page.tr("check_equal"), delta < 1e-9, f"max |Δ| = {delta:.1e}"),
            kit.Check(page.tr("check_norm"), bool(np.allclose(conv.mean(1), 0, atol=1e-9))),
        ],
    )


page.run()
