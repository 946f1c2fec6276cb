"""Swin Transformer windows: window partition, cyclic shift and region mask, relative
position bias, patch partition / merging through the stages, and the cost Ω(MSA) vs Ω(W-MSA)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import windows as win
from figures import windows as figs
from ui import exercises, kit, state
from ui.boot import require_entrypoint
from ui.i18n import t, t_tex

require_entrypoint()

C = "swin_windows"
SIDES = [4, 6, 8, 12, 14, 16, 24, 28, 32]
WINDOWS = [2, 3, 4, 7, 8]
IMAGE_SIDES = list(range(32, 1025, 32))
VIEWS = ("shift", "bias", "stages", "cost")


def num(x: float) -> str:
    return f"{x:,.0f}".replace(",", "{,}")


kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", VIEWS, "shift",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip


def shift_part(H: int, M: int, shifted: bool) -> None:
    """The region maps depend only on H, M and the shift: drawn once, outside the fragment."""
    s = M // 2 if shifted else 0
    regions = win.shifted_window_regions(H, H, M, s)
    kit.chart(figs.regions_figure(
        regions, M, s, titles=(t(f"{C}.before_title"), t(f"{C}.after_title")),
        hover=region_hover(),
    ), key=f"{C}_regions_chart")  # fmt: skip
    shift_view(H, M, s, regions)


def region_hover() -> str:
    return t(f"{C}.hover_region", row="%{y}", col="%{x}", id="%{z}") + "<extra></extra>"


@kit.fragment
def shift_view(H: int, M: int, s: int, regions: np.ndarray) -> None:
    """The window slider redraws that window's region ids and its mask."""
    shifted = s > 0
    nW = (H // M) ** 2
    k = state.slider(t(f"{C}.window_index"), f"{C}_window", 0, nW - 1, max(nW - 2, 0))
    masks = win.shifted_window_mask(H, H, M, s)
    mask = masks[k]
    window_ids = win.window_partition(regions[:, :, None], M)[k, :, :, 0]
    kit.chart(figs.window_mask_figure(
        window_ids, mask, titles=(t(f"{C}.window_title"), t(f"{C}.mask_title")),
        hovers=(region_hover(), t(f"{C}.hover_mask", q="%{y}", k="%{x}", v="%{z}")
                + f"<extra>{t(f'{C}.hover_same_region')}</extra>"),
    ), key=f"{C}_shift_chart")  # fmt: skip
    x = np.arange(H * H * 2, dtype=float).reshape(H, H, 2)
    rolled = win.cyclic_shift(x, s)
    parts = win.window_partition(rolled, M)
    ids = sorted({int(i) for i in window_ids.ravel()})
    kit.formula(
        "\\begin{gathered}"
        + (f"s = \\lfloor M/2 \\rfloor = {s}" if shifted else "s = 0\\ (\\text{W-MSA})")
        + ":\\quad "
        f"x \\xrightarrow{{\\mathrm{{roll}}(-{s})}} "
        + t_tex(f"{C}.windows_tex", n=str(nW), size=f"{M}\\times{M} = {M * M}")
        + f"\\xrightarrow{{\\text{{{t(f'{C}.masked_attention')}}},\\ \\mathrm{{roll}}(+{s})}}"
        " x\\\\[6pt]"
        + t_tex(f"{C}.window_regions", k=str(k), ids=f"\\{{{', '.join(map(str, ids))}\\}}")
        + ",\\quad "
        + t_tex(f"{C}.pairs_attend", m=str(int(mask.sum())), total=f"{M * M}^2 = {M**4}")
        + "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_roll"), bool(np.array_equal(win.cyclic_shift(rolled, -s), x))),
            kit.Check(t(f"{C}.check_partition"),
                      bool(np.array_equal(win.window_reverse(parts, M, H, H), rolled))),
            kit.Check(t(f"{C}.check_symmetric"),
                      bool(np.array_equal(masks, masks.transpose(0, 2, 1)))),
            kit.Check(t(f"{C}.check_diagonal"),
                      bool(masks[:, np.arange(M * M), np.arange(M * M)].all())),
        ],
    )  # fmt: skip


