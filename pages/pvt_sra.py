"""Spatial-reduction attention (PVT): keys and values pooled by R×R patches, attention maps
full vs reduced, the cost N² vs N²/R², Table 1 of PVT, and SR as Conv2d + LayerNorm."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import sra
from figures import sra as figs
from ui import cache, exercises, kit, perf, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()

C = "pvt_sra"
SIDES = [8, 16, 32]
RATIOS = [1, 2, 4, 8]
IMAGE_SIDES = list(range(64, 1025, 32))
VIEWS = ("attention", "cost", "stages", "torch")
BETA = 3.0  # W^Q = β·I: sharper maps on the 7 colour/position channels


def num(x: float) -> str:
    return f"{x:,.0f}".replace(",", "{,}")


kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", VIEWS, "attention",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip


@kit.fragment
def attention_view(side: int, R: int) -> None:
    """The query sliders redraw the two attention maps (image, H, R fixed outside)."""
    _, x = cache.scene_tokens(side)
    N, D = x.shape
    a, b = st.columns(2)
    with a:
        row = state.slider(t(f"{C}.row"), f"{C}_row", 0, side - 1, round(0.55 * side))
    with b:
        col = state.slider(t(f"{C}.col"), f"{C}_col", 0, side - 1, round(0.3 * side))
    w_q, w_k, w_s = BETA * np.eye(D), np.eye(D), sra.mean_pool_projection(R, D)
    q = row * side + col
    full = sra.sra_weights(x, side, side, 1, w_q, w_k, np.eye(D))[q]
    reduced = sra.sra_weights(x, side, side, R, w_q, w_k, w_s)[q]
    kv = sra.spatial_reduction(x, side, side, R, w_s)
    h = side // R
    kit.chart(figs.attention_maps_figure(
        full.reshape(side, side), reduced.reshape(h, h), R, (row, col),
        titles=(t(f"{C}.full_title"), t(f"{C}.sra_title")),
        hovers=(t(f"{C}.hover_key", y="%{y}", x="%{x}", v="%{z:.4f}")
                + f"<extra>{t(f'{C}.full_tex')}</extra>",
                t(f"{C}.hover_patch", y="%{y}", x="%{x}", v="%{z:.4f}") + "<extra>SRA</extra>"),
    ), key=f"{C}_maps_chart")  # fmt: skip
    patched = sra.reshape_for_reduction(x, side, side, R)
    kit.formula(
        "\\begin{gathered}"
        f"x \\in \\mathbb{{R}}^{{(HW)\\times C}} = \\mathbb{{R}}^{{{N}\\times{D}}}"
        f"\\xrightarrow{{\\mathrm{{Reshape}}(x,\\,{R})}}"
        f"\\mathbb{{R}}^{{{N // R**2}\\times{R * R * D}}}"
        f"\\xrightarrow{{W^S\\in\\mathbb{{R}}^{{{R * R * D}\\times{D}}}}}"
        f"\\mathbb{{R}}^{{{N // R**2}\\times{D}}}\\xrightarrow{{\\mathrm{{LayerNorm}}}}"
        f"\\mathrm{{SR}}(x)\\\\[6pt]"
        f"a_{{({row},{col})}} = \\mathrm{{softmax}}\\!\\left(\\frac{{q\\,\\mathrm{{SR}}(K)^\\top}}"
        f"{{\\sqrt{{{D}}}}}\\right)\\in\\mathbb{{R}}^{{{N // R**2}}},\\quad "
        f"\\max a = {reduced.max():.4f}\\ (\\text{{{t(f'{C}.full_tex')}: }}{full.max():.4f})"
        f"\\\\[6pt](HW)^2 = {num(N * N)}\\ \\to\\ (HW)^2/R^2 = {num(N * N // R**2)}\\ "
        f"\\text{{{t(f'{C}.entries_tex')}}}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_rows"), bool(abs(full.sum() - 1) < 1e-12
                                                 and abs(reduced.sum() - 1) < 1e-12)),
            kit.Check(t(f"{C}.check_norm"), bool(np.allclose(kv.mean(1), 0, atol=1e-9)
                                                 and np.allclose(kv.var(1), 1, atol=1e-3))),
            kit.Check(t(f"{C}.check_reshape"), bool(np.array_equal(np.sort(patched, None),
                                                                   np.sort(x, None)))),
            kit.Check(t(f"{C}.check_keys"), kv.shape == (N // R**2, D), f"{kv.shape[0]}"),
        ],
    )  # fmt: skip


@kit.fragment
def cost_view() -> None:
    side = state.select_slider(t(f"{C}.image_side"), f"{C}_cost_side", IMAGE_SIDES, 224)
    tokens = (np.array(IMAGE_SIDES) // 4) ** 2
    N = (side // 4) ** 2
    kit.chart(figs.cost_figure(
        tokens, RATIOS, N, [N * N / r**2 for r in RATIOS], title=t(f"{C}.cost_title"),
        x_title=t(f"{C}.tokens_axis"), y_title=t(f"{C}.entries_axis"),
        hovertemplate=t(f"{C}.hover_entries", n="%{x:,}", k="%{y:,.0f}") + "<extra></extra>",
    ), key=f"{C}_cost_chart")  # fmt: skip
    head = f"| R | {t(f'{C}.entries')} | {t(f'{C}.memory')} |\n|---:|---:|---:|\n"
    st.markdown(head + "\n".join(
        f"| {r} | {N * N // r**2:,} | {4 * N * N / r**2 / 2**20:,.2f} MiB |" for r in RATIOS
    ))  # fmt: skip
    kit.formula(
        f"\\text{{{t(f'{C}.image_tex')} }} {side}^2 \\to H_1W_1 = ({side}/4)^2 = {num(N)}:\\quad "
        f"(H_1W_1)^2 = {num(N * N)},\\quad (H_1W_1)^2/8^2 = {num(N * N // 64)}",
        checks=[
            kit.Check(t(f"{C}.check_ratio"), all(
                sra.attention_cost(N, r)["entries"] == r * r * sra.attention_cost(N, r)[
                    "sra_entries"] for r in RATIOS)),
        ],
    )  # fmt: skip


@kit.fragment
def stages_view(variant: str) -> None:
    side = state.select_slider(t(f"{C}.image_side"), f"{C}_stage_side", IMAGE_SIDES[:15], 224)
    rows = sra.pvt_stages(side, variant)
    kit.chart(figs.stage_tokens_figure(
        rows, title=t(f"{C}.stages_title"), y_title=t(f"{C}.tokens_axis"),
        names=(t(f"{C}.q_tokens"), t(f"{C}.kv_tokens")), stage_label=t(f"{C}.stage"),
    ), key=f"{C}_stages_chart")  # fmt: skip
    cols = ("stage", "P", "C", "heads", "R", "E", "L", "in_side", "side", "tokens", "kv_tokens")
    head = "| " + " | ".join(t(f"{C}.col_{c}") for c in cols) + " |\n"
    st.markdown(head + "|" + "---:|" * len(cols) + "\n" + "\n".join(
        "| " + " | ".join(f"{r[c]:,}" for c in cols) + " |" for r in rows
    ))  # fmt: skip
    stage = t(f"{C}.stage_tex")
    lines = "\\\\".join(
        f"\\text{{{stage} }}{r['stage']}{{:}}\\ {r['in_side']}/{r['P']} = {r['side']},\\ "
        f"N_{r['stage']} = {num(r['tokens'])},\\ N_{r['stage']}/{r['R']}^2 = {num(r['kv_tokens'])}"
        for r in rows
    )
    kv = {r["kv_tokens"] for r in rows}
    kit.formula(
        f"\\begin{{gathered}}{lines}\\end{{gathered}}",
        checks=[
            kit.Check(t(f"{C}.check_kv"), kv == {(side // 32) ** 2}, f"{(side // 32) ** 2}"),
            kit.Check(t(f"{C}.check_stage1"), rows[0]["entries"] == 64 * rows[0]["sra_entries"]),
        ],
    )  # fmt: skip


@kit.fragment
def torch_view() -> None:
    R = state.select_slider(t(f"{C}.ratio"), f"{C}_torch_R", RATIOS, 2)
    H, D = 8, 4
    rng = np.random.default_rng(R)
    x, w_s = rng.standard_normal((H * H, D)), rng.standard_normal((R * R * D, D))
    linear = sra.spatial_reduction(x, H, H, R, w_s)
    perf.single_threaded_torch()
    conv = sra.conv_spatial_reduction(x, H, H, R, w_s)  # imports torch
    kit.chart(figs.equality_figure(
        linear, conv, title=t(f"{C}.torch_title"), x_title=t(f"{C}.linear_axis"),
        y_title=t(f"{C}.conv_axis"), names=(t(f"{C}.entries_name"), "y = x"),
        hovertemplate=t(f"{C}.hover_linear_conv", x="%{x:.6f}", y="%{y:.6f}")
        + "<extra></extra>",
    ), key=f"{C}_torch_chart")  # fmt: skip
    delta = float(np.abs(linear - conv).max())
    kit.formula(
        f"\\mathrm{{LN}}\\big(\\mathrm{{Conv2d}}_{{k=s={R}}}(x)\\big)"
        f" = \\mathrm{{LN}}\\big(\\mathrm{{Reshape}}(x, {R})\\,W^S\\big)\\in\\mathbb{{R}}^"
        f"{{{H * H // R**2}\\times{D}}},\\quad W^S\\in\\mathbb{{R}}^{{{R * R * D}\\times{D}}}"
        f" \\leftrightarrow \\text{{{t(f'{C}.weight_tex')}}}"
        f"\\in\\mathbb{{R}}^{{{D}\\times{D}\\times{R}\\times{R}}}",
        checks=[
            kit.Check(t(f"{C}.check_equal"), delta < 1e-9, f"max |Δ| = {delta:.1e}"),
            kit.Check(t(f"{C}.check_norm"), bool(np.allclose(conv.mean(1), 0, atol=1e-9))),
        ],
    )  # fmt: skip


with kit.guard():
    if view == "attention":
        left, right = st.columns([1, 2])
        with right:
            kit.explain(C, "attention")
            side = state.select_slider(t(f"{C}.side"), f"{C}_side", SIDES, 16)
            R = state.select_slider(t(f"{C}.ratio"), f"{C}_R", RATIOS, 4)
        with left:  # the image does not change with the query: drawn outside the fragment
            kit.chart(figs.image_figure(
                cache.scene_tokens(side)[0], title=t(f"{C}.image_title"),
                hovertemplate=t(f"{C}.hover_pixel", row="%{y}", col="%{x}") + "<extra></extra>",
            ), key=f"{C}_image_chart")  # fmt: skip
        attention_view(side, R)
    elif view == "cost":
        kit.explain(C, "cost")
        cost_view()
    elif view == "stages":
        kit.explain(C, "stages")
        variant = state.choice(t(f"{C}.variant"), f"{C}_variant", tuple(sra.PVT_DEPTHS), "Tiny")
        stages_view(variant)
    else:
        kit.explain(C, "torch")
        torch_view()
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.pvt_sra)
kit.show_code(C, sra.spatial_reduction, sra.reshape_for_reduction, sra.layer_norm,
              sra.sra_weights, sra.pvt_stages, sra.conv_spatial_reduction)  # fmt: skip
