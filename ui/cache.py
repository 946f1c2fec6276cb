"""Cached adapters: bounded ``st.cache_data`` wrappers around expensive core calls.

Cache decorators live here, never in ``core/`` (which stays free of Streamlit). Every cache
has ``max_entries`` so a classroom cannot grow memory without bound. ``st.cache_data``
returns a fresh copy on each hit, so pages may not mutate shared state by accident.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

from core import attention as att
from core import contrastive as ct
from core import routing as rt
from core import softmax as sm
from core import toydata

if TYPE_CHECKING:  # torch is imported only by the pages that use it
    from core import set_transformer as stf


@st.cache_data(max_entries=64, show_spinner=False)
def dot_products(d: int, n_pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    return sm.sample_dot_products(d, n_pairs, np.random.default_rng(seed))


@st.cache_data(max_entries=16, show_spinner=False)
def dot_product_variances(dims: tuple[int, ...], n_pairs: int, seed: int) -> np.ndarray:
    """(len(dims), 2): sample variance of q.k and of q.k/sqrt(d) for each d."""
    rng = np.random.default_rng(seed)
    out = []
    for d in dims:
        raw, scaled = sm.sample_dot_products(d, n_pairs, rng)
        out.append((raw.var(ddof=1), scaled.var(ddof=1)))
    return np.array(out)


@st.cache_data(max_entries=64, show_spinner=False)
def calibration_case(
    n_samples: int, n_classes: int, overconfidence: float, seed: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Synthetic over-confident classifier and its fitted temperature."""
    logits, labels = sm.overconfident_classifier(
        n_samples, n_classes, overconfidence, np.random.default_rng(seed)
    )
    return logits, labels, sm.fit_temperature(logits, labels)


@st.cache_data(max_entries=64, show_spinner=False)
def contrastive_case(
    n_pairs: int, spread: float, seed: int, taus: tuple[float, ...]
) -> tuple[np.ndarray, np.ndarray, float]:
    """Embeddings, the NT-Xent loss at every tau of the slider, and the tau -> inf loss.

    None of it depends on the current tau, so a tau step only reads it back.
    """
    z = toydata.positive_pairs(n_pairs, 8, spread, np.random.default_rng(seed))
    losses = np.array([ct.nt_xent(z, tau) for tau in taus])
    return z, losses, ct.nt_xent(z, 1e6)


@st.cache_data(max_entries=32, show_spinner=False)
def linear_attention_timing(length: int, d: int, repeats: int, run: int) -> tuple[float, float]:
    """Median seconds (explicit, reordered) at one N; ``run`` lets the user measure again."""
    explicit, reordered = att.time_orderings(
        [length], d, repeats, np.random.default_rng([run, length])
    )
    return float(explicit[0]), float(reordered[0])


@st.cache_data(max_entries=8, show_spinner=False)
def scene_tokens(side: int) -> tuple[np.ndarray, np.ndarray]:
    """The sample image averaged to side×side tokens: (rgb (side, side, 3), x (side², 7))."""
    from PIL import Image

    from core import sra
    from ui.registry import ROOT

    with Image.open(ROOT / "assets/images/scene.png") as im:
        image = np.asarray(im.convert("RGB"), dtype=np.float64) / 255.0
    rgb = sra.block_mean(image, side)
    return rgb, sra.image_features(rgb)


# ---- Reformer LSH and routing ------------------------------------------------------------


