"""Routing by clustering (Routing Transformer) and approximate maximum inner product search.

    k-means (Lloyd):  J = sum_i ||x_i - mu_{c(i)}||^2,  c(i) = argmin_j ||x_i - mu_j||,
                      mu_j = mean of the points assigned to j       (J never increases)
    routing:          token i may attend token j  iff  c(i) = c(j)  (and j <= i if causal)
                                                          (Roy et al. 2021, §4 "Routing attention")
    MIPS:             argmax_j q . k_j;  ||q - k||^2 = ||q||^2 - 2 q.k + ||k||^2, so with equal
                      key norms the nearest neighbour and the largest cosine are the same keys.

Approximate search scores the centroids first and scans only the keys of the best clusters
("inverted file", IVF); the hierarchical variant clusters the centroids again (a two-level
tree) so fewer centroid dot products are needed. Cost = dot products computed (centroids +
scanned keys); quality = recall of the true top-K.

Shape legend: N keys (tokens), Q queries, d vector size, k clusters, K top-K.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class KMeans:
    """Result of :func:`kmeans`: centroids (k, d), labels (N,), objective J after each step."""

    centroids: Array
    labels: IntArray
    objective: Array


def _points(x: ArrayLike, name: str = "x") -> Array:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty (N, d) array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must be finite numbers")
    return x


def squared_distances(x: ArrayLike, centroids: ArrayLike) -> Array:
    """(N, k) squared Euclidean distances ||x_i - mu_j||^2."""
    x, mu = np.asarray(x, dtype=np.float64), np.asarray(centroids, dtype=np.float64)
    # ||x - mu||^2 = ||x||^2 - 2 x.mu + ||mu||^2, clipped at 0 against rounding
    d2 = (x**2).sum(1)[:, None] - 2 * x @ mu.T + (mu**2).sum(1)[None, :]
    return np.maximum(d2, 0.0)


def assign(x: ArrayLike, centroids: ArrayLike) -> IntArray:
    """Nearest centroid of every point, (N,)."""
    return np.argmin(squared_distances(x, centroids), axis=1).astype(np.int64)


def kmeans_objective(x: ArrayLike, centroids: ArrayLike, labels: ArrayLike) -> float:
    """J = sum_i ||x_i - mu_{c(i)}||^2."""
    x, mu = np.asarray(x, dtype=np.float64), np.asarray(centroids, dtype=np.float64)
    return float(((x - mu[np.asarray(labels)]) ** 2).sum())


def _plus_plus(x: Array, k: int, rng: np.random.Generator) -> IntArray:
    """k-means++ seeding (Arthur & Vassilvitskii 2007): next centre with probability ∝ D²."""
    chosen = [int(rng.integers(len(x)))]
    d2 = squared_distances(x, x[chosen])[:, 0]
    for _ in range(k - 1):
        total = d2.sum()
        if total > 0:
            nxt = int(rng.choice(len(x), p=d2 / total))
        else:  # all remaining points coincide with a centre: any unused index
            nxt = int(rng.choice(np.setdiff1d(np.arange(len(x)), chosen)))
        chosen.append(nxt)
        d2 = np.minimum(d2, squared_distances(x, x[[nxt]])[:, 0])
    return np.array(chosen, dtype=np.int64)


def kmeans(x: ArrayLike, k: int, rng: np.random.Generator, n_iter: int = 25) -> KMeans:
    """Lloyd's k-means, seeded by k-means++ with ``rng``.

    An empty cluster keeps its previous centroid (so J still never increases).
    ``objective[t]`` is J after the assignment step of iteration t.
    """
    x = _points(x)
    N = x.shape[0]
    if not 1 <= int(k) <= N:
        raise ValueError(f"k must be between 1 and the number of points ({N}), got {k}")
    mu = x[_plus_plus(x, int(k), rng)].copy()
    history = []
    labels = assign(x, mu)
    for _ in range(int(n_iter)):
        history.append(kmeans_objective(x, mu, labels))
        for j in range(int(k)):  # update step: mean of each cluster
            members = labels == j
            if members.any():
                mu[j] = x[members].mean(axis=0)
        new = assign(x, mu)
        if np.array_equal(new, labels):
            history.append(kmeans_objective(x, mu, labels))
            break
        labels = new
    return KMeans(mu, labels, np.array(history))


def routing_mask(labels: ArrayLike, causal: bool = False) -> BoolArray:
    """(N, N) Routing Transformer mask: i may attend j iff they share a cluster (and j <= i)."""
    c = np.asarray(labels)
    mask = c[:, None] == c[None, :]
    if causal:
        mask &= np.tri(len(c), dtype=bool)
    return mask


# ---- maximum inner product search ----------------------------------------------------------


def top_k_inner_product(q: ArrayLike, keys: ArrayLike, K: int) -> IntArray:
    """Exact MIPS: indices of the K largest q . k_j for each query, (Q, K), best first."""
    scores = np.atleast_2d(np.asarray(q, dtype=np.float64)) @ np.asarray(keys, dtype=float).T
    return np.argsort(-scores, axis=1, kind="stable")[:, : int(K)]


def top_k_nearest(q: ArrayLike, keys: ArrayLike, K: int) -> IntArray:
    """Exact nearest neighbours by Euclidean distance, (Q, K), nearest first."""
    d2 = squared_distances(np.atleast_2d(q), keys)
    return np.argsort(d2, axis=1, kind="stable")[:, : int(K)]


def top_k_cosine(q: ArrayLike, keys: ArrayLike, K: int) -> IntArray:
    """Exact top-K by cosine similarity, (Q, K)."""
    keys = np.asarray(keys, dtype=np.float64)
    unit = keys / np.linalg.norm(keys, axis=1, keepdims=True)
    return top_k_inner_product(q, unit, K)


def recall(found: ArrayLike, truth: ArrayLike) -> Array:
    """Per query: |found ∩ truth| / |truth| (rows of index arrays or lists), (Q,)."""
    return np.array([len(set(map(int, f)) & set(map(int, t))) / len(t)
                     for f, t in zip(found, truth, strict=True)])  # fmt: skip


@dataclass(frozen=True)
class Tree:
    """Two-level clustering: ``top`` (k1, d) centroids, ``leaves`` (k1*k2, d), ``parent`` of
    each leaf, and ``labels`` = the leaf of each key."""

    top: Array
    leaves: Array
    parent: IntArray
    labels: IntArray


def build_tree(keys: ArrayLike, k1: int, k2: int, rng: np.random.Generator) -> Tree:
    """k-means with k1 clusters, then k-means with k2 clusters inside each (fewer if small)."""
    keys = _points(keys, "keys")
    top = kmeans(keys, k1, rng)
    leaves, parent = [], []
    labels = np.empty(len(keys), dtype=np.int64)
    for j in range(int(k1)):
        idx = np.flatnonzero(top.labels == j)
        if idx.size == 0:
            continue
        sub = kmeans(keys[idx], min(int(k2), idx.size), rng)
        labels[idx] = len(leaves) + sub.labels
        leaves.extend(sub.centroids)
        parent.extend([j] * len(sub.centroids))
    return Tree(top.centroids, np.array(leaves), np.array(parent, dtype=np.int64), labels)


def search_flat(
    q: ArrayLike, keys: ArrayLike, centroids: ArrayLike, labels: ArrayLike, n_probe: int
) -> tuple[list[IntArray], Array]:
    """IVF search: score all k centroids by q . mu, scan the keys of the n_probe best.

    Returns:
        (candidates per query, dot products computed per query (k + keys scanned)).
    """
    q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    mu, labels = np.asarray(centroids, dtype=np.float64), np.asarray(labels)
    best = np.argsort(-(q @ mu.T), axis=1, kind="stable")[:, : int(n_probe)]
    cands = [np.flatnonzero(np.isin(labels, row)) for row in best]
    return cands, np.array([len(mu) + len(c) for c in cands], dtype=float)


def search_tree(q: ArrayLike, keys: ArrayLike, tree: Tree, n_leaves: int) -> tuple[list, Array]:
    """Tree search: score the k1 top centroids, open the best until they hold L leaves, score
    those leaves, scan the keys of the L best. Returns (candidates, dot products per query)."""
    q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    per_top = np.bincount(tree.parent, minlength=len(tree.top))
    cands, dots = [], []
    for row in q:
        order = np.argsort(-(tree.top @ row), kind="stable")
        # open the best top clusters until they hold at least L leaves
        n_open = int(np.searchsorted(np.cumsum(per_top[order]), int(n_leaves)) + 1)
        opened = order[:n_open]
        leaf_ids = np.flatnonzero(np.isin(tree.parent, opened))
        best = leaf_ids[np.argsort(-(tree.leaves[leaf_ids] @ row), kind="stable")][:n_leaves]
        c = np.flatnonzero(np.isin(tree.labels, best))
        cands.append(c)
        dots.append(len(tree.top) + len(leaf_ids) + len(c))
    return cands, np.array(dots, dtype=float)


def rescored_top_k(q: ArrayLike, keys: ArrayLike, candidates: list, K: int) -> list[IntArray]:
    """The K best candidates of each query by exact q . k (what a search returns)."""
    q, keys = np.atleast_2d(np.asarray(q, float)), np.asarray(keys, float)
    out = []
    for row, c in zip(q, candidates, strict=True):
        c = np.asarray(c, dtype=np.int64)
        out.append(c[np.argsort(-(keys[c] @ row), kind="stable")[: int(K)]])
    return out


def recall_curves(
    q: ArrayLike, keys: ArrayLike, K: int, k1: int, k2: int, rng: np.random.Generator
) -> dict[str, Array]:
    """Mean recall@K and mean dot products for L = 1..k1*k2 probed clusters (flat and tree).

    Returns:
        dict with ``probes`` (L values), ``flat_dots``, ``flat_recall``, ``tree_dots``,
        ``tree_recall`` (each (len(probes),)) and the exhaustive cost ``n_keys``.
    """
    keys = _points(keys, "keys")
    truth = top_k_inner_product(q, keys, K)
    flat = kmeans(keys, int(k1) * int(k2), rng)
    tree = build_tree(keys, k1, k2, rng)
    probes = np.arange(1, len(flat.centroids) + 1)
    out = {k: np.zeros(len(probes)) for k in ("flat_dots", "flat_recall", "tree_dots",
                                               "tree_recall")}  # fmt: skip
    for i, L in enumerate(probes):
        for name, (cands, dots) in (("flat", search_flat(q, keys, flat.centroids, flat.labels, L)),
                                    ("tree", search_tree(q, keys, tree, L))):  # fmt: skip
            out[f"{name}_dots"][i] = dots.mean()
            out[f"{name}_recall"][i] = recall(rescored_top_k(q, keys, cands, K), truth).mean()
    out["probes"] = probes.astype(float)
    out["n_keys"] = np.array(float(len(keys)))
    return out



