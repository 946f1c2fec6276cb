"""Depthwise separable convolution (MobileNets): what each filter reads, the cost ratio
1/N + 1/D_K², MobileNet v1's layers with α and ρ, the torch layers, and measured time."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import streamlit as st

from core import convolution as cv
from figures import convolution as figs
from ui import cache_depthwise_separable as cache
from ui import exercises, kit, perf, tex

KERNELS = [1, 3, 5, 7]
CHANNELS = [1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
SIDES = [7, 14, 28, 56, 112]
SIDE = 7  # the feature map of the "what each filter reads" part
NS = np.unique(np.geomspace(1, 1024, 64).round()).astype(int)
TIMED = ((32, 64, 112), (128, 128, 56), (256, 256, 28), (512, 512, 14))  # MobileNet's layers
REPEATS = 5

page = kit.Page(
    "depthwise_separable",
    views=("filters", "cost", "mobilenet", "torch", "timing"),
    exercise=exercises.depthwise_separable,
    code=(
        cv.standard_conv_cost,
        cv.depthwise_separable_cost,
        cv.cost_ratio,
        cv.mobilenet_v1_layers,
        cv.depthwise_conv,
        cv.pointwise_conv,
        cv.separable_as_standard,
        cv.touched,
    ),
)


@page.view("filters")
@kit.fragment
def filters() -> None:
    """Row, column, D_K and M: the cells one filter of each kind reads."""
    a, b, c, d = st.columns(4)
    with a:
        k = page.select_slider("kernel", [1, 3, 5], 3, key=page.key("filters_k"))
    with b:
        M = page.slider("channels", 1, 6, 4)
    with c:
        row = page.slider("row", 0, SIDE - 1, 3)
    with d:
        col = page.slider("col", 0, SIDE - 1, 2)
    grids = [
        cv.touched(kind, k, M, SIDE, row, col) for kind in ("standard", "depthwise", "pointwise")
    ]
    page.chart(
        figs.filters_figure(
            grids,
            row,
            col,
            titles=(
                page.tr("standard_row", k=k, M=M),
                page.tr("depthwise_row", k=k, M=M),
                page.tr("pointwise_row", M=M),
            ),
            hover=page.tr("hover_cell"),
        ),
        "filters_chart",
        kept=True,
    )
    std, dw, pw = (np.count_nonzero(g) for g in grids)
    per_channel = [int(np.count_nonzero(grids[1][m] == m + 1)) for m in range(M)]
    page.formula(
        "filters",
        k=k,
        M=M,
        std=std,
        dw=dw // M,
        pw=pw,
        kk=k * k,
        kkM=k * k * M,
        checks=[
            kit.Check(
                page.tr("check_all_channels"), all(np.array_equal(g, grids[0][0]) for g in grids[0])
            ),
            kit.Check(
                page.tr("check_own_channel"),
                sum(per_channel) == dw,
                " + ".join(map(str, per_channel)) + f" = {dw}",
            ),
            kit.Check(page.tr("check_one_cell"), pw == M, f"{pw} = M"),
        ],
    )


@page.view("cost")
@kit.fragment
def cost() -> None:
    """D_K, M, N, D_F: both costs in the paper's notation and their ratio."""
    a, b, c, d = st.columns(4)
    with a:
        k = page.select_slider("kernel", KERNELS, 3)
    with b:
        M = page.select_slider("m", CHANNELS, 64)
    with c:
        N = page.select_slider("n", CHANNELS, 128)
    with d:
        F = page.select_slider("feature", SIDES, 56)
    ratio = cv.cost_ratio(k, N)
    curves = {kk: np.array([float(cv.cost_ratio(kk, int(n))) for n in NS]) for kk in (3, 5, 7)}
    page.chart(
        figs.ratio_figure(
            NS,
            curves,
            (k, N, float(ratio)),
            title=page.tr("ratio_title"),
            x_title=page.tr("n_axis"),
            y_title=page.tr("ratio_axis"),
            name="D_K = {k}",
            current_name=page.tr("today"),
        ),
        "ratio_chart",
    )
    standard, separable = cv.standard_conv_cost(k, M, N, F), cv.depthwise_separable_cost(k, M, N, F)
    measured = Fraction(separable.mult_adds, standard.mult_adds)
    page.formula(
        "cost",
        k=k,
        M=M,
        N=N,
        F=F,
        standard=tex.num(standard.mult_adds),
        dw=tex.num(separable.depthwise.mult_adds),
        pw=tex.num(separable.pointwise.mult_adds),
        separable=tex.num(separable.mult_adds),
        ratio=f"{float(ratio):.4f}",
        kk=k * k,
        speedup=f"{1 / float(ratio):.2f}",
        p_std=tex.num(standard.params),
        p_sep=tex.num(separable.params),
        checks=[
            kit.Check(
                page.tr("check_ratio"),
                measured == ratio,
                f"{measured.numerator}/{measured.denominator}",
            ),
            kit.Check(
                page.tr("check_params"), Fraction(separable.params, standard.params) == ratio
            ),
            kit.Check(
                page.tr("check_cheaper"),
                separable.mult_adds < standard.mult_adds or k == 1,
                f"×{1 / float(ratio):.2f}",
            ),
        ],
    )


