"""Attention maps: scaled dot-product attention on a sentence, heads, the √(D/h) scaling,
masks, and the same numbers from PyTorch."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import attention as att
from core import attention_torch
from figures import attention as figs
from ui import cache_attention_maps, exercises, formulas, kit, live, perf, tex
from ui.i18n import t_tex

SENTENCE = "the cat sat on the mat because it was tired"
DIMS = [4, 8, 12, 16, 24, 32, 48, 64]
HEADS = [1, 2, 3, 4, 6, 8]
SCALING_DIMS = (16, 32, 64, 128, 256, 512, 1024)
SCALING_HEADS, SCALING_TOKENS = 8, 16

page = kit.Page(
    "attention_maps",
    views=("map", "heads", "scaling", "masks", "torch"),
    exercise=exercises.attention_maps,
    code=(
        att.scaled_dot_product_attention,
        att.masked_softmax,
        att.multi_head_attention,
        att.causal_mask,
        attention_torch.torch_attention,
    ),
)


def cell_hover(end: str = "<extra></extra>", fmt: str = ".4f") -> str:
    """Hover text of a (query, key) cell of a heatmap, its value in d3 format ``fmt``."""
    return page.tr("hover_cell", q="%{y}", k="%{x}", v=f"%{{z:{fmt}}}") + end


@page.view("map", "heads", "masks", "torch")
def sentence_views() -> None:
    """Sentence, d, projections and seed (full reruns), then the view's live part."""
    cols = st.columns([4, 2, 2, 1])
    with cols[0]:
        text = page.text("sentence", SENTENCE, max_chars=300)
    with cols[1]:
        d = page.select_slider("d", DIMS, 16)
    with cols[2]:
        kind = page.choice("projections", ("random", "identity"), "random", key=page.key("proj"))
    with cols[3]:
        seed = page.seed()
    tokens = att.tokenize(text)
    x = att.token_embeddings(tokens, d, seed)
    ws = att.projections(d, kind, np.random.default_rng(seed))  # W_Q, W_K, W_V, W_O
    if page.current_view == "map":
        q, k, v = (x @ w for w in ws[:3])
        table = att.score_table(q, k)  # q·k, q·k/√d, a
        page.chart(
            figs.attention_heatmap(
                table[..., 2],
                tokens,
                title=page.tr("map_title", d=d),
                x_title=page.tr("keys"),
                y_title=page.tr("queries"),
                customdata=table,
                hovertemplate=page.tr("hover_pair", q="%{y}", k="%{x}")
                + "<br>q·k = %{customdata[0]:.3f}<br>q·k/√d = %{customdata[1]:.3f}<br>"
                "a = %{customdata[2]:.4f}<extra></extra>",
            ),
            "map_chart",
        )
        query_row(tokens, q, k, v, table)
    elif page.current_view == "masks":
        masked(tokens, x, ws, page.choice("mask", att.MASK_KINDS, "causal"))
    else:
        (head_grid if page.current_view == "heads" else against_torch)(tokens, x, ws)


