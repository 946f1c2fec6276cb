"""Swin Transformer windows: window partition, cyclic shift and region mask, relative
position bias, patch partition / merging through the stages, and the cost Ω(MSA) vs Ω(W-MSA)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import attention as att
from core import windows as win
from figures import windows as figs
from ui import exercises, kit, live, tex
from ui.i18n import t_tex

SIDES = [4, 6, 8, 12, 14, 16, 24, 28, 32]
WINDOWS = [2, 3, 4, 7, 8]
IMAGE_SIDES = list(range(32, 1025, 32))

page = kit.Page(
    "swin_windows",
    views=("shift", "bias", "stages", "cost"),
    exercise=exercises.swin_windows,
    code=(
        win.window_partition,
        win.window_reverse,
        win.cyclic_shift,
        win.shifted_window_regions,
        win.shifted_window_mask,
        win.relative_position_index,
        win.patch_merging,
        win.msa_flops,
        win.window_msa_flops,
    ),
)


def shift_part(H: int, M: int, shifted: bool) -> None:
    """The region maps depend only on H, M and the shift: drawn once, outside the fragment."""
    s = M // 2 if shifted else 0
    regions = win.shifted_window_regions(H, H, M, s)
    page.chart(
        figs.regions_figure(
            regions,
            M,
            s,
            titles=(page.tr("before_title"), page.tr("after_title")),
            hover=region_hover(),
        ),
        "regions_chart",
        kept=True,
    )
    shift_view(H, M, s, regions)


def region_hover() -> str:
    return page.tr("hover_region", row="%{y}", col="%{x}", id="%{z}") + "<extra></extra>"


def window_state(window_ids: np.ndarray, mask: np.ndarray) -> tuple[list[int], list[kit.Check]]:
    """One window after the roll, from its (M, M) region ids and its (M², M²) mask: the ids
    it holds and its checks (its mask is symmetric, every token may attend to itself)."""
    ids = sorted({int(i) for i in window_ids.ravel()})
    checks = [
        kit.Check(page.tr("check_symmetric"), bool(np.array_equal(mask, mask.T))),
        kit.Check(page.tr("check_diagonal"), bool(np.diagonal(mask).all())),
    ]
    return ids, checks


def ids_set(ids: list[int]) -> str:
    return "{" + ", ".join(map(str, ids)) + "}"


@kit.fragment
def shift_view(H: int, M: int, s: int, regions: np.ndarray) -> None:
    """The window index as a live control (ui.live): every window's region ids and mask are
    computed here and redrawn in the browser; the formula follows once the slider settles."""
    shifted = s > 0
    per_side = H // M
    nW = per_side**2
    windows = list(range(nW))
    k = live.current(page.key("window"), windows, max(nW - 2, 0))
    masks = win.shifted_window_mask(H, H, M, s)
    window_ids_all = win.window_partition(regions[:, :, None], M)[..., 0]  # (nW, M, M)
    x = np.arange(H * H * 2, dtype=float).reshape(H, H, 2)
    rolled = win.cyclic_shift(x, s)
    parts = win.window_partition(rolled, M)
    map_checks = [  # the same for every window
        kit.Check(page.tr("check_roll"), bool(np.array_equal(win.cyclic_shift(rolled, -s), x))),
        kit.Check(
            page.tr("check_partition"),
            bool(np.array_equal(win.window_reverse(parts, M, H, H), rolled)),
        ),
    ]
    total = f"{M * M}² = {M**4}"
    states = []
    at_k = {}  # the current window's state, kept from the loop for the formula
    for j in windows:
        set_j, checks_j = at_k[j] = window_state(window_ids_all[j], masks[j])
        numbers = [  # what the formula says of window j, as the translation words it
            ("", page.tr("window_regions", k=j, ids=ids_set(set_j))),
            ("", page.tr("pairs_attend", m=int(masks[j].sum()), total=total)),
        ]
        row, col = divmod(j, per_side)  # where window j sits among the windows
        traces = figs.window_traces(window_ids_all[j], masks[j])
        states.append(live.State(j, f"{j} ({row}, {col})", traces, numbers, checks_j))
    window_ids, mask = window_ids_all[k], masks[k]
    ids, checks = at_k[k]
    fig = figs.window_mask_figure(
        window_ids,
        mask,
        titles=(page.tr("window_title"), page.tr("mask_title")),
        hovers=(
            region_hover(),
            page.tr("hover_mask", q="%{y}", k="%{x}", v="%{z}")
            + f"<extra>{page.tr('hover_same_region')}</extra>",
        ),
    )
    live.slider(
        page.tr("window_index"),
        page.key("window"),
        states,
        k,
        fig,
        chart_key=page.key("shift_chart"),
        shared_checks=map_checks,  # sent once, not once per window (up to 256 windows)
        share_patches=True,  # most windows have the same ids and mask: each sent once
    )
    page.formula(
        "shift",
        # shifted: rolled by −s, masked, rolled back; not shifted: no roll and no mask
        there=f"\\mathrm{{roll}}(-{s})" if shifted else t_tex("swin_windows.partition_tex"),
        back=(
            f"{t_tex('swin_windows.masked_attention')},\\ \\mathrm{{roll}}(+{s})"
            if shifted
            else t_tex("swin_windows.window_attention")
        ),
        shift=f"s = \\lfloor M/2 \\rfloor = {s}" if shifted else "s = 0\\ (\\text{W-MSA})",
        windows=t_tex(
            "swin_windows.one_window_tex" if nW == 1 else "swin_windows.windows_tex",
            n=str(nW),
            size=f"{M}\\times{M} = {M * M}",
        ),
        regions=t_tex(
            "swin_windows.window_regions", k=str(k), ids=f"\\{{{', '.join(map(str, ids))}\\}}"
        ),
        pairs=t_tex(
            "swin_windows.pairs_attend", m=str(int(mask.sum())), total=f"{M * M}^2 = {M**4}"
        ),
        checks=map_checks + checks,
        badges_shown=False,  # the live control shows them, following k in the browser
    )


@kit.fragment
def bias_view(M: int) -> None:
    i = page.slider("query_token", 0, M * M - 1, 0, key=page.key("bias_query"))
    index = win.relative_position_index(M)
    K = 2 * M - 1
    table = win.illustrative_bias_table(M)  # nearer keys score higher
    extra = "<extra></extra>"
    page.chart(
        figs.bias_figure(
            index,
            table,
            i,
            titles=(page.tr("index_title"), page.tr("table_title"), page.tr("row_title")),
            hovers=(
                page.tr("hover_index", i="%{y}", j="%{x}", v="%{z}") + extra,
                figs.BIAS_HOVERS[1],
                page.tr("hover_key", y="%{y}", x="%{x}", v="%{z:.3f}") + "<extra>B[i]</extra>",
            ),
        ),
        "bias_chart",
    )
    yi, xi = divmod(i, M)
    bias = win.relative_position_bias(table, M)
    page.formula(
        "bias",
        i=i,
        yi=yi,
        xi=xi,
        M1=M - 1,
        K=K,
        K2=K * K - 1,
        MM=M * M,
        checks=[
            kit.Check(
                page.tr("check_index_range"), bool(index.min() == 0 and index.max() == K * K - 1)
            ),
            kit.Check(
                page.tr("check_index_diag"), bool((np.diag(index) == (M - 1) * (K + 1)).all())
            ),
            kit.Check(page.tr("check_bias_shape"), bias.shape == (M * M, M * M)),
        ],
    )


@kit.fragment
def stages_view() -> None:
    side = page.select_slider("image_side", IMAGE_SIDES, 224, key=page.key("stage_side"))
    rows = win.stage_shapes(side)
    page.chart(
        figs.stage_figure(
            rows,
            title=page.tr("stages_title"),
            y_title=page.tr("count_axis"),
            names=(page.tr("tokens"), page.tr("channels")),
            stage_label=page.tr("stage"),
        ),
        "stages_chart",
    )
    image = np.zeros((side, side, 3))
    patches = win.patch_partition(image, 4)
    merged = win.patch_merging(np.zeros((rows[0].H, rows[0].W, 96)))
    merge, linear = page.tr("merge_tex"), page.tr("linear_tex")
    patches_tex = t_tex("swin_windows.patches_tex", size="4\\times4")
    lines = "\\\\".join(
        t_tex("swin_windows.stage", n=str(r.stage))
        + f"{{:}}\\ {r.H}\\times{r.W}\\times{r.C}"
        + (
            f"\\xrightarrow{{\\text{{{merge}}}}}{r.H // 2}\\times{r.W // 2}"
            f"\\times{4 * r.C}\\xrightarrow{{\\text{{{linear}}}}}\\times{2 * r.C}"
            if r.stage < 4
            else ""
        )
        for r in rows
    )
    page.formula(
        "stages",
        side=side,
        patches=patches_tex,
        quarter=side // 4,
        lines=lines,
        checks=[
            kit.Check(page.tr("check_patch"), patches.shape == (side // 4, side // 4, 48)),
            kit.Check(page.tr("check_merge"), merged.shape == (side // 8, side // 8, 384)),
        ],
    )


@kit.fragment
def cost_view(c: int, M: int) -> None:
    sides = np.array([M * k for k in range(1, 33)])
    h = page.select_slider("map_side", sides.tolist(), 8 * M, key=page.key("cost_h"))
    msa = np.array([win.msa_flops(s, s, c) for s in sides], dtype=float)
    wmsa = np.array([win.window_msa_flops(s, s, c, M) for s in sides], dtype=float)
    a, b = win.msa_flops(h, h, c), win.window_msa_flops(h, h, c, M)
    page.chart(
        figs.complexity_figure(
            sides,
            msa,
            wmsa,
            h,
            (a, b),
            title=page.tr("cost_title"),
            x_title=page.tr("side_axis"),
            y_title=page.tr("flops_axis"),
        ),
        "cost_chart",
    )
    hw = h * h
    page.formula(
        "cost",
        hw=hw,
        c=c,
        M=M,
        msa=tex.num(a),
        wmsa=tex.num(b),
        cheaper=t_tex("swin_windows.cheaper", r=f"{a / b:.1f}"),
        checks=[
            kit.Check(page.tr("check_difference"), a - b == 2 * hw * c * (hw - M * M)),
            kit.Check(
                page.tr("check_oracle"),
                win.msa_flops(56, 56, 96) == 2_003_828_736
                and win.window_msa_flops(56, 56, 96, 7) == 145_108_992,
                "2,003,828,736 / 145,108,992",
            ),
        ],
    )


def shift_controls(widgets: bool = True) -> tuple[int, int, bool]:
    """H, M and the shift: drawn (``widgets``) or only read (``kit.controls_after_the_chart``:
    a new H offers other windows M, and those widgets, sent before the chart, were rendered
    again in its pass)."""
    a, b, c = kit.columns(3, widgets)
    with a:
        H = page.select_slider("side", SIDES, 8, key=page.key("H"), widget=widgets)
    with b:
        # only the M that divide H (the windows tile the map)
        M = page.select_slider(
            "window", att.divisors_among(H, WINDOWS), 4, key=page.key("M"), widget=widgets
        )
    with c:
        shifted = page.toggle("shifted", True, widget=widgets)
    return H, M, shifted


@page.view("shift")
def shift() -> None:
    with kit.controls_after_the_chart(shift_controls) as (H, M, shifted):
        if H % M:
            raise ValueError(page.tr("bad_window", H=H, M=M))
        shift_part(H, M, shifted)


@page.view("bias")
def bias() -> None:
    with st.columns(3)[0]:
        M = page.select_slider("window", [2, 3, 4, 5, 6, 7, 8], 3, key=page.key("bias_M"))
    bias_view(M)


@page.view("cost")
def cost() -> None:
    a, b, _ = st.columns(3)
    with a:
        c = page.select_slider("channels_C", [48, 96, 128, 192], 96, key=page.key("C"))
    with b:
        M = page.select_slider("window", [4, 7, 8, 12], 7, key=page.key("cost_M"))
    cost_view(c, M)


page.view("stages")(stages_view)
page.run()
