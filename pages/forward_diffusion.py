"""Forward diffusion q(x_t | x_0): an image dissolving into noise under the linear (DDPM) and
cosine (improved DDPM) schedules, scrubbed in the browser; the chain q(x_t | x_{t-1}) run t
times against one jump; and the distribution of one pixel."""

from __future__ import annotations

import contextlib
import functools
import io
import math

import numpy as np
import streamlit as st

from core import diffusion as dif
from core import images, stats
from figures import diffusion as figs
from ui import cache_forward as cf
from ui import exercises, kit, tex
from ui.cache_forward import KINDS, SAMPLES, SIDE, STEPS
from ui.i18n import current_lang

VIEWS = ("pixel", "chain")
CHANNELS = ("R", "G", "B")
N_DRAWS = 10_000  # draws of x_t at one pixel
SE = 4.0  # a sample statistic passes within 4 standard errors (false ✗: P(|Z| > 4) = 6.3e-5)
KS_999 = 1.95  # Kolmogorov–Smirnov: P(√n·D > 1.95) = stats.kolmogorov_tail(1.95) ≈ 0.001
# how often a correct chain shows ✗ on one moment badge (mean and variance within 4 SE)
FALSE_ALARM = stats.any_fails(stats.two_sided_tail(SE), 2)

# One part: the scrub sits above the part picker, which lives in a fragment with the
# schedule, so picking a part or a schedule never resends the (large) scrub figure.
page = kit.Page(
    "forward_diffusion",
    exercise=exercises.forward_diffusion,
    code=(
        images.load_image,
        dif.make_schedule,
        dif.q_sample,
        dif.q_step,
        dif.run_chain,
        dif.snr,
        dif.log_snr,
    ),
)


@page.view()
def forward() -> None:
    scrub_part()


@kit.fragment
def scrub_part() -> None:
    """x₀, T and ε, and the scrub with every frame computed now; the parts below it.

    A fragment: a step of T, the image or the seed reruns it alone, not the page's title,
    lead and what follows the parts (the "try this", the exercise, the code), which a full
    run sent and the browser rendered again around the scrub.

    The image, T and the seed are read first and drawn in their row after the scrub
    (``kit.controls_after_the_chart``): a T step re-sent them before the chart, and the
    browser rendered them again in the scrub's pass. The upload box is drawn at once (a file
    is read from it)."""
    a, b, c, d = st.columns([4, 2, 1, 3])
    with d:
        upload = st.file_uploader(
            page.tr("upload"),
            type=["png", "jpg", "jpeg"],
            key=page.key("upload"),
            help=page.tr("upload_help"),
        )

    def top_row(widgets: bool) -> tuple[str, int, int]:
        row = (a, b, c) if widgets else (contextlib.nullcontext(),) * 3
        with row[0]:
            name = page.choice(
                "image",
                SAMPLES,
                "sunset",
                format_func=lambda v: page.tr(f"sample_{v}"),
                widget=widgets,
            )
        with row[1]:
            T = page.select_slider("T", STEPS, cf.DEFAULT_T, widget=widgets)
        with row[2]:
            seed = page.number("seed", 0, 10_000, 0, widget=widgets)
        return name, T, seed

    with kit.controls_after_the_chart(top_row) as (name, T, seed):
        x0, eps = scrub_inputs(name, seed, upload)
        scrub(x0, T, seed)
    parts(x0, eps, T, seed)


def scrub_inputs(name: str, seed: int, upload: io.BytesIO | None) -> tuple[np.ndarray, np.ndarray]:
    """x₀ (the sample, or the upload if one is given and readable; in [−1, 1]) and ε of the
    seed."""
    x0_image = cf.sample_image(name)
    if upload is not None:
        with kit.guard():
            x0_image = images.load_image(upload.getvalue(), SIDE)
            st.caption(page.tr("upload_used"))
    x0 = images.to_signed(x0_image)
    return x0, cf.noise(x0, seed)  # ε, fixed by the seed


def scrub(x0: np.ndarray, T: int, seed: int) -> None:
    """The scrub: x₀, ε and x_t under both schedules, every frame computed now. Its payload
    comes from the memo every session shares (``kit.chart``'s ``memo``), which the warm-up
    fills for the sample images through ``cf.scrub_payload``."""
    page.explain("scrub")
    lang = current_lang()
    page.chart(
        functools.partial(cf.scrub_figure, x0, T, seed, lang),
        "scrub_chart",
        kept=True,
        move=True,  # a new seed or image: pictures swapped; a new T: moved too (ui.live)
        memo=cf.scrub_memo(x0, T, seed),
    )


