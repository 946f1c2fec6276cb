"""Softmax & temperature: T sharpens or flattens; why attention divides by sqrt(d);
calibration by temperature scaling; the temperature of SimCLR's NT-Xent loss."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import contrastive as ct
from core import softmax as sm
from core import stats
from figures import softmax as figs
from ui import cache, exercises, kit, live, prefetch, tex

TEMPERATURES = sorted(
    {float(f"{x:.2g}") for x in np.geomspace(0.05, 20, 49)}
    | {0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0}
)
# 1-2-5 steps plus the values the "try this" prompts name
NICE = {float(f"{m * 10.0**e:.2g}") for e in range(-2, 1) for m in (1, 2, 5)}  # 0.01 .. 5
TAUS = sorted({float(f"{x:.2g}") for x in np.geomspace(0.01, 10, 37)} | NICE | {10.0})
DIMS = [2**k for k in range(11)]  # 1 .. 1024
N_PAIRS = 4000
OVERCONFIDENCE = [1.0 + 0.25 * k for k in range(13)]  # the calibration view's s: 1.0 .. 4.0
CASE_SIZE, CASE_CLASSES = 5000, 10  # the calibration view's classifier: samples, classes

# One part at a time: a slider step re-renders less, and the class looks at one idea.
page = kit.Page(
    "softmax",
    views=("temperature", "sqrt_d", "calibration", "contrastive"),
    exercise=exercises.softmax,
    code=(
        sm.softmax,
        sm.zero_temperature_limit,
        sm.entropy,
        sm.expected_calibration_error,
        sm.fit_temperature,
        ct.explain_nt_xent,
    ),
)


@page.view("temperature")
def temperature() -> None:
    temperature_view(sm.parse_logits(page.text("logits", "5, 6, 7")))


def temperature_state(u: np.ndarray, T: float) -> tuple[np.ndarray, float, list[kit.Check]]:
    """p = softmax(u / T), its entropy H and the checks that hold at T."""
    p = sm.softmax(u, T)
    H, ln_n = float(sm.entropy(p)), float(np.log(len(u)))
    shifted = sm.softmax(u + 1000.0, T)
    return (
        p,
        H,
        [
            kit.Check(page.tr("check_sum"), abs(p.sum() - 1) < 1e-12, f"{p.sum():.12f}"),
            kit.Check(page.tr("check_entropy"), -1e-12 <= H <= ln_n + 1e-12),
            kit.Check(
                page.tr("check_shift"),
                np.allclose(shifted, p, rtol=1e-9, atol=1e-12),
                f"max |Δ| = {np.abs(shifted - p).max():.1e}",
            ),
            kit.Check(page.tr("check_argmax"), int(np.argmax(u)) == int(np.argmax(p))),
        ],
    )


@kit.fragment
def temperature_view(u: np.ndarray) -> None:
    """The live T slider: every temperature of the grid computed here, drawn in the browser
    (ui.live); the formula below follows once the slider settles (a rerun of this part)."""
    T = live.current(page.key("T"), TEMPERATURES, 1.0)
    labels = [f"u{i + 1} = {x:g}" for i, x in enumerate(u)]
    grid = np.geomspace(TEMPERATURES[0], TEMPERATURES[-1], 80)
    curve = sm.entropy(sm.softmax(u[None, :] / grid[:, None]))
    ln_n, n = float(np.log(len(u))), len(u)
    states = []
    at_T = {}  # the current T's state, kept from the loop for the formula
    for t in TEMPERATURES:
        p_t, H_t, checks_t = at_T[t] = temperature_state(u, t)
        k_t = int(np.argmax(p_t))
        numbers = [
            ("T", f"{t:g}"),
            ("p", "(" + ", ".join(f"{x:.4f}" for x in p_t) + ")"),
            (f"p{tex.sub(k_t + 1)}", f"{p_t[k_t]:.4f}"),
            ("H(p)", f"{H_t:.4f} ≤ ln {n} = {ln_n:.4f}"),
        ]
        updates = figs.temperature_updates(p_t, t, H_t)
        states.append(live.State(t, f"{t:g}", updates, numbers, checks_t))
    p, H, checks = at_T[T]
    k = int(np.argmax(p))
    fig = figs.temperature_figure(
        labels,
        p,
        grid,
        curve,
        T,
        H,
        ln_n,
        titles=(page.tr("probs_title"), page.tr("entropy_title")),
        y_titles=(page.tr("probability"), page.tr("entropy_axis")),
        x_title=page.tr("T_axis"),
        names=("p", page.tr("argmax_limit"), "H(T)", page.tr("current_T")),
        line_labels=(page.tr("uniform_limit"), "ln n"),
        zero_limit=sm.zero_temperature_limit(u),
    )
    live.slider(
        page.tr("temperature"), page.key("T"), states, T, fig, chart_key=page.key("probs_chart")
    )
    terms = [f"e^{{{x:g}/{T:g}}}" for x in u]
    denom = " + ".join(terms) if len(terms) <= 4 else f"{terms[0]} + \\cdots + {terms[-1]}"
    page.formula(
        "temperature",
        T=f"{T:g}",
        values=",\\ ".join(f"{x:.4f}" for x in p),
        k=k + 1,
        term=terms[k],
        denom=denom,
        pk=f"{p[k]:.4f}",
        H=f"{H:.4f}",
        n=n,
        ln_n=f"{ln_n:.4f}",
        checks=checks,
        badges_shown=False,  # the live control shows them, following T in the browser
    )


@kit.fragment
def sqrt_d_view(seed: int) -> None:
    d = page.select_slider("dimension", DIMS, 64, key=page.key("d"))
    raw, scaled = cache.dot_products(d, N_PAIRS, seed)
    variances = cache.dot_product_variances(tuple(DIMS), N_PAIRS, seed)
    a, b = st.columns(2)
    with a:
        page.chart(
            figs.dot_product_histograms(
                raw,
                scaled,
                title=page.tr("hist_title", d=d),
                x_title=page.tr("score_axis"),
                y_title=page.tr("density_axis"),
            ),
            "hist_chart",
        )
    with b:
        page.chart(
            figs.variance_vs_dimension(
                DIMS,
                variances,
                d,
                title=page.tr("var_title"),
                x_title=page.tr("d_axis"),
                y_title=page.tr("var_axis"),
            ),
            "var_chart",
        )
    v_raw, v_scaled = raw.var(ddof=1), scaled.var(ddof=1)
    top_raw = sm.softmax(raw.reshape(-1, 16)).max(axis=1).mean()
    top_scaled = sm.softmax(scaled.reshape(-1, 16)).max(axis=1).mean()
    cols = st.columns(4)
    cols[0].metric(
        page.tr("var_raw"), f"{v_raw:.3g}", f"d = {d}", delta_color="off", delta_arrow="off"
    )
    cols[1].metric(
        page.tr("var_scaled"), f"{v_scaled:.3f}", "1", delta_color="off", delta_arrow="off"
    )
    cols[2].metric(page.tr("top_weight_raw"), f"{top_raw:.3f}")
    cols[3].metric(page.tr("top_weight_scaled"), f"{top_scaled:.3f}")

    page.formula(
        "sqrt_d",
        d=d,
        v_raw=f"{v_raw:.4g}",
        v_scaled=f"{v_scaled:.4f}",
        checks=[
            kit.Check(
                page.tr("check_var_raw"), stats.variance_within(raw, d), page.tr("within_error")
            ),
            kit.Check(
                page.tr("check_var_scaled"),
                stats.variance_within(scaled, 1.0),
                page.tr("within_error"),
            ),
        ],
    )


@kit.fragment
def calibration_view(seed: int) -> None:
    left, right = st.columns(2)
    with left:
        s = page.slider(
            "overconfidence",
            OVERCONFIDENCE[0],
            OVERCONFIDENCE[-1],
            2.5,
            step=OVERCONFIDENCE[1] - OVERCONFIDENCE[0],
            key=page.key("overconf"),
        )
    with right:
        M = page.slider("bins", 5, 30, 15)
    logits, labels, T_fit = cache.calibration_case(CASE_SIZE, CASE_CLASSES, s, seed)
    # a new seed or over-confidence fits T again (20-60 ms): the next stops in the background
    stops = {"seed": (kit.SEEDS, seed), "s": (OVERCONFIDENCE, s)}
    ahead = prefetch.next_settings(page.key("ahead_calibration"), stops)
    prefetch.ahead(
        cache.calibration_case, [(CASE_SIZE, CASE_CLASSES, at["s"], at["seed"]) for at in ahead]
    )
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
        page.chart(
            figs.reliability_diagram(
                bins_b.edges,
                bins_b.accuracy,
                bins_a.accuracy,
                title=page.tr("reliability_title"),
                x_title=page.tr("confidence_axis"),
                y_title=page.tr("accuracy_axis"),
                names=(page.tr("before"), page.tr("after", T=f"{T_fit:.2f}"), page.tr("perfect")),
                hover=page.tr("hover_bin", x="%{x:.2f}", y="%{y:.3f}"),
            ),
            "reliability_chart",
            kept=True,
        )
    with b:
        st.metric(
            page.tr("fitted_T"), f"{T_fit:.3f}", f"s = {s:g}", delta_color="off", delta_arrow="off"
        )
        st.metric(page.tr("ece_before"), f"{ece_b:.4f}")
        st.metric(
            page.tr("ece_after"), f"{ece_a:.4f}", f"{ece_a - ece_b:+.4f}", delta_color="inverse"
        )
    page.formula(
        "calibration",
        M=M,
        ece_before=f"{ece_b:.4f}",
        T_fit=f"{T_fit:.3f}",
        ece_after=f"{ece_a:.4f}",
        checks=[
            kit.Check(
                page.tr("check_T"),
                abs(T_fit - s) <= 0.1 * s,
                page.tr("fit_vs_s", fit=f"{T_fit:.3f}", s=f"{s:g}"),
            ),
            kit.Check(page.tr("check_ece"), ece_a < ece_b or ece_b < 0.02),
            kit.Check(
                page.tr("check_accuracy"),
                bool(np.array_equal(correct_a, correct_b)),
                f"{correct_b.mean():.3f}",
            ),
        ],
    )


@kit.fragment
def contrastive_view(seed: int) -> None:
    cols = st.columns(4)
    with cols[0]:
        tau = page.select_slider("tau", TAUS, 0.5)
    with cols[1]:
        B = page.slider("pairs", 2, 8, 4)
    with cols[2]:
        spread = page.slider("spread", 0.0, 2.0, 0.5, step=0.1)
    with cols[3]:
        i = page.slider("anchor", 0, 2 * B - 1, 0)
    z, losses, loss_limit = cache.contrastive_case(B, spread, seed, tuple(TAUS))
    nce = ct.explain_nt_xent(z, tau)
    loss, probs = nce.loss, nce.probs
    positive = (i + B) % (2 * B)
    grid = np.array(TAUS)
    a, b = st.columns(2)
    with a:
        page.chart(
            figs.contrastive_distribution(
                probs[i],
                positive,
                i,
                title=page.tr("nce_title", i=i, m=2 * B - 1, tau=f"{tau:g}"),
                x_title=page.tr("embedding_axis"),
                y_title=page.tr("probability"),
                names=(page.tr("positive"), page.tr("negatives")),
            ),
            "nce_chart",
        )
    with b:
        page.chart(
            figs.loss_vs_tau(
                grid,
                losses,
                tau,
                loss,
                title=page.tr("loss_title"),
                x_title=page.tr("tau_axis"),
                y_title=page.tr("loss_axis"),
            ),
            "loss_chart",
        )
    ell = -np.log(probs[i, positive])
    sim = "e^{{\\mathrm{{sim}}(z_{{{a}}}, z_{{{b}}})/\\tau}}"
    page.formula(
        "contrastive",
        i=i,
        j=positive,
        positive=sim.format(a=i, b=positive),
        others=sim.format(a=i, b="k"),
        p_pos=f"{probs[i, positive]:.4f}",
        ell=f"{ell:.4f}",
        two_B=2 * B,
        loss=f"{loss:.4f}",
        checks=[
            kit.Check(page.tr("check_row"), abs(probs[i].sum() - 1) < 1e-12),
            kit.Check(page.tr("check_loss"), ell >= 0),
            kit.Check(
                page.tr("check_limit"),
                abs(loss_limit - np.log(2 * B - 1)) < 1e-4,
                f"ln {2 * B - 1} = {np.log(2 * B - 1):.4f}",
            ),
        ],
    )


@page.view("sqrt_d", "calibration", "contrastive")
def random_parts() -> None:
    """The parts drawn from a seed: the seed first, then the part's live view."""
    with st.columns([1, 3])[0]:
        seed = page.seed()
    view = {
        "sqrt_d": sqrt_d_view,
        "calibration": calibration_view,
        "contrastive": contrastive_view,
    }[page.current_view]
    view(seed)
    if page.current_view == "calibration":
        page.derivation("nll")


page.run()
