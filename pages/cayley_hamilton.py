"""Cayley–Hamilton: F_A(A) = O exactly, in floating point, and what it is good for."""

from __future__ import annotations

import numpy as np
import streamlit as st
import sympy

from core import cayley_hamilton as ch
from figures import cayley_hamilton as figs
from ui import exercises, kit, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()

C = "cayley_hamilton"
VIEWS = ("theorem", "two_by_two")
SHOW_MATRICES_UP_TO = 4  # larger matrices are summarised, not printed in the formula
DEFAULT_MATRIX = "2 1 0; -1 2 1; 0 1 1"
EPS = float(np.finfo(np.float64).eps)

kit.intro(C)
view = state.choice(
    t("cayley_hamilton.view"), "cayley_hamilton_view", VIEWS, "theorem",
    format_func=lambda v: t(f"cayley_hamilton.tab_{v}"),
)  # fmt: skip


def mat(M: sympy.Matrix) -> str:
    if M.shape[0] > SHOW_MATRICES_UP_TO and M.is_zero_matrix:
        return f"O_{{{M.shape[0]}\\times {M.shape[1]}}}"
    if M.shape[0] > SHOW_MATRICES_UP_TO:
        biggest = sympy.latex(max(abs(x) for x in M))
        return f"\\left({M.shape[0]}\\times{M.shape[1]},\\ \\max |m_{{ij}}| = {biggest}\\right)"
    return sympy.latex(M)


