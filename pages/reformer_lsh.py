"""Reformer LSH: angular buckets h(x) = argmax([xR; -xR]), sort-and-chunk attention, and the
collision probability against the angle (Monte Carlo next to the closed forms)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import toydata
from core import lsh
from figures import lsh as figs
from ui import cache, exercises, kit, state
from ui.boot import require_entrypoint
from ui.i18n import t, t_tex

require_entrypoint()

C = "reformer_lsh"
BUCKETS = list(range(2, 17, 2))  # b is even: odd values cannot be chosen (URL: notice)
N_HASH, N_ATTN, CLUSTERS, BETA, TRIALS = 24, 32, 4, 8.0, 4000
RING = np.linspace(-np.pi, np.pi, 121)[:-1]


def controls(keys: tuple[str, ...]) -> dict[str, int]:
    """The b / rounds (/ chunk) sliders in one row (inside the calling fragment)."""
    cols = st.columns(len(keys))
    out: dict[str, int] = {}
    with cols[0]:
        out["b"] = state.select_slider(t(f"{C}.b"), f"{C}_b", BUCKETS, 4)
    with cols[1]:
        out["n"] = state.slider(t(f"{C}.rounds"), f"{C}_rounds", 1, 4, 1)
    if "chunk" in keys:
        with cols[2]:
            out["chunk"] = state.slider(t(f"{C}.chunk"), f"{C}_chunk", 2, 16, 4)
    if "angle" in keys:
        with cols[2]:
            out["angle"] = state.slider(t(f"{C}.angle"), f"{C}_angle", 0, 180, 45, step=5)
    return out


def vec(v: np.ndarray) -> str:
    return "(" + ",\\ ".join(f"{a:.2f}" for a in v) + ")"


@kit.fragment
def hash_view(d: int, seed: int) -> None:
    c = controls(("b", "n"))
    b, n = c["b"], c["n"]
    rng = np.random.default_rng(seed)
    x = toydata.unit_clusters(N_HASH, d, CLUSTERS, 0.5, rng) * rng.uniform(0.35, 1.0, (N_HASH, 1))
    R = lsh.random_rotations(d, b, np.random.default_rng([seed, b, n]), n)
    h = lsh.lsh_buckets(x, R)  # (n, N)
    if d == 2:
        points, directions = x, R[0].T
        ring = lsh.lsh_buckets(np.c_[np.cos(RING), np.sin(RING)], R[:1])[0]
        angles = RING
    else:  # project on the two leading principal directions
        _, _, vt = np.linalg.svd(x - x.mean(axis=0), full_matrices=False)
        points = x @ vt[:2].T
        points /= np.abs(points).max() or 1.0
        directions, ring, angles = np.zeros((0, 2)), np.zeros(0, int), np.zeros(0)
    neg = lsh.lsh_buckets(-x, R)
    left, right = st.columns([3, 2])
    with left:
        kit.chart(figs.hash_figure(
            points, h[0], angles, ring, directions, title=t(f"{C}.hash_title"),
            names=(t(f"{C}.sectors"), t(f"{C}.plus_R"), t(f"{C}.minus_R"), t(f"{C}.tokens"),
                   "x₀, −x₀"), mirror=(h[0, 0], neg[0, 0]),
            labels=[t(f"{C}.token_i", i=i) for i in range(len(points))],
            bucket_hover=t(f"{C}.hover_bucket", b="%{customdata}"),
        ), key=f"{C}_hash_chart")  # fmt: skip
    xr = x[0] @ R[0]
    scaled = np.stack([lsh.lsh_buckets(alpha * x, R) for alpha in (3.0, 0.01)])
    rounds = ",\\ ".join(str(v) for v in h[:, 0])
    with right:
        hash_formula(b, n, xr, h, neg, scaled, rounds)


def hash_formula(b, n, xr, h, neg, scaled, rounds) -> None:
    kit.formula(
        f"\\begin{{gathered}}x_0 R = {vec(xr)}\\\\[4pt]"
        f"h(x_0) = \\arg\\max\\,[\\,x_0R;\\,-x_0R\\,] = {h[0, 0]}\\quad(b = {b})"
        + (f"\\\\[4pt]h^{{(1..{n})}}(x_0) = {rounds}" if n > 1 else "")
        + f"\\\\[4pt] h(-x_0) = {neg[0, 0]} = ({h[0, 0]} + {b // 2}) \\bmod {b}"
        "\\end{gathered}",
        checks=[
            kit.Check(t(f"{C}.check_negation"), bool(np.array_equal(neg, (h + b // 2) % b)),
                      t(f"{C}.all_tokens", N=len(h.ravel()))),
            kit.Check(t(f"{C}.check_scale"), bool(np.array_equal(scaled, np.stack([h, h])))),
            kit.Check(t(f"{C}.check_range"), bool(h.min() >= 0 and h.max() < b),
                      t(f"{C}.used", k=len(np.unique(h[0])), b=b)),
        ],
    )  # fmt: skip


@kit.fragment
def attention_view(seed: int) -> None:
    c = controls(("b", "n", "chunk"))
    b, n, m = c["b"], c["n"], c["chunk"]
    x = toydata.unit_clusters(N_ATTN, 8, CLUSTERS, 0.4, np.random.default_rng(seed))
    h = lsh.lsh_buckets(x, lsh.random_rotations(8, b, np.random.default_rng([seed, b]), n))
    mask = lsh.chunked_lsh_mask(h, m)
    w = lsh.shared_qk_attention(x, BETA)
    e = np.where(mask, w, 0.0)
    kept = e / e.sum(axis=1, keepdims=True)
    order = lsh.sort_order(h[0])
    idx = np.ix_(order, order)
    curve = cache.lsh_mass_curve(x, tuple(BUCKETS), 4, m, BETA, seed)
    left, right = st.columns([3, 2])
    with left:
        kit.chart(figs.attention_pair_figure(
            w[idx], kept[idx], titles=(t(f"{C}.full_title"), t(f"{C}.lsh_title")),
            x_title=t(f"{C}.keys_sorted"), y_title=t(f"{C}.queries_sorted"),
            hovertemplate=t(f"{C}.hover_cell", q="%{y}", k="%{x}", v="%{z:.4f}")
            + "<extra></extra>",
        ), key=f"{C}_attn_chart")  # fmt: skip
    with right:
        kit.chart(figs.mass_curve_figure(
            BUCKETS, curve, b, n, title=t(f"{C}.mass_title"), x_title="b",
            y_title=t(f"{C}.mass_axis"), round_name=t(f"{C}.round_name"),
            hover=t(f"{C}.hover_kept", b="%{x}", m="%{y:.3f}"),
        ), key=f"{C}_mass_chart")  # fmt: skip
    mass = lsh.kept_attention_mass(w, mask)
    recall = lsh.top_k_recall(x @ x.T, mask, 4)
    blocks = all(
        np.array_equal(
            lsh.chunked_lsh_mask(r, m)[np.ix_(lsh.sort_order(r), lsh.sort_order(r))],
            lsh.chunked_lsh_mask(np.zeros(N_ATTN, int), m),
        )
        for r in h
    )
    fewer = lsh.chunked_lsh_mask(h[: n - 1], m) if n > 1 else np.zeros_like(mask)
    kit.formula(
        f"\\frac1N\\sum_i \\sum_{{j \\in S_i}} a_{{ij}} = {mass.mean():.3f}\\qquad"
        + t_tex(f"{C}.top_recall", k="4") + f" = {recall.mean():.3f}\\qquad"
        f"\\frac{{|S|}}{{N^2}} = \\frac{{{int(mask.sum())}}}{{{N_ATTN}^2}} = {mask.mean():.3f}",
        checks=[
            kit.Check(t(f"{C}.check_blocks"), blocks),
            kit.Check(t(f"{C}.check_rounds"), bool(np.all(fewer <= mask))),
            kit.Check(t(f"{C}.check_mass"), bool(np.all((mass > 0) & (mass <= 1 + 1e-12)))),
            kit.Check(t(f"{C}.check_rows"), bool(np.allclose(kept.sum(axis=1), 1.0))),
        ],
    )  # fmt: skip


@kit.fragment
def collision_view(d: int, seed: int) -> None:
    c = controls(("b", "n", "angle"))
    b, n, deg = c["b"], c["n"], c["angle"]
    theta, p1, pn = cache.lsh_collision_curves(b, n, d, TRIALS, 37, seed)
    se1 = np.sqrt(p1 * (1 - p1) / TRIALS)
    formula_n = lsh.any_round_probability(p1, n)
    closed = lsh.collision_probability_two_buckets(theta) if b == 2 else None
    i = int(round(deg / 5))
    kit.chart(figs.collision_figure(
        np.degrees(theta), p1, se1, closed, pn, formula_n, deg, float(p1[i]),
        title=t(f"{C}.collision_title"), x_title=t(f"{C}.angle_axis"),
        y_title=t(f"{C}.collision_axis"),
        names=(t(f"{C}.band"), t(f"{C}.mc_one"), "1 − θ/π (b = 2)", t(f"{C}.mc_rounds"),
               "1 − (1 − p̂)ⁿ"),
    ), key=f"{C}_collision_chart")  # fmt: skip
    exact = lsh.collision_probability_two_buckets(theta)
    z_two = np.abs(p1 - exact) / np.maximum(np.sqrt(exact * (1 - exact) / TRIALS), 1e-9)
    se_n = np.sqrt(formula_n * (1 - formula_n) / TRIALS) + n * se1
    z_n = np.abs(pn - formula_n) / np.maximum(se_n, 1e-9)
    p, pr = float(p1[i]), float(pn[i])
    two = f"\\quad 1 - \\tfrac{{\\theta}}{{\\pi}} = {1 - deg / 180:.3f}" if b == 2 else ""
    kit.formula(
        f"\\theta = {deg}^\\circ:\\ \\hat p = {p:.3f} \\pm {2 * se1[i]:.3f}{two}"
        f"\\\\[4pt] 1 - (1 - \\hat p)^{{{n}}} = {formula_n[i]:.3f}"
        f"\\quad\\text{{{t(f'{C}.vs_tex')}}}\\quad \\hat p_{{{t_tex(f'{C}.n_rounds', n=str(n))}}}"
        f" = {pr:.3f}",
        checks=[
            kit.Check(t(f"{C}.check_two"), bool(z_two.max() <= 4.5),
                      t(f"{C}.max_z", z=f"{z_two.max():.1f}")) if b == 2
            else kit.Check(t(f"{C}.check_opposite"), p1[-1] == 0.0 and pn[-1] == 0.0),
            kit.Check(t(f"{C}.check_n"), bool(z_n.max() <= 4.5),
                      t(f"{C}.max_z", z=f"{z_n.max():.1f}")),
            kit.Check(t(f"{C}.check_same"), p1[0] == 1.0 and pn[0] == 1.0),
        ],
    )  # fmt: skip


kit.intro(C)
view = state.choice(t(f"{C}.view"), f"{C}_view", ("hash", "attention", "collision"), "hash",
                    format_func=lambda v: t(f"{C}.tab_{v}"))  # fmt: skip
kit.explain(C, view)
top = st.columns([1, 1, 2])
with top[0]:
    seed = state.number(t(f"{C}.seed"), f"{C}_seed", 0, 10_000, 0)
with kit.guard():
    if view == "attention":
        attention_view(seed)
    else:
        with top[1]:
            d = int(state.choice(t(f"{C}.dim"), f"{C}_dim", ("2", "16"), "2"))
        if view == "hash":
            hash_view(d, seed)
        else:
            collision_view(d, seed)
state.show_notices()
kit.try_this(C)
kit.exercise(C, exercises.reformer_lsh)
kit.show_code(C, lsh.random_rotations, lsh.lsh_buckets, lsh.estimate_collision_probability,
              lsh.sort_order, lsh.chunked_lsh_mask, lsh.kept_attention_mass)  # fmt: skip
