"""Upsampling by sub-pixel convolution (ESPCN): the periodic shuffle on a coloured grid, its
equality with a transposed convolution of stride r, and checkerboard artefacts vs ICNR."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import convolution as cv
from figures import convolution as figs
from ui import cache_sub_pixel_convolution as cache
from ui import exercises, kit, perf, tex

SAMPLES = ("shapes", "sunset", "checker", "scene")
M_IN, C_OUT, SIDE_IN = 2, 1, 6  # channels and side of the equality check's input

page = kit.Page(
    "sub_pixel_convolution",
    views=("shuffle", "transposed", "artefacts"),
    exercise=exercises.sub_pixel_convolution,
    code=(
        cv.pixel_shuffle,
        cv.pixel_unshuffle,
        cv.shuffle_sources,
        cv.subpixel_to_transposed,
        cv.overlap_counts,
        cv.phase_spread,
    ),
)


@page.view("shuffle")
@kit.fragment
def shuffle() -> None:
    """r and the grid size: which input channel and pixel each output pixel comes from."""
    a, b, c, d = st.columns(4)
    with a:
        r = page.slider("r", 1, 4, 2)
    with b:
        H = page.slider("height", 1, 4, 3)
    with c:
        Y = page.slider("out_row", 0, H * r - 1, min(2, H * r - 1))
    with d:
        X = page.slider("out_col", 0, H * r - 1, min(3, H * r - 1))
    sources = cv.shuffle_sources(1, r, H, H)[0]  # (H·r, H·r, 3)
    page.chart(
        figs.shuffle_figure(
            sources,
            r,
            (Y, X),
            titles=(page.tr("inputs_title", n=r * r, H=H), page.tr("output_title", s=H * r)),
            hovers=(page.tr("hover_input"), page.tr("hover_output")),
        ),
        "shuffle_chart",
    )
    k, h, w = (int(v) for v in sources[Y, X])
    x = np.random.default_rng(r * 10 + H).standard_normal((2 * r * r, H, H))  # C = 2
    y = cv.pixel_shuffle(x, r)
    by_formula = all(
        y[c, a * r + i, b * r + j] == x[c * r * r + i * r + j, a, b]
        for c in range(2)
        for a in range(H)
        for b in range(H)
        for i in range(r)
        for j in range(r)
    )
    flat = (sources[..., 0] * H + sources[..., 1]) * H + sources[..., 2]  # one id per input
    counts = np.bincount(flat.ravel(), minlength=r * r * H * H)
    page.formula(
        "shuffle",
        r=r,
        rr=r * r,
        H=H,
        Hr=H * r,
        Y=Y,
        X=X,
        i=Y % r,
        j=X % r,
        h=h,
        w=w,
        k=k,
        checks=[
            kit.Check(
                page.tr("check_source"),
                (Y // r, X // r, Y % r * r + X % r) == (h, w, k),
                f"({Y}, {X}) ← {k}: ({h}, {w})",
            ),
            kit.Check(page.tr("check_once"), bool(np.all(counts == 1))),
            kit.Check(page.tr("check_formula"), by_formula),
            kit.Check(page.tr("check_inverse"), np.array_equal(cv.pixel_unshuffle(y, r), x)),
        ],
    )


@page.view("transposed")
@kit.fragment
def transposed() -> None:
    """r, k and the seed: conv + shuffle against ConvTranspose2d(stride r, kernel r·k)."""
    import torch

    from core import convolution_layers as cl

    perf.single_threaded_torch()
    a, b, c = st.columns(3)
    with a:
        r = page.slider("r", 1, 4, 2, key=page.key("t_r"))
    with b:
        k = page.select_slider("kernel", [1, 3, 5], 3)
    with c:
        seed = page.seed()
    g = torch.Generator().manual_seed(seed)
    layer = cl.SubPixelUpsample(M_IN, C_OUT, r, k, generator=g, dtype=torch.float64)
    x = torch.randn(1, M_IN, SIDE_IN, SIDE_IN, generator=g, dtype=torch.float64)
    deconv = layer.as_transposed()
    with torch.inference_mode():
        y, y_t = layer(x), deconv(x)
    w = layer.conv.weight.detach().numpy()  # (C·r², M, k, k)
    T = deconv.weight.detach().numpy()  # (M, C, r·k, r·k)
    page.chart(
        figs.kernel_interleave_figure(
            w[:, 0],
            T[0, 0],
            r,
            titles=(page.tr("filters_title", n=r * r, k=k), page.tr("transposed_title", s=r * k)),
            hovers=("%{z:.3f}", "%{z:.3f}"),
        ),
        "kernel_chart",
    )
    gap = float((y - y_t).abs().max())
    sub = cv.standard_conv_cost(k, M_IN, C_OUT * r * r, SIDE_IN).mult_adds
    zeros = cv.standard_conv_cost(r * k, M_IN, C_OUT, SIDE_IN * r).mult_adds
    page.formula(
        "transposed",
        r=r,
        k=k,
        rk=r * k,
        M=M_IN,
        C=C_OUT,
        Crr=C_OUT * r * r,
        H=SIDE_IN,
        Hr=SIDE_IN * r,
        pad=r * (k - 1) // 2,
        gap=tex.sci(gap, 2, moderate=None),
        sub=tex.num(sub),
        zeros=tex.num(zeros),
        ratio=zeros // sub,
        checks=[
            kit.Check(page.tr("check_equal"), gap < 1e-12, f"max |Δ| = {gap:.1e}"),
            kit.Check(
                page.tr("check_shape"),
                tuple(y_t.shape) == (1, C_OUT, SIDE_IN * r, SIDE_IN * r),
                "×".join(map(str, y_t.shape)),
            ),
            kit.Check(page.tr("check_cost"), zeros == r * r * sub, f"r² = {r * r}"),
        ],
    )


@page.view("artefacts")
def artefacts() -> None:
    a, b = st.columns(2)
    with a:
        name = page.selectbox("sample", SAMPLES, "shapes")
    with b:
        kernel = page.select_slider("t_kernel", [2, 3, 4], 3)
    artefacts_view(name, kernel)


@kit.fragment
def artefacts_view(name: str, kernel: int) -> None:
    """The seed: four freshly initialised upsamplers (×2) on a sample image and on flat grey."""
    seed = page.slider("init_seed", 0, 20, 0)
    low, outputs = cache.upsampled(name, kernel, seed)  # uint8 (S, S, 3), {name: uint8 (2S, 2S, 3)}
    names = [page.tr(f"up_{n}", k=kernel) for n in outputs]
    page.chart(
        figs.upsampled_figure(
            [low, *outputs.values()],
            titles=[page.tr("low_res"), *names],
        ),
        "images_chart",
    )
    spreads = cache.flat_spreads(kernel, seed)
    page.chart(
        figs.phases_figure(
            names,
            np.array(list(spreads.values())),
            title=page.tr("phases_title"),
            y_title=page.tr("phases_axis"),
        ),
        "phases_chart",
    )
    counts = cv.overlap_counts(kernel, 2, 8)[kernel : kernel + 4].astype(int)
    page.formula(
        "artefacts",
        k=kernel,
        counts=",\\ ".join(map(str, counts)),
        **{n: f"{s:.4f}" for n, s in spreads.items()},
        checks=[
            kit.Check(page.tr("check_flat", layer=names[1]), spreads["resize"] < 1e-9),
            kit.Check(page.tr("check_flat", layer=names[3]), spreads["icnr"] < 1e-9),
            kit.Check(
                page.tr("check_uneven") if kernel % 2 else page.tr("check_even"),
                (counts.max() > counts.min()) == bool(kernel % 2),
                f"{counts.tolist()}",
            ),
        ],
    )


page.run()