@page.view("mobilenet")
@kit.fragment
def mobilenet() -> None:
    """α and the input side: MobileNet v1's 28 layers, totals against the paper."""
    a, b = st.columns(2)
    with a:
        alpha = page.select_slider("alpha", sorted(cv.WIDTHS), 1.0)
    with b:
        side = page.select_slider("resolution", sorted(cv.RESOLUTIONS), 224)
    layers = cv.mobilenet_v1_layers(alpha, side)
    labels = [
        page.tr(f"layer_{l.kind}", k=l.kernel, m=l.m, n=l.n, s=l.stride, f=l.side_in)
        for l in layers
    ]
    mult_adds = np.array([l.cost.mult_adds for l in layers]) / 1e6
    params = np.array([l.cost.params for l in layers]) / 1e6
    page.chart(
        figs.mobilenet_figure(
            [l.kind for l in layers],
            mult_adds,
            params,
            labels,
            titles=(page.tr("mult_adds_title"), page.tr("params_title")),
            x_title=page.tr("layer_axis"),
            y_titles=(page.tr("millions"), page.tr("millions")),
            kind_names={kind: page.tr(f"kind_{kind}") for kind in ("conv", "dw", "pw", "fc")},
        ),
        "mobilenet_chart",
    )
    base = cv.mobilenet_v1_layers()
    pw_now = sum(l.cost.mult_adds for l in layers if l.kind == "pw")
    pw_base = sum(l.cost.mult_adds for l in base if l.kind == "pw")
    rho = Fraction(side, 224)
    published = cv.PUBLISHED.get((alpha, side))
    total_ma, total_p = mult_adds.sum(), params.sum()
    shares = cv.layer_shares(layers)
    paper = (
        kit.Check(
            page.tr("check_published", ma=published[0], p=published[1]),
            abs(total_ma - published[0]) < 1 and round(total_p, 1) == published[1],
            f"{total_ma:.2f}M, {total_p:.3f}M",
        )
        if published
        else kit.Check(page.tr("check_not_published"), True)
    )
    page.formula(
        "mobilenet",
        alpha=alpha,
        side=side,
        rho=f"{float(rho):.3f}",
        ma=f"{total_ma:.2f}",
        p=f"{total_p:.3f}",
        pw_share=f"{100 * shares['pw'][0]:.2f}",
        scale=f"{float(pw_now / pw_base):.4f}",
        a2r2=f"{float(Fraction(alpha) ** 2 * rho**2):.4f}",
        checks=[
            paper,
            kit.Check(
                page.tr("check_rho_params"),
                sum(l.cost.params for l in cv.mobilenet_v1_layers(alpha)) == round(total_p * 1e6),
            ),
            kit.Check(page.tr("check_pw_scale"), pw_now * 224**2 == pw_base * alpha**2 * side**2),
        ],
    )
    box = st.expander(
        page.tr("table_title"), key=page.key("table"), on_change="rerun", icon=":material/table:"
    )
    if box.open:
        with box:
            page.table(
                cache.layer_table(alpha, side, tuple(page.tr(c) for c in cache.COLUMNS)),
                "layer_table",
                height=38 + 35 * len(layers),
            )


