"""The pieces of the DDPM loss: the posterior q(x_{t-1} | x_t, x_0), the KL between two
Gaussians (and the prior term L_T), and the ELBO L_T + Σ L_{t-1} + L_0 with its weights."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from core import diffusion as dif
from core import stats
from figures import diffusion_loss as figs
from ui import kit, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()

C = "diffusion_loss"
VIEWS = ("posterior", "kl", "elbo")
KINDS = dif.SCHEDULE_KINDS
STEPS = [10, 20, 50, 100, 200, 500, 1000, 2000]
MEANS = [round(0.25 * k, 2) for k in range(-12, 13)]  # -3 .. 3
VARIANCES = [0.1, 0.2, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0]
X = np.linspace(-9, 9, 301)  # the density plot
X_FINE = np.linspace(-30, 30, 6001)  # the numerical integral behind a badge
MC_DRAWS = 20_000


def sci(x: float, digits: int = 4) -> str:
    """A number for LaTeX: plain when moderate, ``m \\times 10^{e}`` when tiny or huge."""
    if x == 0 or 1e-3 <= abs(x) < 1e4:
        return f"{x:.{digits}g}"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


def paren(x: float) -> str:
    """``x`` with brackets when negative, for ``a - (x)``."""
    return f"{x:g}" if x >= 0 else f"({x:g})"


def t_grid(T: int) -> np.ndarray:
    """At most ~240 steps, log-spaced (the plots' t axes are logarithmic)."""
    return np.unique(np.geomspace(1, T, 240).round().astype(int))


def kind_name(kind: str) -> str:
    return t(f"{C}.kind_{kind}")


kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", VIEWS, "posterior",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip


@kit.fragment
def posterior_view(s: dif.Schedule) -> None:
    """The t slider (the page's probe) redraws the marks on the curves and the formula."""
    T = s.num_steps
    step = state.slider(t(f"{C}.t"), f"{C}_t", 1, T, min(10, T))
    coef_x0, coef_xt, var = dif.posterior_coefficients(s)
    i, grid = step - 1, t_grid(T) - 1
    beta, alpha, a = s.betas[i], s.alphas[i], s.alpha_bars[i]
    a_prev = 1.0 if step == 1 else s.alpha_bars[i - 1]
    kit.chart(figs.posterior_figure(
        grid + 1, coef_x0[grid], coef_xt[grid], s.betas[grid], var[grid], step,
        (coef_x0[i], coef_xt[i], beta, var[i]), T,
        titles=(t(f"{C}.coef_title"), t(f"{C}.var_title")), x_title=t(f"{C}.t_axis"),
        y_titles=(t(f"{C}.coef_axis"), t(f"{C}.var_axis")),
        names=(t(f"{C}.coef_x0"), t(f"{C}.coef_xt"), "βₜ", "β̃ₜ", t(f"{C}.current_t")),
    ), key=f"{C}_posterior_chart")  # fmt: skip
    lhs, rhs = coef_x0[i] + coef_xt[i] * math.sqrt(a), math.sqrt(a_prev)
    kit.formula(
        "\\begin{gathered}"
        f"t = {step}:\\quad \\bar\\alpha_{{t-1}} = {sci(a_prev, 6)},\\ "
        f"\\bar\\alpha_t = {sci(a, 6)},\\ \\beta_t = {sci(beta)},\\ \\alpha_t = {sci(alpha, 6)}"
        "\\\\[6pt] q(x_{t-1}\\mid x_t, x_0)"
        " = \\mathcal N\\big(\\tilde\\mu_t,\\ \\tilde\\beta_t I\\big),\\quad"
        " \\tilde\\mu_t = \\frac{\\sqrt{\\bar\\alpha_{t-1}}\\,\\beta_t}{1-\\bar\\alpha_t}\\,x_0"
        " + \\frac{\\sqrt{\\alpha_t}\\,(1-\\bar\\alpha_{t-1})}{1-\\bar\\alpha_t}\\,x_t"
        f" = {sci(coef_x0[i])}\\,x_0 + {sci(coef_xt[i])}\\,x_t\\\\[6pt]"
        "\\tilde\\beta_t = \\frac{1-\\bar\\alpha_{t-1}}{1-\\bar\\alpha_t}\\,\\beta_t"
        f" = \\frac{{{sci(1 - a_prev)}}}{{{sci(1 - a)}}}\\cdot {sci(beta)} = {sci(var[i])}"
        f"\\quad \\big(= {var[i] / beta:.4f}\\,\\beta_t\\big)"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_identity"), math.isclose(lhs, rhs, rel_tol=1e-9, abs_tol=1e-12),
                      f"{lhs:.6f} = {rhs:.6f}"),
            kit.Check(t(f"{C}.check_below_beta"), bool(np.all(var <= s.betas)),
                      f"β̃ₜ/βₜ = {var[i] / beta:.4f}"),
            kit.Check(t(f"{C}.check_first"), var[0] == 0),
        ],
    )  # fmt: skip


