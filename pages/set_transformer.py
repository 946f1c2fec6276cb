"""Set Transformer: attention on sets. ISAB's m inducing points against SAB's n² weights,
permutation equivariance (SAB, ISAB) and invariance (PMA, Deep Sets pooling), the whole model."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st
import torch  # this page shows torch layers

from core import set_transformer as stf
from core import toydata
from figures import set_transformer as figs
from ui import cache, exercises, kit, perf, tex
from ui.i18n import t_tex

SIZES = [16, 24, 32, 48, 64, 96, 128, 192, 256]
D, HEADS, M_MAX, M_FIXED = 16, 4, 32, 8  # width, heads, largest m, m of the symmetry parts
OUT = 3  # width of each output vector of the whole model
TOL = 1e-9  # float64 rounding of a sum taken in another order is ~1e-16
NS = np.unique(np.geomspace(4, 1024, 60).round()).astype(int)  # set sizes of the cost plot
GAP = functools.partial(tex.sci, digits=2, moderate=None)  # a rounding-size gap: 2.2 × 10⁻¹⁶

page = kit.Page(
    "set_transformer",
    views=("inducing", "equivariance", "pooling", "model"),
    exercise=exercises.set_transformer,
    code=(
        stf.MAB.multihead,
        stf.MAB.explain,
        stf.SAB.forward,
        stf.ISAB.forward,
        stf.PMA.forward,
        stf.SetTransformer.explain,
        stf.shuffle_test,
        stf.set_pool,
        stf.isab_attention_entries,
        stf.model_attention_cost,
    ),
)


def the_set() -> tuple[np.ndarray, np.ndarray, int]:
    """The set, its clusters and the seed of its points and weights (outside the live parts)."""
    perf.single_threaded_torch()
    a, b, c = st.columns(3)
    with a:
        n = page.select_slider("n", SIZES, 128)
    with b:
        clusters = page.slider("clusters", 1, len(figs.SYMBOLS), 4)
    with c:
        seed = page.number("seed", 0, 10_000, 0)
    X, labels = toydata.circle_clusters(n, clusters, np.random.default_rng(seed))
    order = np.argsort(labels, kind="stable")  # display order: cluster by cluster
    return X[order], labels[order], seed


def shuffle(n: int) -> torch.Tensor:
    """π from the shuffle seed in the URL: element π[k] of X goes to position k of πX."""
    return torch.from_numpy(stf.shuffle_order(n, page.slider("shuffle", 1, 99, 1)))


@page.view("inducing")
def inducing() -> None:
    inducing_view(*the_set())


@kit.fragment
def inducing_view(X: np.ndarray, labels: np.ndarray, seed: int) -> None:
    """The m slider: ISAB's m×n and n×m maps for one head, and the cost n² vs 2nm."""
    a, b, c = st.columns(3)
    with a:
        m = page.slider("m", 1, M_MAX, 8)
    with b:  # a slider needs two values: with one inducing point, j = 0
        j = page.slider("j", 0, m - 1, 0) if m > 1 else 0
    with c:
        head = page.slider("head", 1, HEADS, 1)
    n = len(X)
    A_IX, A_XH = cache.isab_attention(X, seed, D, HEADS, m)  # (h, m, n), (h, n, m)
    a_ix, a_xh = A_IX[head - 1], A_XH[head - 1]
    maps, points = st.columns([2.4, 1])
    with maps:  # the maps first: they are what m changes
        page.chart(
            figs.maps_figure(
                labels,
                a_ix,
                a_xh,
                j,
                titles=(page.tr("ix_title", m=m, n=n), page.tr("xh_title", m=m, n=n)),
                axis_titles={"elements": page.tr("elements"), "inducing": page.tr("inducing")},
                colorbar_title=page.tr("relative"),
            ),
            "attention_chart",
            kept=True,
        )
    with points:
        page.chart(
            figs.points_figure(
                X,
                labels,
                n * a_ix[j],
                title=page.tr("points_title", j=j),
                axis_titles=("x₁", "x₂"),
            ),
            "points_chart",
            kept=True,
        )
    sab, isab = stf.sab_attention_entries(n), stf.isab_attention_entries(n, m)
    left, right = st.columns([2, 3])
    with left:
        page.chart(
            figs.cost_figure(
                NS,
                [stf.sab_attention_entries(s) for s in NS],
                [stf.isab_attention_entries(s, m) for s in NS],
                n,
                (sab, isab),
                title=page.tr("cost_title"),
                x_title=page.tr("n_axis"),
                y_title=page.tr("entries_axis"),
            ),
            "cost_chart",
            kept=True,
        )
    dev = max(float(np.abs(A.sum(-1) - 1).max()) for A in (A_IX, A_XH))
    ratio = sab / isab  # ISAB computes fewer weights exactly when n > 2m
    cheaper = (
        t_tex("set_transformer.fewer", r=f"{ratio:.1f}")
        if ratio > 1
        else t_tex("set_transformer.more", r=f"{1 / ratio:.1f}")
        if ratio < 1
        else t_tex("set_transformer.as_many")
    )
    with right:
        page.formula(
            "inducing",
            m=m,
            n=n,
            D=D,
            dh=D // HEADS,
            sab=tex.num(sab),
            isab=tex.num(isab),
            cheaper=cheaper,
            checks=[
                kit.Check(page.tr("check_rows"), dev < 1e-12, f"max |Σ − 1| = {dev:.1e}"),
                kit.Check(
                    page.tr("check_no_nxn"),
                    (a_ix.shape, a_xh.shape) == ((m, n), (n, m)),
                    f"{m}×{n}, {n}×{m}",
                ),
                kit.Check(
                    page.tr("check_count"),
                    a_ix.size + a_xh.size == isab,
                    f"{a_ix.size} + {a_xh.size} = {isab}",
                ),
            ],
        )


