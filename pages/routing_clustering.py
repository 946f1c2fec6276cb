"""Routing by clustering: k-means routes each token to a centroid and tokens attend within
their cluster (Routing Transformer); approximate maximum inner product search by clusters."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import routing as rt
from core import toydata
from figures import routing as figs
from ui import cache, exercises, kit

N_TOKENS, N_KEYS, N_QUERIES, DIM, TOP_K, K1, K2 = 48, 512, 64, 16, 10, 4, 4

page = kit.Page(
    "routing_clustering",
    views=("routing", "mips"),
    exercise=exercises.routing_clustering,
    code=(
        rt.kmeans,
        rt.assign,
        rt.routing_mask,
        rt.routing_pairs,
        rt.top_k_inner_product,
        rt.search_flat,
        rt.search_tree,
        rt.recall,
    ),
)


@page.view("routing", "mips")
def controls() -> None:
    """Seed and the view's switch outside the live part (they change rarely)."""
    routing_view = page.current_view == "routing"
    top = st.columns([1, 2, 1])
    with top[0]:
        seed = page.seed()
    with top[1]:
        switch = page.toggle("causal" if routing_view else "normalise", False)
    (routing if routing_view else mips)(seed, switch)


@kit.fragment
def routing(seed: int, causal: bool) -> None:
    with st.columns(2)[0]:
        k = page.slider("k", 1, 8, 4)
    x = toydata.blobs(N_TOKENS, 2, 5, 0.18, np.random.default_rng(seed))
    res = rt.kmeans(x, k, np.random.default_rng([seed, k]))
    order = rt.cluster_order(res.labels)
    mask = rt.routing_mask(res.labels, causal)
    lim = float(np.abs(x).max()) + 0.15
    left, right = st.columns(2)
    with left:
        page.chart(
            figs.clusters_figure(
                x,
                res.labels,
                res.centroids,
                0,
                title=page.tr("clusters_title"),
                limits=(-lim, lim),
                names=(page.tr("keys"), page.tr("centroids"), page.tr("route")),
                hover=page.tr("hover_token", i="%{pointNumber}", c="%{customdata}"),
            ),
            "clusters_chart",
        )
    with right:
        page.chart(
            figs.mask_figure(
                mask[np.ix_(order, order)],
                title=page.tr("mask_title"),
                x_title=page.tr("key_sorted"),
                y_title=page.tr("query_sorted"),
                hovertemplate=page.tr("hover_cell", q="%{y}", k="%{x}", v="%{z}")
                + f"<extra>{page.tr('hover_attends')}</extra>",
            ),
            "mask_chart",
        )
    J, pairs = res.objective, rt.routing_pairs(res.labels, causal)
    page.formula(
        "routing",
        J0=f"{J[0]:.3f}",
        J1=f"{J[-1]:.3f}",
        steps=len(J) - 1,
        dists=",\\ ".join(f"{v:.2f}" for v in rt.squared_distances(x[:1], res.centroids)[0]),
        c0=int(res.labels[0]),
        rule=",\\ j \\le i" if causal else "",
        pairs=pairs,
        N=N_TOKENS,
        ratio=f"{pairs / N_TOKENS**2:.3f}",
        checks=[
            kit.Check(page.tr("check_objective"), bool(np.all(np.diff(J) <= 1e-9 * (1 + J[0])))),
            kit.Check(
                page.tr("check_nearest"),
                bool(np.array_equal(rt.assign(x, res.centroids), res.labels)),
            ),
            kit.Check(
                page.tr("check_pairs_causal" if causal else "check_pairs"), pairs == int(mask.sum())
            ),
            kit.Check(page.tr("check_causal"), not causal or not np.triu(mask, 1).any()),
            kit.Check(page.tr("check_self"), bool(np.all(np.diag(mask)))),
        ],
    )


@kit.fragment
def mips(seed: int, equal: bool) -> None:
    with st.columns(2)[0]:
        L = page.slider("probe", 1, K1 * K2, 3)
    curves = cache.routing_recall_curves(N_KEYS, N_QUERIES, DIM, TOP_K, K1, K2, equal, seed)
    keys, q = toydata.mips_keys(
        N_KEYS, N_QUERIES, DIM, 12, np.random.default_rng([seed, 1]), equal_norms=equal
    )
    left, right = st.columns([1, 1], vertical_alignment="center")
    with left:
        page.chart(
            figs.recall_figure(
                curves,
                L,
                title=page.tr("recall_title", K=TOP_K),
                x_title=page.tr("dots_axis"),
                y_title=page.tr("recall_axis", K=TOP_K),
                names=(page.tr("flat"), page.tr("tree"), page.tr("exhaustive")),
                hovers=tuple(
                    page.tr(f"hover_{k}", c="%{customdata:.0f}", d="%{x:.0f}", r="%{y:.3f}")
                    for k in ("flat", "tree", "point")
                ),
            ),
            "recall_chart",
            kept=True,
        )
    best = rt.top_k_inner_product(q, keys, TOP_K)
    nn, cos = rt.top_k_nearest(q, keys, TOP_K), rt.top_k_cosine(q, keys, TOP_K)
    fr, tr, i = curves.flat_recall, curves.tree_recall, L - 1
    with right:
        page.formula(
            "mips",
            flat_dots=f"{curves.flat_dots[i]:.0f}",
            K=TOP_K,
            flat_recall=f"{fr[i]:.3f}",
            tree_dots=f"{curves.tree_dots[i]:.0f}",
            tree_recall=f"{tr[i]:.3f}",
            N=N_KEYS,
            checks=[
                kit.Check(
                    page.tr("check_range"),
                    bool(np.all((fr >= 0) & (fr <= 1) & (tr >= 0) & (tr <= 1))),
                ),
                kit.Check(page.tr("check_all"), fr[-1] == 1.0 and tr[-1] == 1.0),
                kit.Check(
                    page.tr("check_equal"),
                    not equal or bool(np.array_equal(best, nn) and np.array_equal(best, cos)),
                    page.tr("overlap", p=f"{100 * rt.recall(nn, best).mean():.0f}"),
                ),
            ],
        )


page.run()
