"""What the network predicts (ε, x₀, v, the score: one quantity in four coordinates, and the
loss weight each puts on the x₀ error) and which schedule (log-SNR, ᾱ_T, the zero-terminal-SNR
rescale, the shift for a larger image, and what a non-zero ᾱ_T leaks of the image)."""

from __future__ import annotations

import math

import numpy as np

from core import reverse as rev
from core import snr_schedules as snr
from figures import parameterisations as figs
from ui import cache_parameterisations as cache
from ui import exercises, kit, live, tex

T = 1000
NAMES = snr.SCHEDULE_NAMES
COLOURS = (0, 1, 2, 5, 3)  # figures.style.PALETTE index of each schedule: blue, orange, …
PREDICTIONS = ("eps", "x0", "v", "score")
CURVE_STEPS = np.unique(np.geomspace(1, T, 160).round().astype(int))  # weight curves, log-spaced
VALUES = [round(0.1 * k, 1) for k in range(-25, 26)]  # x₀ and ε of the point
RESOLUTIONS = [64, 128, 256, 512, 1024]  # the shift is for resolution / 64
SIDE, IMAGES, BLOCKS = 128, ("sunset", "shapes", "checker"), [1, 2, 4, 8, 16, 32]
BATCH = 256  # x₀ values of the weights view

page = kit.Page(
    "diffusion_parameterisations",
    views=("predictions", "weights", "schedules", "leak"),
    exercise=exercises.diffusion_parameterisations,
    code=(
        snr.targets,
        rev.convert,
        snr.target_weights,
        snr.rescale_zero_terminal_snr,
        snr.shift_schedule,
        snr.leak,
        snr.expected_block_correlation,
    ),
)


def schedule_controls(widgets: bool = True) -> tuple[str, bool]:
    """The schedule picker and the zero-terminal-SNR switch (a full rerun: they change
    rarely): drawn (``widgets``) or only read.

    Every view reads its controls first and draws them above its chart after it
    (``kit.controls_after_the_chart``): a switch to a view sent them in the chart's pass,
    and the browser built them all before it drew anything (bench/controls_report.md,
    round 28: the attention gallery's maps view)."""
    left, right = kit.columns([3, 2], widgets)
    with left:
        name = page.selectbox("schedule", NAMES, "linear", widget=widgets)
    with right:
        zero = page.toggle("zero_snr", False, widget=widgets)
    return name, zero


@page.view("predictions")
def predictions() -> None:
    with kit.controls_after_the_chart(schedule_controls) as (name, zero):
        predictions_live(snr.named_schedule(name, T, zero))


def point_controls(widgets: bool) -> tuple[int, float, float]:
    """t, x₀ and ε: drawn (``widgets``) or only read."""
    cols = kit.columns([3, 2, 2], widgets)
    with cols[0]:
        t = page.slider("t", 1, T, 250, widget=widgets)
    with cols[1]:
        x0 = page.select_slider("x0", VALUES, 1.0, widget=widgets)
    with cols[2]:
        eps = page.select_slider("eps", VALUES, -0.5, widget=widgets)
    return t, x0, eps