@page.view("equivariance")
def equivariance() -> None:
    equivariance_view(*the_set())


@kit.fragment
def equivariance_view(X: np.ndarray, labels: np.ndarray, seed: int) -> None:
    """The shuffle slider: ISAB(πX) against π·ISAB(X), and the same for SAB."""
    n = len(X)
    perm = shuffle(n)
    isab, sab, _ = cache.set_blocks(seed, 2, D, HEADS, M_FIXED)
    x = torch.from_numpy(X)[None]
    with torch.inference_mode():
        r, rp = isab.explain(x), isab.explain(x[:, perm])  # on X and on πX
    shuffled = stf.ShuffleTest(r.out, rp.out, perm)
    maps = stf.ShuffleTest(
        *(torch.cat([a.weights_ix.mT, a.weights_xh], -1) for a in (r, rp)), perm
    )  # both maps with one row per element: A_IXᵀ and A_XH
    d_isab, d_sab = shuffled.equivariance_gap, stf.shuffle_test(sab, x, perm).equivariance_gap
    d_maps, moved = maps.equivariance_gap, shuffled.invariance_gap
    Z, Zp = shuffled.out[0], shuffled.out_of_shuffled[0]
    firsts = [int(np.argmax(labels == c)) for c in np.unique(labels)[:3]]
    where = np.argsort(perm.numpy())  # original element i sits at position where[i] of πX
    page.chart(
        figs.equivariance_figure(
            Z.numpy(),
            Zp.numpy(),
            Z[perm].numpy(),
            [(i, int(where[i])) for i in firsts],
            titles=(
                page.tr("eq_original"),
                page.tr("eq_of_shuffled"),
                page.tr("eq_shuffled_output"),
            ),
            x_title=page.tr("elements"),
            y_title=page.tr("channel"),
            colorbar_title=page.tr("value"),
        ),
        "equivariance_chart",
        kept=True,
    )
    page.formula(
        "equivariance",
        head=",\\,".join(str(int(i)) for i in perm[:6]),
        n=n,
        m=M_FIXED,
        d_isab=GAP(d_isab),
        d_sab=GAP(d_sab),
        d_maps=GAP(d_maps),
        checks=[
            kit.Check(page.tr("check_isab_eq"), d_isab < TOL, f"max |Δ| = {d_isab:.1e}"),
            kit.Check(page.tr("check_sab_eq"), d_sab < TOL, f"max |Δ| = {d_sab:.1e}"),
            kit.Check(page.tr("check_maps_eq"), d_maps < TOL, f"max |Δ| = {d_maps:.1e}"),
            kit.Check(page.tr("check_moved"), moved > 1e-3, f"max |Δ| = {moved:.2f}"),
        ],
    )


@page.view("pooling")
def pooling() -> None:
    X, _, seed = the_set()
    pooling_view(X, seed)


