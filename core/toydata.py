"""Toy data that the pages and tests draw from a seeded ``rng`` (one module, not one per page).

Each generator is a pure function of its sizes and ``rng``: the same seed gives the same
points, so a shared link shows the same picture. Shapes: N points, d dimensions, k clusters,
B pairs.
"""

from __future__ import annotations

import numpy as np

from core.arrays import Array, IntArray
from core.validation import integer, non_negative, one_of, positive, positive_int


def unit_clusters(
    n_tokens: int, dim: int, n_clusters: int, spread: float, rng: np.random.Generator
) -> Array:
    """(N, d) unit-norm tokens around ``n_clusters`` random directions (a toy sequence)."""
    centres = rng.standard_normal((int(n_clusters), int(dim)))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    x = centres[rng.integers(0, int(n_clusters), int(n_tokens))]
    x = x + float(spread) * rng.standard_normal((int(n_tokens), int(dim))) / np.sqrt(dim)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def mips_keys(
    n_keys: int,
    n_queries: int,
    dim: int,
    n_clusters: int,
    rng: np.random.Generator,
    equal_norms: bool = False,
) -> tuple[Array, Array]:
    """Toy keys around cluster centres with log-normal norms (or all norm 1) and queries."""
    centres = rng.standard_normal((int(n_clusters), int(dim)))
    keys = centres[rng.integers(0, int(n_clusters), int(n_keys))]
    keys = keys + 0.6 * rng.standard_normal((int(n_keys), int(dim)))
    keys /= np.linalg.norm(keys, axis=1, keepdims=True)
    norms = rng.lognormal(0.0, 0.5, (int(n_keys), 1))  # drawn either way: same queries
    if not equal_norms:
        keys *= norms
    q = centres[rng.integers(0, int(n_clusters), int(n_queries))]
    q = q + 0.6 * rng.standard_normal((int(n_queries), int(dim)))
    return keys, q / np.linalg.norm(q, axis=1, keepdims=True)


def blobs(
    n_points: int, dim: int, n_clusters: int, spread: float, rng: np.random.Generator
) -> Array:
    """(N, d) points around ``n_clusters`` centres in [-1, 1]^d (a toy token sequence)."""
    centres = rng.uniform(-1.0, 1.0, (int(n_clusters), int(dim)))
    x = centres[rng.integers(0, int(n_clusters), int(n_points))]
    return x + float(spread) * rng.standard_normal((int(n_points), int(dim)))


def positive_pairs(n_pairs: int, dim: int, spread: float, rng: np.random.Generator) -> Array:
    """2B unit embeddings in R^d: B random items, each seen twice with noise ``spread``.

    Row k and row k + B are the two augmented views of item k.
    """
    if n_pairs < 1 or dim < 2:
        raise ValueError("need at least one pair and dimension >= 2")
    if spread < 0:
        raise ValueError("spread must be >= 0")
    items = rng.standard_normal((int(n_pairs), int(dim)))  # (B, d)
    views = np.concatenate([items, items]) + spread * rng.standard_normal((2 * n_pairs, dim))
    return views / np.linalg.norm(views, axis=1, keepdims=True)


def varied_length_clusters(
    n_tokens: int,
    dim: int,
    n_clusters: int,
    spread: float,
    rng: np.random.Generator,
    min_length: float = 0.35,
) -> Array:
    """:func:`unit_clusters` with each token's length drawn from U(min_length, 1).

    Directions cluster, lengths vary: a hash that only sees directions (Reformer LSH) puts
    a short and a long token on one ray in the same bucket.
    """
    x = unit_clusters(n_tokens, dim, n_clusters, spread, rng)
    return x * rng.uniform(float(min_length), 1.0, (int(n_tokens), 1))


def circle_clusters(
    n: int, n_clusters: int, rng: np.random.Generator, spread: float = 0.45, radius: float = 2.5
) -> tuple[Array, IntArray]:
    """A 2-D set of n points in Gaussian clusters whose centres sit on a circle (a toy set).

    Returns:
        (X (n, 2), labels (n,)): the points in a random order and their cluster ids; every
        cluster has at least one point.
    """
    n = positive_int(n, "n")
    n_clusters = integer(n_clusters, "clusters", 1, n)
    angles = 2 * np.pi * (np.arange(n_clusters) / n_clusters + rng.uniform())
    centres = radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)  # (c, 2)
    labels = rng.integers(0, n_clusters, size=n)
    labels[:n_clusters] = np.arange(n_clusters)  # every cluster has a point
    labels = rng.permutation(labels)
    X = centres[labels] + spread * rng.standard_normal((n, 2))
    return X, labels.astype(np.int64)


