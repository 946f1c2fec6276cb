"""The Wallis product: partial products approaching π/2, and the integrals that prove it."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy

from core import wallis as w
from figures import wallis as figs
from ui import exercises, kit, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()

C = "wallis"
N_VALUES = sorted({int(round(x)) for x in np.geomspace(1, 100_000, 61)} | {200, 400, 600, 800})
EXACT_UP_TO = 12
VIEWS = ("product", "integrals")
X = np.linspace(0, math.pi / 2, 161)
K = np.arange(0, 43)
W_FLOAT = w.wallis_integral_float(K)

kit.intro(C)
view = state.choice(
    t("wallis.view"), "wallis_view", VIEWS, "product", format_func=lambda v: t(f"wallis.tab_{v}")
)


def sci(x: float) -> str:
    """``7.389 \\times 10^{-2}`` for LaTeX."""
    mantissa, exponent = f"{x:.4e}".split("e")
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


@kit.fragment
def product_view() -> None:
    """The n slider, the two plots and the formula with today's n."""
    n = state.select_slider(t("wallis.n"), "wallis_n", N_VALUES, 10)
    P = w.wallis_partial_products(n)
    N = np.unique(np.geomspace(1, n, 100).round().astype(int))  # ≤ 100 samples, last = n
    kit.chart(figs.product_figure(
        N, 2 * P[N - 1], n, titles=(t("wallis.product_title"), t("wallis.error_title")),
        x_title=t("wallis.N_axis"), y_titles=(t("wallis.two_P_axis"), t("wallis.error_axis")),
        names=("2·P_N", "π − 2·P_N", t("wallis.asymptote"), t("wallis.current_n")),
    ), key="wallis_chart")  # fmt: skip
    Pn, gap, asym = float(P[-1]), math.pi - 2 * float(P[-1]), math.pi / (4 * n)
    lower = math.pi / 2 * (2 * n + 1) / (2 * n + 2)
    checks = []
    if n > 3:
        factors = "".join(f"\\cdot\\frac{{{4 * k * k}}}{{{4 * k * k - 1}}}" for k in range(1, 3))
        factors += f"\\cdots\\frac{{{4 * n * n}}}{{{4 * n * n - 1}}}"
    else:
        factors = "".join(
            f"\\cdot\\frac{{{4 * k * k}}}{{{4 * k * k - 1}}}" for k in range(1, n + 1)
        )
    exact = ""
    if n <= EXACT_UP_TO:
        F = 2 * w.wallis_partial_product_exact(n)
        exact = f" = \\frac{{{F.numerator}}}{{{F.denominator}}}"
        checks.append(kit.Check(t("wallis.check_exact"), abs(float(F) - 2 * Pn) < 1e-14))
    kit.formula(
        "\\begin{gathered}"
        f"2P_{{{n}}} = 2\\prod_{{k=1}}^{{{n}}} \\frac{{4k^2}}{{4k^2-1}} = 2{factors}{exact}"
        f" = {2 * Pn:.10f}\\\\[6pt]"
        f"\\pi - 2P_{{{n}}} = {sci(gap)} \\;\\approx\\; \\frac{{\\pi}}{{4\\cdot {n}}} = {sci(asym)}"
        "\\\\[6pt]"
        f"\\frac{{\\pi}}{{2}}\\cdot\\frac{{{2 * n + 1}}}{{{2 * n + 2}}} = {lower:.8f}"
        f" \\le P_{{{n}}} = {Pn:.8f} \\le \\frac{{\\pi}}{{2}} = {math.pi / 2:.8f}"
        "\\end{gathered}",
        checks=[
            kit.Check(t("wallis.check_below_pi"), 2 * Pn < math.pi, f"{2 * Pn:.10f}"),
            kit.Check(t("wallis.check_increasing"), bool(np.all(np.diff(P) > 0))),
            kit.Check(t("wallis.check_sandwich"), lower <= Pn <= math.pi / 2),
            kit.Check(t("wallis.check_asymptote"), 0.6 <= gap / asym <= 1.0,
                      t("wallis.ratio", r=f"{gap / asym:.5f}")),
            *checks,
        ],
    )  # fmt: skip


@kit.fragment
def integrals_view() -> None:
    """The N slider: the nested integrands, the W_k and the exact sandwich."""
    N = state.slider(t("wallis.N"), "wallis_N", 0, 20, 2)
    s = np.sin(X)
    curves = np.stack([s ** (2 * N), s ** (2 * N + 1), s ** (2 * N + 2)])
    kit.chart(figs.integrals_figure(
        X, curves, K, W_FLOAT, N, titles=(t("wallis.integrands_title"), t("wallis.W_title")),
        x_titles=(t("wallis.x_axis"), t("wallis.k_axis")), y_titles=("sinᵐx", t("wallis.W_axis")),
    ), key="wallis_integrals_chart")  # fmt: skip
    W2, W1, W0 = w.sandwich(N)  # W_{2N+2}, W_{2N+1}, W_{2N}
    P_N = w.wallis_partial_product_exact(N) if N else Fraction(1)
    ratio = sympy.Rational(2 * N + 1, 2 * N + 2)
    quad = [float(np.sum((row[1:] + row[:-1]) / 2) * (X[1] - X[0])) for row in curves]
    exact = [float(W0), float(W1), float(W2)]

    def tex(e: sympy.Expr) -> str:
        return sympy.latex(e)

    kit.formula(
        "\\begin{gathered}"
        "W_m = \\tfrac{m-1}{m}\\,W_{m-2},\\quad W_0 = \\tfrac{\\pi}{2},\\ W_1 = 1\\\\[6pt]"
        f"W_{{{2 * N + 2}}} = {tex(W2)} \\approx {float(W2):.6f} \\;\\le\\; "
        f"W_{{{2 * N + 1}}} = {tex(W1)} \\approx {float(W1):.6f} \\;\\le\\; "
        f"W_{{{2 * N}}} = {tex(W0)} \\approx {float(W0):.6f}\\\\[6pt]"
        f"\\frac{{{2 * N + 1}}}{{{2 * N + 2}}} = {float(ratio):.6f} \\;\\le\\; "
        f"\\frac{{W_{{{2 * N + 1}}}}}{{W_{{{2 * N}}}}} = \\frac{{2}}{{\\pi}}P_{{{N}}}"
        f" = {float(W1 / W0):.6f} \\;\\le\\; 1"
        "\\end{gathered}",
        checks=[
            kit.Check(t("wallis.check_recurrence"), sympy.simplify(W2 - ratio * W0) == 0),
            kit.Check(t("wallis.check_order"), bool(W2 <= W1 <= W0)),
            kit.Check(t("wallis.check_ratio"),
                      sympy.simplify(W1 / W0 - 2 * sympy.Rational(P_N) / sympy.pi) == 0),
            kit.Check(t("wallis.check_quadrature"),
                      bool(np.allclose(quad, exact, rtol=1e-4, atol=1e-6)),
                      f"max |Δ| = {max(abs(a - b) for a, b in zip(quad, exact, strict=True)):.1e}"),
        ],
    )  # fmt: skip


if view == "product":
    kit.explain(C, "product")
    product_view()
else:
    kit.explain(C, "integrals")
    integrals_view()
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.wallis)
kit.show_code(
    C, w.wallis_partial_products, w.wallis_partial_product_exact, w.wallis_integral, w.sandwich
)
