"""Lambda layers (Bello 2021): the cost of an attention map vs a lambda layer, the content
lambda shared by every query, and position lambdas for a global and a local context."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st
import torch  # this page shows a torch layer

from core import lambda_layer as ll
from figures import lambda_layer as figs
from ui import cache, exercises, kit, perf, tex

IMAGE_SIDES = [8, 16]  # the 64×64 sample image averaged to side×side tokens
RADII = [3, 5, 7, 9]
COST_SIDES = [8, 12, 16, 24, 32, 48, 64, 96, 128]
DIM, DIM_OUT, K, HEADS = 7, 8, 4, 2  # 7 features per token (colour and position)
V = DIM_OUT // HEADS
COST_R = 5
BYTES = 4  # float32
SEED = 0

page = kit.Page(
    "lambda_layers",
    views=("cost", "content", "position"),
    exercise=exercises.lambda_layers,
    code=(
        ll.LambdaLayer.project,
        ll.LambdaLayer.position_lambdas,
        ll.LambdaLayer.forward,
        ll.LambdaLayer.explain,
        ll.LambdaLayer.position_embedding,
        ll.translation_gap,
        ll.forward_allocations,
        ll.lambda_cost,
        ll.attention_cost,
    ),
)


def layer(side: int, r: int | None, dtype: torch.dtype = torch.float64) -> ll.LambdaLayer:
    """The page's untrained layer: the same seed gives the same W_Q, W_K, W_V for both
    contexts (drawn first), then E (global) or R (local)."""
    context = {"r": r} if r else {"n": side * side}
    g = torch.Generator().manual_seed(SEED)
    return ll.LambdaLayer(DIM, DIM_OUT, K, HEADS, generator=g, dtype=dtype, **context)


@st.cache_resource(max_entries=16, show_spinner=False)
def shared_layer(side: int, r: int | None) -> ll.LambdaLayer:
    """:func:`layer`, built once per server: the global E alone is m²·k random numbers (a
    build took 2–4 ms at side 16 on every step of both views). Shared by every
    session, so never changed: the content view builds its own layer to change W_Q."""
    return layer(side, r)


def image(side: int) -> tuple[np.ndarray, torch.Tensor]:
    rgb, tokens = cache.scene_tokens(side)  # (side, side, 3), (side², 7) row-major
    return rgb, torch.from_numpy(tokens.T.copy()).reshape(1, DIM, side, side)


def megabytes(numbers: int) -> str:
    mb = numbers * BYTES / 1e6
    return tex.num(mb) if mb >= 1000 else tex.sci(mb, 3)


@page.view("cost")
@kit.fragment
def cost() -> None:
    perf.single_threaded_torch()
    s = page.select_slider("side", COST_SIDES, 32)
    att = [ll.attention_cost(a, HEADS, K, V) for a in COST_SIDES]
    glo = [ll.lambda_cost(a, HEADS, K, V) for a in COST_SIDES]
    loc = [ll.lambda_cost(a, HEADS, K, V, COST_R) for a in COST_SIDES]
    flops = [np.array([c.flops for c in costs], float) for costs in (att, glo, loc)]
    memory = [
        np.array([getattr(c, key) for c in costs], float) * BYTES / 1e6
        for costs, key in (
            (att, "entries"),
            (glo, "lambdas"),
            (glo, "embeddings"),
            (loc, "embeddings"),
        )
    ]
    i = COST_SIDES.index(s)
    page.chart(
        figs.cost_figure(
            np.array(COST_SIDES),
            flops,
            memory,
            s,
            ([f[i] for f in flops], [m[i] for m in memory]),
            titles=(page.tr("flops_title"), page.tr("memory_title")),
            x_title=page.tr("side_axis"),
            y_titles=(page.tr("flops_axis"), page.tr("memory_axis")),
            flop_names=(page.tr("attention"), page.tr("global_lambda"), page.tr("local_lambda")),
            memory_names=(
                page.tr("attention_maps"),
                page.tr("lambda_tensor"),
                page.tr("global_weights"),
                page.tr("local_weights", r=COST_R),
            ),
        ),
        "cost_chart",
    )
    a, g, lo = att[i], glo[i], loc[i]
    x = torch.randn(1, DIM, s, s, generator=torch.Generator().manual_seed(s))  # float32
    big = ll.largest_allocation(layer(s, COST_R, torch.float32), x)  # a real forward pass
    page.formula(
        "cost",
        s=s,
        n=tex.num(a.n),
        K=K,
        V=V,
        h=HEADS,
        r=COST_R,
        bytes=BYTES,
        att_entries=tex.num(a.entries),
        att_mb=megabytes(a.entries),
        att_flops=tex.num(a.flops),
        lam=tex.num(g.lambdas),
        lam_mb=megabytes(g.lambdas),
        glo_flops=tex.num(g.flops),
        loc_flops=tex.num(lo.flops),
        ratio=tex.num(a.entries / g.lambdas),
        checks=[
            kit.Check(
                page.tr("check_measured", s=s),
                big.size == g.largest == g.lambdas,
                f"{big.function} {'×'.join(map(str, big.shape))} = {big.size:,}",
            ),
            kit.Check(
                page.tr("check_no_map"), big.size < a.n**2, f"{big.size:,} < n² = {a.n**2:,}"
            ),
        ],
    )


def query(side: int, widgets: bool = True) -> tuple[int, int]:
    """The query position (row, column) in the live part: drawn (``widgets``) or only read
    (``kit.controls_after_the_chart``: a new side gives both sliders another range, and those
    widgets, sent before the chart, were rendered again in its pass)."""
    a, b = kit.columns(2, widgets)
    with a:
        row = page.slider("row", 0, side - 1, side // 2, widget=widgets)
    with b:
        col = page.slider("col", 0, side - 1, side // 4, widget=widgets)
    return row, col


@page.view("content")
def content() -> None:
    with st.columns(3)[0]:
        side = page.select_slider("image_side", IMAGE_SIDES, 8, key=page.key("content_H"))
    content_view(side)


@kit.fragment
def content_view(side: int) -> None:
    with kit.controls_after_the_chart(functools.partial(query, side)) as (row, col):
        content_part(side, row, col)


def content_part(side: int, row: int, col: int) -> None:
    perf.single_threaded_torch()
    n = row * side + col
    _, x = image(side)
    net, other = shared_layer(side, None), layer(side, None)  # other: the same, a new W_Q
    with torch.no_grad():
        other.w_q.copy_(
            torch.randn(
                other.w_q.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64
            )
        )
    parts, first, swapped = net.explain(x, n), net.explain(x, 0), other.explain(x, n)
    keys, values = parts.keys[0].numpy(), parts.values[0].numpy()
    lam = parts.content_lambda[0].numpy()
    page.chart(
        figs.content_figure(
            keys,
            values,
            lam,
            n,
            side,
            titles=(page.tr("keys_title"), page.tr("values_title"), page.tr("content_title")),
            x_title=page.tr("positions_axis", side=side),
        ),
        "content_chart",
        kept=True,
    )
    sums = keys.sum(axis=0)  # one per key channel, over the positions
    page.formula(
        "content",
        m=side * side,
        K=K,
        V=V,
        h=HEADS,
        row=row,
        col=col,
        rows="\\\\".join(" & ".join(f"{a:.3f}" for a in r) for r in lam),
        y_c=tex.vec(parts.content_output[0].numpy().ravel(), 2),
        checks=[
            kit.Check(
                page.tr("check_keys_sum"),
                bool(np.allclose(sums, 1, atol=1e-12)),
                f"max |Σ − 1| = {np.abs(sums - 1).max():.0e}",
            ),
            kit.Check(
                page.tr("check_same_lambda"),
                torch.equal(parts.content_lambda, first.content_lambda),
            ),
            kit.Check(
                page.tr("check_no_query"),
                torch.equal(swapped.content_lambda, parts.content_lambda)
                and not torch.equal(swapped.q, parts.q),
            ),
            kit.Check(page.tr("check_product"), bool(np.allclose(keys.T @ values, lam))),
        ],
    )


@page.view("position")
def position() -> None:
    a, b, _ = st.columns(3)
    with a:
        side = page.select_slider("image_side", IMAGE_SIDES, 16, key=page.key("position_H"))
    with b:
        r = page.select_slider("radius", RADII, 5, key=page.key("r"))
    position_view(side, r)


@kit.fragment
def position_view(side: int, r: int) -> None:
    with kit.controls_after_the_chart(functools.partial(query, side)) as (row, col):
        position_part(side, r, row, col)


def position_part(side: int, r: int, row: int, col: int) -> None:
    perf.single_threaded_torch()
    n = row * side + col
    rgb, x = image(side)
    nets = (shared_layer(side, None), shared_layer(side, r))  # global (E), local (R)
    parts = [net.explain(x, n) for net in nets]
    size = max(ll.largest_allocation(net, x).size for net in nets)
    # shift the image one column: relative R (local) shifts the output, absolute E does not
    shift_global, shift_local = (ll.translation_gap(net, x) for net in nets)
    E = [p.position_embedding.numpy() for p in parts]
    lam = [p.position_lambda[0].numpy() for p in parts]
    # the local context first: the radius slider changes it alone, and the chart a control
    # is about goes first (kit.chart); the global context does not depend on r
    for name, i, radius, title, image_title in (
        ("position_chart", 1, r, page.tr("local_row", r=r), page.tr("image_window_title", r=r)),
        ("position_global_chart", 0, None, page.tr("global_row"), page.tr("image_title")),
    ):
        page.chart(
            figs.position_figure(
                rgb,
                E[i],
                lam[i],
                n,
                radius,
                row_title=title,
                channel_title=page.tr("channel_title"),
                lambda_title=page.tr("position_title"),
                image_title=image_title,
            ),
            name,
            kept=True,
        )
    m = side * side
    values = parts[0].values[0].numpy()
    gap_p = max(float(np.abs(e.T @ values - a).max()) for e, a in zip(E, lam, strict=True))
    gap_y = max(float((p.y_n[0].ravel() - p.y[0, :, row, col]).abs().max()) for p in parts)
    nonzero = int((np.abs(E[1]).sum(axis=1) > 0).sum())  # rows of the local Eₙ inside the image
    page.formula(
        "position",
        side=side,
        m=m,
        K=K,
        V=V,
        h=HEADS,
        r=r,
        nonzero=nonzero,
        rr=r * r,
        dim_out=DIM_OUT,
        row=row,
        col=col,
        y_global=tex.vec(parts[0].y_n[0].numpy().ravel(), 2),
        y_local=tex.vec(parts[1].y_n[0].numpy().ravel(), 2),
        checks=[
            kit.Check(page.tr("check_position_lambda"), gap_p < 1e-12, f"max |Δ| = {gap_p:.0e}"),
            kit.Check(page.tr("check_output"), gap_y < 1e-12, f"max |Δ| = {gap_y:.0e}"),
            kit.Check(page.tr("check_window"), nonzero <= r * r, f"{nonzero} ≤ {r * r}"),
            kit.Check(
                page.tr("check_relative"),
                shift_local is None or shift_local < 1e-10,
                page.tr("too_small") if shift_local is None else f"max |Δ| = {shift_local:.0e}",
            ),
            kit.Check(
                page.tr("check_absolute"),
                shift_global is not None and shift_global > 1e-6,
                f"max |Δ| = {shift_global:.3f}",
            ),
            kit.Check(page.tr("check_no_map"), size < m * m, f"{size:,} < n² = {m * m:,}"),
        ],
    )


page.run()
