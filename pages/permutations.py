"""Permutations and their sign: inversions, cycles and the difference product agree."""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce

import numpy as np
import streamlit as st
import sympy

from core import permutations as pm
from figures import permutations as figs
from ui import exercises, kit, live

MAX_LISTED = 12  # inversions written out in the formula; the picture shows all of them

page = kit.Page(
    "permutations",
    views=("sign", "compose"),
    exercise=exercises.permutations,
    code=(
        pm.parse_permutation,
        pm.inversions,
        pm.sign,
        pm.cycles,
        pm.sign_by_cycles,
        pm.transpositions,
        pm.sign_by_difference_product,
        pm.compose,
        pm.inverse,
        pm.power,
    ),
)


def two_line(p: Sequence[int]) -> str:
    top = " & ".join(str(i) for i in range(1, len(p) + 1))
    return f"\\begin{{pmatrix}} {top} \\\\ {' & '.join(map(str, p))} \\end{{pmatrix}}"


def cycles_tex(p: Sequence[int]) -> str:
    return pm.cycle_notation(p).replace("id", "\\mathrm{id}").replace(" ", "\\ ")


def pm_sign(s: int) -> str:
    return "+1" if s > 0 else "-1"


POWERS = tuple(range(-12, 13))  # σ⁰ = id, σ⁻ᵏ = (σ⁻¹)ᵏ


def power_checks(sigma: tuple[int, ...], k: int) -> tuple[tuple[int, ...], list, list[kit.Check]]:
    """ρ = σᵏ, its inversions and the live checks: three signs agree, sgn(σᵏ) = sgn(σ)ᵏ,
    σᵏ ∘ σ⁻ᵏ = id, the transpositions multiply back to ρ, one crossing per inversion."""
    rho = pm.power(sigma, k)
    inv = pm.inversions(rho)
    trans = pm.transpositions(rho)
    n = len(rho)
    s_inv, s_cyc, s_diff = pm.sign(rho), pm.sign_by_cycles(rho), pm.sign_by_difference_product(rho)
    product = reduce(
        pm.compose, [pm.transposition(n, a, b) for a, b in trans], tuple(range(1, n + 1))
    )
    back = pm.compose(rho, pm.power(sigma, -k))  # σᵏ ∘ σ⁻ᵏ = id for every k
    checks = [
        kit.Check(
            page.tr("check_agree"),
            s_inv == s_cyc == s_diff,
            f"{pm_sign(s_inv)}, {pm_sign(s_cyc)}, {pm_sign(s_diff)}",
        ),
        kit.Check(page.tr("check_power"), s_inv == pm.sign(sigma) ** k),
        kit.Check(page.tr("check_negative"), back == tuple(range(1, n + 1)), f"k = {k}"),
        kit.Check(
            page.tr("check_transpositions"),
            product == rho,
            page.tr("n_transpositions", k=len(trans)),
        ),
        kit.Check(
            page.tr("check_crossings"),
            len(figs.crossings(rho, inv)[0]) == len(inv),
            str(len(inv)),
        ),
    ]
    return rho, inv, checks


