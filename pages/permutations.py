"""Permutations and their sign: inversions, cycles and the difference product agree."""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce

import numpy as np
import streamlit as st
import sympy

from core import permutations as pm
from figures import permutations as figs
from ui import exercises, kit, state
from ui.boot import require_entrypoint
from ui.i18n import t

require_entrypoint()

C = "permutations"
VIEWS = ("sign", "compose")
MAX_LISTED = 12  # inversions written out in the formula; the picture shows all of them

kit.intro(C)
view = state.choice(
    t("permutations.view"), "permutations_view", VIEWS, "sign",
    format_func=lambda v: t(f"permutations.tab_{v}"),
)  # fmt: skip


def two_line(p: Sequence[int]) -> str:
    top = " & ".join(str(i) for i in range(1, len(p) + 1))
    return f"\\begin{{pmatrix}} {top} \\\\ {' & '.join(map(str, p))} \\end{{pmatrix}}"


def cycles_tex(p: Sequence[int]) -> str:
    return pm.cycle_notation(p).replace("id", "\\mathrm{id}").replace(" ", "\\ ")


def pm_sign(s: int) -> str:
    return "+1" if s > 0 else "-1"


@kit.fragment
def sign_view(sigma: tuple[int, ...]) -> None:
    """The power slider and everything about ρ = σᵏ (reruns alone on each step)."""
    k = state.slider(t("permutations.k"), "permutations_k", -12, 12, 1)  # σ⁰ = id, σ⁻ᵏ = (σ⁻¹)ᵏ
    rho = pm.power(sigma, k)
    inv = pm.inversions(rho)
    cyc = pm.cycles(rho)
    trans = pm.transpositions(rho)
    s_inv, s_cyc, s_diff = pm.sign(rho), pm.sign_by_cycles(rho), pm.sign_by_difference_product(rho)
    kit.chart(figs.wiring_diagram(
        rho, inv, title=t("permutations.wiring_title"),
        names=(t("permutations.strands"), t("permutations.crossing"), "1 … n"),
    ), key="permutations_chart")  # fmt: skip
    n = len(rho)
    listed = ", ".join(f"({i},{j})" for i, j in inv[:MAX_LISTED])
    listed += ", \\dots" if len(inv) > MAX_LISTED else ""
    lengths = " + ".join(f"({len(c)}-1)" for c in cyc) or "0"
    trans_tex = "".join(f"({a}\\ {b})" for a, b in trans) or "\\mathrm{id}"
    xs = ", ".join(f"x_{{{v}}}" for v in rho)
    product = reduce(
        pm.compose, [pm.transposition(n, a, b) for a, b in trans], tuple(range(1, n + 1))
    )
    power_label = "\\sigma" if k == 1 else f"\\sigma^{{{k}}}"
    back = pm.compose(rho, pm.power(sigma, -k))  # σᵏ ∘ σ⁻ᵏ = id for every k
    kit.formula(
        "\\begin{gathered}"
        f"\\rho = {power_label} = {two_line(rho)} = {cycles_tex(rho)}\\\\[8pt]"
        f"\\text{{{t('permutations.inversions_tex')}: }} \\{{{listed}\\}},\\quad"
        f" (-1)^{{{len(inv)}}} = {pm_sign(s_inv)}"
        f"\\\\[4pt] \\text{{{t('permutations.cycles_tex')}: }} (-1)^{{{lengths}}}"
        f" = {pm_sign(s_cyc)},"
        f"\\quad \\rho = {trans_tex}\\\\[4pt]"
        f"\\frac{{D({xs})}}{{D(x_1, \\dots, x_{{{n}}})}} = {pm_sign(s_diff)},\\qquad "
        "D(x_1, \\dots, x_n) = \\prod_{i<j} (x_j - x_i)"
        "\\end{gathered}",
        checks=[
            kit.Check(t("permutations.check_agree"), s_inv == s_cyc == s_diff,
                      f"{pm_sign(s_inv)}, {pm_sign(s_cyc)}, {pm_sign(s_diff)}"),
            kit.Check(t("permutations.check_power"), s_inv == pm.sign(sigma) ** k),
            kit.Check(t("permutations.check_negative"), back == tuple(range(1, n + 1)),
                      f"k = {k}"),
            kit.Check(t("permutations.check_transpositions"), product == rho,
                      t("permutations.n_transpositions", k=len(trans))),
            kit.Check(t("permutations.check_crossings"),
                      len(figs.crossings(rho, inv)[0]) == len(inv), str(len(inv))),
        ],
    )  # fmt: skip


