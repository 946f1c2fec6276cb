"""Encoder, decoder, encoder–decoder: one sentence through each family's attention, what each
is trained for, the parameters of a block and the size of a decoder's KV cache."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import transformer as tf
from figures import transformer as figs
from ui import exercises, kit, live, perf, tex

D_MODEL, HEADS, SEED = 16, 4, 0  # the example's width, heads and untrained weights
HEAD_OPTIONS = tuple(range(1, HEADS + 1))  # the live head control's states
D_VALUES = [64, 128, 256, 512, 768, 1024, 2048, 4096]
FF_RATIOS = [1, 2, 4, 8]
LENGTHS = [2**k for k in range(7, 18)]  # 128 … 131072
LAYERS = [1, 2, 4, 6, 12, 24, 32, 48, 96]
LAYER_LINES = (6, 12, 24, 48)
GPT2 = (12, 768, 50257, 1024)  # layers, d_model, vocabulary, context (Radford et al. 2019)

page = kit.Page(
    "transformer_families",
    views=("maps", "params", "cache"),
    exercise=exercises.transformer_families,
    code=(
        tf.parse_sentence,
        tf.family_masks,
        tf.masked_lm_objective,
        tf.next_token_objective,
        tf.seq2seq_objective,
        tf.cross_attention,
        tf.family_maps,
        tf.future_influence,
        tf.block_parameters,
        tf.kv_cache_size,
        tf.cached_decoding,
    ),
)


@page.view("maps")
def maps() -> None:
    """The sentences and the [MASK] position (full reruns): the objectives and the masks."""
    a, b = st.columns(2)
    with a:
        src = tf.parse_sentence(
            page.text("source", "the cat sat on the mat"), page.tr("source_name")
        )
    with b:
        tgt = tf.parse_sentence(
            page.text("target", "猫 が マット に 座った"), page.tr("target_name")
        )
    with st.columns(2)[0]:
        masked = page.slider("masked", 1, len(src), min(3, len(src)))
    bert = tf.masked_lm_objective(src, [masked - 1])
    gpt, s2s = tf.next_token_objective(src), tf.seq2seq_objective(src, tgt)
    masks = tf.family_masks(len(src), len(s2s.inputs))  # BERT and cross use these shapes
    page.chart(
        figs.family_figure(
            (masks.encoder, tf.family_masks(len(src), len(src)).decoder, masks.cross),
            (bert.inputs, gpt.inputs, s2s.context),
            (bert.inputs, gpt.inputs, s2s.inputs),
            titles=(page.tr("bert_title"), page.tr("gpt_title"), page.tr("cross_title")),
            subtitle=page.tr("masks_row"),
            masks=True,
        ),
        "masks_chart",
    )
    st.markdown(
        page.tr(
            "objectives",
            masked=tf.MASK,
            word=src[masked - 1],
            nb=bert.n_predictions,
            ng=gpt.n_predictions,
            ns=s2s.n_predictions,
        )
    )
    maps_view(bert, gpt, s2s)


def head_checks(
    m: tf.FamilyMaps, after: np.ndarray, leaks: tuple[float, float], h: int
) -> list[kit.Check]:
    """The checks of head ``h`` (0-based): its rows sum to 1 in every family, GPT's weights
    above the diagonal are 0, masking after the softmax breaks its row sums; and the causal
    check of the whole layer (changing the last word moves no earlier decoder output)."""
    sums = [a[h].sum(-1) for a in (m.encoder, m.decoder, m.cross, m.decoder_self)]
    upper = float(np.abs(np.triu(m.decoder[h], 1)).max())
    leak_dec, leak_enc = leaks
    return [
        kit.Check(page.tr("check_rows"), all(np.allclose(s, 1, atol=1e-12) for s in sums)),
        kit.Check(page.tr("check_upper"), upper == 0.0, f"max = {upper:g}"),
        kit.Check(
            page.tr("check_causal"),
            leak_dec == 0.0 and leak_enc > 0,
            page.tr("leaks", dec=f"{leak_dec:g}", enc=f"{leak_enc:.3f}"),
        ),
        kit.Check(
            page.tr("check_after_softmax"),
            float(after[h].min()) < 1 - 1e-9,
            f"min Σⱼ = {after[h].min():.3f}",
        ),
    ]


@kit.fragment
def maps_view(bert: tf.Objective, gpt: tf.Objective, s2s: tf.Objective) -> None:
    """The head as a live control (ui.live): every head's weights are computed here and
    redrawn in the browser; the formula and the URL follow once the slider settles."""
    head = live.current(page.key("head"), HEAD_OPTIONS, 1)
    m = tf.family_maps(bert.inputs, gpt.inputs, s2s.context, s2s.inputs, D_MODEL, HEADS, SEED)
    src = gpt.inputs
    causal = tf.family_masks(len(src), len(src)).decoder  # GPT's (N, N) mask
    rng = np.random.default_rng(SEED)
    w = tf.init_attention(D_MODEL, rng)
    x = tf.embed(src, D_MODEL, SEED)
    leaks = (  # the whole layer's outputs: one pair for every head
        tf.future_influence(x, w, HEADS, causal, len(src) - 1, rng),
        tf.future_influence(x, w, HEADS, None, len(src) - 1, rng),
    )
    after = tf.mask_after_softmax_row_sums(x, w, HEADS)  # (h, N)
    S, T, N = len(s2s.context), len(s2s.inputs), len(src)
    states, at_head = [], {}  # at_head: each head's checks, the current one for the formula
    for j in HEAD_OPTIONS:
        arrays = (m.encoder[j - 1], m.decoder[j - 1], m.cross[j - 1])
        checks_j = at_head[j] = head_checks(m, after, leaks, j - 1)
        numbers = [  # the weights > 0 of this head: the formula's counts, read off its maps
            (page.tr("head"), f"{j} / {HEADS}"),
            ("BERT #(A > 0)", f"{np.count_nonzero(arrays[0] > 0)} / {N * N}"),
            ("GPT #(A > 0)", f"{np.count_nonzero(arrays[1] > 0)} / {N * N}"),
            (f"{page.tr('cross_tex')} #(A > 0)", f"{np.count_nonzero(arrays[2] > 0)} / {T * S}"),
        ]
        states.append(live.State(j, str(j), figs.weight_traces(arrays), numbers, checks_j))
    h = head - 1
    fig = figs.family_figure(
        (m.encoder[h], m.decoder[h], m.cross[h]),
        (bert.inputs, gpt.inputs, s2s.context),
        (bert.inputs, gpt.inputs, s2s.inputs),
        titles=(page.tr("bert_title"), page.tr("gpt_title"), page.tr("cross_title")),
        subtitle=page.tr("weights_row"),  # the head is the slider's: the layout stays
    )
    live.slider(
        page.tr("head"), page.key("head"), states, head, fig, chart_key=page.key("maps_chart")
    )
    page.formula(
        "maps",
        S=S,
        T=T,
        N=N,
        d=D_MODEL // HEADS,
        h=HEADS,
        D=D_MODEL,
        NN=N * N,
        causal=N * (N + 1) // 2,
        TS=T * S,
        nb=bert.n_predictions,
        ng=gpt.n_predictions,
        ns=s2s.n_predictions,
        checks=at_head[head],
        badges_shown=False,  # the live control shows them, following the head in the browser
    )


@page.view("params")
@kit.fragment
def params() -> None:
    perf.single_threaded_torch()
    a, b = st.columns(2)
    with a:
        D = page.select_slider("d_model", D_VALUES, 512)
    with b:
        r = page.select_slider("ff_ratio", FF_RATIOS, 4)
    enc, dec = tf.block_parameters(D, r * D), tf.block_parameters(D, r * D, cross=True)
    d = np.array(D_VALUES, float)
    line = [
        np.array([tf.block_parameters(int(x), r * int(x), c).total for x in D_VALUES], float)
        for c in (False, True)
    ]
    parts = {
        k: (getattr(enc, k), getattr(dec, k))
        for k in ("self_attention", "cross_attention", "feed_forward", "norms")
    }
    page.chart(
        figs.parameters_figure(
            d,
            line[0],
            line[1],
            (D, enc.total, dec.total),
            parts,
            titles=(page.tr("params_title", r=r), page.tr("parts_title", D=D)),
            x_title="d_model",
            y_title=page.tr("params_axis"),
            names=(page.tr("encoder_block"), page.tr("decoder_block")),
            part_names={k: page.tr(f"part_{k}") for k in parts},
            bar_names=(page.tr("encoder"), page.tr("decoder")),
        ),
        "params_chart",
        kept=True,
    )
    torch_enc, torch_dec, torch_h1 = tf.torch_layer_parameters(D, r * D, HEADS)
    gpt2 = tf.gpt2_parameters(*GPT2)
    page.formula(
        "params",
        D=D,
        F=r * D,
        attn=tex.num(enc.self_attention),
        ffn=tex.num(enc.feed_forward),
        norms=tex.num(enc.norms),
        enc=tex.num(enc.total),
        dec=tex.num(dec.total),
        dnorms=tex.num(dec.norms),
        checks=[
            kit.Check(page.tr("check_torch_encoder"), torch_enc == enc.total, f"{torch_enc:,}"),
            kit.Check(page.tr("check_torch_decoder"), torch_dec == dec.total, f"{torch_dec:,}"),
            kit.Check(page.tr("check_heads"), torch_h1 == torch_enc),
            kit.Check(page.tr("check_gpt2"), gpt2 == 124_439_808, f"{gpt2:,}"),
        ],
    )


@page.view("cache")
@kit.fragment
def cache() -> None:
    a, b, c, e = st.columns(4)
    with a:
        n = page.select_slider("length", LENGTHS, 1024)
    with b:
        L = page.select_slider("layers", LAYERS, 12)
    with c:
        D = page.select_slider("cache_d", D_VALUES, 768)
    with e:
        nbytes = page.select_slider("bytes", [1, 2, 4], 2)
    lengths = np.array(LENGTHS, float)
    lines = {
        k: np.array([tf.kv_cache_size(k, m, D, nbytes).bytes for m in LENGTHS]) / 1e6
        for k in sorted({*LAYER_LINES, L})
    }
    size = tf.kv_cache_size(L, n, D, nbytes)
    page.chart(
        figs.cache_figure(
            lengths,
            lines,
            (n, size.bytes / 1e6),
            title=page.tr("cache_title", D=D, b=nbytes),
            x_title=page.tr("length_axis"),
            y_title="MB",
            name=page.tr("line_name"),
        ),
        "cache_chart",
    )
    run = tf.demo_cached_decoding(min(L, 4), SEED)
    gpt2 = tf.kv_cache_size(12, 1024, 768, 4)
    page.formula(
        "cache",
        L=L,
        n=tex.num(n),
        D=D,
        b=nbytes,
        numbers=tex.num(size.numbers),
        mb=f"{size.bytes / 1e6:,.1f}".replace(",", "{,}"),
        per_token=tex.num(size.bytes // n),
        checks=[
            kit.Check(
                page.tr("check_cached", L=min(L, 4)), run.gap < 1e-12, f"max |Δ| = {run.gap:.0e}"
            ),
            kit.Check(
                page.tr("check_stored"),
                run.stored == run.formula,
                f"{run.stored} = 2·{min(L, 4)}·{run.length}·{run.d_model}",
            ),
            kit.Check(
                page.tr("check_gpt2_cache"), gpt2.bytes == 75_497_472, f"{gpt2.bytes / 1e6:.1f} MB"
            ),
        ],
    )


page.run()