@kit.fragment
def query_row(
    tokens: list[str], q: np.ndarray, k: np.ndarray, v: np.ndarray, table: np.ndarray
) -> None:
    """The query slider, live (ui.live): every query's row of weights, its output and its
    numbers computed here and redrawn in the browser; the formula follows once it settles."""
    N, d = q.shape
    i = live.current(page.key("query"), list(range(N)), min(3, N - 1))
    out, w = att.scaled_dot_product_attention(q, k, v)  # every query's row at once
    # softmax keeps each row's order, so the brightest cell is the largest score; with
    # identity projections that is often, not always, the diagonal (a longer key can win)
    order = kit.Check(
        page.tr("check_order"),
        bool(np.array_equal(table[..., 2].argmax(1), table[..., 0].argmax(1))),
        page.tr("diagonal_rows", k=int(att.diagonal_max_rows(table[..., 2]).sum()), n=N),
    )
    lo, hi = v.min(0) - 1e-12, v.max(0) + 1e-12
    states, checks = [], {}
    for j in range(N):
        row, o = w[j], out[j]
        checks[j] = [
            kit.Check(page.tr("check_sum"), abs(row.sum() - 1) < 1e-12, f"{row.sum():.12f}"),
            kit.Check(page.tr("check_convex"), bool(np.all(o <= hi) & np.all(o >= lo))),
            kit.Check(page.tr("check_weighted_sum"), np.allclose(o, row @ v, atol=1e-12)),
            order,
        ]
        top = att.strongest_keys(row, min(3, N))
        numbers = [
            (page.tr("query_number"), f"{j} ({tokens[j]})"),
            (
                page.tr("strongest"),
                ", ".join(
                    f"a{tex.sub(j)},{tex.sub(int(m))} = {row[m]:.4f} ({tokens[m]})" for m in top
                ),
            ),
            ("Σⱼ a" + tex.sub(j) + ",ⱼ", f"{row.sum():.12f}"),
        ]
        label = f"{j}: {tokens[j]}"
        updates = figs.query_row_updates(row, o)
        states.append(live.State(j, label, updates, numbers, checks[j]))
    row, o = w[i], out[i]
    fig = figs.query_row_figure(
        tokens,
        row,
        o,
        titles=(page.tr("row_title"), page.tr("output_title")),
        y_titles=(page.tr("weight"), page.tr("value")),
        x_titles=(page.tr("keys"), page.tr("channel")),
        output_range=float(np.abs(v).max()) * 1.05,
        hovertemplate=page.tr("hover_key_weight", k="%{x}", a="%{y:.4f}") + "<extra></extra>",
    )
    live.slider(
        page.tr("query"), page.key("query"), states, i, fig, chart_key=page.key("row_chart")
    )
    top = att.strongest_keys(row, 3)
    terms = [formulas.render(page.concept, "term", a=f"{row[j]:.3f}", j=j) for j in top]
    page.formula(
        "query",
        i=i,
        d=d,
        j=top[0],
        a=f"{row[top[0]]:.4f}",
        terms=" + ".join(terms),
        more="" if N <= 3 else " + \\cdots",
        checks=checks[i],
        badges_shown=False,  # the live control shows them, following the query in the browser
    )


@kit.fragment
def head_grid(tokens: list[str], x: np.ndarray, ws: list[np.ndarray]) -> None:
    N, D = x.shape
    h = page.select_slider("heads", att.divisors_among(D, HEADS), 2)  # only the h that divide D
    d = att.check_heads(D, h)
    out, w = att.multi_head_attention(x, *ws, h)
    _, alone = att.head_on_its_own(x, *ws[:3], h)  # the last head on its own D/h channels
    page.chart(
        figs.head_grid(
            w,
            tokens,
            title=page.tr("heads_title", h=h, d=d),
            head_title=page.tr("head_n"),
            hover=cell_hover(""),
        ),
        "heads_chart",
        kept=True,
    )
    page.formula(
        "heads",
        N=N,
        D=D,
        h=h,
        d=d,
        checks=[
            kit.Check(page.tr("check_heads_rows"), np.allclose(w.sum(-1), 1, atol=1e-12)),
            kit.Check(
                page.tr("check_shape"), out.shape == x.shape and w.shape == (h, N, N), f"{w.shape}"
            ),
            kit.Check(
                page.tr("check_scale"),
                np.allclose(w[-1], alone, atol=1e-12),
                f"1/√{d} = {1 / np.sqrt(d):.4f}",
            ),
        ],
    )


