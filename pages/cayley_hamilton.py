"""Cayley–Hamilton: F_A(A) = O exactly, in floating point, and what it is good for."""

from __future__ import annotations

import numpy as np
import streamlit as st
import sympy

from core import cayley_hamilton as ch
from figures import cayley_hamilton as figs
from ui import exercises, kit, tex

SHOW_MATRICES_UP_TO = 4  # larger matrices are summarised, not printed in the formula
DEFAULT_MATRIX = "2 1 0; -1 2 1; 0 1 1"
EPS = float(np.finfo(np.float64).eps)

page = kit.Page(
    "cayley_hamilton",
    views=("theorem", "two_by_two"),
    exercise=exercises.cayley_hamilton,
    code=(
        ch.parse_matrix,
        ch.characteristic_coefficients,
        ch.horner_steps,
        ch.cayley_hamilton_residual,
        ch.inverse_by_cayley_hamilton,
        ch.power_by_reduction,
    ),
)


def mat(M: sympy.Matrix) -> str:
    if M.shape[0] > SHOW_MATRICES_UP_TO and M.is_zero_matrix:
        return f"O_{{{M.shape[0]}\\times {M.shape[1]}}}"
    if M.shape[0] > SHOW_MATRICES_UP_TO:
        biggest = sympy.latex(max(abs(x) for x in M))
        return f"\\left({M.shape[0]}\\times{M.shape[1]},\\ \\max |m_{{ij}}| = {biggest}\\right)"
    return sympy.latex(M)


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
        inv_tex = f"\\det A = 0:\\ \\text{{{page.tr('no_inverse')}}}"
    page.formula(
        "theorem",
        A=mat(A),
        F=sympy.latex(F.as_expr()),
        horner=horner,
        residual=mat(steps[-1]),
        size=tex.sci(size, 3, moderate=None),
        n=n,
        scale=tex.sci(scale * EPS, 3, moderate=None),
        inverse=inv_tex,
        checks=[
            kit.Check(page.tr("check_zero"), steps[-1].is_zero_matrix),
            kit.Check(page.tr("check_trace_det"), c[1] == -A.trace() and c[-1] == (-1) ** n * det),
            kit.Check(
                page.tr("check_float"),
                size <= 1e3 * n * scale * EPS,
                f"{size / (scale * EPS):.1f} ‖A‖ⁿε",
            ),
            kit.Check(page.tr("check_inverse"), inv_ok, "" if det != 0 else page.tr("singular")),
        ],
    )
    box = st.expander(page.tr("horner"), key=page.key("steps"), on_change="rerun")
    if box.open:
        with box:
            st.markdown(
                "$$\n\\begin{gathered}"
                + "\\\\[4pt]".join(f"B_{{{j}}} = {sympy.latex(B)}" for j, B in enumerate(steps))
                + "\\end{gathered}\n$$"
            )
    powers_view(A)


def power_control(widgets: bool) -> int:
    return page.slider("k", 0, 60, 5, widget=widgets)


@kit.fragment
def powers_view(A: sympy.Matrix) -> None:
    """The power slider: A^k from the remainder t^k mod F_A(t) (reruns alone). The slider is
    read first and drawn above the chart after it (``kit.controls_after_the_chart``): a switch
    to this view built it, and laid the whole new view out to measure it, in the pass of
    the theorem's formula (bench/controls_report.md, round 28)."""
    with kit.controls_after_the_chart(power_control) as k:
        r, A_k = ch.power_by_reduction(A, k)
        powers_chart(A, r)
    n = A.shape[0]
    rem = sympy.Poly(list(reversed(r)), ch.t).as_expr() if any(r) else 0
    page.formula(
        "powers",
        k=k,
        remainder=sympy.latex(rem),
        A_k=mat(A_k),
        checks=[
            kit.Check(page.tr("check_power"), A_k == A**k),
            kit.Check(page.tr("check_degree"), len(r) <= n),
        ],
    )


def powers_chart(A: sympy.Matrix, r: list) -> None:
    page.chart(
        figs.powers_figure(
            np.linalg.eigvals(ch.to_float(A)),
            r,
            titles=(page.tr("eigen_title"), page.tr("remainder_title")),
            axis_titles=(
                page.tr("re_axis"),
                page.tr("im_axis"),
                page.tr("power_axis"),
                page.tr("coef_axis"),
            ),
            names=(page.tr("eigen_name"), page.tr("coef_name")),
        ),
        "chart",
        kept=True,
    )


def two_by_two_part() -> None:
    A, residual = ch.two_by_two_identity()
    page.formula(
        "two_by_two",
        A=sympy.latex(A),
        A2=sympy.latex(A * A),
        residual=sympy.latex(residual),
        checks=[kit.Check(page.tr("check_symbolic"), residual.is_zero_matrix)],
    )


@page.view("theorem")
def theorem() -> None:
    """A typed matrix (parsed by hand, never evaluated) or a seeded random one."""
    if page.toggle("random", False):
        a, b, _ = st.columns([1, 1, 2])
        with a:
            n = page.number("n", 1, ch.MAX_SIZE, 4)
        with b:
            seed = page.seed()
        theorem_part(ch.random_integer_matrix(n, np.random.default_rng(seed)))
    else:
        text = page.text("matrix", DEFAULT_MATRIX, max_chars=ch.MAX_CHARS)
        theorem_part(ch.parse_matrix(text))


page.view("two_by_two")(two_by_two_part)
page.run()
