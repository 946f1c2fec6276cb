"""Lambda layers (Bello 2021): the cost of an attention map vs a lambda layer, the content
lambda shared by every query, and position lambdas for a global and a local context."""

from __future__ import annotations

import numpy as np
import streamlit as st
import torch  # this page shows a torch layer

from core import lambda_layer as ll
from figures import lambda_layer as figs
from ui import cache, kit, perf, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()
perf.single_threaded_torch()

C = "lambda_layers"
VIEWS = ("cost", "content", "position")
IMAGE_SIDES = [8, 16]  # the 64×64 sample image averaged to side×side tokens
RADII = [3, 5, 7, 9]
COST_SIDES = [8, 12, 16, 24, 32, 48, 64, 96, 128]
DIM, DIM_OUT, K, HEADS = 7, 8, 4, 2  # 7 features per token (colour and position)
V = DIM_OUT // HEADS
COST_R = 5
BYTES = 4  # float32
SEED = 0


def num(x: float) -> str:
    return f"{x:,.0f}".replace(",", "{,}")


def mb(entries: float) -> str:
    x = entries * BYTES / 1e6
    return f"{x:,.3g}".replace(",", "{,}") if x < 1000 else num(x)


def vec(x: np.ndarray) -> str:
    return "(" + ",\\ ".join(f"{a:.3f}" for a in np.ravel(x)) + ")"


def layer(side: int, r: int | None, dtype: torch.dtype = torch.float64) -> ll.LambdaLayer:
    """The page's untrained layer: the same seed gives the same W_Q, W_K, W_V for both
    contexts (drawn first), then E (global) or R (local). ~1 ms: not worth a cache."""
    ctx = {"r": r} if r else {"n": side * side}
    g = torch.Generator().manual_seed(SEED)
    return ll.LambdaLayer(DIM, DIM_OUT, K, HEADS, generator=g, dtype=dtype, **ctx)


def image(side: int) -> tuple[np.ndarray, torch.Tensor]:
    rgb, tokens = cache.scene_tokens(side)  # (side, side, 3), (side², 7) row-major
    return rgb, torch.from_numpy(tokens.T.copy()).reshape(1, DIM, side, side)


def largest(net: ll.LambdaLayer, x: torch.Tensor) -> tuple[str, tuple[int, ...], int]:
    name, shape = max(ll.forward_allocations(net, x), key=lambda a: np.prod(a[1]))
    return name, shape, int(np.prod(shape))


kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", VIEWS, "cost",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip


