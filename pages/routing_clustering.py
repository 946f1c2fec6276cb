"""Routing by clustering: k-means routes each token to a centroid and tokens attend within
their cluster (Routing Transformer); approximate maximum inner product search by clusters."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import toydata
from core import routing as rt
from figures import routing as figs
from ui import cache, exercises, kit, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()

C = "routing_clustering"
N_TOKENS, N_KEYS, N_QUERIES, DIM, TOP_K, K1, K2 = 48, 512, 64, 16, 10, 4, 4


@kit.fragment
def routing_view(seed: int, causal: bool) -> None:
    with st.columns(2)[0]:
        k = state.slider(t(f"{C}.k"), f"{C}_k", 1, 8, 4)
    x = toydata.blobs(N_TOKENS, 2, 5, 0.18, np.random.default_rng(seed))
    res = rt.kmeans(x, k, np.random.default_rng([seed, k]))
    order = np.lexsort((np.arange(N_TOKENS), res.labels))  # by cluster, then position
    mask = rt.routing_mask(res.labels, causal)
    lim = float(np.abs(x).max()) + 0.15
    left, right = st.columns(2)
    with left:
        kit.chart(figs.clusters_figure(
            x, res.labels, res.centroids, 0, title=t(f"{C}.clusters_title"), limits=(-lim, lim),
            names=(t(f"{C}.keys"), t(f"{C}.centroids"), t(f"{C}.route")),
            hover=t(f"{C}.hover_token", i="%{pointNumber}", c="%{customdata}"),
        ), key=f"{C}_clusters_chart")  # fmt: skip
    with right:
        kit.chart(figs.mask_figure(
            mask[np.ix_(order, order)], title=t(f"{C}.mask_title"),
            x_title=t(f"{C}.key_sorted"), y_title=t(f"{C}.query_sorted"),
            hovertemplate=t(f"{C}.hover_cell", q="%{y}", k="%{x}", v="%{z}")
            + f"<extra>{t(f'{C}.hover_attends')}</extra>",
        ), key=f"{C}_mask_chart")  # fmt: skip
    d2 = rt.squared_distances(x[:1], res.centroids)[0]
    c0 = int(res.labels[0])
    sizes = np.bincount(res.labels, minlength=k)
    pairs = int((sizes * (sizes + 1) // 2).sum() if causal else (sizes**2).sum())
    J = res.objective
    dists = ",\\ ".join(f"{v:.2f}" for v in d2)
    kit.formula(
        f"\\begin{{gathered}}J = \\sum_i \\lVert x_i - \\mu_{{c(i)}} \\rVert^2:\\ {J[0]:.3f}"
        f" \\to {J[-1]:.3f}\\ \\ (\\text{{{t(f'{C}.lloyd_tex')}: }}{len(J) - 1})\\\\[4pt]"
        f"\\lVert x_0 - \\mu_j \\rVert^2 = ({dists})\\ \\Rightarrow\\ c(x_0) = {c0},\\quad"
        f"\\frac{{|S|}}{{N^2}} = \\frac{{{pairs}}}{{{N_TOKENS}^2}} = {pairs / N_TOKENS**2:.3f}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_objective"), bool(np.all(np.diff(J) <= 1e-9 * (1 + J[0])))),
            kit.Check(t(f"{C}.check_nearest"), bool(np.array_equal(
                rt.assign(x, res.centroids), res.labels))),
            kit.Check(t(f"{C}.check_pairs"), pairs == int(mask.sum())),
            kit.Check(t(f"{C}.check_causal"), not causal or not np.triu(mask, 1).any()),
        ],
    )  # fmt: skip


@kit.fragment
def mips_view(seed: int, equal: bool) -> None:
    with st.columns(2)[0]:
        L = state.slider(t(f"{C}.probe"), f"{C}_probe", 1, K1 * K2, 3)
    curves = cache.routing_recall_curves(N_KEYS, N_QUERIES, DIM, TOP_K, K1, K2, equal, seed)
    keys, q = toydata.mips_keys(N_KEYS, N_QUERIES, DIM, 12, np.random.default_rng([seed, 1]),
                           equal_norms=equal)  # fmt: skip
    left, right = st.columns([1, 1], vertical_alignment="center")
    with left:
        kit.chart(figs.recall_figure(
            curves, L, title=t(f"{C}.recall_title", K=TOP_K), x_title=t(f"{C}.dots_axis"),
            y_title=t(f"{C}.recall_axis", K=TOP_K),
            names=(t(f"{C}.flat"), t(f"{C}.tree"), t(f"{C}.exhaustive")),
            hovers=tuple(t(f"{C}.hover_{k}", c="%{customdata:.0f}", d="%{x:.0f}", r="%{y:.3f}")
                         for k in ("flat", "tree", "point")),
        ), key=f"{C}_recall_chart")  # fmt: skip
    mips = rt.top_k_inner_product(q, keys, TOP_K)
    nn, cos = rt.top_k_nearest(q, keys, TOP_K), rt.top_k_cosine(q, keys, TOP_K)
    overlap = float(rt.recall(nn, mips).mean())
    i = L - 1
    fr, tr = curves["flat_recall"], curves["tree_recall"]
    with right:
        kit.formula(
            f"\\begin{{gathered}}\\text{{{t(f'{C}.flat_tex')}}}: {curves['flat_dots'][i]:.0f}"
            "\\ q\\cdot k"
            f"\\ \\Rightarrow\\ \\mathrm{{recall}}@{TOP_K} = {fr[i]:.3f}\\\\[4pt]"
            f"\\text{{{t(f'{C}.tree_tex')}}}: {curves['tree_dots'][i]:.0f}\\ q\\cdot k"
            f"\\ \\Rightarrow\\ \\mathrm{{recall}}@{TOP_K} = {tr[i]:.3f}\\\\[4pt]"
            f"\\text{{{t(f'{C}.exhaustive')}}}: N = {N_KEYS}\\ \\Rightarrow\\ 1\\\\[6pt]"
            "\\lVert q - k \\rVert^2 = \\lVert q \\rVert^2 - 2\\,q\\cdot k + \\lVert k \\rVert^2"
            "\\end{gathered}",
            checks=[
                kit.Check(t(f"{C}.check_range"), bool(np.all((fr >= 0) & (fr <= 1) & (tr >= 0)
                                                            & (tr <= 1)))),
                kit.Check(t(f"{C}.check_all"), fr[-1] == 1.0 and tr[-1] == 1.0),
                kit.Check(t(f"{C}.check_equal"),
                          not equal or bool(np.array_equal(mips, nn) and np.array_equal(mips, cos)),
                          t(f"{C}.overlap", p=f"{100 * overlap:.0f}")),
            ],
        )  # fmt: skip


kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", ("routing", "mips"), "routing",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip
kit.explain(C, view)
top = st.columns([1, 2, 1])
with top[0]:
    seed = state.number(t(f"{C}.seed"), f"{C}_seed", 0, 10_000, 0)
with kit.guard():
    if view == "routing":
        with top[1]:
            causal = state.toggle(t(f"{C}.causal"), f"{C}_causal", False)
        routing_view(seed, causal)
    else:
        with top[1]:
            equal = state.toggle(t(f"{C}.normalise"), f"{C}_normalise", False)
        mips_view(seed, equal)
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.routing_clustering)
kit.show_code(C, rt.kmeans, rt.assign, rt.routing_mask, rt.top_k_inner_product,
              rt.search_flat, rt.search_tree, rt.recall)  # fmt: skip