def compose_view(sigma: tuple[int, ...], tau: tuple[int, ...]) -> None:
    n = max(len(sigma), len(tau))
    s, tt = pm.extend(sigma, n), pm.extend(tau, n)
    st_, ts = pm.compose(s, tt), pm.compose(tt, s)
    P_s, P_t, P_st = (pm.permutation_matrix(p) for p in (s, tt, st_))
    kit.chart(
        figs.matrices_figure(
            [P_s, P_t, P_st],
            titles=["P_σ", "P_τ", "P_στ = P_σ P_τ"],
            hovertemplate=t("permutations.hover_cell", row="%{y}", col="%{x}", value="%{z}")
            + "<extra></extra>",
        ),
        key="permutations_matrices_chart",
    )
    lhs, rhs = pm.inverse(st_), pm.compose(pm.inverse(tt), pm.inverse(s))
    det = int(sympy.Matrix(P_s.tolist()).det())
    kit.formula(
        "\\begin{gathered}"
        f"\\sigma = {two_line(s)},\\quad \\tau = {two_line(tt)}\\\\[6pt]"
        f"\\sigma\\tau = {two_line(st_)},\\quad \\tau\\sigma = {two_line(ts)}\\\\[6pt]"
        f"(\\sigma\\tau)^{{-1}} = {cycles_tex(lhs)}"
        f" = \\tau^{{-1}}\\sigma^{{-1}} = {cycles_tex(rhs)}"
        f"\\qquad \\operatorname{{sgn}}(\\sigma\\tau) = {pm_sign(pm.sign(st_))} = "
        f"({pm_sign(pm.sign(s))})({pm_sign(pm.sign(tt))}),\\quad \\det P_\\sigma = {det}"
        "\\end{gathered}",
        checks=[
            kit.Check(t("permutations.check_inverse"), lhs == rhs),
            kit.Check(t("permutations.check_sign_product"),
                      pm.sign(st_) == pm.sign(s) * pm.sign(tt)),
            kit.Check(t("permutations.check_matrix_product"),
                      bool(np.array_equal(P_s @ P_t, P_st))),
            kit.Check(t("permutations.check_det"), det == pm.sign(s)),
            kit.Check(t("permutations.check_inverse_matrix"),
                      bool(np.array_equal(pm.permutation_matrix(pm.inverse(s)), P_s.T))),
        ],
    )  # fmt: skip


kit.explain(C, view)
if state.toggle(t("permutations.random"), "permutations_random", False):
    a, b, _ = st.columns([1, 1, 2])
    with a:
        n = state.number(t("permutations.n"), "permutations_n", 1, pm.MAX_N, 6)
    with b:
        seed = state.number(t("permutations.seed"), "permutations_seed", 0, 10_000, 0)
    sigma_text = pm.one_line(pm.random_permutation(n, np.random.default_rng(seed)))
    st.caption(f"σ = {sigma_text}")
else:
    sigma_text = state.text(t("permutations.sigma"), "permutations_sigma", "2 4 3 1")
tau_text = "(1 3)"
if view == "compose":
    tau_text = state.text(t("permutations.tau"), "permutations_tau", "(1 3)")
with kit.guard():
    sigma = pm.parse_permutation(sigma_text)
    if view == "sign":
        sign_view(sigma)
        kit.derivation(C, "sign_proofs")
    else:
        compose_view(sigma, pm.parse_permutation(tau_text))
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.permutations)
kit.show_code(
    C, pm.parse_permutation, pm.inversions, pm.sign, pm.cycles, pm.sign_by_cycles,
    pm.transpositions, pm.sign_by_difference_product, pm.compose, pm.inverse,
)  # fmt: skip