@kit.fragment
def cost_view() -> None:
    s = state.select_slider(t(f"{C}.side"), f"{C}_side", COST_SIDES, 32)
    sides = np.array(COST_SIDES)
    att = [ll.attention_cost(int(a), HEADS, K, V) for a in sides]
    glo = [ll.lambda_cost(int(a), HEADS, K, V) for a in sides]
    loc = [ll.lambda_cost(int(a), HEADS, K, V, COST_R) for a in sides]
    flops = [np.array([c.flops for c in cs], float) for cs in (att, glo, loc)]
    memory = [np.array([getattr(c, key) for c in cs], float) * BYTES / 1e6
              for cs, key in ((att, "entries"), (glo, "lambdas"), (glo, "embeddings"),
                              (loc, "embeddings"))]  # fmt: skip
    i = COST_SIDES.index(s)
    kit.chart(figs.cost_figure(
        sides, flops, memory, s, ([f[i] for f in flops], [m[i] for m in memory]),
        titles=(t(f"{C}.flops_title"), t(f"{C}.memory_title")), x_title=t(f"{C}.side_axis"),
        y_titles=(t(f"{C}.flops_axis"), t(f"{C}.memory_axis")),
        flop_names=(t(f"{C}.attention"), t(f"{C}.global_lambda"), t(f"{C}.local_lambda")),
        memory_names=(t(f"{C}.attention_maps"), t(f"{C}.lambda_tensor"),
                      t(f"{C}.global_weights"), t(f"{C}.local_weights", r=COST_R)),
    ), key=f"{C}_cost_chart")  # fmt: skip
    a, g, lo = att[i], glo[i], loc[i]
    n = a.n
    x = torch.randn(1, DIM, s, s, generator=torch.Generator().manual_seed(s))  # float32
    name, shape, size = largest(layer(s, COST_R, torch.float32), x)
    tx = {key: f"\\text{{{t(f'{C}.{key}_short')}}}" for key in ("attention", "global", "local")}
    lam_mb = f"{num(g.lambdas)} \\to {mb(g.lambdas)}\\,\\text{{MB}}"
    kit.formula(
        "\\begin{gathered}"
        f"s = {s}:\\ n = s^2 = {num(n)},\\quad k = {K},\\ v = {V},\\ h = {HEADS},\\ r = {COST_R}"
        f",\\quad \\text{{float32}} = {BYTES}\\,\\text{{B}}\\\\[8pt]"
        f"\\begin{{array}}{{l|ll}} & \\text{{{t(f'{C}.largest_short')}}} & \\text{{FLOPs}}"
        f"\\\\ \\hline {tx['attention']} & h\\,n^2 = {num(a.entries)} \\to "
        f"{mb(a.entries)}\\,\\text{{MB}} & 2hn^2(k+v) = {num(a.flops)}\\\\"
        f"{tx['global']}\\ \\lambda & n\\,k\\,v = {lam_mb} & 2nkv(1 + n + h) = {num(g.flops)}"
        f"\\\\ {tx['local']}\\ \\lambda & n\\,k\\,v = {lam_mb} & 2nkv(1 + r^2 + h) = "
        f"{num(lo.flops)}\\end{{array}}\\\\[8pt]"
        f"\\frac{{h\\,n^2}}{{n\\,k\\,v}} = \\frac{{h\\,n}}{{k\\,v}} = "
        f"\\frac{{{HEADS}\\cdot{num(n)}}}{{{K}\\cdot{V}}} = {num(a.entries / g.lambdas)}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_measured", s=s), size == g.largest == g.lambdas,
                      f"{name} {'×'.join(map(str, shape))} = {size:,}"),
            kit.Check(t(f"{C}.check_no_map"), size < n * n, f"{size:,} < n² = {n * n:,}"),
        ],
    )  # fmt: skip


def position_sliders(side: int, default: tuple[int, int]) -> tuple[int, int]:
    a, b = st.columns(2)
    with a:
        row = state.slider(t(f"{C}.row"), f"{C}_row", 0, side - 1, default[0])
    with b:
        col = state.slider(t(f"{C}.col"), f"{C}_col", 0, side - 1, default[1])
    return row, col


@kit.fragment
def content_view(side: int) -> None:
    row, col = position_sliders(side, (side // 2, side // 4))
    n = row * side + col
    _, x = image(side)
    net = layer(side, None)
    other = layer(side, None)  # the same layer with a new, unrelated W_Q
    with torch.no_grad():
        other.w_q.copy_(torch.randn(other.w_q.shape, generator=torch.Generator().manual_seed(1),
                                    dtype=torch.float64))  # fmt: skip
        parts, first, swapped = net.explain(x, n), net.explain(x, 0), other.explain(x, n)
    keys, values = parts["keys"][0].numpy(), parts["values"][0].numpy()
    lam = parts["content_lambda"][0].numpy()
    kit.chart(figs.content_figure(
        keys, values, lam, n, side,
        titles=(t(f"{C}.keys_title"), t(f"{C}.values_title"), t(f"{C}.content_title")),
        x_title=t(f"{C}.positions_axis", side=side),
    ), key=f"{C}_content_chart")  # fmt: skip
    m = side * side
    rows = "\\\\".join(" & ".join(f"{a:.3f}" for a in r) for r in lam)
    y_c = np.einsum("hk,kv->hv", parts["q"][0].numpy(), lam)
    sums = keys.sum(axis=0)
    kit.formula(
        "\\begin{gathered}"
        f"\\bar{{K}} = \\mathrm{{softmax}}_m(K) \\in \\mathbb{{R}}^{{{m}\\times{K}}},\\ "
        f"V \\in \\mathbb{{R}}^{{{m}\\times{V}}}\\\\[6pt]\\lambda^c = \\bar{{K}}^\\top V"
        f" = \\sum_{{m=1}}^{{{m}}} \\bar k_m v_m^\\top"
        f" = \\begin{{pmatrix}}{rows}\\end{{pmatrix}} \\in \\mathbb{{R}}^{{{K}\\times{V}}}\\\\[6pt]"
        f"n = ({row}, {col}):\\quad q_n^{{(j)}} \\in \\mathbb{{R}}^{{{K}}},\\ "
        f"(\\lambda^c)^\\top q_n^{{(j)}} \\in \\mathbb{{R}}^{{{V}}}\\ (j = 1, \\ldots, {HEADS}):"
        f"\\ {vec(y_c)}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_keys_sum"), bool(np.allclose(sums, 1, atol=1e-12)),
                      f"max |Σ − 1| = {np.abs(sums - 1).max():.0e}"),
            kit.Check(t(f"{C}.check_same_lambda"),
                      bool(torch.equal(parts["content_lambda"], first["content_lambda"]))),
            kit.Check(t(f"{C}.check_no_query"),
                      bool(torch.equal(swapped["content_lambda"], parts["content_lambda"])
                           and not torch.equal(swapped["q"], parts["q"]))),
            kit.Check(t(f"{C}.check_product"), bool(np.allclose(keys.T @ values, lam))),
        ],
    )  # fmt: skip