@page.view("scaling")
@kit.fragment
def scaling() -> None:
    D = page.select_slider("D", list(SCALING_DIMS), 256)
    entropy, top = cache_attention_maps.scaling_curves(
        SCALING_DIMS, SCALING_TOKENS, SCALING_HEADS, 0
    )
    k, h, d = SCALING_DIMS.index(D), SCALING_HEADS, D // SCALING_HEADS
    ln_n = float(np.log(SCALING_TOKENS))
    # kept and cached by D (the curves are fixed): a D step sends a payload built once, where
    # building the figure anew made the step 1.43-1.48 x the bare app on a slower machine
    # (0.98-1.12 kept; bench/controls_report.md, round 31)
    page.chart(
        lambda: figs.scaling_figure(
            SCALING_DIMS,
            entropy,
            top,
            D,
            ln_n,
            x_title="D",
            titles=(page.tr("entropy_title"), page.tr("top_title")),
            y_titles=(page.tr("entropy_axis"), page.tr("top_axis")),
            names=(page.tr("scale_right"), page.tr("scale_tutorial")),
        ),
        "scaling_chart",
        kept=True,
        memo=D,
    )
    page.formula(
        "scaling",
        d=d,
        h=h,
        ratio=tex.sci(d / h, 3),
        paper=f"{entropy[k, 0]:.3f}",
        tutorial=f"{entropy[k, 1]:.3f}",
        N=SCALING_TOKENS,
        ln_n=f"{ln_n:.3f}",
        checks=[
            kit.Check(
                page.tr("check_stable"),
                bool(np.ptp(entropy[:, 0]) < 0.25),
                f"{entropy[:, 0].min():.2f}–{entropy[:, 0].max():.2f}",
            ),
            kit.Check(
                page.tr("check_saturates"),
                bool(entropy[-1, 1] < entropy[-1, 0] / 2),
                f"D = {SCALING_DIMS[-1]}: {entropy[-1, 1]:.2f}",
            ),
        ],
    )


@kit.fragment
def masked(tokens: list[str], x: np.ndarray, ws: list[np.ndarray], kind: str) -> None:
    N = len(tokens)
    pad = page.slider("padding", 0, N, min(2, N), key=page.key("pad"), disabled=kind != "padding")
    mask = att.attention_mask(kind, N, pad)
    out, w = att.scaled_dot_product_attention(x @ ws[0], x @ ws[1], x @ ws[2], mask)
    page.chart(
        figs.attention_heatmap(
            w,
            tokens,
            title=page.tr("mask_title"),
            x_title=page.tr("keys"),
            y_title=page.tr("queries"),
            hovertemplate=cell_hover(),
        ),
        "mask_chart",
    )
    dead = ~mask.any(axis=1)
    page.formula(
        "masks",
        dead=t_tex("attention_maps.dead_rows", k=str(int(dead.sum())), n=str(N)),
        checks=[
            kit.Check(page.tr("check_no_nan"), bool(np.isfinite(out).all() & np.isfinite(w).all())),
            kit.Check(page.tr("check_masked_zero"), bool(np.all(w[~mask] == 0))),
            kit.Check(
                page.tr("check_rows"),
                bool(np.allclose(w.sum(1)[~dead], 1, atol=1e-12) and np.all(w[dead] == 0)),
                page.tr("rows_detail", live=int((~dead).sum()), dead=int(dead.sum())),
            ),
        ],
    )


@kit.fragment
def against_torch(tokens: list[str], x: np.ndarray, ws: list[np.ndarray]) -> None:
    N, D = x.shape
    h = page.select_slider("heads", att.divisors_among(D, HEADS), 2, key=page.key("torch_heads"))
    causal = page.toggle("causal", True, key=page.key("torch_causal"))
    att.check_heads(D, h)  # a clear message before torch is even loaded
    perf.single_threaded_torch()  # only this view of this page loads torch
    gap = attention_torch.gap_to_torch(
        x, *ws, h, att.attention_mask("causal" if causal else "none", N)
    )
    page.chart(
        figs.attention_heatmap(
            gap.weights_map,
            None,
            title=page.tr("diff_title"),
            x_title=page.tr("keys"),
            y_title=page.tr("queries"),
            zmax=1e-15,
            colorbar_title="|Δ|",
            hovertemplate=cell_hover(fmt=".1e"),  # gaps near 1e-16: .4f would read 0.0000
        ),
        "torch_chart",
    )
    st.code(page.tr("torch_code"), language="python")  # the two mask conventions
    mha = max(gap.mha_out, gap.weights)
    page.formula(
        "torch",
        h=h,
        sdpa=tex.sci(gap.sdpa, 2, moderate=None),
        out=tex.sci(gap.mha_out, 2, moderate=None),
        weights=tex.sci(gap.weights, 2, moderate=None),
        checks=[
            kit.Check(page.tr("check_sdpa"), gap.sdpa < 1e-12, f"{gap.sdpa:.1e}"),
            kit.Check(page.tr("check_mha"), mha < 1e-12, f"{mha:.1e}"),
        ],
    )


page.run()
