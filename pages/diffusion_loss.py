"""The pieces of the DDPM loss: the posterior q(x_{t-1} | x_t, x_0), the KL between two
Gaussians (and the prior term L_T), and the ELBO L_T + Σ L_{t-1} + L_0 with its weights."""

from __future__ import annotations

import functools
import math

import numpy as np

from core import diffusion as dif
from core import stats
from figures import diffusion_loss as figs
from ui import exercises, kit, tex

KINDS = dif.SCHEDULE_KINDS
STEPS = [10, 20, 50, 100, 200, 500, 1000, 2000]
MEANS = exercises.DIFFUSION_LOSS_MEANS  # -3 .. 3 in steps of 0.25 (the exercise draws these)
VARIANCES = exercises.DIFFUSION_LOSS_VARIANCES
X = np.linspace(-9, 9, 301)  # the density plot
X_FINE = np.linspace(-30, 30, 6001)  # the numerical integral behind a badge
MC_DRAWS = 20_000
EPS, EPS_THETA = 0.5, 0.8  # one coordinate's noise and a made-up prediction ε_θ = ε + 0.3

page = kit.Page(
    "diffusion_loss",
    views=("posterior", "kl", "elbo"),
    exercise=exercises.diffusion_loss,
    code=(
        dif.make_schedule,
        dif.posterior_coefficients,
        dif.gaussian_kl,
        dif.gaussian_kl_integrand,
        dif.prior_kl_bits_per_dim,
        dif.eps_loss_weights,
        dif.eps_term_excess,
    ),
)


def schedule_controls(data: bool, widgets: bool = True) -> tuple[str, int, str]:
    """The schedule and T for every part; the data values x₀ for the KL and ELBO parts.

    Each part reads them first and draws them above its charts after them
    (``kit.controls_after_the_chart``, ``widgets=False``: only read): a T step re-sent them
    before the chart, and the browser rendered them again in the chart's pass."""
    a, b, c = kit.columns([2, 1, 1], widgets)
    with a:
        kind = page.selectbox(
            "schedule",
            KINDS,
            "linear",
            key=page.key("kind"),
            format_func=lambda k: page.tr(f"kind_{k}"),
            widget=widgets,
        )
    with b:
        T = page.select_slider("T", STEPS, 1000, widget=widgets)
    with c:
        text = page.text("x0", "-1, -0.5, 0, 0.5, 1", widget=widgets) if data else ""
    return kind, T, text


@page.view("posterior")
def posterior() -> None:
    with kit.controls_after_the_chart(functools.partial(schedule_controls, False)) as (kind, T, _):
        posterior_view(dif.make_schedule(kind, T))


@kit.fragment
def posterior_view(s: dif.Schedule) -> None:
    """The t slider (the page's probe) redraws the marks on the curves and the formula."""
    T = s.num_steps

    def t_slider(widgets: bool) -> int:  # its range is T's
        return page.slider("t", 1, T, min(10, T), widget=widgets)

    with kit.controls_after_the_chart(t_slider) as step:
        coef_x0, coef_xt, var, a_prev = posterior_chart(s, step)
    i = step - 1
    beta, alpha, a = s.betas[i], s.alphas[i], s.alpha_bars[i]
    lhs, rhs = coef_x0[i] + coef_xt[i] * math.sqrt(a), math.sqrt(a_prev)
    page.formula(
        "posterior",
        t=step,
        a_prev=tex.sci(a_prev, 6),
        a=tex.sci(a, 6),
        beta=tex.sci(beta),
        alpha=tex.sci(alpha, 6),
        c0=tex.sci(coef_x0[i]),
        ct=tex.sci(coef_xt[i]),
        one_minus_a_prev=tex.sci(1 - a_prev),
        one_minus_a=tex.sci(1 - a),
        beta_tilde=tex.sci(var[i]),
        ratio=f"{var[i] / beta:.4f}",
        checks=[
            kit.Check(
                page.tr("check_identity"),
                math.isclose(lhs, rhs, rel_tol=1e-9, abs_tol=1e-12),
                f"{lhs:.6f} = {rhs:.6f}",
            ),
            kit.Check(
                page.tr("check_below_beta"),
                bool(np.all(var <= s.betas)),
                f"β̃ₜ/βₜ = {var[i] / beta:.4f}",
            ),
            kit.Check(page.tr("check_first"), var[0] == 0),
        ],
    )


