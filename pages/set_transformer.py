"""Set Transformer: attention on sets. ISAB's m inducing points against SAB's n² weights,
permutation equivariance (SAB, ISAB) and invariance (PMA, Deep Sets pooling)."""

from __future__ import annotations

import numpy as np
import streamlit as st
import torch

from core import set_transformer as stf
from figures import set_transformer as figs
from ui import cache, kit, perf, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()
perf.single_threaded_torch()

C = "set_transformer"
SIZES = [16, 24, 32, 48, 64, 96, 128, 192, 256]
D, HEADS, M_MAX, M_FIXED = 16, 4, 32, 8  # width, heads, largest m, m of the symmetry parts
VIEWS = ("inducing", "equivariance", "pooling", "model")
OUT = 3  # width of each output vector of the whole model
TOL = 1e-9  # float64 rounding of a sum taken in another order is ~1e-16

kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", VIEWS, "inducing",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip


def num(x: float) -> str:
    return f"{x:,.0f}".replace(",", "{,}")


def sci(x: float) -> str:
    """``2.2\\times10^{-16}`` for LaTeX (``0`` for an exact zero)."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}\\times10^{{{int(exponent)}}}"


def blocks(seed: int, m: int) -> tuple[stf.ISAB, stf.SAB, stf.PMA]:
    """This page's seeded, untrained blocks on 2-D points (the same as ``cache.isab_attention``)."""
    return stf.seeded_blocks(seed, 2, D, HEADS, m)


def shuffle(n: int) -> np.ndarray:
    """π from the shuffle seed in the URL: element π[k] of X goes to position k of πX."""
    s = state.slider(t(f"{C}.shuffle"), f"{C}_shuffle", 1, 99, 1)
    return np.random.default_rng(s).permutation(n)