@kit.fragment
def kl_view() -> None:
    """Two Gaussians: their densities, the integrand p ln(p/q) and the closed-form KL."""
    cols = st.columns(4)
    with cols[0]:
        m_p = state.select_slider(t(f"{C}.mean_p"), f"{C}_mean_p", MEANS, 0.0)
    with cols[1]:
        v_p = state.select_slider(t(f"{C}.var_p"), f"{C}_var_p", VARIANCES, 1.0)
    with cols[2]:
        m_q = state.select_slider(t(f"{C}.mean_q"), f"{C}_mean_q", MEANS, 1.0)
    with cols[3]:
        v_q = state.select_slider(t(f"{C}.var_q"), f"{C}_var_q", VARIANCES, 2.0)
    p, q = stats.normal_pdf(X, m_p, v_p), stats.normal_pdf(X, m_q, v_q)
    kit.chart(figs.kl_figure(
        X, p, q, titles=(t(f"{C}.density_title"), t(f"{C}.integrand_title")),
        x_title="x", y_titles=(t(f"{C}.density_axis"), "p(x) · ln(p(x)/q(x))"),
    ), key=f"{C}_kl_chart")  # fmt: skip
    kl, back = (
        float(dif.gaussian_kl(m_p, v_p, m_q, v_q)),
        float(dif.gaussian_kl(m_q, v_q, m_p, v_p)),
    )
    # Monte Carlo: E_p[ln p(x) − ln q(x)] over fixed draws x ~ p
    x = m_p + math.sqrt(v_p) * np.random.default_rng(0).standard_normal(MC_DRAWS)
    log_ratio = np.log(stats.normal_pdf(x, m_p, v_p)) - np.log(stats.normal_pdf(x, m_q, v_q))
    mc, se = float(log_ratio.mean()), float(log_ratio.std() / math.sqrt(MC_DRAWS))
    pf, qf = stats.normal_pdf(X_FINE, m_p, v_p), stats.normal_pdf(X_FINE, m_q, v_q)
    integrand = np.where(pf > 0, pf * np.log(np.maximum(pf, 1e-300) / qf), 0.0)
    area = float(np.sum((integrand[1:] + integrand[:-1]) / 2) * (X_FINE[1] - X_FINE[0]))
    same = m_p == m_q and v_p == v_q
    kit.formula(
        "\\begin{gathered}"
        "D_{\\mathrm{KL}}(p\\,\\|\\,q) = \\tfrac12\\Big[\\ln\\frac{\\sigma_q^2}{\\sigma_p^2}"
        " + \\frac{\\sigma_p^2 + (\\mu_p-\\mu_q)^2}{\\sigma_q^2} - 1\\Big]"
        f" = \\tfrac12\\Big[\\ln\\frac{{{v_q:g}}}{{{v_p:g}}}"
        f" + \\frac{{{v_p:g} + ({m_p:g} - {paren(m_q)})^2}}{{{v_q:g}}} - 1\\Big]"
        f" = {kl:.4f}\\ \\text{{nats}} = {kl / math.log(2):.4f}\\ \\text{{bits}}"
        f"\\\\[6pt] D_{{\\mathrm{{KL}}}}(q\\,\\|\\,p) = {back:.4f}\\ \\text{{nats}}"
        "\\quad(\\text{not symmetric})"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_nonnegative"), kl >= 0 and back >= 0),
            kit.Check(t(f"{C}.check_zero"), (kl == 0) == same,
                      t(f"{C}.equal") if same else t(f"{C}.different")),
            kit.Check(t(f"{C}.check_area"), math.isclose(area, kl, rel_tol=1e-3, abs_tol=1e-6),
                      f"{area:.4f}"),
            kit.Check(t(f"{C}.check_mc", n=f"{MC_DRAWS:,}"), abs(mc - kl) <= 5 * se + 1e-12,
                      f"{mc:.4f} ± {se:.4f}"),
        ],
    )  # fmt: skip