def posterior_chart(s: dif.Schedule, step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The chart of the posterior's coefficients and variance over t, ``step`` marked;
    returns them and ᾱ of the step before."""
    T = s.num_steps
    coef_x0, coef_xt, var = dif.posterior_coefficients(s)
    i, grid = step - 1, dif.log_spaced_steps(T) - 1
    beta = s.betas[i]
    a_prev = 1.0 if step == 1 else float(s.alpha_bars[i - 1])
    page.chart(
        figs.posterior_figure(
            grid + 1,
            coef_x0[grid],
            coef_xt[grid],
            s.betas[grid],
            var[grid],
            step,
            (coef_x0[i], coef_xt[i], beta, var[i]),
            T,
            titles=(page.tr("coef_title"), page.tr("var_title")),
            x_title=page.tr("t_axis"),
            y_titles=(page.tr("coef_axis"), page.tr("var_axis")),
            names=(page.tr("coef_x0"), page.tr("coef_xt"), "βₜ", "β̃ₜ", page.tr("current_t")),
        ),
        "posterior_chart",
    )
    return coef_x0, coef_xt, var, a_prev


@page.view("kl")
def kl() -> None:
    """The Gaussians' sliders in a fragment; L_T (no slider drives it) below, outside it."""
    controls = functools.partial(schedule_controls, True)
    with kit.controls_after_the_chart(controls) as (kind, T, text):
        kl_view()
        prior(kind, T, text)


def prior(kind: str, T: int, text: str) -> None:
    """L_T of the data values under each schedule, in bits per dimension."""
    page.explain("prior")
    x0 = dif.parse_data(text)
    values = [dif.prior_kl_bits_per_dim(dif.make_schedule(k, T), x0) for k in KINDS]
    page.chart(
        figs.prior_kl_figure(
            [page.tr(f"kind_{k}") for k in KINDS],
            values,
            KINDS.index(kind),
            title=page.tr("prior_title", T=T),
            x_title=page.tr("schedule"),
            y_title=page.tr("bits_axis"),
            reference_label=page.tr("ddpm_reference"),
        ),
        "prior_chart",
    )
    ddpm = dif.prior_kl_bits_per_dim(dif.make_schedule("linear", 1000), x0)
    checks = [kit.Check(page.tr("check_prior_positive"), min(values) >= 0)]
    if np.all(np.abs(x0) <= 1):
        checks.append(kit.Check(page.tr("check_ddpm"), 1e-6 <= ddpm <= 1e-4, f"{ddpm:.2e}"))
    kit.badges(checks)


@kit.fragment
def kl_view() -> None:
    """Two Gaussians: their densities, the integrand p ln(p/q) and the closed-form KL."""
    with kit.controls_after_the_chart(gaussians) as (m_p, v_p, m_q, v_q):
        kl_chart(m_p, v_p, m_q, v_q)
    kl_formula(m_p, v_p, m_q, v_q)


def gaussians(widgets: bool) -> tuple[float, float, float, float]:
    """p's and q's mean and variance: drawn (``widgets``) or only read (their four sliders,
    sent before the chart, were rendered again in its pass; ``kit.controls_after_the_chart``)."""
    cols = kit.columns(4, widgets)
    with cols[0]:
        m_p = page.select_slider("mean_p", MEANS, 0.0, widget=widgets)
    with cols[1]:
        v_p = page.select_slider("var_p", VARIANCES, 1.0, widget=widgets)
    with cols[2]:
        m_q = page.select_slider("mean_q", MEANS, 1.0, widget=widgets)
    with cols[3]:
        v_q = page.select_slider("var_q", VARIANCES, 2.0, widget=widgets)
    return m_p, v_p, m_q, v_q


def kl_chart(m_p: float, v_p: float, m_q: float, v_q: float) -> None:
    page.chart(
        figs.kl_figure(
            X,
            stats.normal_pdf(X, m_p, v_p),
            stats.normal_pdf(X, m_q, v_q),
            dif.gaussian_kl_integrand(X, m_p, v_p, m_q, v_q),
            titles=(page.tr("density_title"), page.tr("integrand_title")),
            x_title="x",
            y_titles=(page.tr("density_axis"), "p(x) · ln(p(x)/q(x))"),
        ),
        "kl_chart",
    )


def kl_formula(m_p: float, v_p: float, m_q: float, v_q: float) -> None:
    """The closed-form KL both ways, checked against quadrature and Monte Carlo."""
    kl, back = (
        float(dif.gaussian_kl(m_p, v_p, m_q, v_q)),
        float(dif.gaussian_kl(m_q, v_q, m_p, v_p)),
    )
    mc, se = dif.gaussian_kl_monte_carlo(m_p, v_p, m_q, v_q, np.random.default_rng(0), MC_DRAWS)
    area = dif.gaussian_kl_quadrature(m_p, v_p, m_q, v_q, X_FINE)
    same = m_p == m_q and v_p == v_q
    page.formula(
        "kl",
        v_p=f"{v_p:g}",
        v_q=f"{v_q:g}",
        m_p=f"{m_p:g}",
        m_q=tex.paren(m_q),
        kl=f"{kl:.4f}",
        kl_bits=f"{kl / math.log(2):.4f}",
        back=f"{back:.4f}",
        checks=[
            kit.Check(page.tr("check_nonnegative"), kl >= 0 and back >= 0),
            kit.Check(
                page.tr("check_zero"),
                (kl == 0) == same,
                page.tr("equal") if same else page.tr("different"),
            ),
            kit.Check(
                page.tr("check_area"),
                math.isclose(area, kl, rel_tol=1e-3, abs_tol=1e-6),
                f"{area:.4f}",
            ),
            kit.Check(
                page.tr("check_mc", n=f"{MC_DRAWS:,}"),
                abs(mc - kl) <= 5 * se + 1e-12,
                f"{mc:.4f} ± {se:.4f}",
            ),
        ],
    )


@page.view("elbo")
def elbo() -> None:
    controls = functools.partial(schedule_controls, True)
    with kit.controls_after_the_chart(controls) as (kind, T, text), kit.guard():
        # bad data values: the message, and the derivation below still opens
        elbo_view(dif.make_schedule(kind, T), dif.parse_data(text))
    page.derivation("eps_form")


@kit.fragment
def elbo_view(s: dif.Schedule, x0: np.ndarray) -> None:
    """The t slider: where the weight λₜ of the term L_{t-1} sits, against the simple loss."""
    T = s.num_steps

    def t_slider(widgets: bool) -> int:  # its range is T's
        return page.slider("t_term", 2, T, min(10, T), key=page.key("elbo_t"), widget=widgets)

    with kit.controls_after_the_chart(t_slider) as step:
        w_beta, w_tilde = weights_chart(s, step)
    elbo_formula(s, x0, step, w_beta, w_tilde)


def weights_chart(s: dif.Schedule, step: int) -> tuple[np.ndarray, np.ndarray]:
    """The weights λₜ of both variances over t, ``step`` marked; returns them."""
    T = s.num_steps
    i, grid = step - 1, dif.log_spaced_steps(T) - 1
    w_beta, w_tilde = dif.eps_loss_weights(s, "beta"), dif.eps_loss_weights(s, "posterior")
    page.chart(
        figs.weights_figure(
            grid + 1,
            w_beta[grid],
            w_tilde[grid],
            step,
            (w_beta[i], w_tilde[i]),
            T,
            title=page.tr("weights_title"),
            x_title=page.tr("t_axis"),
            y_title="λₜ",
            names=("σₜ² = βₜ", "σₜ² = β̃ₜ", page.tr("simple"), page.tr("current_t")),
        ),
        "weights_chart",
    )
    return w_beta, w_tilde


def elbo_formula(
    s: dif.Schedule, x0: np.ndarray, step: int, w_beta: np.ndarray, w_tilde: np.ndarray
) -> None:
    """L_T, the step's weights, and their checks."""
    T, i = s.num_steps, step - 1
    ratio = dif.snr(s)[i - 1] / dif.snr(s)[i]
    gap = dif.eps_term_excess(x0[0], step, s, EPS, EPS_THETA)  # = λₜ (ε − ε_θ)², σₜ² = βₜ
    expected = w_beta[i] * (EPS - EPS_THETA) ** 2
    page.formula(
        "elbo",
        L_T=tex.sci(dif.prior_kl_bits_per_dim(s, x0), 3),
        T=T,
        t=step,
        beta=tex.sci(s.betas[i]),
        alpha=tex.sci(s.alphas[i], 6),
        w_beta=tex.sci(w_beta[i]),
        one_minus_a=tex.sci(1 - s.alpha_bars[i]),
        w_tilde=tex.sci(w_tilde[i]),
        checks=[
            kit.Check(
                page.tr("check_snr"),
                math.isclose(w_tilde[i], (ratio - 1) / 2, rel_tol=1e-6),
                f"½({ratio:.5g} − 1) = {(ratio - 1) / 2:.5g}",
            ),
            kit.Check(
                page.tr("check_tilde_larger"), bool(np.all(w_tilde[1:] >= w_beta[1:] * (1 - 1e-12)))
            ),
            kit.Check(
                page.tr("check_term"),
                math.isclose(gap, expected, rel_tol=1e-6, abs_tol=1e-12),
                f"{gap:.5g} = {expected:.5g}",
            ),
        ],
    )


page.run()