@kit.fragment
def inducing_view(X: np.ndarray, labels: np.ndarray, seed: int) -> None:
    """The m slider: ISAB's m×n and n×m maps for one head, and the cost n² vs 2nm."""
    a, b, c = st.columns(3)
    with a:
        m = state.slider(t(f"{C}.m"), f"{C}_m", 1, M_MAX, 8)
    with b:  # a slider needs two values: with one inducing point, j = 0
        j = state.slider(t(f"{C}.j"), f"{C}_j", 0, m - 1, 0) if m > 1 else 0
    with c:
        head = state.slider(t(f"{C}.head"), f"{C}_head", 1, HEADS, 1)
    n = len(X)
    A_IX, A_XH = cache.isab_attention(X, seed, D, HEADS, m)  # (h, m, n), (h, n, m)
    a_ix, a_xh = A_IX[head - 1], A_XH[head - 1]
    maps, points = st.columns([2.4, 1])
    with maps:  # the maps first: they are what m changes
        kit.chart(figs.maps_figure(
            labels, a_ix, a_xh, j,
            titles=(t(f"{C}.ix_title", m=m, n=n), t(f"{C}.xh_title", m=m, n=n)),
            axis_titles={"elements": t(f"{C}.elements"), "inducing": t(f"{C}.inducing")},
            colorbar_title=t(f"{C}.relative"),
        ), key=f"{C}_attention_chart")  # fmt: skip
    with points:
        kit.chart(figs.points_figure(
            X, labels, n * a_ix[j], title=t(f"{C}.points_title", j=j), axis_titles=("x₁", "x₂"),
        ), key=f"{C}_points_chart")  # fmt: skip
    ns = np.unique(np.geomspace(4, 1024, 60).round())
    sab_n, isab_n = stf.sab_attention_entries(n), stf.isab_attention_entries(n, m)
    left, right = st.columns([2, 3])
    with left:
        kit.chart(figs.cost_figure(
            ns, ns**2, 2 * m * ns, n, (sab_n, isab_n), title=t(f"{C}.cost_title"),
            x_title=t(f"{C}.n_axis"), y_title=t(f"{C}.entries_axis"),
        ), key=f"{C}_cost_chart")  # fmt: skip
    rows = [A.sum(-1) for A in (A_IX, A_XH)]
    dev = max(float(np.abs(r - 1).max()) for r in rows)
    shapes = {tuple(A.shape[-2:]) for A in (A_IX, A_XH)}
    cheaper = f"{sab_n / isab_n:.1f}\\times" + ("\\text{ fewer}" if n > 2 * m else "")
    with right:
        kit.formula(
            "\\begin{gathered}"
            "\\mathrm{MAB}(X, Y) = \\mathrm{LN}(H' + \\mathrm{rFF}(H'))\\\\"
            "H' = \\mathrm{LN}(X + \\mathrm{Multihead}(X, Y, Y))\\\\[6pt]"
            f"\\mathrm{{ISAB}}_{{{m}}}(X) = \\mathrm{{MAB}}(X, H)"
            f" \\in \\mathbb{{R}}^{{{n}\\times{D}}},"
            f"\\ H = \\mathrm{{MAB}}(I, X) \\in \\mathbb{{R}}^{{{m}\\times{D}}}\\\\[6pt]"
            f"A_{{IX}} = \\mathrm{{softmax}}\\!\\Big(\\tfrac{{(IW^Q_h)(XW^K_h)^\\top}}"
            f"{{\\sqrt{{{D // HEADS}}}}}\\Big) \\in \\mathbb{{R}}^{{{m}\\times{n}}},\\ "
            f"A_{{XH}} \\in \\mathbb{{R}}^{{{n}\\times{m}}}\\\\[6pt]"
            f"\\text{{SAB: }} n^2 = {n}^2 = {num(sab_n)}\\\\"
            f"\\text{{ISAB: }} mn + nm = 2\\cdot{m}\\cdot{n} = {num(isab_n)}\\ ({cheaper})"
            "\\end{gathered}",
            checks=[
                kit.Check(t(f"{C}.check_rows"), dev < 1e-12, f"max |Σ − 1| = {dev:.1e}"),
                kit.Check(t(f"{C}.check_no_nxn"), shapes == {(m, n), (n, m)},
                          f"{m}×{n}, {n}×{m}"),
                kit.Check(t(f"{C}.check_count"), a_ix.size + a_xh.size == isab_n,
                          f"{a_ix.size} + {a_xh.size} = {isab_n}"),
            ],
        )  # fmt: skip