@kit.fragment
def predictions_live(s: snr.Schedule) -> None:
    """t, x₀ and ε: the point turned by φ, the four targets and their conversions.

    Each view's own sliders are read first and drawn above its chart after it, as its
    settings are: sent before the chart, a switch to the view had the browser build them
    before it showed the view's first words (bench/controls_report.md, round 36)."""
    with kit.controls_after_the_chart(point_controls) as (t, x0, eps):
        a = float(s.alpha_bars[t - 1])
        page.chart(
            figs.rotation_figure(
                x0,
                eps,
                rev.v_angle(a),
                t,
                CURVE_STEPS.astype(float),
                {p: rev.x0_loss_weights(s, p)[CURVE_STEPS - 1] for p in PREDICTIONS},
                titles=(page.tr("plane_title"), page.tr("weights_title")),
                axis_titles=("x₀", "ε", "t", page.tr("weight_axis")),
                names={
                    "point": "(x₀, ε)",
                    "xt_axis": page.tr("xt_axis"),
                    "v_axis": page.tr("v_axis"),
                    "xt": "xₜ",
                    "v": "v",
                },
                weight_names={p: page.tr(f"name_{p}") for p in PREDICTIONS},
            ),
            "rotation_chart",
            kept=True,
            move=True,  # t, x₀ and ε move the traces on fixed axes (ui.live)
        )
    truth = snr.targets(np.array([x0]), np.array([eps]), a)
    worst, undefined = snr.conversion_errors(truth, t, s)  # ᾱ_t = 0: 4 pairs undefined
    v_, xt, score = (float(truth.of(p)[0]) for p in ("v", "x_t", "score"))
    page.formula(
        "predictions",
        t=t,
        a=f"{a:.6f}",
        ra=f"{math.sqrt(a):.4f}",
        rb=f"{math.sqrt(1 - a):.4f}",
        x0=tex.paren(x0),
        eps=tex.paren(eps),
        xt=f"{xt:.4f}",
        v=f"{v_:.4f}",
        score=tex.sci(score, 4),
        phi=f"{math.degrees(rev.v_angle(a)):.2f}",
        checks=[
            kit.Check(
                page.tr("check_round_trip"),
                worst < 1e-9,
                page.tr("round_trip_detail", n=12 - undefined, err=f"{worst:.1e}")
                + (page.tr("undefined", n=undefined) if undefined else ""),
            ),
            kit.Check(
                page.tr("check_rotation"),
                abs(xt**2 + v_**2 - x0**2 - eps**2) < 1e-12,
                f"{xt**2 + v_**2:.4f} = {x0**2 + eps**2:.4f}",
            ),
        ],
    )


def weights_controls(widgets: bool) -> tuple[str, bool, int]:
    cols = kit.columns([5, 1], widgets)
    with cols[0]:
        name, zero = schedule_controls(widgets)
    with cols[1]:
        seed = page.seed(widget=widgets)
    return name, zero, seed


@page.view("weights")
def weights() -> None:
    with kit.controls_after_the_chart(weights_controls) as (name, zero, seed):
        weights_live(snr.named_schedule(name, T, zero), seed)
    page.derivation("weights_derivation")


def weights_t(widgets: bool) -> int:
    return page.slider("weights_t", 1, T, 100, widget=widgets)


@kit.fragment
def weights_live(s: snr.Schedule, seed: int) -> None:
    """t: a batch with a wrong x̂₀, its error in each target, against the weights w_t."""
    with kit.controls_after_the_chart(weights_t) as t:
        a = float(s.alpha_bars[t - 1])
        rng = np.random.default_rng(seed)
        x0, eps, err = (
            rng.uniform(-1, 1, BATCH),
            rng.standard_normal(BATCH),
            rng.standard_normal(BATCH),
        )
        truth, x0_hat = snr.targets(x0, eps, a), x0 + 0.1 * err  # the network's x̂₀ misses by δ
        loss = snr.target_losses(truth, x0_hat, t, s)
        ratio = {p: loss[p] / loss["x0"] for p in PREDICTIONS}
        w = {p: float(rev.x0_loss_weights(s, p)[t - 1]) for p in PREDICTIONS}
        page.chart(
            figs.weights_figure(
                CURVE_STEPS.astype(float),
                {p: rev.x0_loss_weights(s, p)[CURVE_STEPS - 1] for p in PREDICTIONS},
                t,
                ratio,
                title=page.tr("weights_title"),
                x_title="t",
                y_title=page.tr("weight_axis"),
                names={p: page.tr(f"name_{p}") for p in PREDICTIONS},
                measured_name=page.tr("measured"),
            ),
            "weights_chart",
            kept=True,
        )
    closed = snr.target_weights(a)
    gap = max(abs(ratio[p] - w[p]) / max(w[p], 1e-300) for p in PREDICTIONS if w[p] > 0)
    page.formula(
        "weights",
        t=t,
        a=f"{a:.6f}",
        snr=tex.sci(w["eps"], 4),
        lx=tex.sci(loss["x0"], 4),
        le=tex.sci(loss["eps"], 4),
        lv=tex.sci(loss["v"], 4),
        ls=tex.sci(loss["score"], 4),
        wv=tex.sci(w["v"], 4),
        ws=tex.sci(w["score"], 4),
        checks=[
            kit.Check(
                page.tr("check_snr_weight"),
                math.isclose(ratio["eps"], a / (1 - a), rel_tol=1e-9, abs_tol=1e-15),
                f"{ratio['eps']:.6g} = SNR",
            ),
            kit.Check(page.tr("check_measured"), gap < 1e-9, f"max rel |Δ| = {gap:.1e}"),
            kit.Check(
                page.tr("check_closed"),
                all(math.isclose(closed[p], w[p], rel_tol=1e-12) for p in PREDICTIONS),
            ),
        ],
    )