@st.cache_data(max_entries=64, show_spinner=False)
def lsh_collision_curves(
    n_buckets: int, n_hashes: int, dim: int, trials: int, n_angles: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(theta, p one round, p at least one of n rounds): Monte Carlo, vectorised over trials."""
    from core import lsh

    theta = np.linspace(0.0, np.pi, n_angles)
    p1 = lsh.estimate_collision_probability(
        theta, n_buckets, np.random.default_rng([seed, 1]), trials=trials, dim=dim
    )
    pn = lsh.estimate_collision_probability(
        theta,
        n_buckets,
        np.random.default_rng([seed, 2]),
        trials=trials,
        dim=dim,
        n_hashes=n_hashes,
    )
    return theta, p1, pn


@st.cache_data(max_entries=32, show_spinner=False)
def lsh_mass_curve(
    x: np.ndarray,
    bucket_options: tuple[int, ...],
    max_rounds: int,
    chunk: int,
    beta: float,
    seed: int,
) -> np.ndarray:
    """Kept attention mass for every b and n = 1..max_rounds (averaged over draws of R)."""
    from core import lsh

    return lsh.mass_kept_curve(
        x, bucket_options, max_rounds, chunk, beta, np.random.default_rng([seed, 3])
    )


@st.cache_data(max_entries=32, show_spinner=False)
def routing_recall_curves(
    n_keys: int,
    n_queries: int,
    dim: int,
    top_k: int,
    k1: int,
    k2: int,
    equal_norms: bool,
    seed: int,
) -> rt.RecallCurves:
    """Recall of the true top-K against dot products, flat and hierarchical k-means."""
    keys, q = toydata.mips_keys(
        n_keys, n_queries, dim, 12, np.random.default_rng([seed, 1]), equal_norms=equal_norms
    )
    return rt.recall_curves(q, keys, top_k, k1, k2, np.random.default_rng([seed, 2]))


@st.cache_data(max_entries=64, show_spinner=False)
def isab_attention(
    X: np.ndarray, seed: int, dim: int, heads: int, m: int
) -> tuple[np.ndarray, np.ndarray]:
    """Seeded ISAB's two maps on the set X: (h, m, n) inducing → set and (h, n, m) back.

    A slider step over m, j or the head then draws from here: the forward is tiny, but on a
    busy server each of its torch calls waits for the GIL and a core (15-60 ms measured).
    """
    import torch  # only the page that shows the Set Transformer gets here

    isab = set_blocks(seed, X.shape[1], dim, heads, m)[0]
    with torch.inference_mode():
        result = isab.explain(torch.from_numpy(X)[None])
    return result.weights_ix[0].numpy(), result.weights_xh[0].numpy()


@st.cache_data(max_entries=64, show_spinner=False)
def isab_encoded(X: np.ndarray, seed: int, dim: int, heads: int, m: int) -> np.ndarray:
    """Seeded ISAB's output on the set X, (n, dim): what the pooling view pools. A shuffle
    step moves only the rows (πZ), so it pools this without running the encoder again."""
    import torch

    isab = set_blocks(seed, X.shape[1], dim, heads, m)[0]
    with torch.inference_mode():
        return isab(torch.from_numpy(X)[None])[0].numpy()


@st.cache_resource(max_entries=16, show_spinner=False)
def set_blocks(
    seed: int, dim_in: int, dim: int, heads: int, m: int
) -> tuple[stf.ISAB, stf.SAB, stf.PMA]:
    """``core.set_transformer.seeded_blocks``, drawn once per seed and shared by every session.

    Read only: pages call these modules under ``torch.inference_mode`` and never train them,
    and their forwards keep no state, so sessions may call them at once. Drawing the blocks
    and converting them to float64 took 8-20 ms of a shuffle step on the server (py-spy).
    """
    from core import set_transformer as stf

    return stf.seeded_blocks(seed, dim_in, dim, heads, m)


@st.cache_resource(max_entries=16, show_spinner=False)
def set_model(
    seed: int, dim_in: int, dim_out: int, dim: int, heads: int, m: int, k: int
) -> stf.SetTransformer:
    """The page's whole untrained ``SetTransformer`` for a seed and k seeds, float64, read only
    and shared like :func:`set_blocks`."""
    import torch

    from core import set_transformer as stf

    g = torch.Generator().manual_seed(seed)
    return stf.SetTransformer(dim_in, dim_out, dim, heads, m, k, generator=g).double()


@st.cache_data(max_entries=64, show_spinner=False)
def pair_counts(
    name: str, params: tuple[tuple[str, int], ...], seed: int, lengths: tuple[int, ...]
) -> tuple[int, ...]:
    """Allowed pairs of a sparse pattern at each length, counted on its dense mask (up to
    2048² cells: tens of ms a pattern, so a return to a pattern is a look-up)."""
    return tuple(
        int(att.preset_mask(name, n, rng=np.random.default_rng(seed), **dict(params)).sum())  # type: ignore[arg-type]
        for n in lengths
    )


@st.cache_data(max_entries=32, show_spinner=False)
def wallis_sandwich(N: int, points: int) -> dict[str, object]:
    """The exact sandwich W_{2N+2} ≤ W_{2N+1} ≤ W_{2N} (sympy) and what the Wallis page checks
    of it, the trapezoid rule on ``points`` points of [0, π/2] included: once per N for every
    session (sympy takes about 2 ms an N, and the page's live N control sends all 21).

    Keys: ``latex`` and ``floats`` (W_{2N+2}, W_{2N+1}, W_{2N}), ``ratio`` (2N+1)/(2N+2),
    ``W_ratio`` W_{2N+1}/W_{2N}; the checks ``recurrence``, ``order``, ``product`` (the ratio
    is (2/π)·P_N exactly), ``quadrature`` with its largest gap ``gap``.
    """
    import math
    from fractions import Fraction

    import sympy

    from core import wallis as w

    x = np.linspace(0, math.pi / 2, points)
    W2, W1, W0 = w.sandwich(N)  # W_{2N+2}, W_{2N+1}, W_{2N}
    P_N = w.wallis_partial_product_exact(N) if N else Fraction(1)
    ratio = sympy.Rational(2 * N + 1, 2 * N + 2)
    quad = [
        float(np.sum((row[1:] + row[:-1]) / 2) * (x[1] - x[0]))
        for row in w.sandwich_integrands(x, N)
    ]
    exact = [float(W0), float(W1), float(W2)]
    return {
        "latex": tuple(sympy.latex(v) for v in (W2, W1, W0)),
        "floats": (float(W2), float(W1), float(W0)),
        "ratio": float(ratio),
        "W_ratio": float(W1 / W0),
        "recurrence": bool(sympy.simplify(W2 - ratio * W0) == 0),
        "order": bool(W2 <= W1 <= W0),
        "product": bool(sympy.simplify(W1 / W0 - 2 * sympy.Rational(P_N) / sympy.pi) == 0),
        "quadrature": bool(np.allclose(quad, exact, rtol=1e-4, atol=1e-6)),
        "gap": max(abs(a - b) for a, b in zip(quad, exact, strict=True)),
    }