@kit.fragment
def equivariance_view(X: np.ndarray, labels: np.ndarray, seed: int) -> None:
    """The shuffle slider: ISAB(πX) against π·ISAB(X), and the same for SAB."""
    n = len(X)
    perm = shuffle(n)
    isab, sab, _ = blocks(seed, M_FIXED)
    x, p = torch.from_numpy(X)[None], torch.from_numpy(perm)
    with torch.inference_mode():
        Z, (A_IX, A_XH) = isab(x, return_attention=True)
        Zp, (A_IXp, A_XHp) = isab(x[:, p], return_attention=True)
        S, Sp = sab(x), sab(x[:, p])
    firsts = [int(np.argmax(labels == c)) for c in np.unique(labels)[:3]]
    where = np.argsort(perm)  # original element i sits at position where[i] of πX
    kit.chart(figs.equivariance_figure(
        Z[0].numpy(), Zp[0].numpy(), Z[0, p].numpy(), [(i, int(where[i])) for i in firsts],
        titles=(t(f"{C}.eq_original"), t(f"{C}.eq_of_shuffled"), t(f"{C}.eq_shuffled_output")),
        x_title=t(f"{C}.elements"), y_title=t(f"{C}.channel"), colorbar_title=t(f"{C}.value"),
    ), key=f"{C}_equivariance_chart")  # fmt: skip
    d_isab = float((Zp - Z[:, p]).abs().max())
    d_sab = float((Sp - S[:, p]).abs().max())
    d_maps = max(float((A_IXp - A_IX[..., p]).abs().max()),
                 float((A_XHp - A_XH[:, :, p]).abs().max()))  # fmt: skip
    moved = float((Zp - Z).abs().max())
    head = ",\\,".join(str(int(i)) for i in perm[:6])
    kit.formula(
        "\\begin{gathered}"
        f"\\pi = ({head},\\ldots) \\in S_{{{n}}}:\\quad (\\pi X)_k = x_{{\\pi(k)}}\\\\[4pt]"
        f"\\mathrm{{ISAB}}_{{{M_FIXED}}}(\\pi X) = \\pi\\,\\mathrm{{ISAB}}_{{{M_FIXED}}}(X):\\ "
        f"\\max|\\Delta| = {sci(d_isab)},\\qquad"
        f"\\mathrm{{SAB}}(\\pi X) = \\pi\\,\\mathrm{{SAB}}(X):\\ \\max|\\Delta| = {sci(d_sab)}"
        "\\\\[4pt] A_{IX}(\\pi X) = A_{IX}(X)\\,P_\\pi^\\top,\\quad "
        f"A_{{XH}}(\\pi X) = P_\\pi\\,A_{{XH}}(X):\\ \\max|\\Delta| = {sci(d_maps)}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_isab_eq"), d_isab < TOL, f"max |Δ| = {d_isab:.1e}"),
            kit.Check(t(f"{C}.check_sab_eq"), d_sab < TOL, f"max |Δ| = {d_sab:.1e}"),
            kit.Check(t(f"{C}.check_maps_eq"), d_maps < TOL, f"max |Δ| = {d_maps:.1e}"),
            kit.Check(t(f"{C}.check_moved"), moved > 1e-3, f"max |Δ| = {moved:.2f}"),
        ],
    )  # fmt: skip


@kit.fragment
def pooling_view(X: np.ndarray, seed: int) -> None:
    """The shuffle slider: PMA and the Deep Sets pools do not move; a position-weighted sum does."""
    n = len(X)
    perm = shuffle(n)
    isab, _, pma = blocks(seed, M_FIXED)
    p = torch.from_numpy(perm)
    with torch.inference_mode():
        Z = isab(torch.from_numpy(X)[None])  # the encoded set (1, n, d)
        pairs = [(pma(Z)[:, 0], pma(Z[:, p])[:, 0])]
        pairs += [(stf.set_pool(Z, k), stf.set_pool(Z[:, p], k)) for k in stf.POOLS]
        pairs += [(stf.position_weighted_sum(Z), stf.position_weighted_sum(Z[:, p]))]
    gaps = [float((a - b).abs().max()) for a, b in pairs]
    names = ["PMA₁", "Σᵢ zᵢ", "meanᵢ zᵢ", "maxᵢ zᵢ", t(f"{C}.weighted")]
    kit.chart(figs.pooling_figure(
        [(a[0].numpy(), b[0].numpy()) for a, b in pairs], titles=names,
        x_title=t(f"{C}.channel"), names=(t(f"{C}.original_order"), t(f"{C}.shuffled_order")),
    ), key=f"{C}_pooling_chart")  # fmt: skip
    kit.formula(
        "\\begin{gathered}"
        f"Z = \\mathrm{{ISAB}}_{{{M_FIXED}}}(X) \\in \\mathbb{{R}}^{{{n}\\times{D}}},\\quad "
        "\\mathrm{PMA}_1(Z) = \\mathrm{MAB}(S, \\mathrm{rFF}(Z)),\\quad "
        f"\\mathrm{{head}}_h = \\sum_{{i=1}}^{{{n}}} a_i\\, z'_i W^V_h"
        "\\ (\\text{a sum over the set})"
        "\\\\[4pt]"
        f"\\max|\\mathrm{{PMA}}(\\pi Z) - \\mathrm{{PMA}}(Z)| = {sci(gaps[0])},\\quad"
        f"\\Sigma: {sci(gaps[1])},\\ \\mathrm{{mean}}: {sci(gaps[2])},\\ "
        f"\\max: {sci(gaps[3])}\\\\[4pt]"
        f"\\textstyle\\sum_i \\tfrac{{i}}{{{n}}}\\, z_{{\\pi(i)}} \\ne \\sum_i \\tfrac{{i}}{{{n}}}"
        f"\\, z_i:\\ \\max|\\Delta| = {gaps[4]:.3f}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_pma"), gaps[0] < TOL, f"max |Δ| = {gaps[0]:.1e}"),
            *[kit.Check(t(f"{C}.check_pool", pool=name), g < TOL, f"max |Δ| = {g:.1e}")
              for name, g in zip(names[1:4], gaps[1:4], strict=True)],
            kit.Check(t(f"{C}.check_weighted"), gaps[4] > 1e-6, f"max |Δ| = {gaps[4]:.3f}"),
        ],
    )  # fmt: skip


