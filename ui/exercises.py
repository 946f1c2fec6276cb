"""Exercises: one predict-then-reveal question per page, drawn from a seed.

Each maker is a pure function of ``rng``: it draws the question's numbers, computes the
answer with the page's ``core`` functions (never a hard-coded answer) and returns a
:class:`ui.kit.Exercise` whose strings come from ``ui.i18n.t`` (keys ``<concept>.ex_<name>``
in ``assets/i18n/<lang>/exercises.json``). Most makers first draw one of a few kinds of
question. Inputs a student may paste into the page (logits, a permutation, a matrix) are
set in bold in the page's own input format (ASCII minus); bold, not code spans, because
Streamlit draws code small, too small on a projector.

The sympy-based cores (wallis, permutations, cayley_hamilton) are imported inside their
makers: importing sympy costs ~0.7 s, which the other pages should not pay.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from core import attention as att
from core import lsh, sra
from core import routing as rt
from core import softmax as sm
from core import windows as win
from ui.i18n import t
from ui.kit import Exercise

_SUB = str.maketrans("0123456789-", "₀₁₂₃₄₅₆₇₈₉₋")
_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _n(x: float, digits: int = 4) -> str:
    """A number for prose: ``digits`` significant digits, with a real minus sign."""
    return f"{x:.{digits}g}".replace("-", "−")


def _vec(xs: Sequence[float], digits: int = 4) -> str:
    """``(1, −2, 0.5)``."""
    return "(" + ", ".join(_n(float(x), digits) for x in xs) + ")"


def _sub(k: int) -> str:
    """``12`` → ``₁₂`` (Unicode subscripts; an underscore would turn Markdown italic)."""
    return str(k).translate(_SUB)


def _sup(k: int) -> str:
    """``12`` → ``¹²`` (a power in plain Unicode: ``(−1)¹²``)."""
    return str(k).translate(_SUP)


def _paren(x: float) -> str:
    """A factor in a product: ``3`` or ``(−3)``."""
    return _n(x) if x >= 0 else f"({_n(x)})"


def _ranges(idx: Sequence[int]) -> str:
    """``[0, 1, 2, 3, 7, 9, 10]`` → ``0–3, 7, 9–10``."""
    out: list[str] = []
    idx = sorted(int(i) for i in idx)
    start = prev = idx[0]
    for i in [*idx[1:], None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        out.append(str(start) if start == prev else f"{start}–{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(out)


def _kind(rng: np.random.Generator, kinds: Sequence[str]) -> str:
    return kinds[int(rng.integers(len(kinds)))]


# ---- softmax ----------------------------------------------------------------------------


def _top_probability_threshold(u: np.ndarray, level: float = 0.9) -> float:
    """The T at which max softmax(u/T) equals ``level`` (it falls as T grows): bisection."""
    lo, hi = math.log(1e-3), math.log(1e3)  # p_max(lo) > level > p_max(hi)
    for _ in range(60):
        mid = (lo + hi) / 2
        if sm.softmax(u, math.exp(mid)).max() > level:
            lo = mid
        else:
            hi = mid
    return math.exp((lo + hi) / 2)


def softmax(rng: np.random.Generator) -> Exercise:
    """The top probability at a given T, or the T at which it passes 0.9."""
    n = int(rng.integers(3, 5))
    u = rng.choice(np.arange(-3, 9), size=n, replace=False).astype(float)
    logits = ", ".join(f"{x:g}" for x in u)
    top = float(u.max())
    if _kind(rng, ("top", "threshold")) == "top":
        for T in rng.permutation([0.5, 1.0, 2.0, 4.0]):  # a T where max p is not ≈ 1
            p = float(sm.softmax(u, T).max())
            if p < 0.97:
                break
        T = float(T)
        shifted = (u - top) / T
        return Exercise(
            question=t("softmax.ex_top_q", u=logits, T=f"{T:g}"),
            answer=round(p, 3),
            tolerance=0.01,
            explanation=t(
                "softmax.ex_top_how",
                T=f"{T:g}",
                top=f"{top:g}",
                z=_vec(shifted),
                denom=_n(float(np.exp(shifted).sum())),
                p=f"{p:.3f}",
            ),
        )
    T = _top_probability_threshold(u)
    gap = float(top - np.sort(u)[-2])
    return Exercise(
        question=t("softmax.ex_threshold_q", u=logits),
        answer=float(f"{T:.3g}"),
        tolerance=0.1 * T,
        explanation=t(
            "softmax.ex_threshold_how",
            T=f"{T:.3g}",
            p=f"{float(sm.softmax(u, T).max()):.3f}",
            gap=f"{gap:g}",
            approx=f"{gap / math.log(9):.3g}",
        ),
    )


# ---- attention maps -----------------------------------------------------------------------


def attention_maps(rng: np.random.Generator) -> Exercise:
    """The weight a query gives one key, from its raw scores q·kⱼ and d."""
    d = int(rng.choice([4, 16, 64]))
    z = rng.integers(-2, 4, size=4).astype(float)  # the scaled scores, small integers
    scores = z * math.sqrt(d)
    j = int(rng.integers(4))
    q = np.zeros((1, d))
    q[0, 0] = 1.0
    k = np.zeros((4, d))
    k[:, 0] = scores  # so q·kⱼ = scoresⱼ; the core divides by √d itself
    _, w = att.scaled_dot_product_attention(q, k, np.eye(4))
    a = float(w[0, j])
    return Exercise(
        question=t("attention_maps.ex_weight_q", s=_vec(scores), d=d, j=j + 1, js=_sub(j + 1)),
        answer=round(a, 3),
        tolerance=0.01,
        explanation=t(
            "attention_maps.ex_weight_how",
            root=f"{math.sqrt(d):g}",
            z=_vec(z),
            js=_sub(j + 1),
            num=_n(math.exp(z[j])),
            denom=_n(float(np.exp(z).sum())),
            a=f"{a:.3f}",
        ),
    )


# ---- sparse attention ---------------------------------------------------------------------


def sparse_attention(rng: np.random.Generator) -> Exercise:
    """How many keys one query may attend to under a band / dilated / block / ETC pattern."""
    name = _kind(rng, ("band", "dilated", "block_local", "etc"))
    n = int(rng.choice([16, 24, 32]))
    w, r = int(rng.integers(1, 5)), int(rng.integers(2, 4))
    b, g = int(rng.choice([4, 8])), int(rng.integers(1, 3))
    i = int(rng.integers(n))
    # the page's sliders: width, dilation, block size, global tokens
    mask = att.preset_mask(name, n, width=w, dilation=r, block=b, n_global=g)  # type: ignore[arg-type]
    keys = np.flatnonzero(mask[i])
    pattern = t(f"sparse_attention.ex_{name}", w=w, r=r, b=b, glob=_ranges(range(g)))
    return Exercise(
        question=t("sparse_attention.ex_count_q", n=n, last=n - 1, pattern=pattern, i=i),
        answer=float(len(keys)),
        explanation=t(
            "sparse_attention.ex_count_how", i=i, keys=_ranges(keys), count=len(keys), n=n
        ),
    )


# ---- linear attention ---------------------------------------------------------------------


def _matmul_multiplications(m: int, k: int, n: int) -> int:
    """Scalar multiplications of an (m×k)·(k×n) product."""
    return m * k * n


def linear_attention(rng: np.random.Generator) -> Exercise:
    """The saving of the reordered product N/d, or one unnormalised score φ(q)·φ(k)."""
    if _kind(rng, ("cost", "feature")) == "cost":
        N = int(rng.choice([1024, 2048, 4096, 8192, 16384]))
        d = int(rng.choice([16, 32, 64, 128]))
        # (φ(Q)φ(K)ᵀ)V: (N×d)(d×N), then (N×N)(N×d);  φ(Q)(φ(K)ᵀV): (d×N)(N×d), then (N×d)(d×d)
        quadratic = _matmul_multiplications(N, d, N) + _matmul_multiplications(N, N, d)
        linear = _matmul_multiplications(d, N, d) + _matmul_multiplications(N, d, d)
        return Exercise(
            question=t("linear_attention.ex_cost_q", N=N, d=d),
            answer=float(quadratic / linear),
            explanation=t(
                "linear_attention.ex_cost_how",
                N=N,
                d=d,
                quadratic=f"{quadratic:,}",
                linear=f"{linear:,}",
                ratio=f"{quadratic / linear:g}",
            ),
        )
    dim = int(rng.integers(2, 4))
    values = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    q, k = rng.choice(values, size=dim), rng.choice(values, size=dim)
    fq, fk = att.elu_feature_map(q), att.elu_feature_map(k)
    score = float(fq @ fk)
    return Exercise(
        question=t("linear_attention.ex_feature_q", q=_vec(q), k=_vec(k)),
        answer=round(score, 3),
        tolerance=0.01,
        explanation=t(
            "linear_attention.ex_feature_how", fq=_vec(fq, 3), fk=_vec(fk, 3), score=f"{score:.3f}"
        ),
    )


# ---- PVT spatial reduction ----------------------------------------------------------------


def pvt_sra(rng: np.random.Generator) -> Exercise:
    """K/V tokens after spatial reduction: at one PVT stage, or for any H×W map and R."""
    if _kind(rng, ("table", "map")) == "map":
        R = int(rng.choice([2, 4, 7, 8]))
        H, W = (R * int(x) for x in rng.integers(2, 9, size=2))
        N = H * W
        kv = sra.reshape_for_reduction(np.zeros((N, 1)), H, W, R).shape[0]  # (N/R², R²C)
        return Exercise(
            question=t("pvt_sra.ex_map_q", R=R, H=H, W=W, N=N),
            answer=float(kv),
            explanation=t(
                "pvt_sra.ex_map_how", R=R, H=H, W=W, a=H // R, b=W // R, kv=kv, N=N, R2=R * R
            ),
        )
    size = int(rng.choice(np.arange(224, 641, 32)))
    stage = int(rng.integers(1, 5))
    row = sra.pvt_stages(size)[stage - 1]
    side, R = row.side, row.R
    return Exercise(
        question=t("pvt_sra.ex_kv_q", size=size, stage=stage, stride=size // side, R=R),
        answer=float(row.kv_tokens),
        explanation=t(
            "pvt_sra.ex_kv_how",
            size=size,
            stride=size // side,
            side=side,
            N=row.tokens,
            R=R,
            R2=R * R,
            kv=row.kv_tokens,
            sr=size // side * R,
        ),
    )


# ---- Swin windows -------------------------------------------------------------------------


def swin_windows(rng: np.random.Generator) -> Exercise:
    """How many M×M windows tile an H×W map, or how many of them the shift makes mixed."""
    M = int(rng.choice([2, 4, 7, 8]))
    a, b = (int(x) for x in rng.integers(2, 9, size=2))
    H, W = a * M, b * M
    n_windows = win.window_partition(np.zeros((H, W, 1)), M).shape[0]
    if _kind(rng, ("count", "mixed")) == "count":
        return Exercise(
            question=t("swin_windows.ex_count_q", H=H, W=W, M=M),
            answer=float(n_windows),
            explanation=t(
                "swin_windows.ex_count_how",
                H=H,
                W=W,
                M=M,
                a=H // M,
                b=W // M,
                nW=n_windows,
                tokens=M * M,
            ),
        )
    s = M // 2
    masks = win.shifted_window_mask(H, W, M, s)  # (nW, M², M²), True = same region
    mixed = int((~masks.all(axis=(1, 2))).sum())
    return Exercise(
        question=t("swin_windows.ex_mixed_q", H=H, W=W, M=M, s=s, nW=n_windows),
        answer=float(mixed),
        explanation=t(
            "swin_windows.ex_mixed_how", a=H // M, b=W // M, mixed=mixed, whole=n_windows - mixed
        ),
    )


# ---- Reformer LSH -------------------------------------------------------------------------


def reformer_lsh(rng: np.random.Generator) -> Exercise:
    """Collision probability 1 − θ/π (one or n rounds), or the bucket of −x."""
    kind = _kind(rng, ("angle", "rounds", "negate"))
    if kind == "negate":
        b = int(rng.choice([4, 8, 16, 32]))
        R = lsh.random_rotations(8, b, rng)
        x = rng.standard_normal(8)
        h, h_neg = (int(lsh.lsh_buckets(v, R)[0, 0]) for v in (x, -x))
        return Exercise(
            question=t("reformer_lsh.ex_negate_q", b=b, last=b - 1, h=h),
            answer=float(h_neg),
            explanation=t("reformer_lsh.ex_negate_how", b=b, half=b // 2, h=h, ans=h_neg),
        )
    degrees = int(rng.integers(2, 35)) * 5  # 10° … 170°
    p = float(lsh.collision_probability_two_buckets(math.radians(degrees)))
    if kind == "angle":
        return Exercise(
            question=t("reformer_lsh.ex_angle_q", deg=degrees),
            answer=round(p, 3),
            tolerance=0.01,
            explanation=t(
                "reformer_lsh.ex_angle_how", deg=degrees, split=f"{1 - p:.3f}", p=f"{p:.3f}"
            ),
        )
    rounds = int(rng.integers(2, 7))
    anyp = float(lsh.any_round_probability(p, rounds))
    return Exercise(
        question=t("reformer_lsh.ex_rounds_q", deg=degrees, n=rounds),
        answer=round(anyp, 3),
        tolerance=0.01,
        explanation=t(
            "reformer_lsh.ex_rounds_how",
            deg=degrees,
            n=rounds,
            p=f"{p:.3f}",
            miss=f"{(1 - p) ** rounds:.3f}",
            ans=f"{anyp:.3f}",
        ),
    )


# ---- routing by clustering ----------------------------------------------------------------


def routing_clustering(rng: np.random.Generator) -> Exercise:
    """Which centroid a token routes to, or how many pairs routing attention computes."""
    if _kind(rng, ("assign", "pairs")) == "assign":
        while True:  # draw until the nearest centroid is unique
            mu = rng.integers(-4, 5, size=(3, 2)).astype(float)
            x = rng.integers(-4, 5, size=2).astype(float)
            d2 = rt.squared_distances(x[None], mu)[0]
            if len(np.unique(mu, axis=0)) == 3 and (d2 == d2.min()).sum() == 1:
                break
        j = int(rt.assign(x[None], mu)[0])
        options = tuple(f"μ{_sub(m + 1)}" for m in range(3))
        return Exercise(
            question=t(
                "routing_clustering.ex_assign_q",
                mu1=_vec(mu[0]),
                mu2=_vec(mu[1]),
                mu3=_vec(mu[2]),
                x=_vec(x),
            ),
            answer=options[j],
            options=options,
            explanation=t("routing_clustering.ex_assign_how", d2=_vec(d2), best=options[j]),
        )
    k = int(rng.integers(2, 5))
    N = int(rng.integers(3 * k, 17))
    sizes = 1 + rng.multinomial(N - k, np.full(k, 1 / k))
    labels = rng.permutation(np.repeat(np.arange(k), sizes))
    pairs = int(rt.routing_mask(labels).sum())
    return Exercise(
        question=t("routing_clustering.ex_pairs_q", N=N, k=k, sizes=_vec(sizes), N2=N * N),
        answer=float(pairs),
        explanation=t(
            "routing_clustering.ex_pairs_how",
            terms=" + ".join(f"{int(s)}²" for s in sizes),
            pairs=pairs,
            N2=N * N,
            ratio=f"{N * N / pairs:.1f}",
        ),
    )


# ---- Wallis -------------------------------------------------------------------------------


def wallis(rng: np.random.Generator) -> Exercise:
    """The gap π − 2·Pₙ, the factors until 2·Pₙ passes a level, or a Wallis integral Wₙ."""
    from core import wallis as w

    kind = _kind(rng, ("gap", "factors", "integral"))
    if kind == "gap":
        n = int(rng.integers(1, 100)) * 10  # 10 … 990
        P_n = float(w.wallis_partial_products(n)[-1])
        gap = math.pi - 2 * P_n
        return Exercise(
            question=t("wallis.ex_gap_q", n=n),
            answer=float(f"{gap:.4g}"),
            tolerance=0.1 * gap,
            explanation=t(
                "wallis.ex_gap_how",
                n=n,
                approx=f"{math.pi / (4 * n):.4g}",
                two_P=f"{2 * P_n:.6f}",
                gap=f"{gap:.4g}",
            ),
        )
    if kind == "factors":
        level = 3 + int(rng.integers(0, 141)) / 1000  # 3.000 … 3.140
        two_P = 2 * w.wallis_partial_products(5000)
        N = int(np.argmax(two_P > level)) + 1  # the first n with 2·Pₙ > level
        return Exercise(
            question=t("wallis.ex_factors_q", level=f"{level:g}"),
            answer=float(N),
            tolerance=max(1.0, 0.1 * N),
            explanation=t(
                "wallis.ex_factors_how",
                level=f"{level:g}",
                N=N,
                approx=f"{math.pi / (4 * (math.pi - level)):.1f}",
                before=f"{two_P[N - 2]:.5f}" if N > 1 else "2",
                after=f"{two_P[N - 1]:.5f}",
                prev=_sub(N - 1),
                n=_sub(N),
            ),
        )
    n = int(rng.integers(2, 13))
    exact = w.wallis_integral(n)
    factors = [f"{m - 1}/{m}" for m in range(n, 1, -2)]
    if len(factors) > 4:  # short enough for a projector
        factors = [*factors[:2], "…", factors[-1]]
    return Exercise(
        question=t("wallis.ex_integral_q", n=_sub(n)),
        answer=round(float(exact), 4),
        tolerance=0.001,
        explanation=t(
            "wallis.ex_integral_how",
            n=_sub(n),
            factors=" · ".join(factors),
            base="π/2" if n % 2 == 0 else "1",
            exact=str(exact).replace("*", "").replace("pi", "π"),
            value=f"{float(exact):.4f}",
        ),
    )


# ---- permutations -------------------------------------------------------------------------


def permutations(rng: np.random.Generator) -> Exercise:
    """The sign or the number of inversions of a random σ, or the sign of σ∘τ."""
    from core import permutations as pm

    kind = _kind(rng, ("sign", "inversions", "compose"))
    n = int(rng.integers(5, 8))
    p = pm.random_permutation(n, rng)
    signs = ("+1", "−1")

    def sgn(x: int) -> str:
        return signs[0] if x > 0 else signs[1]

    def cycles_text(q: Sequence[int]) -> str:
        lengths = [len(c) for c in pm.cycles(q)]
        return t(
            "permutations.ex_cycles",
            cycles=pm.cycle_notation(q),
            terms=" + ".join(f"({k} − 1)" for k in lengths) or "0",
            count=sum(k - 1 for k in lengths),
            sign=sgn(pm.sign(q)),
        )

    inv = pm.inversions(p)
    if kind == "sign":
        check = t("permutations.ex_sign_check", inv=len(inv), power=_sup(len(inv)))
        return Exercise(
            question=t("permutations.ex_sign_q", p=pm.one_line(p)),
            answer=sgn(pm.sign(p)),
            options=signs,
            explanation=f"{cycles_text(p)} {check}",
        )
    if kind == "inversions":
        return Exercise(
            question=t("permutations.ex_inversions_q", p=pm.one_line(p)),
            answer=float(len(inv)),
            explanation=t(
                "permutations.ex_inversions_how",
                count=len(inv),
                power=_sup(len(inv)),
                pairs=", ".join(f"({i} {j})" for i, j in inv) or "—",
                sign=sgn(pm.sign(p)),
            ),
        )
    q = pm.random_permutation(n, rng)
    pq = pm.compose(p, q)
    return Exercise(
        question=t("permutations.ex_compose_q", p=pm.one_line(p), q=pm.one_line(q)),
        answer=sgn(pm.sign(pq)),
        options=signs,
        explanation=t(
            "permutations.ex_compose_how",
            sp=sgn(pm.sign(p)),
            sq=sgn(pm.sign(q)),
            spq=sgn(pm.sign(pq)),
            pq=pm.one_line(pq),
        ),
    )


# ---- Cayley–Hamilton ----------------------------------------------------------------------


def cayley_hamilton(rng: np.random.Generator) -> Exercise:
    """A coefficient of det(tI − A) for a random integer 2×2 or 3×3, or the I-term of Aⁿ."""
    from core import cayley_hamilton as ch

    kind = _kind(rng, ("constant", "trace", "power"))
    n = int(rng.integers(2, 4))
    A = ch.random_integer_matrix(n, rng, bound=4 if n == 2 else 3)
    c = [int(x) for x in ch.characteristic_coefficients(A)]  # [1, c_{n−1}, …, c₀]
    text = "; ".join(" ".join(str(int(x)) for x in A.row(i)) for i in range(n))  # pastable
    poly = "t² + c₁t + c₀" if n == 2 else "t³ + c₂t² + c₁t + c₀"
    if kind == "trace":
        diag = " + ".join(_paren(int(A[i, i])) for i in range(n))
        return Exercise(
            question=t("cayley_hamilton.ex_trace_q", A=text, poly=poly, k=_sub(n - 1)),
            answer=float(c[1]),
            explanation=t("cayley_hamilton.ex_trace_how", k=_sub(n - 1), diag=diag, c=_n(c[1])),
        )
    if kind == "constant":
        return Exercise(
            question=t("cayley_hamilton.ex_constant_q", A=text, poly=poly),
            answer=float(c[-1]),
            explanation=t(
                "cayley_hamilton.ex_constant_how", n=_sup(n), det=_paren(int(A.det())), c=_n(c[-1])
            ),
        )
    power, lower = ("A²", "αA") if n == 2 else ("A³", "αA² + βA")
    return Exercise(
        question=t("cayley_hamilton.ex_power_q", A=text, power=power, lower=lower),
        answer=float(-c[-1]),
        explanation=t(
            "cayley_hamilton.ex_power_how",
            power=power,
            poly=poly,
            c0=_n(c[-1]),
            ans=_n(-c[-1]),
            det=_paren(int(A.det())),
            n=_sup(n),
        ),
    )


# ---- Set Transformer (torch: imported inside, so other pages do not load it) ---------------


def set_transformer(rng: np.random.Generator) -> Exercise:
    """Count ISAB's attention weights, or predict what a shuffle does to a block's output."""
    import torch

    from core import set_transformer as stf

    if _kind(rng, ("cost", "shuffle")) == "cost":
        n = int(rng.choice([50, 64, 100, 128, 200, 256, 500, 1000]))
        m = int(rng.choice([4, 8, 16, 32]))
        isab, sab = stf.isab_attention_entries(n, m), stf.sab_attention_entries(n)
        return Exercise(
            question=t("set_transformer.ex_cost_q", n=n, m=m, sab=sab),
            answer=float(isab),
            explanation=t(
                "set_transformer.ex_cost_how",
                n=n,
                m=m,
                nm=n * m,
                isab=isab,
                sab=sab,
                ratio=f"{sab / isab:.3g}",
            ),
        )
    name = ("SAB", "ISAB", "PMA", "sum", "max", "weighted")[int(rng.integers(6))]
    n, seed = int(rng.integers(4, 9)), int(rng.integers(1000))
    isab, sab, pma = stf.seeded_blocks(seed, 2, 16, 4, 2)  # the page's width and heads, m = 2
    fn = {
        "SAB": sab,
        "ISAB": isab,
        "PMA": pma,
        "sum": lambda z: stf.set_pool(z, "sum"),
        "max": lambda z: stf.set_pool(z, "max"),
        "weighted": stf.position_weighted_sum,
    }[name]
    x = torch.randn(
        1,
        n,
        2 if name in ("SAB", "ISAB") else 16,
        dtype=torch.float64,
        generator=torch.Generator().manual_seed(seed),
    )
    perm = torch.from_numpy(rng.permutation(n))
    # run the block on the set and on the shuffled set: which symmetry holds?
    kind = {"invariant": "same", "equivariant": "rows", "neither": "other"}[
        stf.shuffle_test(fn, x, perm).symmetry(tol=1e-8)
    ]
    kinds = ("same", "rows", "other")
    block = t(f"set_transformer.ex_block_{name}")
    options = tuple(t(f"set_transformer.ex_{k}") for k in kinds)
    return Exercise(
        question=t("set_transformer.ex_shuffle_q", block=block, n=n),
        answer=options[kinds.index(kind)],
        options=options,
        explanation=t(f"set_transformer.ex_shuffle_how_{kind}", block=block),
    )


# ---- Lambda layers ----------------------------------------------------------------------


def lambda_layers(rng: np.random.Generator) -> Exercise:
    """Memory of the attention maps at a given side, with the lambda layer's for contrast."""
    from core import lambda_layer as ll  # imports torch: only this page's maker needs it

    s = int(rng.choice([16, 24, 32, 48, 64, 96, 128]))
    h = int(rng.choice([1, 2, 4, 8]))
    k, v = (int(a) for a in rng.choice([4, 8, 16], size=2))
    att, lam = ll.attention_cost(s, h, k, v), ll.lambda_cost(s, h, k, v)
    answer = att.entries * 4 / 1e6  # float32: 4 bytes a number, MB = 10⁶ bytes
    return Exercise(
        question=t("lambda_layers.ex_q", s=s, h=h, k=k, v=v),
        answer=float(f"{answer:.4g}"),
        tolerance=0.02 * answer,
        explanation=t(
            "lambda_layers.ex_how",
            s=s,
            n=f"{att.n:,}",
            h=h,
            k=k,
            v=v,
            entries=f"{att.entries:,}",
            mb=f"{answer:,.4g}",
            lam=f"{lam.lambdas:,}",
            lam_mb=f"{lam.lambdas * 4 / 1e6:,.4g}",
            ratio=f"{att.entries / lam.lambdas:,.4g}",
        ),
    )