@kit.fragment
def position_view(side: int, r: int) -> None:
    row, col = position_sliders(side, (side // 2, side // 4))
    n = row * side + col
    rgb, x = image(side)
    nets = (layer(side, None), layer(side, r))
    with torch.no_grad():
        parts = [net.explain(x, n) for net in nets]
        sizes = [largest(net, x)[2] for net in nets]
    # shift the image one column: relative R (local) shifts the output, absolute E does not
    shift_global, shift_local = (ll.translation_gap(net, x) for net in nets)
    E = [p["position_embedding"].numpy() for p in parts]
    lam = [p["position_lambda"][0].numpy() for p in parts]
    kit.chart(figs.position_figure(
        rgb, (E[0], E[1]), (lam[0], lam[1]), n, r,
        row_titles=(t(f"{C}.global_row"), t(f"{C}.local_row", r=r)),
        channel_title=t(f"{C}.channel_title"), lambda_title=t(f"{C}.position_title"),
        image_titles=(t(f"{C}.image_title"), t(f"{C}.image_window_title", r=r)),
    ), key=f"{C}_position_chart")  # fmt: skip
    m = side * side
    Vn = parts[0]["values"][0].numpy()
    explicit = [e.T @ Vn for e in E]  # λᵖ_n = E_nᵀ V, written out
    ys = [p["y_n"][0].numpy() for p in parts]
    outputs = [p["y"][0, :, row, col].numpy() for p in parts]
    gap_p = max(float(np.abs(a - b).max()) for a, b in zip(explicit, lam, strict=True))
    gap_y = max(float(np.abs(a.ravel() - b).max()) for a, b in zip(ys, outputs, strict=True))
    nonzero = int((np.abs(E[1]).sum(axis=1) > 0).sum())
    kit.formula(
        "\\begin{gathered}"
        f"b = 1,\\ n = {side}\\cdot{side} = {m},\\ k = {K},\\ v = {V},\\ h = {HEADS},\\ r = {r}"
        f"\\\\[6pt]\\lambda^p_n = E_n^\\top V,\\quad E_n \\in \\mathbb{{R}}^{{{m}\\times{K}}}"
        f"\\ (\\text{{{t(f'{C}.global_short')}}}: {m},\\ \\text{{{t(f'{C}.local_short')}}}:"
        f" {nonzero} \\le r^2 = {r * r}\\ \\text{{{t(f'{C}.rows_nonzero')}}} \\ne 0),\\quad"
        f" V \\in \\mathbb{{R}}^{{{m}\\times{V}}} \\Rightarrow \\lambda^p_n \\in "
        f"\\mathbb{{R}}^{{{K}\\times{V}}}\\\\[6pt]"
        f"y_n^{{(j)}} = (\\lambda^c + \\lambda^p_n)^\\top q_n^{{(j)}} \\in \\mathbb{{R}}^{{{V}}},"
        f"\\ q_n^{{(j)}} \\in \\mathbb{{R}}^{{{K}}}\\ (j = 1, \\ldots, {HEADS}),\\quad "
        f"y_n = \\big(y_n^{{(1)}}, \\ldots, y_n^{{({HEADS})}}\\big) \\in "
        f"\\mathbb{{R}}^{{{HEADS}\\cdot{V}}} = \\mathbb{{R}}^{{{DIM_OUT}}}\\\\[6pt]"
        f"n = ({row}, {col}):\\quad y_n^{{\\text{{{t(f'{C}.global_short')}}}}} = {vec(ys[0])}"
        f"\\\\ y_n^{{\\text{{{t(f'{C}.local_short')}}}}} = {vec(ys[1])}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_position_lambda"), gap_p < 1e-12, f"max |Δ| = {gap_p:.0e}"),
            kit.Check(t(f"{C}.check_output"), gap_y < 1e-12, f"max |Δ| = {gap_y:.0e}"),
            kit.Check(t(f"{C}.check_window"), nonzero <= r * r, f"{nonzero} ≤ {r * r}"),
            kit.Check(t(f"{C}.check_relative"), shift_local is None or shift_local < 1e-10,
                      t(f"{C}.too_small") if shift_local is None
                      else f"max |Δ| = {shift_local:.0e}"),
            kit.Check(t(f"{C}.check_absolute"), shift_global is not None and shift_global > 1e-6,
                      f"max |Δ| = {shift_global:.3f}"),
            kit.Check(t(f"{C}.check_no_map"), max(sizes) < m * m,
                      f"{max(sizes):,} < n² = {m * m:,}"),
        ],
    )  # fmt: skip


