"""Toy data that the pages and tests draw from a seeded ``rng`` (one module, not one per page).

Each generator is a pure function of its sizes and ``rng``: the same seed gives the same
points, so a shared link shows the same picture. Shapes: N points, d dimensions, k clusters,
B pairs.
"""

from __future__ import annotations

import numpy as np

from core.arrays import Array


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
    n_keys: int, n_queries: int, dim: int, n_clusters: int, rng: np.random.Generator,
    equal_norms: bool = False,
) -> tuple[Array, Array]:  # fmt: skip
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
    n_tokens: int, dim: int, n_clusters: int, spread: float, rng: np.random.Generator,
    min_length: float = 0.35,
) -> Array:  # fmt: skip
    """:func:`unit_clusters` with each token's length drawn from U(min_length, 1).

    Directions cluster, lengths vary: a hash that only sees directions (Reformer LSH) puts
    a short and a long token on one ray in the same bucket.
    """
    x = unit_clusters(n_tokens, dim, n_clusters, spread, rng)
    return x * rng.uniform(float(min_length), 1.0, (int(n_tokens), 1))
