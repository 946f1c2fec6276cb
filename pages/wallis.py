"""The Wallis product: partial products approaching π/2, and the integrals that prove it."""

from __future__ import annotations

import math

import numpy as np

from core import wallis as w
from figures import wallis as figs
from ui import cache, exercises, kit, live, tex

N_VALUES = sorted({int(round(x)) for x in np.geomspace(1, 100_000, 61)} | {200, 400, 600, 800})
EXACT_UP_TO = 12  # 2·P_n as an exact fraction up to this n
X = np.linspace(0, math.pi / 2, 161)  # the integrands' x axis
K = np.arange(0, 43)
W_FLOAT = w.wallis_integral_float(K)
N_OPTIONS = list(range(21))  # the integrals' N: sin^{2N} … sin^{2N+2}, W_0 … W_42
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

page = kit.Page(
    "wallis",
    views=("product", "integrals"),
    exercise=exercises.wallis,
    code=(w.wallis_partial_products, w.wallis_partial_product_exact, w.wallis_integral, w.sandwich),
)


@page.view("product")
@kit.fragment
def product() -> None:
    """The n slider: 2·P_N against N, its gap to π, and the sandwich at today's n."""
    n = page.select_slider("n", N_VALUES, 10)
    P = w.wallis_partial_products(n)
    N = np.unique(np.geomspace(1, n, 100).round().astype(int))  # ≤ 100 samples, last = n
    page.chart(
        figs.product_figure(
            N,
            2 * P[N - 1],
            n,
            titles=(page.tr("product_title"), page.tr("error_title")),
            x_title=page.tr("N_axis"),
            y_titles=(page.tr("two_P_axis"), page.tr("error_axis")),
            names=("2·P_N", "π − 2·P_N", page.tr("asymptote"), page.tr("current_n")),
        ),
        "chart",
    )
    Pn, gap, asymptote = float(P[-1]), math.pi - 2 * float(P[-1]), math.pi / (4 * n)
    lower = math.pi / 2 * (2 * n + 1) / (2 * n + 2)
    shown = range(1, 3) if n > 3 else range(1, n + 1)  # the first factors, then "⋯ last"
    factors = "".join(f"\\cdot\\frac{{{4 * k * k}}}{{{4 * k * k - 1}}}" for k in shown)
    if n > 3:
        factors += f"\\cdots\\frac{{{4 * n * n}}}{{{4 * n * n - 1}}}"
    exact, checks = "", []
    if n <= EXACT_UP_TO:
        F = 2 * w.wallis_partial_product_exact(n)
        exact = f" = \\frac{{{F.numerator}}}{{{F.denominator}}}"
        checks.append(kit.Check(page.tr("check_exact"), abs(float(F) - 2 * Pn) < 1e-14))
    page.formula(
        "product",
        n=n,
        factors=factors,
        exact=exact,
        two_P=f"{2 * Pn:.10f}",
        gap=tex.sci(gap, 5, moderate=None),
        asymptote=tex.sci(asymptote, 5, moderate=None),
        odd=2 * n + 1,
        even=2 * n + 2,
        lower=f"{lower:.8f}",
        P=f"{Pn:.8f}",
        half_pi=f"{math.pi / 2:.8f}",
        checks=[
            kit.Check(page.tr("check_below_pi"), 2 * Pn < math.pi, f"{2 * Pn:.10f}"),
            kit.Check(page.tr("check_increasing"), bool(np.all(np.diff(P) > 0))),
            kit.Check(page.tr("check_sandwich"), lower <= Pn <= math.pi / 2),
            kit.Check(
                page.tr("check_asymptote"),
                0.6 <= gap / asymptote <= 1.0,
                page.tr("ratio", r=f"{gap / asymptote:.5f}"),
            ),
            *checks,
        ],
    )


def _sub(n: int) -> str:
    return str(n).translate(SUBSCRIPTS)


def integral_checks(f: dict[str, object]) -> list[kit.Check]:
    return [
        kit.Check(page.tr("check_recurrence"), bool(f["recurrence"])),
        kit.Check(page.tr("check_order"), bool(f["order"])),
        kit.Check(page.tr("check_ratio"), bool(f["product"])),
        kit.Check(page.tr("check_quadrature"), bool(f["quadrature"]), f"max |Δ| = {f['gap']:.1e}"),
    ]


@page.view("integrals")
@kit.fragment
def integrals() -> None:
    """The N control, live (ui.live): the nested integrands and the W_k of every N are sent
    once and moved in the browser; the exact sandwich in the formula and the URL follow once
    the slider settles."""
    N = live.current(page.key("N"), N_OPTIONS, 2)
    states = []
    for j in N_OPTIONS:
        f = cache.wallis_sandwich(j, len(X))
        W2, W1, W0 = f["floats"]
        numbers = [
            ("N", str(j)),
            (
                f"W{_sub(2 * j + 2)} ≤ W{_sub(2 * j + 1)} ≤ W{_sub(2 * j)}",
                f"{W2:.6f} ≤ {W1:.6f} ≤ {W0:.6f}",
            ),
            (f"{2 * j + 1}/{2 * j + 2}", f"{f['ratio']:.6f}"),
            (f"W{_sub(2 * j + 1)}/W{_sub(2 * j)}", f"{f['W_ratio']:.6f}"),
        ]
        traces = figs.integrals_traces(w.sandwich_integrands(X, j), W_FLOAT, j)
        states.append(live.State(j, str(j), traces, numbers, integral_checks(f)))
    fig = figs.integrals_figure(
        X,
        w.sandwich_integrands(X, N),
        K,
        W_FLOAT,
        N,
        titles=(page.tr("integrands_title"), page.tr("W_title")),
        x_titles=(page.tr("x_axis"), page.tr("k_axis")),
        y_titles=("sinᵐx", page.tr("W_axis")),
    )
    live.slider(page.tr("N"), page.key("N"), states, N, fig, chart_key=page.key("integrals_chart"))
    f = cache.wallis_sandwich(N, len(X))
    W2, W1, W0 = f["latex"]
    page.formula(
        "integrals",
        m2=2 * N + 2,
        m1=2 * N + 1,
        m0=2 * N,
        N=N,
        W2=W2,
        W1=W1,
        W0=W0,
        W2_float=f"{f['floats'][0]:.6f}",
        W1_float=f"{f['floats'][1]:.6f}",
        W0_float=f"{f['floats'][2]:.6f}",
        ratio=f"{f['ratio']:.6f}",
        W_ratio=f"{f['W_ratio']:.6f}",
        checks=states[N].checks,
        badges_shown=False,  # the live control shows them, following N in the browser
    )


page.run()
