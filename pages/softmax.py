"""Softmax & temperature: T sharpens or flattens; why attention divides by sqrt(d);
calibration by temperature scaling; the temperature of SimCLR's NT-Xent loss."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import softmax as sm
from figures import softmax as figs
from ui import cache, exercises, kit, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()

C = "softmax"
TEMPERATURES = sorted(
    {float(f"{x:.2g}") for x in np.geomspace(0.05, 20, 49)}
    | {0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0}
)
# 1-2-5 steps plus the values the "try this" prompts name
NICE = {float(f"{m * 10.0**e:.2g}") for e in range(-2, 1) for m in (1, 2, 5)}  # 0.01 .. 5
TAUS = sorted({float(f"{x:.2g}") for x in np.geomspace(0.01, 10, 37)} | NICE | {10.0})
DIMS = [2**k for k in range(11)]  # 1 .. 1024
N_PAIRS = 4000

VIEWS = ("temperature", "sqrt_d", "calibration", "contrastive")

kit.intro(C)
# One part at a time: a slider step re-renders less, and the class looks at one idea.
view = state.choice(
    t("softmax.view"), "softmax_view", VIEWS, "temperature",
    format_func=lambda v: t(f"softmax.tab_{v}"),
)  # fmt: skip


def temperature_part() -> None:
    kit.explain(C, "temperature")
    text = state.text(t("softmax.logits"), "softmax_logits", "5, 6, 7")
    with kit.guard():
        temperature_view(sm.parse_logits(text))


@kit.fragment
def temperature_view(u: np.ndarray) -> None:
    """The T slider and everything that follows it (reruns alone on each step)."""
    T = state.select_slider(t("softmax.temperature"), "softmax_T", TEMPERATURES, 1.0)
    p = sm.softmax(u, T)
    k = int(np.argmax(p))
    labels = [f"u{i + 1} = {x:g}" for i, x in enumerate(u)]
    grid = np.geomspace(TEMPERATURES[0], TEMPERATURES[-1], 80)
    curve = sm.entropy(sm.softmax(u[None, :] / grid[:, None]))
    H, ln_n = float(sm.entropy(p)), float(np.log(len(u)))
    kit.chart(figs.temperature_figure(
        labels, p, grid, curve, T, H, ln_n,
        titles=(t("softmax.probs_title"), t("softmax.entropy_title")),
        y_titles=(t("softmax.probability"), t("softmax.entropy_axis")), x_title=t("softmax.T_axis"),
        names=("p", t("softmax.argmax_limit"), "H(T)", t("softmax.current_T")),
        line_labels=(t("softmax.uniform_limit"), "ln n"), zero_limit=sm.zero_temperature_limit(u),
    ), key="softmax_probs_chart")  # fmt: skip
    terms = [f"e^{{{x:g}/{T:g}}}" for x in u]
    denom = " + ".join(terms) if len(terms) <= 4 else f"{terms[0]} + \\cdots + {terms[-1]}"
    shifted = sm.softmax(u + 1000.0, T)
    values = ",\\ ".join(f"{x:.4f}" for x in p)
    kit.formula(
        f"\\begin{{gathered}}p = \\mathrm{{softmax}}(u / {T:g}) = ({values})\\\\[6pt]"
        f"p_{{{k + 1}}} = \\frac{{e^{{u_{{{k + 1}}}/T}}}}{{\\sum_j e^{{u_j/T}}}}"
        f" = \\frac{{{terms[k]}}}{{{denom}}} = {p[k]:.4f}"
        f"\\qquad H(p) = -\\sum_i p_i \\ln p_i = {H:.4f} \\le \\ln {len(u)} = {ln_n:.4f}"
        "\\end{gathered}",
        checks=[
            kit.Check(t("softmax.check_sum"), abs(p.sum() - 1) < 1e-12, f"{p.sum():.12f}"),
            kit.Check(t("softmax.check_entropy"), -1e-12 <= H <= ln_n + 1e-12),
            kit.Check(t("softmax.check_shift"), np.allclose(shifted, p, rtol=1e-9, atol=1e-12),
                      f"max |Δ| = {np.abs(shifted - p).max():.1e}"),
            kit.Check(t("softmax.check_argmax"), int(np.argmax(u)) == k),
        ],
    )  # fmt: skip


@kit.fragment
def sqrt_d_view(seed: int) -> None:
    d = state.select_slider(t("softmax.dimension"), "softmax_d", DIMS, 64)
    raw, scaled = cache.dot_products(d, N_PAIRS, seed)
    variances = cache.dot_product_variances(tuple(DIMS), N_PAIRS, seed)
    a, b = st.columns(2)
    with a:
        kit.chart(figs.dot_product_histograms(
            raw, scaled, title=t("softmax.hist_title", d=d), x_title=t("softmax.score_axis"),
            y_title=t("softmax.density_axis"),
        ), key="softmax_hist_chart")  # fmt: skip
    with b:
        kit.chart(figs.variance_vs_dimension(
            DIMS, variances, d, title=t("softmax.var_title"), x_title=t("softmax.d_axis"),
            y_title=t("softmax.var_axis"),
        ), key="softmax_var_chart")  # fmt: skip
    v_raw, v_scaled = raw.var(ddof=1), scaled.var(ddof=1)
    top_raw = sm.softmax(raw.reshape(-1, 16)).max(axis=1).mean()
    top_scaled = sm.softmax(scaled.reshape(-1, 16)).max(axis=1).mean()
    cols = st.columns(4)
    cols[0].metric(
        t("softmax.var_raw"), f"{v_raw:.3g}", f"d = {d}", delta_color="off", delta_arrow="off"
    )
    cols[1].metric(
        t("softmax.var_scaled"), f"{v_scaled:.3f}", "1", delta_color="off", delta_arrow="off"
    )
    cols[2].metric(t("softmax.top_weight_raw"), f"{top_raw:.3f}")
    cols[3].metric(t("softmax.top_weight_scaled"), f"{top_scaled:.3f}")

    def close(x: np.ndarray, target: float) -> bool:  # sample variance within 4 SE of target
        se = np.sqrt(np.var((x - x.mean()) ** 2) / len(x))
        return abs(x.var(ddof=1) - target) <= 4 * se

    sample = t("softmax.sample")
    kit.formula(
        f"\\operatorname{{var}}(q\\cdot k) = \\sum_{{i=1}}^{{{d}}} \\operatorname{{var}}(q_i k_i)"
        f" = {d} \\;(\\text{{{sample}: }} {v_raw:.4g}),\\qquad"
        f"\\operatorname{{var}}\\!\\left(\\tfrac{{q\\cdot k}}{{\\sqrt{{{d}}}}}\\right) = 1"
        f"\\;(\\text{{{sample}: }} {v_scaled:.4f})",
        checks=[
            kit.Check(t("softmax.check_var_raw"), close(raw, d), t("softmax.within_error")),
            kit.Check(t("softmax.check_var_scaled"), close(scaled, 1.0), t("softmax.within_error")),
        ],
    )  # fmt: skip


@kit.fragment
def calibration_view(seed: int) -> None:
    left, right = st.columns(2)
    with left:
        s = state.slider(t("softmax.overconfidence"), "softmax_overconf", 1.0, 4.0, 2.5, step=0.25)
    with right:
        M = state.slider(t("softmax.bins"), "softmax_bins", 5, 30, 15)
    logits, labels, T_fit = cache.calibration_case(5000, 10, s, seed)
    p_before, p_after = sm.softmax(logits), sm.softmax(logits, T_fit)
    conf_b, conf_a = p_before.max(axis=1), p_after.max(axis=1)
    correct_b = p_before.argmax(axis=1) == labels
    correct_a = p_after.argmax(axis=1) == labels
    bins_b, bins_a = (
        sm.reliability_bins(conf_b, correct_b, M),
        sm.reliability_bins(conf_a, correct_a, M),
    )
    ece_b = sm.expected_calibration_error(conf_b, correct_b, M)
    ece_a = sm.expected_calibration_error(conf_a, correct_a, M)
    a, b = st.columns([3, 2])
    with a:
        kit.chart(figs.reliability_diagram(
            bins_b.edges, bins_b.accuracy, bins_a.accuracy, title=t("softmax.reliability_title"),
            x_title=t("softmax.confidence_axis"), y_title=t("softmax.accuracy_axis"),
            names=(t("softmax.before"), t("softmax.after", T=f"{T_fit:.2f}"), t("softmax.perfect")),
            hover=t("softmax.hover_bin", x="%{x:.2f}", y="%{y:.3f}"),
        ), key="softmax_reliability_chart")  # fmt: skip
    with b:
        st.metric(t("softmax.fitted_T"), f"{T_fit:.3f}", f"s = {s:g}", delta_color="off",
                  delta_arrow="off")  # fmt: skip
        st.metric(t("softmax.ece_before"), f"{ece_b:.4f}")
        st.metric(
            t("softmax.ece_after"), f"{ece_a:.4f}", f"{ece_a - ece_b:+.4f}", delta_color="inverse"
        )
    kit.formula(
        "\\begin{gathered}\\mathrm{ECE} = \\sum_{m=1}^{" + str(M) + "} \\frac{|B_m|}{N}\\,"
        "\\bigl|\\mathrm{acc}(B_m) - \\mathrm{conf}(B_m)\\bigr|"
        f" = {ece_b:.4f} \\;\\xrightarrow{{\\;u/T,\\ T = {T_fit:.3f}\\;}}\\; {ece_a:.4f}"
        "\\\\[6pt] T^\\star = \\arg\\min_T -\\tfrac1N\\sum_n \\log \\mathrm{softmax}(u_n/T)_{y_n}"
        "\\end{gathered}",
        checks=[
        kit.Check(t("softmax.check_T"), abs(T_fit - s) <= 0.1 * s,
                  t("softmax.fit_vs_s", fit=f"{T_fit:.3f}", s=f"{s:g}")),
        kit.Check(t("softmax.check_ece"), ece_a < ece_b or ece_b < 0.02),
        kit.Check(t("softmax.check_accuracy"), bool(np.array_equal(correct_a, correct_b)),
                  f"{correct_b.mean():.3f}"),
        ],
    )  # fmt: skip


@kit.fragment
def contrastive_view(seed: int) -> None:
    cols = st.columns(4)
    with cols[0]:
        tau = state.select_slider(t("softmax.tau"), "softmax_tau", TAUS, 0.5)
    with cols[1]:
        B = state.slider(t("softmax.pairs"), "softmax_pairs", 2, 8, 4)
    with cols[2]:
        spread = state.slider(t("softmax.spread"), "softmax_spread", 0.0, 2.0, 0.5, step=0.1)
    with cols[3]:
        i = state.slider(t("softmax.anchor"), "softmax_anchor", 0, 2 * B - 1, 0)
    z, losses, loss_limit = cache.contrastive_case(B, spread, seed, tuple(TAUS))
    loss, probs = sm.nt_xent(z, tau)
    positive = (i + B) % (2 * B)
    grid = np.array(TAUS)
    a, b = st.columns(2)
    with a:
        kit.chart(figs.contrastive_distribution(
            probs[i], positive, i, title=t("softmax.nce_title", i=i, m=2 * B - 1, tau=f"{tau:g}"),
            x_title=t("softmax.embedding_axis"), y_title=t("softmax.probability"),
            names=(t("softmax.positive"), t("softmax.negatives")),
        ), key="softmax_nce_chart")  # fmt: skip
    with b:
        kit.chart(figs.loss_vs_tau(
            grid, losses, tau, loss, title=t("softmax.loss_title"),
            x_title=t("softmax.tau_axis"), y_title=t("softmax.loss_axis"),
        ), key="softmax_loss_chart")  # fmt: skip
    ell = -np.log(probs[i, positive])
    sim = "e^{{\\mathrm{{sim}}(z_{{{a}}}, z_{{{b}}})/\\tau}}"
    kit.formula(
        "\\begin{gathered}"
        f"\\ell_{{{i},{positive}}} = -\\log\\frac{{{sim.format(a=i, b=positive)}}}"
        f"{{\\sum_{{k\\ne {i}}} {sim.format(a=i, b='k')}}} = -\\log {probs[i, positive]:.4f}"
        f" = {ell:.4f}\\\\[6pt] \\mathcal{{L}} = \\frac{{1}}{{{2 * B}}}\\sum_i \\ell_i = {loss:.4f}"
        "\\end{gathered}",
        checks=[
        kit.Check(t("softmax.check_row"), abs(probs[i].sum() - 1) < 1e-12),
        kit.Check(t("softmax.check_loss"), ell >= 0),
        kit.Check(t("softmax.check_limit"), abs(loss_limit - np.log(2 * B - 1)) < 1e-4,
                  f"ln {2 * B - 1} = {np.log(2 * B - 1):.4f}"),
        ],
    )  # fmt: skip


def random_part(explain: str, view_fn) -> None:
    kit.explain(C, explain)
    with st.columns([1, 3])[0]:
        seed = state.number(t("softmax.seed"), "softmax_seed", 0, 10_000, 0)
    view_fn(seed)


if view == "temperature":
    temperature_part()
elif view == "sqrt_d":
    random_part("sqrt_d", sqrt_d_view)
elif view == "calibration":
    random_part("calibration", calibration_view)
    kit.derivation(C, "nll")
else:
    random_part("contrastive", contrastive_view)
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.softmax)
kit.show_code(
    C, sm.softmax, sm.entropy, sm.expected_calibration_error, sm.fit_temperature, sm.nt_xent
)