def prior_block(kind: str, T: int, x0: np.ndarray) -> None:
    """L_T for every schedule at this T: no slider drives it (drawn outside the fragment)."""
    values = [dif.prior_kl_bits_per_dim(dif.make_schedule(k, T), x0) for k in KINDS]
    kit.chart(figs.prior_kl_figure(
        [kind_name(k) for k in KINDS], values, KINDS.index(kind),
        title=t(f"{C}.prior_title", T=T), x_title=t(f"{C}.schedule"), y_title=t(f"{C}.bits_axis"),
        reference_label=t(f"{C}.ddpm_reference"),
    ), key=f"{C}_prior_chart")  # fmt: skip
    ddpm = dif.prior_kl_bits_per_dim(dif.make_schedule("linear", 1000), x0)
    checks = [kit.Check(t(f"{C}.check_prior_positive"), min(values) >= 0)]
    if np.all(np.abs(x0) <= 1):
        checks.append(kit.Check(t(f"{C}.check_ddpm"), 1e-6 <= ddpm <= 1e-4, f"{ddpm:.2e}"))
    kit.badges(checks)


@kit.fragment
def elbo_view(s: dif.Schedule, x0: np.ndarray) -> None:
    """The t slider: where the weight λₜ of the term L_{t-1} sits, against the simple loss."""
    T = s.num_steps
    step = state.slider(t(f"{C}.t_term"), f"{C}_elbo_t", 2, T, min(10, T))
    i, grid = step - 1, t_grid(T) - 1
    w_beta, w_tilde = dif.eps_loss_weights(s, "beta"), dif.eps_loss_weights(s, "posterior")
    kit.chart(figs.weights_figure(
        grid + 1, w_beta[grid], w_tilde[grid], step, (w_beta[i], w_tilde[i]), T,
        title=t(f"{C}.weights_title"), x_title=t(f"{C}.t_axis"), y_title="λₜ",
        names=("σₜ² = βₜ", "σₜ² = β̃ₜ", t(f"{C}.simple"), t(f"{C}.current_t")),
    ), key=f"{C}_weights_chart")  # fmt: skip
    beta, alpha, a = s.betas[i], s.alphas[i], s.alpha_bars[i]
    L_T = dif.prior_kl_bits_per_dim(s, x0)
    ratio = dif.snr(s)[i - 1] / dif.snr(s)[i]
    # L_{t-1} on one coordinate with a made-up model ε_θ = ε + 0.3 and σₜ² = βₜ:
    # KL(q ‖ p_θ) − KL(q ‖ q with σₜ²) = λₜ (ε − ε_θ)²
    eps, eps_theta = 0.5, 0.8
    x_t = dif.q_sample(x0[0], step, s, eps)
    mean, var = dif.q_posterior(x_t, x0[0], step, s)
    mu_theta = (x_t - beta / math.sqrt(1 - a) * eps_theta) / math.sqrt(alpha)
    gap = float(dif.gaussian_kl(mean, var, mu_theta, beta) - dif.gaussian_kl(mean, var, mean, beta))
    expected = w_beta[i] * (eps - eps_theta) ** 2
    kit.formula(
        "\\begin{gathered}"
        "L = \\mathbb E_{q}\\Big[\\underbrace{D_{\\mathrm{KL}}\\big(q(x_T\\mid x_0)"
        "\\,\\|\\,p(x_T)\\big)}"
        f"_{{L_T\\, =\\, {sci(L_T, 3)}\\ \\text{{bits/dim}}}}"
        " + \\sum_{t=2}^{" + str(T) + "}\\underbrace{D_{\\mathrm{KL}}\\big(q(x_{t-1}\\mid x_t, x_0)"
        "\\,\\|\\,p_\\theta(x_{t-1}\\mid x_t)\\big)}_{L_{t-1}}"
        "\\ \\underbrace{-\\log p_\\theta(x_0\\mid x_1)}_{L_0}\\Big]\\\\[6pt]"
        "L_{t-1} = \\lambda_t\\,\\mathbb E\\big\\|\\epsilon"
        " - \\epsilon_\\theta(\\sqrt{\\bar\\alpha_t}\\,x_0"
        " + \\sqrt{1-\\bar\\alpha_t}\\,\\epsilon,\\ t)\\big\\|^2 + C,\\qquad"
        "\\lambda_t = \\frac{\\beta_t^2}{2\\sigma_t^2\\,\\alpha_t\\,(1-\\bar\\alpha_t)}\\\\[6pt]"
        f"t = {step}:\\ \\lambda_t\\big|_{{\\sigma_t^2 = \\beta_t}}"
        " = \\frac{\\beta_t}{2\\alpha_t(1-\\bar\\alpha_t)}"
        f" = \\frac{{{sci(beta)}}}{{2\\cdot {sci(alpha, 6)}\\cdot {sci(1 - a)}}}"
        f" = {sci(w_beta[i])}\\\\[6pt] \\lambda_t\\big|_{{\\sigma_t^2 = \\tilde\\beta_t}}"
        " = \\frac{\\beta_t}{2\\alpha_t(1-\\bar\\alpha_{t-1})}"
        f" = {sci(w_tilde[i])};\\quad L_{{\\text{{simple}}}}:\\ \\lambda_t \\to 1"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_snr"),
                      math.isclose(w_tilde[i], (ratio - 1) / 2, rel_tol=1e-6),
                      f"½({ratio:.5g} − 1) = {(ratio - 1) / 2:.5g}"),
            kit.Check(t(f"{C}.check_tilde_larger"),
                      bool(np.all(w_tilde[1:] >= w_beta[1:] * (1 - 1e-12)))),
            kit.Check(t(f"{C}.check_term"),
                      math.isclose(gap, expected, rel_tol=1e-6, abs_tol=1e-12),
                      f"{gap:.5g} = {expected:.5g}"),
        ],
    )  # fmt: skip