@kit.fragment
def model_view(X: np.ndarray, seed: int) -> None:
    """The k slider and the shuffle: the whole model, encoder → PMA_k → SAB → rFF → output."""
    n = len(X)
    a, b = st.columns(2)
    with a:
        k = state.slider(t(f"{C}.k"), f"{C}_k", 1, 4, 2)
    with b:
        perm = shuffle(n)
    model = stf.SetTransformer(2, OUT, D, HEADS, M_FIXED, k,
                               generator=torch.Generator().manual_seed(seed)).double()  # fmt: skip
    x, p = torch.from_numpy(X)[None], torch.from_numpy(perm)
    with torch.inference_mode():
        stages = model.stages(x)
        shuffled = model.stages(x[:, p])
    Y, Yp = stages[-1][1][0], shuffled[-1][1][0]  # (k, OUT)
    Z, Zp = stages[2][1], shuffled[2][1]  # the encoder's output (1, n, D)
    gap, moved = float((Y - Yp).abs().max()), float((Zp - Z[:, p]).abs().max())
    kit.chart(figs.pooling_figure(
        [(Y[j].numpy(), Yp[j].numpy()) for j in range(k)],
        titles=[t(f"{C}.output_j", j=j + 1) for j in range(k)], x_title=t(f"{C}.channel"),
        names=(t(f"{C}.original_order"), t(f"{C}.shuffled_order")),
    ), key=f"{C}_model_chart")  # fmt: skip
    shapes = [tuple(tensor.shape[1:]) for _, tensor in stages]
    arrow = "\\xrightarrow{{{}}}"
    steps = [f"\\mathrm{{ISAB}}_{{{M_FIXED}}}", f"\\mathrm{{ISAB}}_{{{M_FIXED}}}",
             f"\\mathrm{{PMA}}_{{{k}}}", "\\mathrm{SAB}", "\\mathrm{rFF},\\,W"]  # fmt: skip
    chain = f"X \\in \\mathbb{{R}}^{{{n}\\times 2}}" + "".join(
        arrow.format(step) + f"\\mathbb{{R}}^{{{rows}\\times {cols}}}"
        for step, (rows, cols) in zip(steps, shapes[1:], strict=True)
    )
    entries = 2 * stf.isab_attention_entries(n, M_FIXED) + k * n + k * k
    kit.formula(
        "\\begin{gathered}"
        f"{chain}\\\\[6pt]"
        "\\mathrm{Encoder}(X) = \\mathrm{ISAB}(\\mathrm{ISAB}(X)),\\quad"
        "\\mathrm{Decoder}(Z) = \\mathrm{rFF}(\\mathrm{SAB}(\\mathrm{PMA}_k(Z)))\\\\[6pt]"
        f"\\max|Y(\\pi X) - Y(X)| = {sci(gap)}\\\\[6pt]"
        f"\\text{{{t(f'{C}.weights_tex')}}}\\ 2\\cdot 2\\cdot{n}\\cdot{M_FIXED} + {k}\\cdot{n}"
        f" + {k}^2 = {num(entries)}\\ \\ (n^2 = {num(n * n)})"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_model_invariant"), gap < TOL, f"max |Δ| = {gap:.1e}"),
            kit.Check(t(f"{C}.check_encoder_eq"), moved < TOL, f"max |Δ| = {moved:.1e}"),
            kit.Check(t(f"{C}.check_model_shape"), tuple(Y.shape) == (k, OUT),
                      f"{k} × {OUT}"),
        ],
    )  # fmt: skip