def make_exercise(rng: np.random.Generator) -> kit.Exercise:
    """Memory of the attention maps at a given side, with the lambda layer's for contrast."""
    s = int(rng.choice([16, 24, 32, 48, 64, 96, 128]))
    h = int(rng.choice([1, 2, 4, 8]))
    k, v = (int(a) for a in rng.choice([4, 8, 16], size=2))
    att = ll.attention_cost(s, h, k, v)
    lam = ll.lambda_cost(s, h, k, v)
    answer = att.entries * BYTES / 1e6
    return kit.Exercise(
        question=t(f"{C}.ex_q", s=s, h=h, k=k, v=v),
        answer=float(f"{answer:.4g}"),
        tolerance=0.02 * answer,
        explanation=t(f"{C}.ex_how", s=s, n=f"{att.n:,}", h=h, k=k, v=v,
                      entries=f"{att.entries:,}", mb=f"{answer:,.4g}",
                      lam=f"{lam.lambdas:,}", lam_mb=f"{lam.lambdas * BYTES / 1e6:,.4g}",
                      ratio=f"{att.entries / lam.lambdas:,.4g}"),
    )  # fmt: skip


with kit.guard():
    if view == "cost":
        kit.explain(C, "cost")
        cost_view()
    elif view == "content":
        kit.explain(C, "content")
        with st.columns(3)[0]:
            side = state.select_slider(t(f"{C}.image_side"), f"{C}_content_H", IMAGE_SIDES, 8)
        content_view(side)
    else:
        kit.explain(C, "position")
        a, b, _ = st.columns(3)
        with a:
            side = state.select_slider(t(f"{C}.image_side"), f"{C}_position_H", IMAGE_SIDES, 16)
        with b:
            r = state.select_slider(t(f"{C}.radius"), f"{C}_r", RADII, 5)
        position_view(side, r)
state.show_notices()
kit.try_this(C)
kit.exercise(C, make_exercise)
kit.show_code(C, ll.LambdaLayer.project, ll.LambdaLayer.position_lambdas, ll.LambdaLayer.forward,
              ll.LambdaLayer.position_embedding, ll.forward_allocations, ll.lambda_cost,
              ll.attention_cost)  # fmt: skip
