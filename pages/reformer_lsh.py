"""Reformer LSH: angular buckets h(x) = argmax([xR; -xR]), sort-and-chunk attention, and the
collision probability against the angle (Monte Carlo next to the closed forms)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import lsh, toydata
from figures import lsh as figs
from ui import cache, exercises, formulas, kit, tex
from ui.i18n import t_tex

BUCKETS = list(range(2, 17, 2))  # b is even: odd values cannot be chosen (URL: notice)
N_HASH, N_ATTN, CLUSTERS, BETA, TRIALS, TOP = 24, 32, 4, 8.0, 4000, 4

page = kit.Page(
    "reformer_lsh",
    views=("hash", "attention", "collision"),
    exercise=exercises.reformer_lsh,
    code=(
        lsh.random_rotations,
        lsh.lsh_buckets,
        lsh.sector_angles,
        lsh.estimate_collision_probability,
        lsh.sort_order,
        lsh.chunked_lsh_mask,
        lsh.exclude_self,
        lsh.kept_attention_mass,
    ),
)


def controls(third: str | None = None) -> tuple[int, ...]:
    """The b and n sliders and the view's own third one (chunk m or angle θ) in one row."""
    cols = st.columns(3 if third else 2)
    with cols[0]:
        b = page.select_slider("b", BUCKETS, 4)
    with cols[1]:
        n = page.slider("rounds", 1, 4, 1)
    if third is None:
        return b, n
    with cols[2]:
        extra = (
            page.slider("chunk", 2, 16, 4)
            if third == "chunk"
            else page.slider("angle", 0, 180, 45, step=5)
        )
    return b, n, extra


@page.view("hash", "attention", "collision")
def parts() -> None:
    """Seed and d outside the live part (they change rarely), then the view's live part."""
    top = st.columns([1, 1, 2])
    with top[0]:
        seed = page.seed()
    if page.current_view == "attention":
        return attention(seed)
    with top[1]:
        d = int(page.choice("dim", ("2", "16"), "2", format_func=str))
    (buckets if page.current_view == "hash" else collision)(d, seed)