@kit.fragment
def bias_view(M: int) -> None:
    i = state.slider(t(f"{C}.query_token"), f"{C}_bias_query", 0, M * M - 1, 0)
    index = win.relative_position_index(M)
    K = 2 * M - 1
    dy, dx = np.meshgrid(np.arange(K) - (M - 1), np.arange(K) - (M - 1), indexing="ij")
    table = -0.3 * np.abs(dy) - 0.2 * np.abs(dx)  # an illustrative B̂: nearer keys score higher
    extra = "<extra></extra>"
    kit.chart(figs.bias_figure(
        index, table, i,
        titles=(t(f"{C}.index_title"), t(f"{C}.table_title"), t(f"{C}.row_title")),
        hovers=(t(f"{C}.hover_index", i="%{y}", j="%{x}", v="%{z}") + extra, figs.BIAS_HOVERS[1],
                t(f"{C}.hover_key", y="%{y}", x="%{x}", v="%{z:.3f}") + "<extra>B[i]</extra>"),
    ), key=f"{C}_bias_chart")  # fmt: skip
    yi, xi = divmod(i, M)
    bias = win.relative_position_bias(table, M)
    kit.formula(
        f"\\begin{{gathered}}i = {i} = ({yi}, {xi}):\\quad \\mathrm{{index}}_{{ij}} = "
        f"(y_i - y_j + {M - 1})\\cdot {K} + (x_i - x_j + {M - 1}) \\in [0, {K * K - 1}]\\\\[6pt]"
        f"\\mathrm{{Attention}} = \\mathrm{{softmax}}\\!\\left(QK^\\top/\\sqrt{{d}} + B\\right)V,"
        f"\\quad B = \\hat B[\\mathrm{{index}}] \\in \\mathbb{{R}}^{{{M * M}\\times{M * M}}},\\ "
        f"\\hat B \\in \\mathbb{{R}}^{{{K}\\times{K}}}\\end{{gathered}}",
        checks=[
            kit.Check(t(f"{C}.check_index_range"),
                      bool(index.min() == 0 and index.max() == K * K - 1)),
            kit.Check(t(f"{C}.check_index_diag"),
                      bool((np.diag(index) == (M - 1) * (K + 1)).all())),
            kit.Check(t(f"{C}.check_bias_shape"), bias.shape == (M * M, M * M)),
        ],
    )  # fmt: skip