def sci(x: float) -> str:
    """``5.77 \\times 10^{-15}`` for LaTeX (0 stays 0)."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.2e}".split("e")
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


def horner_tex(c: list) -> str:
    """((A + c_{n−1}I)A + c_{n−2}I)A + … + c_0 I with the numbers in."""
    out = "A"
    for j, coeff in enumerate(c[1:]):
        term = f"{'+' if coeff >= 0 else '-'} {sympy.latex(abs(coeff))}I"
        out = f"({out} {term})" if j < len(c) - 2 else f"{out} {term}"
        if j < len(c) - 2:
            out += "A"
    return out


def theorem_part(A: sympy.Matrix) -> None:
    n = A.shape[0]
    c = ch.characteristic_coefficients(A)
    F = sympy.Poly(c, ch.t)
    steps = ch.horner_steps(A)
    Af = ch.to_float(A)
    R_float = ch.cayley_hamilton_residual(Af)
    size = float(np.abs(R_float).max())
    scale = max(float(np.linalg.norm(Af, 2)), 1.0) ** n
    det = A.det()
    horner = (
        horner_tex(c)
        if n <= SHOW_MATRICES_UP_TO
        else "(\\dots((A + c_{n-1}I)A + c_{n-2}I)A + \\dots)A + c_0 I"
    )
    inv_ok = True
    if det != 0:
        A_inv = ch.inverse_by_cayley_hamilton(A)
        inv_tex = "A^{-1} = -\\tfrac{1}{c_0}\\bigl(A^{n-1} + \\dots + c_1 I\\bigr) = " + mat(A_inv)
        inv_ok = (A * A_inv) == sympy.eye(n)
    else:
        inv_tex = f"\\det A = 0:\\ \\text{{{t('cayley_hamilton.no_inverse')}}}"
    kit.formula(
        "\\begin{gathered}"
        f"A = {mat(A)}\\\\[8pt] F_A(t) = \\det(tI - A) = {sympy.latex(F.as_expr())}\\\\[8pt]"
        f"F_A(A) = {horner} = {mat(steps[-1])}\\\\[8pt]"
        f"\\text{{{t('cayley_hamilton.float64_tex')}: }} \\max_{{ij}} |F_A(A)_{{ij}}| = {sci(size)}"
        f" \\;\\text{{{t('cayley_hamilton.vs_tex')}}}\\; \\|A\\|_2^{{{n}}}\\,\\varepsilon"
        f" = {sci(scale * EPS)}\\\\[8pt]"
        f"{inv_tex}"
        "\\end{gathered}",
        checks=[
            kit.Check(t("cayley_hamilton.check_zero"), steps[-1].is_zero_matrix),
            kit.Check(t("cayley_hamilton.check_trace_det"),
                      c[1] == -A.trace() and c[-1] == (-1) ** n * det),
            kit.Check(t("cayley_hamilton.check_float"), size <= 1e3 * n * scale * EPS,
                      f"{size / (scale * EPS):.1f} ‖A‖ⁿε"),
            kit.Check(t("cayley_hamilton.check_inverse"), inv_ok,
                      "" if det != 0 else t("cayley_hamilton.singular")),
        ],
    )  # fmt: skip
    box = st.expander(t("cayley_hamilton.horner"), key="cayley_hamilton_steps", on_change="rerun")
    if box.open:
        with box:
            st.markdown(
                "$$\n\\begin{gathered}"
                + "\\\\[4pt]".join(f"B_{{{j}}} = {sympy.latex(B)}" for j, B in enumerate(steps))
                + "\\end{gathered}\n$$"
            )
    powers_view(A)


@kit.fragment
def powers_view(A: sympy.Matrix) -> None:
    """The power slider: A^k from the remainder t^k mod F_A(t) (reruns alone)."""
    k = state.slider(t("cayley_hamilton.k"), "cayley_hamilton_k", 0, 60, 5)
    n = A.shape[0]
    r, A_k = ch.power_by_reduction(A, k)
    kit.chart(figs.powers_figure(
        np.linalg.eigvals(ch.to_float(A)), r,
        titles=(t("cayley_hamilton.eigen_title"), t("cayley_hamilton.remainder_title")),
        axis_titles=(t("cayley_hamilton.re_axis"), t("cayley_hamilton.im_axis"),
                     t("cayley_hamilton.power_axis"), t("cayley_hamilton.coef_axis")),
        names=(t("cayley_hamilton.eigen_name"), t("cayley_hamilton.coef_name")),
    ), key="cayley_hamilton_chart")  # fmt: skip
    rem = sympy.Poly(list(reversed(r)), ch.t).as_expr() if any(r) else 0
    kit.formula(
        f"t^{{{k}}} \\bmod F_A(t) = {sympy.latex(rem)}"
        f"\\quad\\Longrightarrow\\quad A^{{{k}}} = r(A) = {mat(A_k)}",
        checks=[
            kit.Check(t("cayley_hamilton.check_power"), A_k == A**k),
            kit.Check(t("cayley_hamilton.check_degree"), len(r) <= n),
        ],
    )  # fmt: skip


def two_by_two_part() -> None:
    A, residual = ch.two_by_two_identity()
    kit.formula(
        "\\begin{gathered}"
        f"A = {sympy.latex(A)},\\quad F_A(t) = t^2 - (a+d)t + (ad - bc)\\\\[6pt]"
        f"A^2 - (a+d)A + (ad-bc)I = {sympy.latex(A * A)} - (a+d){sympy.latex(A)}"
        f" + (ad-bc)I = {sympy.latex(residual)}"
        "\\end{gathered}",
        checks=[kit.Check(t("cayley_hamilton.check_symbolic"), residual.is_zero_matrix)],
    )


kit.explain(C, view)
if view == "theorem":
    if state.toggle(t("cayley_hamilton.random"), "cayley_hamilton_random", False):
        a, b, _ = st.columns([1, 1, 2])
        with a:
            n = state.number(t("cayley_hamilton.n"), "cayley_hamilton_n", 1, ch.MAX_SIZE, 4)
        with b:
            seed = state.number(t("cayley_hamilton.seed"), "cayley_hamilton_seed", 0, 10_000, 0)
        A = ch.random_integer_matrix(n, np.random.default_rng(seed))
        theorem_part(A)
    else:
        text = state.text(t("cayley_hamilton.matrix"), "cayley_hamilton_matrix", DEFAULT_MATRIX,
                          max_chars=ch.MAX_CHARS)  # fmt: skip
        with kit.guard():
            A = ch.parse_matrix(text)
            theorem_part(A)
else:
    two_by_two_part()
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.cayley_hamilton)
kit.show_code(
    C, ch.parse_matrix, ch.characteristic_coefficients, ch.horner_steps,
    ch.cayley_hamilton_residual, ch.inverse_by_cayley_hamilton, ch.power_by_reduction,
)  # fmt: skip
