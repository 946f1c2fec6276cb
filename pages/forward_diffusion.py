"""Forward diffusion q(x_t | x_0): an image dissolving into noise under the linear (DDPM) and
cosine (improved DDPM) schedules, scrubbed in the browser; the chain q(x_t | x_{t-1}) run t
times against one jump; and the distribution of one pixel."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from core import diffusion as dif
from core import images, stats
from figures import diffusion as figs
from ui import kit, state
from ui.boot import require_entrypoint
from ui.i18n import t
from ui.registry import ROOT

require_entrypoint()

C = "forward_diffusion"
SIDE = 48  # working size: x₀ is SIDE × SIDE × 3, the frames cost ~1 KB each at this size
N_FRAMES = 40  # timesteps the browser can scrub without asking the server
STEPS = [50, 100, 250, 500, 1000, 2000]  # T
SAMPLES = ("sunset", "shapes", "checker", "scene")
KINDS = ("linear", "cosine")
VIEWS = ("pixel", "chain")
CHANNELS = ("R", "G", "B")
N_DRAWS = 10_000  # draws of x_t at one pixel
SE = 4.0  # a sample statistic passes within 4 standard errors (false ✗: P(|Z| > 4) = 6.3e-5)
KS_999 = 1.95  # Kolmogorov–Smirnov: P(√n·D > 1.95) = stats.kolmogorov_tail(1.95) ≈ 0.001
# how often a correct chain shows ✗ on one moment badge (mean and variance within 4 SE)
FALSE_ALARM = stats.any_fails(stats.two_sided_tail(SE), 2)


def signed(x: float, digits: int = 3) -> str:
    """``+0.012`` / ``−0.004`` with a real minus sign, and never ``−0.000``."""
    text = f"{x:+.{digits}f}"
    return "0." + "0" * digits if float(text) == 0 else text.replace("-", "−")


def sample_image(name: str) -> np.ndarray:
    return images.load_image((ROOT / "assets" / "images" / f"{name}.png").read_bytes(), SIDE)


def kind_name(kind: str) -> str:
    return t(f"{C}.kind_{kind}")


def frame_steps(T: int) -> list[int]:
    """N_FRAMES steps from 1 to T, evenly spaced."""
    return np.unique(np.round(np.linspace(1, T, N_FRAMES)).astype(int)).tolist()


kit.intro(C)
a, b, c, d = st.columns([4, 2, 1, 3])
with a:
    name = state.choice(t(f"{C}.image"), f"{C}_image", SAMPLES, "sunset",
                        format_func=lambda v: t(f"{C}.sample_{v}"))  # fmt: skip
with b:
    T = state.select_slider(t(f"{C}.T"), f"{C}_T", STEPS, 1000)
with c:
    seed = state.number(t(f"{C}.seed"), f"{C}_seed", 0, 10_000, 0)
with d:
    upload = st.file_uploader(t(f"{C}.upload"), type=["png", "jpg", "jpeg"], key=f"{C}_upload",
                              help=t(f"{C}.upload_help"))  # fmt: skip
x0_image = sample_image(name)
if upload is not None:
    with kit.guard():
        x0_image = images.load_image(upload.getvalue(), SIDE)
        st.caption(t(f"{C}.upload_used"))
x0 = images.to_signed(x0_image)
eps = np.random.default_rng(seed).standard_normal(x0.shape)  # ε, fixed by the seed
schedules = {k: dif.make_schedule(k, T) for k in KINDS}

# ---- the scrub: one figure, every frame computed now, t dragged in the browser ----------
kit.explain(C, "scrub")
steps = frame_steps(T)
batch = (len(steps), *x0.shape)
frames = [
    dif.q_sample(np.broadcast_to(x0, batch), np.array(steps), schedules[k],
                 np.broadcast_to(eps, batch))
    for k in KINDS
]  # fmt: skip
start = int(np.argmin(np.abs(np.array(steps) - T / 5)))
kit.chart(figs.scrub_figure(
    x0, eps, steps, frames[0], frames[1], tuple(schedules[k].alpha_bars for k in KINDS), start,
    image_titles=(t(f"{C}.x0_title"), t(f"{C}.eps_title"), t(f"{C}.xt_title", kind=kind_name(
        "linear")), t(f"{C}.xt_title", kind=kind_name("cosine"))),
    curve_titles=(t(f"{C}.alpha_bar_title"), t(f"{C}.roots_title"), t(f"{C}.log_snr_title")),
    names=(kind_name("linear"), kind_name("cosine")), x_title="t",
), key=f"{C}_scrub_chart")  # fmt: skip


# ---- the parts below: one fragment, so their controls never resend the scrub figure -----
def pixel_view(x0: np.ndarray, kind: str, seed: int) -> None:
    """Controls outside the probe: which pixel; then the probe slider in its own fragment."""
    cols = st.columns([3, 3, 2, 2])
    with cols[0]:
        row = state.number(t(f"{C}.row"), f"{C}_row", 0, SIDE - 1, SIDE // 2)
    with cols[1]:
        col = state.number(t(f"{C}.col"), f"{C}_col", 0, SIDE - 1, SIDE // 2)
    with cols[2]:
        channel = state.choice(t(f"{C}.channel"), f"{C}_channel", CHANNELS, "R")
    with cols[3]:
        kit.chart(figs.pixel_locator_figure(x0, (row, col)), key=f"{C}_locator_chart")
    pixel_probe(x0, kind, seed, row, col, CHANNELS.index(channel))


@kit.fragment
def pixel_probe(x0: np.ndarray, kind: str, seed: int, row: int, col: int, ch: int) -> None:
    """The page's probe: t moves the histogram of many draws of x_t at one pixel."""
    s = schedules[kind]
    step = state.slider(t(f"{C}.pixel_t"), f"{C}_pixel_t", 1, T, max(1, T // 5))
    value = float(x0[row, col, ch])
    rng = np.random.default_rng([seed, step, row, col, ch])
    draws = dif.q_sample(np.full(N_DRAWS, value), step, s, rng.standard_normal(N_DRAWS))
    a = float(s.alpha_bars[step - 1])
    mean, var = math.sqrt(a) * value, 1.0 - a
    sd = math.sqrt(var)
    edges = np.linspace(mean - 4.5 * sd, mean + 4.5 * sd, 46)
    counts, _ = np.histogram(draws, edges)
    grid = np.linspace(edges[0], edges[-1], 181)
    kit.chart(figs.pixel_figure(
        edges, counts / (N_DRAWS * np.diff(edges)), grid, stats.normal_pdf(grid, mean, var),
        stats.normal_pdf(grid, 0.0, 1.0), mean, value,
        title=t(f"{C}.pixel_title", n=f"{N_DRAWS:,}"),
        x_title=t(f"{C}.pixel_axis"), y_title=t(f"{C}.density_axis"),
        names=(t(f"{C}.draws"), "𝒩(√ᾱₜ x₀, 1 − ᾱₜ)", "𝒩(0, 1)", "√ᾱₜ x₀", "x₀"),
    ), key=f"{C}_pixel_chart")  # fmt: skip
    m, v = float(draws.mean()), float(draws.var(ddof=1))
    se_m, se_v = sd / math.sqrt(N_DRAWS), var * math.sqrt(2 / (N_DRAWS - 1))
    D = stats.ks_distance_normal(draws, mean, var)
    n_tex = f"{N_DRAWS:,}".replace(",", "{,}")
    kit.formula(
        "\\begin{gathered}"
        f"t = {step}:\\ \\bar\\alpha_t = {a:.4f},\\quad x_t = \\sqrt{{\\bar\\alpha_t}}\\,x_0"
        f" + \\sqrt{{1-\\bar\\alpha_t}}\\,\\varepsilon = {math.sqrt(a):.4f}\\cdot({value:.4f})"
        f" + {sd:.4f}\\,\\varepsilon \\;\\sim\\; \\mathcal N({mean:.4f},\\ {var:.4f})\\\\[6pt]"
        f"n = {n_tex}:\\quad \\bar x = {{{m:.4f}}},\\quad s^2 = {{{v:.4f}}}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_mean"), abs(m - mean) <= SE * se_m,
                      f"|Δ| = {abs(m - mean):.4f} ≤ 4 SE = {SE * se_m:.4f}"),
            kit.Check(t(f"{C}.check_var"), abs(v - var) <= SE * se_v,
                      f"|Δ| = {abs(v - var):.4f} ≤ 4 SE = {SE * se_v:.4f}"),
            kit.Check(t(f"{C}.check_ks"), D * math.sqrt(N_DRAWS) <= KS_999,
                      f"√n·D = {D * math.sqrt(N_DRAWS):.3f} ≤ {KS_999}"),
        ],
    )  # fmt: skip


