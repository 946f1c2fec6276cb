"""Attention maps: scaled dot-product attention on a sentence, heads, the √(D/h) scaling,
masks, and the same numbers from PyTorch."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import attention as att
from figures import attention as figs
from ui import cache, exercises, kit, perf, state
from ui.boot import require_entrypoint
from ui.i18n import t, t_tex

require_entrypoint()

C = "attention_maps"
VIEWS = ("map", "heads", "scaling", "masks", "torch")
DIMS = [4, 8, 12, 16, 24, 32, 48, 64]
HEADS = [1, 2, 3, 4, 6, 8]
SCALING_DIMS = (16, 32, 64, 128, 256, 512, 1024)
SCALING_HEADS, SCALING_TOKENS = 8, 16
MASKS = ("none", "causal", "padding")


def cell_hover(value: str = "%{z:.4f}") -> str:
    """Hover text of a (query, key) cell of a heatmap."""
    return t(f"{C}.hover_cell", q="%{y}", k="%{x}", v=value)


kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", VIEWS, "map",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip


def inputs() -> tuple[list[str], np.ndarray, list[np.ndarray], int]:
    """Sentence (or seeded random tokens), d, projections: the controls shared by the parts."""
    cols = st.columns([4, 2, 2, 1])
    with cols[0]:
        text = state.text(t(f"{C}.sentence"), f"{C}_sentence",
                          "the cat sat on the mat because it was tired", max_chars=300)  # fmt: skip
    with cols[1]:
        d = state.select_slider(t(f"{C}.d"), f"{C}_d", DIMS, 16)
    with cols[2]:
        proj = state.choice(t(f"{C}.projections"), f"{C}_proj", ("random", "identity"), "random",
                            format_func=lambda v: t(f"{C}.proj_{v}"))  # fmt: skip
    with cols[3]:
        seed = state.number(t(f"{C}.seed"), f"{C}_seed", 0, 10_000, 0)
    tokens = att.tokenize(text)
    x = att.token_embeddings(tokens, d, seed)
    rng = np.random.default_rng(seed)
    ws = att.random_projections(d, rng) if proj == "random" else [np.eye(d)] * 4
    return tokens, x, ws, d


def map_part() -> None:
    kit.explain(C, "map")
    with kit.guard():
        tokens, x, ws, d = inputs()
        q, k, v = x @ ws[0], x @ ws[1], x @ ws[2]
        dots = q @ k.T
        _, w = att.scaled_dot_product_attention(q, k, v)
        custom = np.stack([dots, dots / np.sqrt(d), w], axis=-1)
        kit.chart(figs.attention_heatmap(
            w, tokens, title=t(f"{C}.map_title", d=d), x_title=t(f"{C}.keys"),
            y_title=t(f"{C}.queries"), customdata=custom,
            hovertemplate=t(f"{C}.hover_pair", q="%{y}", k="%{x}")
            + "<br>q·k = %{customdata[0]:.3f}<br>q·k/√d = %{customdata[1]:.3f}<br>"
            "a = %{customdata[2]:.4f}<extra></extra>",
        ), key=f"{C}_map_chart")  # fmt: skip
        query_view(tokens, q, k, v)


@kit.fragment
def query_view(tokens: list[str], q: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
    """The query slider: its row of weights and the weighted sum of the values."""
    N, d = q.shape
    i = state.slider(t(f"{C}.query"), f"{C}_query", 0, N - 1, min(3, N - 1))
    out, w = att.scaled_dot_product_attention(q[i : i + 1], k, v)
    row, o = w[0], out[0]
    kit.chart(figs.query_row_figure(
        tokens, row, o, titles=(t(f"{C}.row_title"), t(f"{C}.output_title")),
        y_titles=(t(f"{C}.weight"), t(f"{C}.value")), x_titles=(t(f"{C}.keys"), t(f"{C}.channel")),
        output_range=float(np.abs(v).max()) * 1.05,
        hovertemplate=t(f"{C}.hover_key_weight", k="%{x}", a="%{y:.4f}") + "<extra></extra>",
    ), key=f"{C}_row_chart")  # fmt: skip
    # softmax keeps each row's order, so the brightest cell is the largest score; with
    # identity projections that is often, not always, the diagonal (a longer key can win)
    scores = q @ k.T
    _, full = att.scaled_dot_product_attention(q, k, v)
    order_kept = bool(np.array_equal(full.argmax(axis=1), scores.argmax(axis=1)))
    diagonal = att.diagonal_max_rows(full)
    top = np.argsort(row)[::-1][:3]
    terms = " + ".join(f"{row[j]:.3f}\\,v_{{{j}}}" for j in top)
    rest = "" if N <= 3 else " + \\cdots"
    j = int(top[0])
    kit.formula(
        f"a_{{{i},j}} = \\mathrm{{softmax}}_j\\!\\Big("
        f"\\frac{{q_{{{i}}}\\cdot k_j}}{{\\sqrt{{{d}}}}}"
        f"\\Big),\\quad a_{{{i},{j}}} = {row[j]:.4f}"
        f"\\qquad o_{{{i}}} = \\sum_j a_{{{i},j}}\\, v_j = {terms}{rest}",
        checks=[
            kit.Check(t(f"{C}.check_sum"), abs(row.sum() - 1) < 1e-12, f"{row.sum():.12f}"),
            kit.Check(t(f"{C}.check_convex"), bool(np.all(o <= v.max(0) + 1e-12)
                                                    & np.all(o >= v.min(0) - 1e-12))),
            kit.Check(t(f"{C}.check_weighted_sum"), np.allclose(o, row @ v, atol=1e-12)),
            kit.Check(t(f"{C}.check_order"), order_kept,
                      t(f"{C}.diagonal_rows", k=int(diagonal.sum()), n=N)),
        ],
    )  # fmt: skip


def heads_part() -> None:
    kit.explain(C, "heads")
    with kit.guard():
        tokens, x, ws, d = inputs()
        heads_view(tokens, x, ws)


@kit.fragment
def heads_view(tokens: list[str], x: np.ndarray, ws: list[np.ndarray]) -> None:
    N, D = x.shape
    h = state.select_slider(t(f"{C}.heads"), f"{C}_heads", HEADS, 2)
    with kit.guard():
        d = att.check_heads(D, h)
        out, w = att.multi_head_attention(x, *ws, h)
        last = slice(D - d, D)  # the last head, computed on its own slice of channels
        head_alone = att.scaled_dot_product_attention(*((x @ W)[:, last] for W in ws[:3]))
        kit.chart(figs.head_grid(w, tokens, title=t(f"{C}.heads_title", h=h, d=d),
                                 head_title=t(f"{C}.head_n"), hover=cell_hover()),
                  key=f"{C}_heads_chart")  # fmt: skip
        split, weights, concat, out_ = (t(f"{C}.{k}_tex") for k in ("split", "weights", "concat",
                                                                   "out"))  # fmt: skip
        kit.formula(
            f"\\underset{{(1,\\,{N},\\,{D})}}{{X}} \\xrightarrow{{W^Q,W^K,W^V}}"
            f" (1,{N},{D}) \\xrightarrow{{\\text{{{split}}}}} (1,{h},{N},{d})"
            f" \\xrightarrow{{QK^\\top/\\sqrt{{{d}}}}}"
            f" \\underset{{\\text{{{weights}}}}}{{(1,{h},{N},{N})}}"
            f" \\xrightarrow{{\\cdot V}} (1,{h},{N},{d}) \\xrightarrow{{\\text{{{concat}}}}}"
            f" (1,{N},{D}) \\xrightarrow{{W^O}} \\underset{{\\text{{{out_}}}}}{{(1,{N},{D})}}",
            checks=[
                kit.Check(t(f"{C}.check_heads_rows"), np.allclose(w.sum(-1), 1, atol=1e-12)),
                kit.Check(t(f"{C}.check_shape"), out.shape == x.shape and w.shape == (h, N, N),
                          f"{w.shape}"),
                kit.Check(t(f"{C}.check_scale"), np.allclose(w[-1], head_alone[1], atol=1e-12),
                          f"1/√{d} = {1 / np.sqrt(d):.4f}"),
            ],
        )  # fmt: skip


@kit.fragment
def scaling_view() -> None:
    D = state.select_slider(t(f"{C}.D"), f"{C}_D", list(SCALING_DIMS), 256)
    entropy, top = cache.attention_scaling_curves(SCALING_DIMS, SCALING_TOKENS, SCALING_HEADS, 0)
    k = SCALING_DIMS.index(D)
    h, d = SCALING_HEADS, D // SCALING_HEADS
    ln_n = float(np.log(SCALING_TOKENS))
    names = (t(f"{C}.scale_right"), t(f"{C}.scale_tutorial"))
    kit.chart(figs.scaling_figure(
        SCALING_DIMS, entropy, top, D, ln_n, titles=(t(f"{C}.entropy_title"), t(f"{C}.top_title")),
        x_title="D", y_titles=(t(f"{C}.entropy_axis"), t(f"{C}.top_axis")), names=names,
    ), key=f"{C}_scaling_chart")  # fmt: skip
    kit.formula(
        f"\\operatorname{{var}}(q\\cdot k) = d = \\tfrac{{D}}{{h}} = {d}:\\quad"
        f"\\operatorname{{var}}\\!\\Big(\\tfrac{{q\\cdot k}}{{\\sqrt{{D/h}}}}\\Big) = 1,\\quad"
        f"\\operatorname{{var}}\\!\\Big(\\tfrac{{q\\cdot k}}{{\\sqrt{{h}}}}\\Big)"
        f" = \\tfrac{{{d}}}{{{h}}} = {d / h:.3g}"
        f"\\qquad \\bar H = {entropy[k, 0]:.3f}\\ \\text{{{t(f'{C}.vs_tex')}}}\\"
        f" {entropy[k, 1]:.3f}"
        f"\\;(\\ln {SCALING_TOKENS} = {ln_n:.3f})",
        checks=[
            kit.Check(t(f"{C}.check_stable"), bool(np.ptp(entropy[:, 0]) < 0.25),
                      f"{entropy[:, 0].min():.2f}–{entropy[:, 0].max():.2f}"),
            kit.Check(t(f"{C}.check_saturates"), bool(entropy[-1, 1] < entropy[-1, 0] / 2),
                      f"D = {SCALING_DIMS[-1]}: {entropy[-1, 1]:.2f}"),
        ],
    )  # fmt: skip


def masks_part() -> None:
    kit.explain(C, "masks")
    with kit.guard():
        tokens, x, ws, d = inputs()
        kind = state.choice(t(f"{C}.mask"), f"{C}_mask", MASKS, "causal",
                            format_func=lambda v: t(f"{C}.mask_{v}"))  # fmt: skip
        masks_view(tokens, x, ws, kind)


@kit.fragment
def masks_view(tokens: list[str], x: np.ndarray, ws: list[np.ndarray], kind: str) -> None:
    N, d = x.shape
    pad = state.slider(t(f"{C}.padding"), f"{C}_pad", 0, N, min(2, N), disabled=kind != "padding")
    mask = {"none": np.ones((N, N), dtype=bool), "causal": att.causal_mask(N),
            "padding": att.padding_mask(N, pad)}[kind]  # fmt: skip
    out, w = att.scaled_dot_product_attention(x @ ws[0], x @ ws[1], x @ ws[2], mask)
    kit.chart(figs.attention_heatmap(w, tokens, title=t(f"{C}.mask_title"), x_title=t(f"{C}.keys"),
                                     y_title=t(f"{C}.queries"),
                                     hovertemplate=cell_hover() + "<extra></extra>"),
              key=f"{C}_mask_chart")  # fmt: skip
    dead = ~mask.any(axis=1)
    kit.formula(
        "a_{ij} = \\frac{[\\,j \\in \\mathcal{A}(i)\\,]\\; e^{s_{ij}}}"
        "{\\sum_{j' \\in \\mathcal{A}(i)} e^{s_{ij'}}},\\qquad"
        "\\mathcal{A}(i) = \\varnothing \\Rightarrow a_{i\\cdot} = 0,\\ o_i = 0\\quad("
        + t_tex(f"{C}.dead_rows", k=str(int(dead.sum())), n=str(N)) + ")",
        checks=[
            kit.Check(t(f"{C}.check_no_nan"), bool(np.isfinite(out).all() & np.isfinite(w).all())),
            kit.Check(t(f"{C}.check_masked_zero"), bool(np.all(w[~mask] == 0))),
            kit.Check(t(f"{C}.check_rows"), bool(np.allclose(w.sum(1)[~dead], 1, atol=1e-12)
                                                  and np.all(w[dead] == 0)),
                      t(f"{C}.rows_detail", live=int((~dead).sum()), dead=int(dead.sum()))),
        ],
    )  # fmt: skip


def torch_part() -> None:
    kit.explain(C, "torch")
    with kit.guard():
        tokens, x, ws, d = inputs()
        torch_view(x, ws)


def torch_reference(x, ws, h, mask):
    """Our inputs through F.scaled_dot_product_attention and nn.MultiheadAttention."""
    import torch  # only this part of this page shows torch layers
    import torch.nn.functional as F

    perf.single_threaded_torch()

    D = x.shape[1]
    tq, tk, tv = (torch.tensor(x @ w) for w in ws[:3])
    sdpa = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=torch.tensor(mask)).numpy()
    mha = torch.nn.MultiheadAttention(D, h, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():  # torch computes x @ W.T: copy the transposes
        mha.in_proj_weight.copy_(torch.tensor(np.concatenate([w.T for w in ws[:3]])))
        mha.out_proj.weight.copy_(torch.tensor(ws[3].T))
        tx = torch.tensor(x[None])
        out, w = mha(tx, tx, tx, attn_mask=torch.tensor(~mask), average_attn_weights=False)
    return sdpa, out[0].numpy(), w[0].numpy()


@kit.fragment
def torch_view(x: np.ndarray, ws: list[np.ndarray]) -> None:
    N, D = x.shape
    h = state.select_slider(t(f"{C}.heads"), f"{C}_torch_heads", HEADS, 2)
    causal = state.toggle(t(f"{C}.causal"), f"{C}_torch_causal", True)
    mask = att.causal_mask(N) if causal else np.ones((N, N), dtype=bool)
    with kit.guard():
        att.check_heads(D, h)
        ours_sdpa, _ = att.scaled_dot_product_attention(x @ ws[0], x @ ws[1], x @ ws[2], mask)
        ours_out, ours_w = att.multi_head_attention(x, *ws, h, mask)
        sdpa, out, w = torch_reference(x, ws, h, mask)
        diffs = [np.abs(ours_sdpa - sdpa).max(), np.abs(ours_out - out).max(),
                 np.abs(ours_w - w).max()]  # fmt: skip
        kit.chart(figs.attention_heatmap(np.abs(ours_w - w).max(axis=0), None,
                  title=t(f"{C}.diff_title"), x_title=t(f"{C}.keys"), y_title=t(f"{C}.queries"),
                  zmax=1e-15, colorbar_title="|Δ|",
                  hovertemplate=cell_hover() + "<extra></extra>"),
                  key=f"{C}_torch_chart")  # fmt: skip
        st.code(
            "F.scaled_dot_product_attention(q, k, v, attn_mask=mask)      # "
            f"{t(f'{C}.code_may_attend')}\n"
            "nn.MultiheadAttention(D, h, bias=False, batch_first=True)\n"
            "  in_proj_weight = cat([W_Q.T, W_K.T, W_V.T]); out_proj.weight = W_O.T\n"
            "mha(x, x, x, attn_mask=~mask)                              # "
            f"{t(f'{C}.code_blocked')}",
            language="python",
        )
        kit.formula(
            f"\\max|\\Delta| = {diffs[0]:.1e}\\ (\\text{{SDPA}}),\\quad {diffs[1]:.1e}\\"
            f" (\\text{{{t(f'{C}.mha_out_tex')}}}),\\quad {diffs[2]:.1e}\\"
            f" (\\text{{{t(f'{C}.weights_tex')}}},\\ h = {h})",
            checks=[
                kit.Check(t(f"{C}.check_sdpa"), diffs[0] < 1e-12, f"{diffs[0]:.1e}"),
                kit.Check(t(f"{C}.check_mha"), max(diffs[1:]) < 1e-12, f"{max(diffs[1:]):.1e}"),
            ],
        )  # fmt: skip


if view == "map":
    map_part()
elif view == "heads":
    heads_part()
elif view == "scaling":
    kit.explain(C, "scaling")
    scaling_view()
elif view == "masks":
    masks_part()
else:
    torch_part()
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.attention_maps)
kit.show_code(C, att.scaled_dot_product_attention, att.masked_softmax, att.multi_head_attention,
              att.causal_mask)  # fmt: skip