@kit.fragment
def pooling_view(X: np.ndarray, seed: int) -> None:
    """The shuffle slider: PMA and the Deep Sets pools do not move; a position-weighted sum does."""
    n = len(X)
    perm = shuffle(n)
    pma = cache.set_blocks(seed, 2, D, HEADS, M_FIXED)[2]
    Z = torch.from_numpy(cache.isab_encoded(X, seed, D, HEADS, M_FIXED))[None]  # (1, n, d)
    pools = [lambda z: pma(z)[:, 0]]
    pools += [lambda z, kind=kind: stf.set_pool(z, kind) for kind in stf.POOLS]
    tests = [stf.shuffle_test(f, Z, perm) for f in (*pools, stf.position_weighted_sum)]
    gaps = [test.invariance_gap for test in tests]
    names = ["PMA₁", "Σᵢ zᵢ", "meanᵢ zᵢ", "maxᵢ zᵢ", page.tr("weighted")]
    page.chart(
        figs.pooling_figure(
            [(test.out[0].numpy(), test.out_of_shuffled[0].numpy()) for test in tests],
            titles=names,
            x_title=page.tr("channel"),
            names=(page.tr("original_order"), page.tr("shuffled_order")),
        ),
        "pooling_chart",
        kept=True,
    )
    page.formula(
        "pooling",
        m=M_FIXED,
        n=n,
        D=D,
        g_pma=GAP(gaps[0]),
        g_sum=GAP(gaps[1]),
        g_mean=GAP(gaps[2]),
        g_max=GAP(gaps[3]),
        g_weighted=f"{gaps[4]:.3f}",
        checks=[
            kit.Check(page.tr("check_pma"), gaps[0] < TOL, f"max |Δ| = {gaps[0]:.1e}"),
            *[
                kit.Check(page.tr("check_pool", pool=name), g < TOL, f"max |Δ| = {g:.1e}")
                for name, g in zip(names[1:4], gaps[1:4], strict=True)
            ],
            kit.Check(page.tr("check_weighted"), gaps[4] > 1e-6, f"max |Δ| = {gaps[4]:.3f}"),
        ],
    )


@page.view("model")
def model() -> None:
    X, _, seed = the_set()
    model_view(X, seed)


@kit.fragment
def model_view(X: np.ndarray, seed: int) -> None:
    """The k slider and the shuffle: the whole model, encoder → PMA_k → SAB → rFF → output."""
    n = len(X)
    a, b = st.columns(2)
    with a:
        k = page.slider("k", 1, 4, 2)
    with b:
        perm = shuffle(n)
    net = cache.set_model(seed, 2, OUT, D, HEADS, M_FIXED, k)
    x = torch.from_numpy(X)[None]
    with torch.inference_mode():
        r, rp = net.explain(x), net.explain(x[:, perm])  # on X and on πX
    output = stf.ShuffleTest(r.output, rp.output, perm)  # (1, k, OUT)
    encoder = stf.ShuffleTest(r.encoded[-1], rp.encoded[-1], perm)  # (1, n, D)
    Y, Yp = output.out[0], output.out_of_shuffled[0]
    gap, moved = output.invariance_gap, encoder.equivariance_gap
    page.chart(
        figs.pooling_figure(
            [(Y[j].numpy(), Yp[j].numpy()) for j in range(k)],
            titles=[page.tr("output_j", j=j + 1) for j in range(k)],
            x_title=page.tr("channel"),
            names=(page.tr("original_order"), page.tr("shuffled_order")),
        ),
        "model_chart",
        kept=True,
    )
    shapes = [tuple(t.shape[1:]) for t in r.chain]
    steps = [
        f"\\mathrm{{ISAB}}_{{{M_FIXED}}}",
        f"\\mathrm{{ISAB}}_{{{M_FIXED}}}",
        f"\\mathrm{{PMA}}_{{{k}}}",
        "\\mathrm{SAB}",
        "\\mathrm{rFF},\\,W",
    ]
    # the encoder on one line, pooling and decoder on the next: the chain in one line is wider
    # than the column of a 1024-pixel window
    chain = f"X \\in \\mathbb{{R}}^{{{n}\\times 2}}" + "".join(
        ("\\\\[2pt]" if i == 2 else "")
        + f"\\xrightarrow{{{step}}}\\mathbb{{R}}^{{{rows}\\times {cols}}}"
        for i, (step, (rows, cols)) in enumerate(zip(steps, shapes[1:], strict=True))
    )
    cost = stf.model_attention_cost(n, k, M_FIXED)
    page.formula(
        "model",
        chain=chain,
        gap=GAP(gap),
        n=n,
        m=M_FIXED,
        k=k,
        entries=tex.num(cost.total),
        n2=tex.num(cost.sab_only),
        checks=[
            kit.Check(page.tr("check_model_invariant"), gap < TOL, f"max |Δ| = {gap:.1e}"),
            kit.Check(page.tr("check_encoder_eq"), moved < TOL, f"max |Δ| = {moved:.1e}"),
            kit.Check(page.tr("check_model_shape"), tuple(Y.shape) == (k, OUT), f"{k} × {OUT}"),
        ],
    )


page.run()