def variant_control(widgets: bool) -> str:
    key = page.key("schedule_variant")
    return page.selectbox("schedule", NAMES, "stable_diffusion", key=key, widget=widgets)


@page.view("schedules")
def schedules() -> None:
    with kit.controls_after_the_chart(variant_control) as name:
        schedules_live(name)


@kit.fragment
def schedules_live(name: str) -> None:
    """Every schedule's log-SNR, the chosen one rescaled, and shifted for the image side: a
    live control (ui.live) over the five sides, each side's shifted curve and numbers computed
    here and redrawn in the browser; the formula follows once the slider settles."""
    res = live.current(page.key("resolution"), RESOLUTIONS, 256)
    base = {n: snr.named_schedule(n, T) for n in NAMES}
    zero = snr.rescale_zero_terminal_snr(base[name])
    log_base = snr.log_snr(base[name])
    kept = math.isclose(zero.alpha_bars[0], base[name].alpha_bars[0], rel_tol=1e-12)
    zero_check = kit.Check(page.tr("check_zero"), zero.alpha_bars[-1] == 0.0 and kept)
    x = np.arange(1, T + 1) / T
    curves = [
        (page.tr(f"schedule_{n}"), x, snr.log_snr(s), COLOURS[k], None)
        for k, (n, s) in enumerate(base.items())
    ]
    k = COLOURS[NAMES.index(name)]
    curves.append((page.tr("zero_curve"), x, snr.log_snr(zero), k, "x"))
    states, at_res = [], {}
    for side in RESOLUTIONS:
        s = side / 64
        shifted = snr.shift_schedule(base[name], s)
        lead = np.abs(snr.log_snr(shifted) - log_base + 2 * math.log(s)).max()
        check = kit.Check(page.tr("check_shift"), lead < 1e-9, f"max |Δ| = {lead:.1e}")
        at_res[side] = shifted, check
        numbers = [
            ("s", f"{s:g}"),
            ("2 log s", f"{2 * math.log(s):.3f}"),
            ("ᾱ′_T", tex.plain(shifted.alpha_bars[-1], 3)),
        ]
        updates = figs.shift_updates(len(curves), snr.log_snr(shifted))
        states.append(live.State(side, str(side), updates, numbers, [check]))
    shifted, check = at_res[res]
    curves.append((page.tr("shift_curve"), x, snr.log_snr(shifted), k, "triangle-up"))
    fig = figs.snr_figure(curves, title=page.tr("snr_title"), x_title="t/T", y_title="log SNR(t)")
    live.slider(
        page.tr("resolution"),
        page.key("resolution"),
        states,
        res,
        fig,
        chart_key=page.key("snr_chart"),
        shared_checks=[zero_check],
    )
    ends = {f"aT_{n}": tex.sci(s.alpha_bars[-1], 3) for n, s in base.items()}
    ends |= {f"lT_{n}": f"{snr.log_snr(s)[-1]:.2f}" for n, s in base.items()}
    page.formula(
        "schedules",
        **ends,
        s=f"{res / 64:g}",
        shift=f"{2 * math.log(res / 64):.3f}",
        za1=f"{zero.alpha_bars[0]:.6f}",
        a1=f"{base[name].alpha_bars[0]:.6f}",
        saT=tex.sci(shifted.alpha_bars[-1], 3),
        chosen=f"\\text{{{page.tr(f'schedule_{name}')}}}",
        checks=[zero_check, check],
        badges_shown=False,  # the live control shows them, following the side in the browser
    )