# ---- Forward diffusion and the DDPM loss ------------------------------------------------


def forward_diffusion(rng: np.random.Generator) -> Exercise:
    """One of three questions about q(x_t | x₀), answered with core.diffusion."""
    from core import diffusion as dif

    kind = str(rng.choice(["linear", "cosine"]))
    kind_name = t(f"forward_diffusion.kind_{kind}")
    T = int(rng.choice([100, 250, 500, 1000]))
    s = dif.make_schedule(kind, T)
    variant = int(rng.integers(3))
    if variant == 0:  # the mean of x_t at a pixel: x_t with ε = 0
        step = int(rng.integers(1, T + 1))
        value = float(rng.choice(np.round(np.linspace(-1, 1, 21), 1)))
        shown = f"{value:g}".replace("-", "−")
        factor = shown if value >= 0 else f"({shown})"
        a = float(f"{s.alpha_bars[step - 1]:.4g}")  # the number the student sees
        answer = float(dif.q_sample(value, step, s, 0.0))
        return Exercise(
            t("forward_diffusion.ex_mean", x0=shown, t=step, T=T, kind=kind_name, a=f"{a:.4g}"),
            answer,
            tolerance=0.005,
            explanation=t(
                "forward_diffusion.ex_mean_why",
                a=f"{a:.4g}",
                x0=factor,
                answer=f"{answer:.4f}".replace("-", "−"),
            ),
        )
    if variant == 1:  # the noise's standard deviation: x_t of x₀ = 0 with ε = 1
        step = int(rng.integers(1, T + 1))
        answer = float(dif.q_sample(0.0, step, s, 1.0))
        return Exercise(
            t("forward_diffusion.ex_std", t=step, T=T, kind=kind_name),
            answer,
            tolerance=0.03,
            explanation=t(
                "forward_diffusion.ex_std_why",
                a=f"{s.alpha_bars[step - 1]:.4f}",
                answer=f"{answer:.4f}",
            ),
        )
    crossing = int(np.argmax(dif.snr(s) < 1.0)) + 1  # first t with SNR < 1, i.e. ᾱ_t < 1/2
    return Exercise(
        t("forward_diffusion.ex_snr", T=T, kind=kind_name),
        float(crossing),
        tolerance=max(2.0, 0.03 * T),
        explanation=t(
            "forward_diffusion.ex_snr_why", t=crossing, T=T, a=f"{s.alpha_bars[crossing - 1]:.4f}"
        ),
    )


