"""An image as tokens: patches, the patch embedding (= a strided Conv2d), the [class] token and
positions, then multi-head self-attention one einsum at a time, checked against torch."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import vit
from figures import vit as figs
from ui import cache_vit, exercises, kit, perf, tex

SIDE, C, D_MODEL, HEADS = cache_vit.SIDE, cache_vit.CHANNELS, cache_vit.D_MODEL, cache_vit.HEADS
PATCHES, SHOWN = list(cache_vit.PATCHES), cache_vit.SHOWN
COST_SIDE, COST_D, COST_HEADS = 224, 768, 12  # ViT-B at 224 × 224 (Dosovitskiy et al.)
COST_PATCHES = [4, 7, 8, 14, 16, 28, 32, 56]

page = kit.Page(
    "vision_transformer",
    views=("patches", "attention", "cost"),
    exercise=exercises.vision_transformer,
    code=(
        vit.load_image,
        vit.patchify,
        vit.patch_embedding,
        vit.conv_weight,
        vit.conv_patch_embedding,
        vit.input_tokens,
        vit.mhsa_steps,
        vit.torch_mha,
        vit.vit_cost,
    ),
)


def image() -> np.ndarray:
    """The sample picked, or the student's upload (validated; a bad file → a message)."""
    a, b = st.columns([2, 3])
    with a:
        name = page.choice("image", cache_vit.SAMPLES, "scene")
    with b:
        upload = st.file_uploader(
            page.tr("upload"),
            type=["png", "jpg", "jpeg"],
            key=page.key("upload"),
            help=page.tr("upload_help"),
        )
    rgb = cache_vit.sample_image(name, SIDE)
    if upload is not None:
        with kit.guard():
            rgb = vit.load_image(upload.getvalue(), SIDE)
            st.caption(page.tr("upload_used"))
    return rgb


@page.view("patches")
def patches() -> None:
    patches_view(image())


@kit.fragment
def patches_view(rgb: np.ndarray) -> None:
    perf.single_threaded_torch()
    P = page.select_slider("P", PATCHES, 8)
    r = cache_vit.patches(rgb, P)
    N, T = len(r.pixels), len(r.tokens)
    page.chart(
        figs.patches_figure(
            rgb,
            P,
            r.pixels,
            r.tokens,
            titles=(page.tr("image_title", P=P), page.tr("matrix_title"), page.tr("tokens_title")),
            x_titles=(page.tr("entry_axis"), page.tr("channel_axis", k=SHOWN)),
            y_titles=(page.tr("patch_axis"), page.tr("token_axis")),
            source=cache_vit.png_source(rgb),
        ),
        "patches_chart",
        kept=True,
    )
    page.formula(
        "patches",
        S=SIDE,
        C=C,
        P=P,
        N=N,
        g=SIDE // P,
        PPC=P * P * C,
        D=D_MODEL,
        T=T,
        checks=[
            kit.Check(
                page.tr("check_conv", P=P), r.conv_gap < 1e-10, f"max |Δ| = {r.conv_gap:.0e}"
            ),
            kit.Check(page.tr("check_unpatchify"), r.unpatchify_gap == 0.0),
            kit.Check(page.tr("check_tokens"), T == N + 1, f"{N} + 1 = {T}"),
        ],
    )


@page.view("attention")
def attention() -> None:
    attention_view(image())


@kit.fragment
def attention_view(rgb: np.ndarray) -> None:
    perf.single_threaded_torch()
    a, b, c = st.columns(3)
    with a:
        P = page.select_slider("attention_P", PATCHES, 8)
    g = SIDE // P
    with b:
        head = page.slider("head", 1, HEADS, 1)
    with c:
        query = page.slider("query", 0, g * g, g * g // 2 + g // 2 + 1, help=page.tr("query_help"))
    r = cache_vit.attention(rgb, P)
    T, d = r.weights.shape[1], D_MODEL // HEADS
    a_q = r.weights[head - 1, query]  # (T,) over [class] + patches
    page.chart(
        figs.attention_figure(
            rgb,
            P,
            query,
            T * a_q[1:].reshape(g, g),
            titles=(page.tr("query_title", q=query), page.tr("weights_title", h=head)),
            hovertemplate=page.tr("hover_weight", r="%{y}", c="%{x}", v="%{z:.3f}")
            + "<extra></extra>",
            source=cache_vit.png_source(rgb),
        ),
        "attention_chart",
        kept=True,
    )
    page.formula(
        "attention",
        T=T,
        D=D_MODEL,
        h=HEADS,
        d=d,
        sqrt_d=f"{np.sqrt(d):.2f}",
        q=query,
        cls=f"{a_q[0]:.4f}",
        top=f"{a_q.max():.4f}",
        uniform=f"{1 / T:.4f}",
        checks=[
            kit.Check(page.tr("check_torch"), r.torch_gap < 1e-10, f"max |Δ| = {r.torch_gap:.0e}"),
            kit.Check(page.tr("check_core"), r.core_gap < 1e-10, f"max |Δ| = {r.core_gap:.0e}"),
            kit.Check(page.tr("check_rows"), r.rows_sum_to_one),
            kit.Check(
                page.tr("check_sqrt_h", h=HEADS, d=d),
                r.unscaled_gap > 1e-6,
                f"max |Δa| = {r.unscaled_gap:.3f}",
            ),
        ],
    )


@page.view("cost")
@kit.fragment
def cost() -> None:
    P = page.select_slider("cost_P", COST_PATCHES, 16)
    costs = [vit.vit_cost(COST_SIDE, p, COST_D, COST_HEADS) for p in COST_PATCHES]
    k = vit.vit_cost(COST_SIDE, P, COST_D, COST_HEADS)
    page.chart(
        figs.cost_figure(
            COST_PATCHES,
            np.array([c.tokens for c in costs], float),
            np.array([c.entries for c in costs], float),
            P,
            title=page.tr("cost_title"),
            x_title=page.tr("P_axis"),
            y_title=page.tr("count_axis"),
            names=(page.tr("tokens_name"), page.tr("entries_name")),
        ),
        "cost_chart",
    )
    b16 = vit.vit_cost(COST_SIDE, 16, COST_D, COST_HEADS)
    page.formula(
        "cost",
        S=COST_SIDE,
        P=P,
        g=COST_SIDE // P,
        N=tex.num(k.patches),
        T=tex.num(k.tokens),
        h=COST_HEADS,
        D=COST_D,
        entries=tex.num(k.entries),
        flops=tex.num(k.flops),
        PPC=tex.num(k.patch_dim),
        ratio=f"{k.entries / b16.entries:.3g}",
        checks=[
            kit.Check(page.tr("check_b16"), b16.tokens == 197, f"{b16.patches} + 1"),
            kit.Check(
                page.tr("check_quarter"),
                vit.vit_cost(COST_SIDE, 8, COST_D, COST_HEADS).patches == 4 * b16.patches,
            ),
        ],
    )


page.run()