def make_exercise(rng: np.random.Generator) -> kit.Exercise:
    """One of three questions, its numbers drawn from ``rng`` and answered with core."""
    variant = int(rng.integers(3))
    T = int(rng.choice([10, 20, 50, 100, 1000]))
    if variant == 0:  # the posterior variance from two ᾱ values
        s = dif.make_schedule(str(rng.choice(["linear", "cosine"])), T)
        steps = np.flatnonzero(s.alpha_bars[:-1] <= 0.999) + 2  # 1 − ᾱₜ₋₁ big enough to read
        step = int(rng.choice(steps))
        # the numbers the student sees, and the answer computed from exactly those
        a_prev, a = (float(f"{x:.6g}") for x in s.alpha_bars[step - 2 : step])
        beta = 1 - a / a_prev
        answer = (1 - a_prev) / (1 - a) * beta  # β̃ₜ (posterior_coefficients, from these)
        return kit.Exercise(
            t(f"{C}.ex_variance", a_prev=f"{a_prev:.6g}", a=f"{a:.6g}"), answer,
            tolerance=0.01 * answer,
            explanation=t(f"{C}.ex_variance_why", beta=f"{beta:.4g}", a_prev=f"{a_prev:.6g}",
                          a=f"{a:.6g}", answer=f"{answer:.4g}"),
        )  # fmt: skip
    if variant == 1:  # which schedule keeps more of x₀ at this t
        if rng.random() < 0.4:  # near the end, where the answer flips (cosine's clipped β)
            step = T - int(rng.integers(0, max(1, T // 200)))
        else:
            step = int(rng.integers(2, T + 1))
        linear, cosine = (
            dif.make_schedule(k, T).alpha_bars[step - 1] for k in ("linear", "cosine")
        )
        options = (kind_name("linear"), kind_name("cosine"))
        return kit.Exercise(
            t(f"{C}.ex_schedule", t=step, T=T), options[int(cosine > linear)], options=options,
            explanation=t(f"{C}.ex_schedule_why", t=step, linear=f"{linear:.4g}",
                          cosine=f"{cosine:.4g}"),
        )  # fmt: skip
    m_p, m_q = (float(v) for v in rng.choice(MEANS, 2))
    v_p, v_q = (float(v) for v in rng.choice(VARIANCES, 2))
    answer = float(dif.gaussian_kl(m_p, v_p, m_q, v_q))
    return kit.Exercise(
        t(f"{C}.ex_kl", m_p=f"{m_p:g}", v_p=f"{v_p:g}", m_q=f"{m_q:g}", v_q=f"{v_q:g}"), answer,
        tolerance=max(0.01 * answer, 0.001),
        explanation=t(f"{C}.ex_kl_why", answer=f"{answer:.4f}"),
    )  # fmt: skip


a, b, c = st.columns([2, 1, 1])
with a:
    kind = state.selectbox(t(f"{C}.schedule"), f"{C}_kind", KINDS, "linear", format_func=kind_name)
with b:
    T = state.select_slider(t(f"{C}.T"), f"{C}_T", STEPS, 1000)
schedule = dif.make_schedule(kind, T)
if view == "posterior":
    kit.explain(C, "posterior")
    posterior_view(schedule)
else:
    with c:
        text = state.text(t(f"{C}.x0"), f"{C}_x0", "-1, -0.5, 0, 0.5, 1")
    if view == "kl":
        kit.explain(C, "kl")
        kl_view()
        kit.explain(C, "prior")
    else:
        kit.explain(C, "elbo")
    with kit.guard():
        x0 = dif.parse_data(text)
        if view == "kl":
            prior_block(kind, T, x0)
        else:
            elbo_view(schedule, x0)
    if view == "elbo":
        kit.derivation(C, "eps_form")
state.show_notices()
kit.try_this(C)
kit.exercise(C, make_exercise)
kit.show_code(C, dif.make_schedule, dif.posterior_coefficients, dif.q_posterior, dif.gaussian_kl,
              dif.prior_kl_bits_per_dim, dif.eps_loss_weights)  # fmt: skip