DIFFUSION_LOSS_MEANS = [round(0.25 * k, 2) for k in range(-12, 13)]  # the page's sliders: -3 .. 3
DIFFUSION_LOSS_VARIANCES = [0.1, 0.2, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0]


def diffusion_loss(rng: np.random.Generator) -> Exercise:
    """One of three questions (posterior variance, which schedule, a Gaussian KL) with core."""
    from core import diffusion as dif

    variant = int(rng.integers(3))
    T = int(rng.choice([10, 20, 50, 100, 1000]))
    if variant == 0:  # the posterior variance from two ᾱ values
        s = dif.make_schedule(str(rng.choice(["linear", "cosine"])), T)
        steps = np.flatnonzero(s.alpha_bars[:-1] <= 0.999) + 2  # 1 − ᾱₜ₋₁ big enough to read
        step = int(rng.choice(steps))
        # the numbers the student sees, and the answer computed from exactly those
        a_prev, a = (float(f"{x:.6g}") for x in s.alpha_bars[step - 2 : step])
        beta = 1 - a / a_prev
        answer = (1 - a_prev) / (1 - a) * beta  # β̃ₜ (posterior_coefficients, from these)
        return Exercise(
            t("diffusion_loss.ex_variance", a_prev=f"{a_prev:.6g}", a=f"{a:.6g}"),
            answer,
            tolerance=0.01 * answer,
            explanation=t(
                "diffusion_loss.ex_variance_why",
                beta=f"{beta:.4g}",
                a_prev=f"{a_prev:.6g}",
                a=f"{a:.6g}",
                answer=f"{answer:.4g}",
            ),
        )
    if variant == 1:  # which schedule keeps more of x₀ at this t
        if rng.random() < 0.4:  # near the end, where the answer flips (cosine's clipped β)
            step = T - int(rng.integers(0, max(1, T // 200)))
        else:
            step = int(rng.integers(2, T + 1))
        linear, cosine = (
            dif.make_schedule(k, T).alpha_bars[step - 1] for k in ("linear", "cosine")
        )
        options = (t("diffusion_loss.kind_linear"), t("diffusion_loss.kind_cosine"))
        return Exercise(
            t("diffusion_loss.ex_schedule", t=step, T=T),
            options[int(cosine > linear)],
            options=options,
            explanation=t(
                "diffusion_loss.ex_schedule_why",
                t=step,
                linear=f"{linear:.4g}",
                cosine=f"{cosine:.4g}",
            ),
        )
    m_p, m_q = (float(v) for v in rng.choice(DIFFUSION_LOSS_MEANS, 2))
    v_p, v_q = (float(v) for v in rng.choice(DIFFUSION_LOSS_VARIANCES, 2))
    answer = float(dif.gaussian_kl(m_p, v_p, m_q, v_q))
    return Exercise(
        t("diffusion_loss.ex_kl", m_p=f"{m_p:g}", v_p=f"{v_p:g}", m_q=f"{m_q:g}", v_q=f"{v_q:g}"),
        answer,
        tolerance=max(0.01 * answer, 0.001),
        explanation=t("diffusion_loss.ex_kl_why", answer=f"{answer:.4f}"),
    )


# ---- Diffusion parameterisations ----------------------------------------------------------


def diffusion_parameterisations(rng: np.random.Generator) -> Exercise:
    """Convert a prediction (v or ε) into x̂₀ at a given ᾱ_t, or give the weight SNR_t that
    the ε-loss puts on the x₀ error."""
    from core import reverse as rev  # noqa: PLC0415 (only this page's maker needs them)
    from core import snr_schedules as snr  # noqa: PLC0415

    name = str(rng.choice(["linear", "cosine"]))
    s = snr.named_schedule(name, 1000)
    middle = np.flatnonzero((s.alpha_bars > 0.05) & (s.alpha_bars < 0.95)) + 1  # t, 1-based
    step = int(rng.choice(middle))  # ᾱ_t away from 0 and 1: the numbers stay readable
    a = float(f"{s.alpha_bars[step - 1]:.4f}")  # the ᾱ_t the student sees, and uses
    s_seen = snr.schedule_from_alpha_bars(np.full(1, a))  # one step with exactly that ᾱ
    kind = str(rng.choice(["v", "eps", "weight"]))
    kind_name = t(f"diffusion_parameterisations.schedule_{name}")
    if kind == "weight":
        answer = float(rev.x0_loss_weights(s_seen, "eps")[0])
        return Exercise(
            t("diffusion_parameterisations.ex_weight", t=step, kind=kind_name, a=f"{a:.4f}"),
            answer,
            tolerance=0.01 * answer,
            explanation=t(
                "diffusion_parameterisations.ex_weight_why", a=f"{a:.4f}", answer=_n(answer)
            ),
        )
    x_t, value = (float(x) for x in np.round(rng.uniform(-1.5, 1.5, 2), 2))
    answer = float(rev.convert(np.array([x_t]), 1, np.array([value]), kind, "x0", s_seen)[0])
    return Exercise(
        t(
            f"diffusion_parameterisations.ex_{kind}",
            t=step,
            kind=kind_name,
            a=f"{a:.4f}",
            xt=_n(x_t),
            value=_n(value),
        ),
        round(answer, 4),
        tolerance=0.01,
        explanation=t(
            f"diffusion_parameterisations.ex_{kind}_why",
            a=f"{a:.4f}",
            ra=f"{math.sqrt(a):.4f}",
            rb=f"{math.sqrt(1 - a):.4f}",
            answer=_n(answer),
        ),
    )


# ---- Reverse diffusion ------------------------------------------------------------------


def reverse_diffusion(rng: np.random.Generator) -> Exercise:
    """x̂₀ from ε̂, one DDIM (η = 0) step, or the exact ε* of one Gaussian, on one coordinate."""
    from core import diffusion as dif  # noqa: PLC0415
    from core import reverse as rv  # noqa: PLC0415

    s = dif.make_schedule("linear", 1000)
    kind = _kind(rng, ("x0", "ddim", "exact"))
    step = int(rng.choice([50, 100, 150, 200, 250, 300, 400, 500]))
    a = float(f"{s.alpha_bars[step - 1]:.5g}")  # the ᾱ the student sees
    x, eps = (round(float(v), 2) for v in rng.uniform(-2, 2, size=2))
    ra, rb = math.sqrt(a), math.sqrt(1 - a)
    common = {"t": step, "a": _n(a, 5), "x": _n(x), "eps": _n(eps), "ra": _n(ra), "rb": _n(rb)}
    if kind == "x0":
        answer = float(rv.to_x0([x], step, [eps], "eps", s)[0])
        q, how = "ex_x0_q", "ex_x0_how"
        extra: dict[str, str] = {}
    elif kind == "ddim":
        tp = step - int(rng.choice([10, 20, 50]))
        ap = float(f"{s.alpha_bars[tp - 1]:.5g}")
        answer = float(rv.ddim_step([x], step, tp, [eps], s, 0.0)[0])
        x0 = float(rv.to_x0([x], step, [eps], "eps", s)[0])
        q, how = "ex_ddim_q", "ex_ddim_how"
        extra = {
            "tp": str(tp),
            "ap": _n(ap, 5),
            "x0": _n(x0),
            "rap": _n(math.sqrt(ap)),
            "rbp": _n(math.sqrt(1 - ap)),
        }
    else:
        mu = round(float(rng.choice([-1.0, -0.5, 0.5, 1.0, 1.5])), 1)
        sd = float(rng.choice([0.1, 0.2, 0.5, 1.0]))
        answer = float(rv.gmm_eps([[x]], step, s, [[mu]], [sd], [1.0])[0, 0])
        q, how = "ex_exact_q", "ex_exact_how"
        extra = {"mu": _n(mu), "s": _n(sd), "s2": _n(a * sd**2 + 1 - a)}
    values = {**common, **extra, "ans": _n(answer)}
    return Exercise(
        question=t(f"reverse_diffusion.{q}", **values),
        answer=round(answer, 4),
        tolerance=max(0.01, 0.01 * abs(answer)),
        explanation=t(f"reverse_diffusion.{how}", **values),
    )


# ---- Transformer families ----------------------------------------------------------------


def transformer_families(rng: np.random.Generator) -> Exercise:
    """A decoder's KV cache in MB, or the parameters of one encoder layer."""
    from core import transformer as tf

    if _kind(rng, ("cache", "params")) == "cache":
        L = int(rng.choice([6, 12, 24, 32, 48]))
        D = int(rng.choice([512, 768, 1024, 2048, 4096]))
        n = int(rng.choice([512, 1024, 2048, 4096, 8192]))
        b = int(rng.choice([2, 4]))
        size = tf.kv_cache_size(L, n, D, b)
        mb = size.bytes / 1e6
        return Exercise(
            question=t("transformer_families.ex_cache_q", L=L, D=D, n=n, b=b),
            answer=float(f"{mb:.4g}"),
            tolerance=0.01 * mb,
            explanation=t(
                "transformer_families.ex_cache_how",
                L=L,
                D=D,
                n=n,
                b=b,
                numbers=f"{size.numbers:,}",
                bytes=f"{size.bytes:,}",
                mb=f"{mb:,.4g}",
            ),
        )
    D = int(rng.choice([64, 128, 256, 512, 768]))
    F = D * int(rng.choice([2, 4]))
    h = int(rng.choice([1, 2, 4, 8]))
    p = tf.block_parameters(D, F)
    return Exercise(
        question=t("transformer_families.ex_params_q", D=D, F=F, h=h),
        answer=float(p.total),
        explanation=t(
            "transformer_families.ex_params_how",
            attn=f"{p.self_attention:,}",
            ffn=f"{p.feed_forward:,}",
            norms=f"{p.norms:,}",
            total=f"{p.total:,}",
        ),
    )


# ---- Depthwise separable convolution -------------------------------------------------------


def depthwise_separable(rng: np.random.Generator) -> Exercise:
    """Mult-adds of a depthwise separable layer, or the ratio to the standard convolution."""
    from core import convolution as cv

    k = int(rng.choice([3, 5, 7]))
    m, n = (int(c) for c in rng.choice([16, 32, 64, 128, 256, 512], size=2))
    f = int(rng.choice([7, 14, 28, 56]))
    standard, separable = cv.standard_conv_cost(k, m, n, f), cv.depthwise_separable_cost(k, m, n, f)
    values = {
        "k": k,
        "m": m,
        "n": n,
        "f": f,
        "dw": f"{separable.depthwise.mult_adds:,}",
        "pw": f"{separable.pointwise.mult_adds:,}",
        "sep": f"{separable.mult_adds:,}",
        "std": f"{standard.mult_adds:,}",
        "kk": k * k,
    }
    if _kind(rng, ("ratio", "count")) == "ratio":
        ratio = float(cv.cost_ratio(k, n))
        return Exercise(
            question=t("depthwise_separable.ex_ratio_q", **values),
            answer=round(ratio, 4),
            tolerance=5e-4,
            explanation=t("depthwise_separable.ex_ratio_how", ratio=f"{ratio:.4f}", **values),
        )
    return Exercise(
        question=t("depthwise_separable.ex_count_q", **values),
        answer=float(separable.mult_adds),
        tolerance=0.01 * separable.mult_adds,
        explanation=t("depthwise_separable.ex_count_how", **values),
    )


# ---- Backpropagation by hand --------------------------------------------------------------


def backprop_by_hand(rng: np.random.Generator) -> Exercise:
    """One entry of a softmax row's backward pass: ∂L/∂sⱼ = aⱼ(gⱼ − g·a)."""
    from core import backprop as bp

    n = int(rng.integers(3, 5))
    a = sm.softmax(np.round(rng.normal(0.0, 1.0, n), 1))
    a = np.maximum(np.round(a, 2), 0.01)
    top = int(a.argmax())
    a[top] = round(a[top] + 1.0 - float(a.sum()), 2)  # a row that sums to 1 exactly as shown
    g = np.round(rng.uniform(-2, 2, n), 1)
    j = int(rng.integers(n))
    answer = float(bp.softmax_backward(a, g)[j])
    course = float(bp.diagonal_only_softmax_backward(a, g)[j])
    return Exercise(
        question=t("backprop_by_hand.ex_q", a=_vec(a), g=_vec(g), j=_sub(j + 1)),
        answer=round(answer, 4),
        tolerance=5e-4,
        explanation=t(
            "backprop_by_hand.ex_how",
            j=_sub(j + 1),
            ga=_n(float(g @ a)),
            answer=_n(answer),
            course=_n(course),
        ),
    )


# ---- SimCLR -------------------------------------------------------------------------------


def simclr(rng: np.random.Generator) -> Exercise:
    """One anchor's NT-Xent term from its similarities, or the loss of collapsed embeddings."""
    from core import contrastive as ct  # numpy only (its torch networks are core.simclr)

    n = int(rng.integers(2, 5))
    tau = float(rng.choice([0.1, 0.2, 0.5, 1.0]))
    if _kind(rng, ("row", "collapse")) == "collapse":
        answer = ct.nt_xent(np.ones((2 * n, 4)), tau)  # every view the same vector
        return Exercise(
            question=t("simclr.ex_collapse_q", n=n, two_n=2 * n, tau=f"{tau:g}"),
            answer=round(answer, 3),
            tolerance=0.01,
            explanation=t("simclr.ex_collapse_how", two_n1=2 * n - 1, loss=f"{answer:.3f}"),
        )
    z = rng.standard_normal((2 * n, 3))
    z[n:] = z[:n] + 0.6 * rng.standard_normal((n, 3))  # view 2 near view 1 of each image
    # the similarities of anchor view 1 (row 0) as the question shows them, to two decimals;
    # its positive is view 1′ (row n), the answer uses exactly the numbers shown
    row = np.round(ct.cosine_similarity(z)[0], 2)
    probs = sm.masked_softmax(row / tau, np.arange(2 * n) != 0)  # over k ≠ anchor
    answer = float(-np.log(probs[n]))
    listed = ", ".join(f"{row[k]:.2f}".replace("-", "−") for k in range(1, 2 * n) if k != n)
    return Exercise(
        question=t(
            "simclr.ex_row_q",
            n=n,
            two_n=2 * n,
            tau=f"{tau:g}",
            s_pos=f"{row[n]:.2f}".replace("-", "−"),
            negatives=listed,
        ),
        answer=round(answer, 3),
        tolerance=0.02,
        explanation=t(
            "simclr.ex_row_how", tau=f"{tau:g}", p=f"{probs[n]:.4f}", loss=f"{answer:.3f}"
        ),
    )


# ---- Efficient-attention gallery ----------------------------------------------------------


def attention_gallery(rng: np.random.Generator) -> Exercise:
    """Pairs a band keeps on a side×side map, or the score entries SRA keeps."""
    if _kind(rng, ("band", "sra")) == "band":
        side = int(rng.integers(3, 17))
        N = side * side
        w = int(rng.integers(1, 9))
        pairs = int(att.band_mask(N, w).sum())
        return Exercise(
            question=t("attention_gallery.ex_band_q", side=side, N=N, w=w),
            answer=float(pairs),
            explanation=t(
                "attention_gallery.ex_band_how",
                N=N,
                w=w,
                width=2 * w + 1,
                edge=w * (w + 1),
                pairs=pairs,
                share=f"{pairs / N**2:.1%}",
            ),
        )
    side = 2 * int(rng.integers(2, 17))  # 4 … 32
    N = side * side
    R = int(rng.choice([r for r in (2, 4) if side % r == 0]))
    S = int(sra.reshape_for_reduction(np.zeros((N, 1)), side, side, R).shape[0])
    return Exercise(
        question=t("attention_gallery.ex_sra_q", side=side, N=N, R=R),
        answer=float(N * S),
        explanation=t(
            "attention_gallery.ex_sra_how", N=N, R=R, S=S, entries=N * S, full=N * N, factor=R * R
        ),
    )


# ---- Vision Transformer -------------------------------------------------------------------


def vision_transformer(rng: np.random.Generator) -> Exercise:
    """Tokens of a ViT for an image side and patch size, or its attention weights."""
    from core import vit

    S = int(rng.choice([32, 64, 96, 128, 224, 384]))
    P = int(rng.choice([p for p in (4, 8, 16, 32) if S % p == 0 and p < S]))
    h = int(rng.choice([3, 6, 12]))
    c = vit.vit_cost(S, P, 64 * h, h)
    g = S // P
    if _kind(rng, ("tokens", "entries")) == "tokens":
        return Exercise(
            question=t("vision_transformer.ex_tokens_q", S=S, P=P),
            answer=float(c.tokens),
            explanation=t(
                "vision_transformer.ex_tokens_how", S=S, P=P, g=g, N=c.patches, T=c.tokens
            ),
        )
    return Exercise(
        question=t("vision_transformer.ex_entries_q", S=S, P=P, h=h),
        answer=float(c.entries),
        explanation=t(
            "vision_transformer.ex_entries_how", S=S, P=P, h=h, T=c.tokens, entries=f"{c.entries:,}"
        ),
    )


# ---- Sub-pixel convolution -----------------------------------------------------------------


def sub_pixel_convolution(rng: np.random.Generator) -> Exercise:
    """Which input channel feeds an output pixel of the periodic shuffle, or how many
    channels the convolution before it needs."""
    from core import convolution as cv

    r = int(rng.integers(2, 5))
    C = int(rng.integers(1, 4))
    if _kind(rng, ("source", "channels")) == "channels":
        return Exercise(
            question=t("sub_pixel_convolution.ex_channels_q", r=r, C=C),
            answer=float(C * r * r),
            explanation=t("sub_pixel_convolution.ex_channels_how", r=r, C=C, n=C * r * r),
        )
    H = 3
    c, Y, X = int(rng.integers(C)), int(rng.integers(H * r)), int(rng.integers(H * r))
    k, h, w = (int(v) for v in cv.shuffle_sources(C, r, H, H)[c, Y, X])
    return Exercise(
        question=t("sub_pixel_convolution.ex_source_q", r=r, C=C, H=H, c=c, Y=Y, X=X, n=C * r * r),
        answer=float(c * r * r + k),
        explanation=t(
            "sub_pixel_convolution.ex_source_how",
            r=r,
            c=c,
            Y=Y,
            X=X,
            i=Y % r,
            j=X % r,
            h=h,
            w=w,
            rr=r * r,
            ans=c * r * r + k,
        ),
    )