@kit.fragment
def stages_view() -> None:
    side = state.select_slider(t(f"{C}.image_side"), f"{C}_stage_side", IMAGE_SIDES, 224)
    rows = win.stage_shapes(side)
    kit.chart(figs.stage_figure(
        rows, title=t(f"{C}.stages_title"), y_title=t(f"{C}.count_axis"),
        names=(t(f"{C}.tokens"), t(f"{C}.channels")), stage_label=t(f"{C}.stage"),
    ), key=f"{C}_stages_chart")  # fmt: skip
    image = np.zeros((side, side, 3))
    patches = win.patch_partition(image, 4)
    merged = win.patch_merging(np.zeros((rows[0]["H"], rows[0]["W"], 96)))
    merge, linear = t(f"{C}.merge_tex"), t(f"{C}.linear_tex")
    patches_tex = t_tex(f"{C}.patches_tex", size="4\\times4")
    lines = "\\\\".join(
        t_tex(f"{C}.stage", n=str(r["stage"]))
        + f"{{:}}\\ {r['H']}\\times{r['W']}\\times{r['C']}"
        + (f"\\xrightarrow{{\\text{{{merge}}}}}{r['H'] // 2}\\times{r['W'] // 2}"
           f"\\times{4 * r['C']}\\xrightarrow{{\\text{{{linear}}}}}\\times{2 * r['C']}"
           if r["stage"] < 4 else "")
        for r in rows
    )  # fmt: skip
    kit.formula(
        f"\\begin{{gathered}}{side}\\times{side}\\times3"
        f"\\xrightarrow{{{patches_tex}}}"
        f"{side // 4}\\times{side // 4}\\times(4\\cdot4\\cdot3 = 48)"
        f"\\xrightarrow{{\\text{{{t(f'{C}.embedding_tex')}}}}}\\times 96\\\\[4pt]{lines}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_patch"), patches.shape == (side // 4, side // 4, 48)),
            kit.Check(t(f"{C}.check_merge"), merged.shape == (side // 8, side // 8, 384)),
        ],
    )  # fmt: skip


@kit.fragment
def cost_view(c: int, M: int) -> None:
    sides = np.array([M * k for k in range(1, 33)])
    h = state.select_slider(t(f"{C}.map_side"), f"{C}_cost_h", sides.tolist(), 8 * M)
    msa = np.array([win.msa_flops(s, s, c) for s in sides], dtype=float)
    wmsa = np.array([win.window_msa_flops(s, s, c, M) for s in sides], dtype=float)
    a, b = win.msa_flops(h, h, c), win.window_msa_flops(h, h, c, M)
    kit.chart(figs.complexity_figure(
        sides, msa, wmsa, h, (a, b), title=t(f"{C}.cost_title"), x_title=t(f"{C}.side_axis"),
        y_title=t(f"{C}.flops_axis"),
    ), key=f"{C}_cost_chart")  # fmt: skip
    hw = h * h
    kit.formula(
        "\\begin{gathered}"
        f"\\Omega(\\text{{MSA}}) = 4hwC^2 + 2(hw)^2C"
        f" = 4\\cdot{hw}\\cdot{c}^2 + 2\\cdot{hw}^2\\cdot{c}"
        f" = {num(a)}\\\\[4pt]"
        f"\\Omega(\\text{{W-MSA}}) = 4hwC^2 + 2M^2hwC = 4\\cdot{hw}\\cdot{c}^2 + 2\\cdot{M}^2"
        f"\\cdot{hw}\\cdot{c} = {num(b)}\\quad("
        + t_tex(f"{C}.cheaper", r=f"{a / b:.1f}") + ")"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_difference"), a - b == 2 * hw * c * (hw - M * M)),
            kit.Check(t(f"{C}.check_oracle"), win.msa_flops(56, 56, 96) == 2_003_828_736
                      and win.window_msa_flops(56, 56, 96, 7) == 145_108_992,
                      "2,003,828,736 / 145,108,992"),
        ],
    )  # fmt: skip


with kit.guard():
    if view == "shift":
        kit.explain(C, "shift")
        a, b, c = st.columns(3)
        with a:
            H = state.select_slider(t(f"{C}.side"), f"{C}_H", SIDES, 8)
        with b:
            M = state.select_slider(t(f"{C}.window"), f"{C}_M", WINDOWS, 4)
        with c:
            shifted = state.toggle(t(f"{C}.shifted"), f"{C}_shifted", True)
        if H % M:
            raise ValueError(t(f"{C}.bad_window", H=H, M=M))
        shift_part(H, M, shifted)
    elif view == "bias":
        kit.explain(C, "bias")
        with st.columns(3)[0]:
            M = state.select_slider(t(f"{C}.window"), f"{C}_bias_M", [2, 3, 4, 5, 6, 7, 8], 3)
        bias_view(M)
    elif view == "stages":
        kit.explain(C, "stages")
        stages_view()
    else:
        kit.explain(C, "cost")
        a, b, _ = st.columns(3)
        with a:
            c = state.select_slider(t(f"{C}.channels_C"), f"{C}_C", [48, 96, 128, 192], 96)
        with b:
            M = state.select_slider(t(f"{C}.window"), f"{C}_cost_M", [4, 7, 8, 12], 7)
        cost_view(c, M)
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.swin_windows)
kit.show_code(C, win.window_partition, win.window_reverse, win.cyclic_shift,
              win.shifted_window_regions, win.shifted_window_mask, win.relative_position_index,
              win.patch_merging, win.msa_flops, win.window_msa_flops)  # fmt: skip