@kit.fragment
def sign_view(sigma: tuple[int, ...]) -> None:
    """The power k as a live control (ui.live): every power of σ is computed here and
    redrawn in the browser; the formula follows once the slider settles."""
    k = live.current(page.key("k"), POWERS, 1)
    names = (page.tr("strands"), page.tr("crossing"), "1 … n")
    states, at_k = [], {}  # at_k: each power's results, the current one kept for the formula
    for j in POWERS:
        rho_j, inv_j, checks_j = at_k[j] = power_checks(sigma, j)
        numbers = [
            ("k", str(j)),
            ("σᵏ", pm.cycle_notation(rho_j)),
            (page.tr("inversions_tex"), str(len(inv_j))),
            ("sgn", pm_sign(pm.sign(rho_j))),
        ]
        trace = figs.wiring_traces(rho_j, inv_j)
        states.append(live.State(j, str(j), trace, numbers, checks_j))
    rho, inv, checks = at_k[k]
    fig = figs.wiring_diagram(rho, inv, title=page.tr("wiring_title"), names=names)
    live.slider(page.tr("k"), page.key("k"), states, k, fig, chart_key=page.key("chart"))
    n = len(rho)
    cyc = pm.cycles(rho)
    trans = pm.transpositions(rho)
    # six pairs a line: twelve on one line are wider than the column of a 1024-pixel window
    pairs = [f"({i},{j})" for i, j in inv[:MAX_LISTED]]
    listed = ",\\\\[2pt]".join(", ".join(pairs[i : i + 6]) for i in range(0, len(pairs), 6))
    listed += ", \\dots" if len(inv) > MAX_LISTED else ""
    lengths = " + ".join(f"({len(c)}-1)" for c in cyc) or "0"
    trans_tex = "".join(f"({a}\\ {b})" for a, b in trans) or "\\mathrm{id}"
    xs = ", ".join(f"x_{{{v}}}" for v in rho)
    power_label = "\\sigma" if k == 1 else f"\\sigma^{{{k}}}"
    page.formula(
        "sign",
        power=power_label,
        two_line=two_line(rho),
        cycles=cycles_tex(rho),
        listed=listed,
        n_inv=len(inv),
        sign_inv=pm_sign(pm.sign(rho)),
        lengths=lengths,
        sign_cyc=pm_sign(pm.sign_by_cycles(rho)),
        transpositions=trans_tex,
        xs=xs,
        n=n,
        sign_diff=pm_sign(pm.sign_by_difference_product(rho)),
        checks=checks,
        badges_shown=False,  # the live control shows them, following k in the browser
    )


def compose_view(sigma: tuple[int, ...], tau: tuple[int, ...]) -> None:
    n = max(len(sigma), len(tau))
    s, tt = pm.extend(sigma, n), pm.extend(tau, n)
    st_, ts = pm.compose(s, tt), pm.compose(tt, s)
    P_s, P_t, P_st = (pm.permutation_matrix(p) for p in (s, tt, st_))
    page.chart(
        figs.matrices_figure(
            [P_s, P_t, P_st],
            titles=["P_σ", "P_τ", "P_στ = P_σ P_τ"],
            hovertemplate=page.tr("hover_cell", row="%{y}", col="%{x}", value="%{z}")
            + "<extra></extra>",
        ),
        "matrices_chart",
    )
    lhs, rhs = pm.inverse(st_), pm.compose(pm.inverse(tt), pm.inverse(s))
    det = int(sympy.Matrix(P_s.tolist()).det())
    page.formula(
        "compose",
        sigma=two_line(s),
        tau=two_line(tt),
        st=two_line(st_),
        ts=two_line(ts),
        lhs=cycles_tex(lhs),
        rhs=cycles_tex(rhs),
        sign_st=pm_sign(pm.sign(st_)),
        sign_s=pm_sign(pm.sign(s)),
        sign_t=pm_sign(pm.sign(tt)),
        det=det,
        checks=[
            kit.Check(page.tr("check_inverse"), lhs == rhs),
            kit.Check(page.tr("check_sign_product"), pm.sign(st_) == pm.sign(s) * pm.sign(tt)),
            kit.Check(page.tr("check_matrix_product"), bool(np.array_equal(P_s @ P_t, P_st))),
            kit.Check(page.tr("check_det"), det == pm.sign(s)),
            kit.Check(
                page.tr("check_inverse_matrix"),
                bool(np.array_equal(pm.permutation_matrix(pm.inverse(s)), P_s.T)),
            ),
        ],
    )


@page.view("sign", "compose")
def controls() -> None:
    """σ typed or drawn at random (and τ for the composition); the live part follows."""
    if page.toggle("random", False):
        a, b, _ = st.columns([1, 1, 2])
        with a:
            n = page.number("n", 1, pm.MAX_N, 6)
        with b:
            seed = page.seed()
        sigma_text = pm.one_line(pm.random_permutation(n, np.random.default_rng(seed)))
        st.caption(f"σ = {sigma_text}")
    else:
        sigma_text = page.text("sigma", "2 4 3 1")
    tau_text = page.text("tau", "(1 3)") if page.current_view == "compose" else ""
    sigma = pm.parse_permutation(sigma_text)
    if page.current_view == "sign":
        sign_view(sigma)
        page.derivation("sign_proofs")
    else:
        compose_view(sigma, pm.parse_permutation(tau_text))


page.run()