# ---- 2-D data for the reverse-diffusion page (scaled to about [−1.5, 1.5]²) ----------------
MIXTURE_LAYOUTS: tuple[str, ...] = ("ring", "grid", "line")
SHAPES_2D: tuple[str, ...] = ("moons", "swiss_roll", "circle")


def mixture_preset(
    layout: str, n_components: int, spread: float, balance: float = 1.0
) -> tuple[Array, Array, Array]:
    """A 2-D Gaussian mixture Σ_k w_k N(μ_k, σ² I): means (K, 2), stds (K,), weights (K,).

    Layouts: ``"ring"`` (means on a circle of radius 1.2), ``"grid"`` (a square grid in
    [−1.2, 1.2]², row by row), ``"line"`` (evenly along the x axis). Every component has the
    spread σ; the weights are w_k ∝ balance^k (1: all equal; 0.5: each half the previous).
    """
    one_of(layout, "layout", MIXTURE_LAYOUTS)
    K = integer(n_components, "components", 1, 16)
    sigma = positive(spread, "spread")
    b = positive(balance, "balance")
    if K == 1:
        means = np.zeros((1, 2))
    elif layout == "ring":
        angles = np.pi / 2 + 2 * np.pi * np.arange(K) / K
        means = 1.2 * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    elif layout == "grid":
        side = int(np.ceil(np.sqrt(K)))
        ticks = np.linspace(-1.2, 1.2, side)
        means = np.array([(ticks[i % side], ticks[::-1][i // side]) for i in range(K)])
    else:
        means = np.stack([np.linspace(-1.2, 1.2, K), np.zeros(K)], axis=1)
    weights = b ** np.arange(K, dtype=np.float64)
    return means.astype(np.float64), np.full(K, sigma), weights / weights.sum()


def two_moons(n: int, noise: float, rng: np.random.Generator) -> Array:
    """(n, 2) points on two interleaved half circles (as scikit-learn's ``make_moons``),
    centred, plus Gaussian noise of standard deviation ``noise``."""
    n = positive_int(n, "n")
    theta = np.pi * rng.uniform(size=n)
    upper = rng.uniform(size=n) < 0.5
    x = np.where(upper, np.cos(theta), 1.0 - np.cos(theta)) - 0.5
    y = np.where(upper, np.sin(theta), 0.5 - np.sin(theta)) - 0.25
    return np.stack([x, y], axis=1) + non_negative(noise, "noise") * rng.standard_normal((n, 2))


def swiss_roll_2d(n: int, noise: float, rng: np.random.Generator) -> Array:
    """(n, 2) points on a spiral (scikit-learn's ``make_swiss_roll`` seen from its axis):
    θ = 1.5π(1 + 2u), (θ cos θ, θ sin θ)/(3π), plus Gaussian noise of std ``noise``."""
    n = positive_int(n, "n")
    theta = 1.5 * np.pi * (1.0 + 2.0 * rng.uniform(size=n))
    points = np.stack([theta * np.cos(theta), theta * np.sin(theta)], axis=1) / (3 * np.pi)
    return points + non_negative(noise, "noise") * rng.standard_normal((n, 2))


def noisy_circle(n: int, noise: float, rng: np.random.Generator, radius: float = 1.0) -> Array:
    """(n, 2) points at uniform angles on a circle of ``radius``, plus Gaussian noise."""
    n = positive_int(n, "n")
    angles = 2 * np.pi * rng.uniform(size=n)
    points = positive(radius, "radius") * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    return points + non_negative(noise, "noise") * rng.standard_normal((n, 2))


def shape_2d(name: str, n: int, noise: float, rng: np.random.Generator) -> Array:
    """One of ``SHAPES_2D`` by name: two moons, a swiss roll or a circle."""
    one_of(name, "data", SHAPES_2D)
    make = {"moons": two_moons, "swiss_roll": swiss_roll_2d, "circle": noisy_circle}[name]
    return make(n, noise, rng)