def leak_controls(widgets: bool) -> tuple[str, str, int]:
    cols = kit.columns([2, 3, 1], widgets)
    with cols[0]:
        image = page.selectbox("image", IMAGES, "sunset", widget=widgets)
    with cols[1]:
        key = page.key("leak_schedule")
        name = page.selectbox("schedule", NAMES, "stable_diffusion", key=key, widget=widgets)
    with cols[2]:
        seed = page.seed(widget=widgets)
    return image, name, seed


@page.view("leak")
def leak() -> None:
    with kit.controls_after_the_chart(leak_controls) as (image, name, seed):
        leak_live(cache.sample_image(image, SIDE), name, seed)


def block(widgets: bool) -> int:
    return page.select_slider("block", BLOCKS, 32, widget=widgets)


@kit.fragment
def leak_live(x0: np.ndarray, name: str, seed: int) -> None:
    """b: x_T and both averaged over b × b blocks; the correlation of the block means."""
    with kit.controls_after_the_chart(block) as b:
        s = snr.named_schedule(name, T)
        eps = np.random.default_rng(seed).standard_normal(x0.shape)
        found = snr.leak(x0, float(s.alpha_bars[-1]), BLOCKS, eps)
        zero = snr.leak(x0, 0.0, BLOCKS, eps)  # the same schedule rescaled: ᾱ_T = 0
        shown = snr.contrast_match(snr.blocky(found.x_T, b), snr.blocky(x0, b))
        page.chart(
            figs.leak_figure(
                [x0, np.clip(found.x_T, -1, 1), snr.blocky(x0, b), shown],
                BLOCKS,
                [
                    (page.tr(f"schedule_{name}"), found.expected, found.measured),
                    (page.tr("zero_leak"), zero.expected, zero.measured),
                ],
                b,
                image_titles=[
                    page.tr(k) for k in ("img_x0", "img_xT", "img_x0_blocks", "img_xT_blocks")
                ],
                titles=("", page.tr("corr_title")),
                axis_titles=(page.tr("block_axis"), page.tr("corr_axis")),
                names=(page.tr("expected"), page.tr("leak_measured")),
            ),
            "leak_chart",
            kept=True,
        )
    i = BLOCKS.index(b)
    n = (SIDE // b) ** 2 * 3
    rho, got = float(found.expected[i]), float(found.measured[i])
    se = (1 - rho**2) / math.sqrt(n)
    aT = float(s.alpha_bars[-1])
    page.formula(
        "leak",
        b=b,
        aT=tex.sci(aT, 4),
        raT=f"{math.sqrt(aT):.4f}",
        noise=f"{1 / b:.4f}",
        sd=f"{float(snr.block_means(x0, b).std()):.4f}",
        rho=f"{rho:.3f}",
        got=f"{got:.3f}",
        n=n,
        zero=f"{float(zero.measured[i]):.3f}",
        checks=[
            kit.Check(
                page.tr("check_leak"),
                abs(got - rho) <= 4 * se + 1e-12,
                f"|{got:.3f} − {rho:.3f}| ≤ 4 SE = {4 * se:.3f}",
            ),
            kit.Check(
                page.tr("check_zero_leak"),
                abs(float(zero.measured[i])) <= 4 / math.sqrt(n),
                f"|{float(zero.measured[i]):.3f}| ≤ 4/√n = {4 / math.sqrt(n):.3f}",
            ),
        ],
    )


page.run()