def run_chain(x0: np.ndarray, step: int, s: dif.Schedule, rng: np.random.Generator
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """x_t after ``step`` links of q(x_s | x_{s−1}), and its moments at ≤ 60 steps s ≤ t.

    Returns (x_t, s, Σ x_s x₀ / Σ x₀², mean (x_s − √ᾱ_s x₀)²).
    """
    keep = set(np.unique(np.round(np.linspace(1, step, min(step, 60))).astype(int)).tolist())
    x, norm = x0, float(np.sum(x0 * x0))
    rows = []
    for k in range(1, step + 1):
        x = dif.q_step(x, k, s, rng.standard_normal(x0.shape))
        if k in keep:
            residual = x - math.sqrt(s.alpha_bars[k - 1]) * x0
            rows.append((k, float(np.sum(x * x0)) / norm, float(np.mean(residual**2))))
    k_axis, slope, var = (np.array(col) for col in zip(*rows, strict=True))
    return x, k_axis, slope, var


@kit.fragment
def chain_view(x0: np.ndarray, eps: np.ndarray, kind: str, seed: int) -> None:
    """t steps of the chain against one jump q(x_t | x₀) with the page's ε."""
    s = schedules[kind]
    step = state.slider(t(f"{C}.chain_t"), f"{C}_chain_t", 1, T, max(1, T // 5))
    x_chain, k_axis, slope, variance = run_chain(x0, step, s, np.random.default_rng([seed, 1]))
    x_closed = dif.q_sample(x0, step, s, eps)
    a = float(s.alpha_bars[step - 1])
    a_prev = 1.0 if step == 1 else float(s.alpha_bars[step - 2])
    alpha, beta = float(s.alphas[step - 1]), float(s.betas[step - 1])
    kit.chart(figs.chain_figure(
        x_chain, x_closed, k_axis, slope, variance, s.alpha_bars, step,
        titles=(t(f"{C}.chain_title", t=step), t(f"{C}.closed_title", t=step),
                t(f"{C}.moments_title")),
        x_title="s", names=("√ᾱₛ", "1 − ᾱₛ", t(f"{C}.chain_slope"), t(f"{C}.chain_var")),
    ), key=f"{C}_chain_chart")  # fmt: skip
    n = x0.size
    stats = {}
    for label, x in (("chain", x_chain), ("closed", x_closed)):
        z = (x - math.sqrt(a) * x0) / math.sqrt(1 - a)  # ~ N(0, 1) in every pixel
        stats[label] = (float(z.mean()), float(z.var(ddof=1)))
    # the induction step for every s ≤ t: √(α_s ᾱ_{s−1}) = √ᾱ_s, α_s (1 − ᾱ_{s−1}) + β_s = 1 − ᾱ_s
    prev = np.concatenate(([1.0], s.alpha_bars[: step - 1]))
    mean_gap = np.abs(np.sqrt(s.alphas[:step] * prev) - np.sqrt(s.alpha_bars[:step])).max()
    var_gap = np.abs(s.alphas[:step] * (1 - prev) + s.betas[:step] - (1 - s.alpha_bars[:step]))

    def moment_check(label: str) -> kit.Check:
        m, v = stats[label]
        ok = abs(m) <= SE / math.sqrt(n) and abs(v - 1) <= SE * math.sqrt(2 / (n - 1))
        return kit.Check(t(f"{C}.check_{label}"), ok, f"z̄ = {signed(m)}, s²(z) = {v:.3f}")

    kit.formula(
        "\\begin{gathered}"
        "x_{t-1} \\sim \\mathcal N\\big(\\sqrt{\\bar\\alpha_{t-1}}\\,x_0,\\ (1-\\bar\\alpha_{t-1})"
        "I\\big)\\ \\Rightarrow\\ x_t = \\sqrt{\\alpha_t}\\,x_{t-1} + \\sqrt{\\beta_t}\\,"
        "\\varepsilon_t \\sim \\mathcal N\\big(\\sqrt{\\alpha_t\\bar\\alpha_{t-1}}\\,x_0,\\ "
        "\\alpha_t(1-\\bar\\alpha_{t-1}) + \\beta_t\\big)\\\\[6pt]"
        f"t = {step}:\\quad \\sqrt{{{alpha:.5f}\\cdot{a_prev:.5f}}}"
        f" = {math.sqrt(alpha * a_prev):.5f}"
        f" = \\sqrt{{\\bar\\alpha_t}},\\qquad {alpha:.5f}\\cdot(1-{a_prev:.5f}) + {beta:.5f}"
        f" = {alpha * (1 - a_prev) + beta:.5f} = 1-\\bar\\alpha_t"
        "\\end{gathered}",
        caption=t(f"{C}.chain_caption", n=f"{n:,}", once=f"{round(1 / FALSE_ALARM, -2):,.0f}"),
        checks=[
            kit.Check(t(f"{C}.check_induction"), max(mean_gap, var_gap.max()) <= 1e-12,
                      t(f"{C}.every_s", t=step)),
            moment_check("chain"),
            moment_check("closed"),
        ],
    )  # fmt: skip


@kit.fragment
def parts(x0: np.ndarray, eps: np.ndarray, seed: int) -> None:
    """The part picker and the schedule: changing them reruns only this fragment."""
    left, right = st.columns(2)
    with left:
        view = state.choice(t(f"{C}.view"), f"{C}_view", VIEWS, "pixel",
                            format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip
    with right:
        kind = state.choice(t(f"{C}.schedule"), f"{C}_schedule", KINDS, "linear",
                            format_func=kind_name)  # fmt: skip
    kit.explain(C, view)
    if view == "pixel":
        pixel_view(x0, kind, seed)
    else:
        chain_view(x0, eps, kind, seed)


def make_exercise(rng: np.random.Generator) -> kit.Exercise:
    """One of three questions about q(x_t | x₀), answered with core.diffusion."""
    kind = str(rng.choice(KINDS))
    T_ex = int(rng.choice([100, 250, 500, 1000]))
    s = dif.make_schedule(kind, T_ex)
    variant = int(rng.integers(3))
    if variant == 0:  # the mean of x_t at a pixel: x_t with ε = 0
        step = int(rng.integers(1, T_ex + 1))
        value = float(rng.choice(np.round(np.linspace(-1, 1, 21), 1)))
        shown = f"{value:g}".replace("-", "−")
        factor = shown if value >= 0 else f"({shown})"
        a = float(f"{s.alpha_bars[step - 1]:.4g}")  # the number the student sees
        answer = float(dif.q_sample(value, step, s, 0.0))
        return kit.Exercise(
            t(f"{C}.ex_mean", x0=shown, t=step, T=T_ex, kind=kind_name(kind), a=f"{a:.4g}"),
            answer, tolerance=0.005,
            explanation=t(f"{C}.ex_mean_why", a=f"{a:.4g}", x0=factor,
                          answer=f"{answer:.4f}".replace("-", "−")),
        )  # fmt: skip
    if variant == 1:  # the noise's standard deviation: x_t of x₀ = 0 with ε = 1
        step = int(rng.integers(1, T_ex + 1))
        answer = float(dif.q_sample(0.0, step, s, 1.0))
        return kit.Exercise(
            t(f"{C}.ex_std", t=step, T=T_ex, kind=kind_name(kind)), answer, tolerance=0.03,
            explanation=t(f"{C}.ex_std_why", a=f"{s.alpha_bars[step - 1]:.4f}",
                          answer=f"{answer:.4f}"),
        )  # fmt: skip
    crossing = int(np.argmax(dif.snr(s) < 1.0)) + 1  # first t with SNR < 1, i.e. ᾱ_t < 1/2
    return kit.Exercise(
        t(f"{C}.ex_snr", T=T_ex, kind=kind_name(kind)), float(crossing),
        tolerance=max(2.0, 0.03 * T_ex),
        explanation=t(f"{C}.ex_snr_why", t=crossing, T=T_ex,
                      a=f"{s.alpha_bars[crossing - 1]:.4f}"),
    )  # fmt: skip


parts(x0, eps, seed)
state.show_notices()
kit.try_this(C)
kit.exercise(C, make_exercise)
kit.show_code(C, images.load_image, dif.make_schedule, dif.q_sample, dif.q_step, dif.snr)