def make_exercise(rng: np.random.Generator) -> kit.Exercise:
    """Count ISAB's attention weights, or predict what a shuffle does to a block's output."""
    if rng.integers(2) == 0:
        n = int(rng.choice([50, 64, 100, 128, 200, 256, 500, 1000]))
        m = int(rng.choice([4, 8, 16, 32]))
        isab, sab = stf.isab_attention_entries(n, m), stf.sab_attention_entries(n)
        return kit.Exercise(
            question=t(f"{C}.ex_cost_q", n=n, m=m, sab=sab),
            answer=float(isab),
            explanation=t(f"{C}.ex_cost_how", n=n, m=m, nm=n * m, isab=isab, sab=sab,
                          ratio=f"{sab / isab:.3g}"),
        )  # fmt: skip
    kinds = ("same", "rows", "other")
    name = ("SAB", "ISAB", "PMA", "sum", "max", "weighted")[int(rng.integers(6))]
    n, seed = int(rng.integers(4, 9)), int(rng.integers(1000))
    isab, sab, pma = blocks(seed, 2)
    fn = {
        "SAB": sab,
        "ISAB": isab,
        "PMA": pma,
        "sum": lambda z: stf.set_pool(z, "sum"),
        "max": lambda z: stf.set_pool(z, "max"),
        "weighted": stf.position_weighted_sum,
    }[name]
    x = torch.randn(1, n, 2 if name in ("SAB", "ISAB") else D, dtype=torch.float64,
                    generator=torch.Generator().manual_seed(seed))  # fmt: skip
    p = torch.from_numpy(rng.permutation(n))
    with torch.inference_mode():
        y, yp = fn(x), fn(x[:, p])  # run the block on the set and on the shuffled set
    if torch.allclose(yp, y):
        kind = "same"
    elif y.ndim == 3 and y.shape[1] == n and torch.allclose(yp, y[:, p]):
        kind = "rows"
    else:
        kind = "other"
    block = t(f"{C}.ex_block_{name}")
    options = tuple(t(f"{C}.ex_{k}") for k in kinds)
    return kit.Exercise(
        question=t(f"{C}.ex_shuffle_q", block=block, n=n),
        answer=options[kinds.index(kind)],
        options=options,
        explanation=t(f"{C}.ex_shuffle_how_{kind}", block=block),
    )


kit.explain(C, view)
with kit.guard():
    cols = st.columns(3)
    with cols[0]:
        n = state.select_slider(t(f"{C}.n"), f"{C}_n", SIZES, 128)
    with cols[1]:
        k = state.slider(t(f"{C}.clusters"), f"{C}_clusters", 1, len(figs.SYMBOLS), 4)
    with cols[2]:
        seed = state.number(t(f"{C}.seed"), f"{C}_seed", 0, 10_000, 0)
    X, labels = stf.clustered_points(n, k, np.random.default_rng(seed))
    order = np.argsort(labels, kind="stable")  # display order: cluster by cluster
    X, labels = X[order], labels[order]
    if view == "inducing":
        inducing_view(X, labels, seed)
    elif view == "equivariance":
        equivariance_view(X, labels, seed)
    elif view == "pooling":
        pooling_view(X, seed)
    else:
        model_view(X, seed)
state.show_notices()
kit.try_this(C)
kit.exercise(C, make_exercise)
kit.show_code(C, stf.MAB.multihead, stf.MAB.forward, stf.SAB.forward, stf.ISAB.forward,
              stf.PMA.forward, stf.SetTransformer.stages, stf.set_pool,
              stf.isab_attention_entries)  # fmt: skip