@page.view("torch")
@kit.fragment
def layers() -> None:
    """M, N, D_K, seed: Conv2d(groups=M) + 1×1 against the standard Conv2d with K = P·D."""
    import torch

    from core import convolution_layers as cl

    perf.single_threaded_torch()
    a, b, c, d = st.columns(4)
    with a:
        M = page.slider("torch_m", 1, 6, 4)
    with b:
        N = page.slider("torch_n", 1, 6, 3)
    with c:
        k = page.select_slider("kernel", [1, 3, 5], 3, key=page.key("torch_k"))
    with d:
        seed = page.seed()
    g = torch.Generator().manual_seed(seed)
    layer = cl.DepthwiseSeparable(M, N, k, generator=g, dtype=torch.float64)
    x = torch.randn(1, M, 8, 8, generator=g, dtype=torch.float64)
    standard = layer.as_standard()
    with torch.inference_mode():
        y, y_std = layer(x), standard(x)
    D = layer.depthwise.weight.detach()[:, 0].numpy()
    P = layer.pointwise.weight.detach()[:, :, 0, 0].numpy()
    K = standard.weight.detach().numpy()
    page.chart(
        figs.kernels_figure(
            D,
            P,
            K,
            titles=(page.tr("d_title"), page.tr("p_title"), page.tr("k_title")),
            hovers=("%{z:.3f}", "%{z:.3f}", "%{z:.3f}"),
        ),
        "kernels_chart",
    )
    gap = float((y - y_std).abs().max())
    ours = cv.pointwise_conv(cv.depthwise_conv(x[0].numpy(), D), P)
    gap_np = float(np.abs(ours - y[0].numpy()).max())
    n_sep = sum(p.numel() for p in layer.parameters())
    page.formula(
        "torch",
        M=M,
        N=N,
        k=k,
        sep=n_sep,
        std=standard.weight.numel(),
        gap=tex.sci(gap, 2, moderate=None),
        gap_np=tex.sci(gap_np, 2, moderate=None),
        checks=[
            kit.Check(page.tr("check_torch_equal"), gap < 1e-12, f"max |Δ| = {gap:.1e}"),
            kit.Check(page.tr("check_numpy_equal"), gap_np < 1e-12, f"max |Δ| = {gap_np:.1e}"),
            kit.Check(
                page.tr("check_torch_params"),
                n_sep == cv.depthwise_separable_cost(k, M, N, 8).params,
                f"{k}·{k}·{M} + {M}·{N} = {n_sep}",
            ),
        ],
    )


@page.view("timing")
def timing() -> None:
    """Four MobileNet layer shapes timed on this CPU (cached; "measure again" re-runs)."""
    runs = st.session_state.setdefault(page.key("runs"), 0)
    if st.button(page.tr("again"), key=page.key("again")):
        st.session_state[page.key("runs")] = runs = runs + 1
    bar = st.progress(0.0, text=page.tr("measuring"))
    seconds = []
    for i, (M, N, F) in enumerate(TIMED):
        seconds.append(cache.timing(M, N, 3, F, REPEATS, runs))  # (standard, dw, pw)
        bar.progress((i + 1) / len(TIMED), text=page.tr("measuring"))
    bar.empty()
    seconds = np.array(seconds).T  # (3, shapes)
    costs = [cv.depthwise_separable_cost(3, M, N, F) for M, N, F in TIMED]
    work = np.array(
        [
            [cv.standard_conv_cost(3, M, N, F).mult_adds for M, N, F in TIMED],
            [c.depthwise.mult_adds for c in costs],
            [c.pointwise.mult_adds for c in costs],
        ],
        float,
    )
    flop_ratio = np.array([float(cv.cost_ratio(3, N)) for _, N, _ in TIMED])
    time_ratio = (seconds[1] + seconds[2]) / seconds[0]
    rates = work / seconds / 1e9  # G mult-adds per second
    page.chart(
        figs.timing_figure(
            [f"{M}→{N}, {F}²" for M, N, F in TIMED],
            flop_ratio,
            time_ratio,
            rates,
            titles=(page.tr("time_ratio_title"), page.tr("rate_title")),
            y_titles=(page.tr("ratio_axis"), page.tr("rate_axis")),
            names=(page.tr("by_flops"), page.tr("by_time")),
            rate_names=(page.tr("standard"), page.tr("depthwise"), page.tr("pointwise")),
        ),
        "timing_chart",
    )
    rows = "\\\\".join(
        f"{M}\\to {N},\\ {F}^2 & "
        + " & ".join(f"{1e3 * s:.2f}" for s in seconds[:, i])
        + f" & {flop_ratio[i]:.3f} & {time_ratio[i]:.3f}"
        for i, (M, N, F) in enumerate(TIMED)
    )
    page.formula(
        "timing",
        rows=rows,
        caption=page.tr("timing_caption", r=REPEATS),
        checks=[
            kit.Check(
                page.tr("check_faster"),
                bool(np.all(time_ratio < 1)),
                " · ".join(f"×{1 / r:.1f}" for r in time_ratio),
            ),
            kit.Check(
                page.tr("check_dw_rate"),
                bool(np.all(rates[1] < rates[2])),
                " · ".join(f"{a:.1f} < {b:.1f}" for a, b in zip(rates[1], rates[2], strict=True)),
            ),
        ],
    )


page.run()