@kit.fragment
def parts(x0: np.ndarray, eps: np.ndarray, T: int, seed: int) -> None:
    """The part picker and the schedule: changing them reruns only this fragment."""
    left, right = st.columns(2)
    with left:
        view = page.choice("view", VIEWS, "pixel", format_func=lambda v: page.tr(f"tab_{v}"))
    with right:
        kind = page.choice("schedule", KINDS, "linear", format_func=lambda k: page.tr(f"kind_{k}"))
    page.explain(view)
    s = dif.make_schedule(kind, T)
    if view == "chain":
        chain_view(x0, eps, s, seed)
        return
    cols = st.columns([3, 3, 2])  # which pixel (the locator marks it): outside the fragment
    with cols[0]:
        row = page.number("row", 0, SIDE - 1, SIDE // 2)
    with cols[1]:
        col = page.number("col", 0, SIDE - 1, SIDE // 2)
    with cols[2]:
        page.chart(figs.pixel_locator_figure(x0, (row, col)), "locator_chart", kept=True)
    pixel_view(tuple(float(v) for v in x0[row, col]), s, seed, (row, col))


@kit.fragment
def pixel_view(
    values: tuple[float, ...], s: dif.Schedule, seed: int, pixel: tuple[int, int]
) -> None:
    """The page's probe: t moves the histogram of many draws of x_t at one pixel. The colour
    channel is picked here too: a channel step reruns this part only, not the pixel picker
    and its locator above."""
    left, right = st.columns([1, 4])
    with left:
        channel = page.choice("channel", CHANNELS, "R", format_func=str)
    with right:
        step = page.slider("pixel_t", 1, s.num_steps, max(1, s.num_steps // 5))
    c = CHANNELS.index(channel)
    value = values[c]
    rng = np.random.default_rng([seed, step, pixel[0], pixel[1], c])
    draws = dif.q_sample(np.full(N_DRAWS, value), step, s, rng.standard_normal(N_DRAWS))
    mean, var = (float(v) for v in dif.q_moments(value, step, s))
    sd = math.sqrt(var)
    edges = np.linspace(mean - 4.5 * sd, mean + 4.5 * sd, 46)
    grid = np.linspace(edges[0], edges[-1], 181)
    page.chart(
        figs.pixel_figure(
            edges,
            stats.histogram_density(draws, edges),
            grid,
            stats.normal_pdf(grid, mean, var),
            stats.normal_pdf(grid, 0.0, 1.0),
            mean,
            value,
            title=page.tr("pixel_title", n=f"{N_DRAWS:,}"),
            x_title=page.tr("pixel_axis"),
            y_title=page.tr("density_axis"),
            names=(page.tr("draws"), "𝒩(√ᾱₜ x₀, 1 − ᾱₜ)", "𝒩(0, 1)", "√ᾱₜ x₀", "x₀"),
        ),
        "pixel_chart",
        kept=True,
    )
    m = stats.normal_moments(draws, mean, var)
    ks = stats.ks_distance_normal(draws, mean, var) * math.sqrt(N_DRAWS)  # √n·D
    a = float(s.alpha_bars[step - 1])
    page.formula(
        "pixel",
        t=step,
        a=f"{a:.4f}",
        root_a=f"{math.sqrt(a):.4f}",
        x0=f"{value:.4f}",
        sd=f"{sd:.4f}",
        mean=f"{mean:.4f}",
        var=f"{var:.4f}",
        n=tex.num(N_DRAWS),
        m=f"{m.mean:.4f}",
        v=f"{m.var:.4f}",
        checks=[
            kit.Check(
                page.tr("check_mean"),
                m.mean_within(SE),
                f"|Δ| = {m.mean_gap:.4f} ≤ 4 SE = {SE * m.mean_se:.4f}",
            ),
            kit.Check(
                page.tr("check_var"),
                m.var_within(SE),
                f"|Δ| = {m.var_gap:.4f} ≤ 4 SE = {SE * m.var_se:.4f}",
            ),
            kit.Check(page.tr("check_ks"), ks <= KS_999, f"√n·D = {ks:.3f} ≤ {KS_999}"),
        ],
    )


@kit.fragment
def chain_view(x0: np.ndarray, eps: np.ndarray, s: dif.Schedule, seed: int) -> None:
    """t steps of the chain against one jump q(x_t | x₀) with the page's ε."""
    step = page.slider("chain_t", 1, s.num_steps, max(1, s.num_steps // 5))
    chain = cf.chain(x0, step, s.kind, s.num_steps, seed)
    x_closed = dif.q_sample(x0, step, s, eps)
    page.chart(
        figs.chain_figure(
            chain.x,
            x_closed,
            chain.steps,
            chain.slope,
            chain.variance,
            s.alpha_bars,
            step,
            titles=(
                page.tr("chain_title", t=step),
                page.tr("closed_title", t=step),
                page.tr("moments_title"),
            ),
            x_title="s",
            names=("√ᾱₛ", "1 − ᾱₛ", page.tr("chain_slope"), page.tr("chain_var")),
        ),
        "chain_chart",
        kept=True,
        move=True,  # a step of t: the pictures swapped, the moments moved, the titles retitled
    )
    a_prev = 1.0 if step == 1 else float(s.alpha_bars[step - 2])
    alpha, beta = float(s.alphas[step - 1]), float(s.betas[step - 1])

    def moment_check(label: str, x_t: np.ndarray) -> kit.Check:
        z = stats.normal_moments(dif.noise_of(x_t, x0, step, s), 0.0, 1.0)  # ~ N(0, 1) each
        return kit.Check(
            page.tr(f"check_{label}"),
            z.within(SE),
            f"z̄ = {tex.signed(z.mean)}, s²(z) = {z.var:.3f}",
        )

    page.formula(
        "chain",
        t=step,
        alpha=f"{alpha:.5f}",
        a_prev=f"{a_prev:.5f}",
        beta=f"{beta:.5f}",
        root=f"{math.sqrt(alpha * a_prev):.5f}",
        var=f"{alpha * (1 - a_prev) + beta:.5f}",
        caption=page.tr(
            "chain_caption", n=f"{x0.size:,}", once=f"{round(1 / FALSE_ALARM, -2):,.0f}"
        ),
        checks=[
            kit.Check(
                page.tr("check_induction"),
                dif.induction_gap(s, step) <= 1e-12,
                page.tr("every_s", t=step),
            ),
            moment_check("chain", chain.x),
            moment_check("closed", x_closed),
        ],
    )


page.run()