@kit.fragment
def buckets(d: int, seed: int) -> None:
    b, n = controls()
    rng = np.random.default_rng(seed)
    x = toydata.varied_length_clusters(N_HASH, d, CLUSTERS, 0.5, rng)
    R = lsh.random_rotations(d, b, np.random.default_rng([seed, b, n]), n)
    h, neg = lsh.lsh_buckets(x, R), lsh.lsh_buckets(-x, R)  # (n, N)
    if d == 2:
        points, directions, (angles, ring) = x, R[0].T, lsh.circle_buckets(R)
    else:  # the two leading principal directions; no sectors to draw
        points, directions = lsh.principal_plane(x), np.zeros((0, 2))
        angles, ring = np.zeros(0), np.zeros(0, dtype=int)
    left, right = st.columns([2, 3])
    with left:
        page.chart(
            figs.hash_figure(
                points,
                h[0],
                angles,
                ring,
                directions,
                title=page.tr("hash_title"),
                mirror=(h[0, 0], neg[0, 0]),
                names=(
                    page.tr("sectors"),
                    page.tr("plus_R"),
                    page.tr("minus_R"),
                    page.tr("tokens"),
                    "x₀, −x₀",
                ),
                labels=[page.tr("token_i", i=i) for i in range(len(points))],
                bucket_hover=page.tr("hover_bucket", b="%{customdata}"),
            ),
            "hash_chart",
        )
    scaled = np.stack([lsh.lsh_buckets(alpha * x, R) for alpha in (3.0, 0.01)])
    checks = [
        kit.Check(
            page.tr("check_negation"),
            bool(np.array_equal(neg, (h + b // 2) % b)),
            page.tr("all_tokens", N=h.size),
        ),
        kit.Check(page.tr("check_scale"), bool(np.array_equal(scaled, np.stack([h, h])))),
        kit.Check(
            page.tr("check_range"),
            bool(h.min() >= 0 and h.max() < b),
            page.tr("used", k=len(np.unique(h[0])), b=b),
        ),
    ]
    sector_line = ""
    if d == 2:
        degrees = np.degrees(lsh.sector_angles(R)[0])
        mirrored = np.allclose(degrees[: b // 2], degrees[b // 2 :])
        checks.append(
            kit.Check(
                page.tr("check_sectors"),
                bool(np.isclose(degrees.sum(), 360.0) and mirrored),
                page.tr("owned", s=int((degrees > 1e-9).sum()), b=b),
            )
        )
        first, second = tex.vec(degrees[: b // 2], 0), tex.vec(degrees[b // 2 :], 0)
        sector_line = formulas.render(
            page.concept,
            "sectors",
            total=f"{degrees.sum():.0f}",
            mid=b // 2 - 1,
            half=b // 2,
            last=b - 1,
            first=first,
            second=second,
        )
    rounds = formulas.render(page.concept, "rounds", n=n, values=",\\ ".join(map(str, h[:, 0])))
    with right:
        page.formula(
            "hash",
            checks=checks,
            xr=tex.vec(x[0] @ R[0], 2),
            h=h[0, 0],
            b=b,
            rounds=rounds if n > 1 else "",
            neg=neg[0, 0],
            half=b // 2,
            sectors=sector_line,
        )


@kit.fragment
def attention(seed: int) -> None:
    b, n, m = controls("chunk")
    x = toydata.unit_clusters(N_ATTN, 8, CLUSTERS, 0.4, np.random.default_rng(seed))
    h = lsh.lsh_buckets(x, lsh.random_rotations(8, b, np.random.default_rng([seed, b]), n))
    mask = lsh.chunked_lsh_mask(h, m)
    w, kept = lsh.shared_qk_attention(x, BETA), lsh.shared_qk_attention(x, BETA, mask)
    idx = np.ix_(lsh.sort_order(h[0]), lsh.sort_order(h[0]))
    curve = cache.lsh_mass_curve(x, tuple(BUCKETS), 4, m, BETA, seed)
    left, right = st.columns([3, 2])
    with left:
        page.chart(
            figs.attention_pair_figure(
                w[idx],
                kept[idx],
                titles=(page.tr("full_title"), page.tr("lsh_title")),
                x_title=page.tr("keys_sorted"),
                y_title=page.tr("queries_sorted"),
                hovertemplate=page.tr("hover_cell", q="%{y}", k="%{x}", v="%{z:.4f}")
                + "<extra></extra>",
            ),
            "attn_chart",
        )
    with right:
        page.chart(
            figs.mass_curve_figure(
                BUCKETS,
                curve,
                b,
                n,
                title=page.tr("mass_title"),
                x_title="b",
                y_title=page.tr("mass_axis"),
                round_name=page.tr("round_name"),
                hover=page.tr("hover_kept", b="%{x}", m="%{y:.3f}"),
            ),
            "mass_chart",
        )
    mass = lsh.kept_attention_mass(w, mask)
    recall = lsh.top_k_recall(x @ x.T, mask, TOP, lsh.shared_qk_mask(N_ATTN))
    fewer = lsh.chunked_lsh_mask(h[: n - 1], m) if n > 1 else np.zeros_like(mask)
    off, alone = ~np.eye(N_ATTN, dtype=bool), np.diag(mask)
    page.formula(
        "attention",
        n=n,
        s0=int(mask[0].sum()),
        mass=f"{mass.mean():.3f}",
        recall_label=t_tex("reformer_lsh.top_recall", k=str(TOP)),
        recall=f"{recall.mean():.3f}",
        pairs=int(mask.sum()),
        N=N_ATTN,
        density=f"{mask.mean():.3f}",
        checks=[
            kit.Check(page.tr("check_bucket"), bool(np.all(lsh.shares_a_bucket(h)[mask]))),
            kit.Check(
                page.tr("check_self"),
                bool(np.all(mask[alone].sum(axis=1) == 1)),
                page.tr("alone", k=int(alone.sum())),
            ),
            kit.Check(page.tr("check_rounds"), bool(np.all(fewer[off] <= mask[off]))),
            kit.Check(page.tr("check_mass"), bool(np.all((mass >= 0) & (mass <= 1 + 1e-12)))),
            kit.Check(page.tr("check_rows"), bool(np.allclose(kept.sum(axis=1), 1.0))),
        ],
    )


@kit.fragment
def collision(d: int, seed: int) -> None:
    b, n, deg = controls("angle")
    theta, p1, pn = cache.lsh_collision_curves(b, n, d, TRIALS, 37, seed)
    se1 = lsh.binomial_se(p1, TRIALS)
    formula_n = lsh.any_round_probability(p1, n)
    exact = lsh.collision_probability_two_buckets(theta)
    i = int(round(deg / 5))
    page.chart(
        figs.collision_figure(
            np.degrees(theta),
            p1,
            se1,
            exact if b == 2 else None,
            pn,
            formula_n,
            deg,
            float(p1[i]),
            title=page.tr("collision_title"),
            x_title=page.tr("angle_axis"),
            y_title=page.tr("collision_axis"),
            names=(
                page.tr("band"),
                page.tr("mc_one"),
                "1 − θ/π (b = 2)",
                page.tr("mc_rounds"),
                "1 − (1 − p̂)ⁿ",
            ),
        ),
        "collision_chart",
    )
    z_two, z_n = lsh.binomial_z(p1, exact, TRIALS), lsh.rounds_z(p1, pn, n, TRIALS)
    two = formulas.render(page.concept, "two_buckets", value=f"{1 - deg / 180:.3f}")
    page.formula(
        "collision",
        deg=deg,
        p=f"{p1[i]:.3f}",
        two_se=f"{2 * se1[i]:.3f}",
        two=two if b == 2 else "",
        n=n,
        formula_n=f"{formula_n[i]:.3f}",
        rounds_label=t_tex("reformer_lsh.n_rounds", n=str(n)),
        pr=f"{pn[i]:.3f}",
        checks=[
            kit.Check(
                page.tr("check_two"),
                bool(z_two.max() <= 4.5),
                page.tr("max_z", z=f"{z_two.max():.1f}"),
            )
            if b == 2
            else kit.Check(page.tr("check_opposite"), p1[-1] == 0.0 and pn[-1] == 0.0),
            kit.Check(
                page.tr("check_n"), bool(z_n.max() <= 4.5), page.tr("max_z", z=f"{z_n.max():.1f}")
            ),
            kit.Check(page.tr("check_same"), p1[0] == 1.0 and pn[0] == 1.0),
        ],
    )


page.run()
