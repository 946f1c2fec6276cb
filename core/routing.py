"""Routing by clustering (Routing Transformer) and approximate maximum inner product search.

    k-means (Lloyd):  J = sum_i ||x_i - mu_{c(i)}||^2,  c(i) = argmin_j ||x_i - mu_j||,
                      mu_j = mean of the points assigned to j       (J never increases)
    routing:          token i may attend token j  iff  c(i) = c(j)  (and j <= i if causal)
                                                          (Roy et al. 2021, §4 "Routing attention")
    MIPS:             argmax_j q . k_j;  ||q - k||^2 = ||q||^2 - 2 q.k + ||k||^2, so when all
                      keys have the same norm the nearest neighbour and the largest cosine are
                      the same keys (sufficient, not necessary: they can agree anyway).

Causal routing keeps j <= i, the token itself included, as the authors' released code does
(google-research ``routing_transformer/utils.py``: keys of a cluster sorted by position, then
the lower-triangular bias "up to and including its own" position). The course article writes
the routing sum with j < i; with a strict inequality the first token of every cluster would
have nothing to attend to.

Approximate search scores the centroids first and scans only the keys of the best clusters
("inverted file", IVF); the hierarchical variant clusters the centroids again (a two-level
tree) so fewer centroid dot products are needed. Cost = dot products computed (centroids +
scanned keys); quality = recall of the true top-K.

Shape legend: N keys (tokens), Q queries, d vector size, k clusters, K top-K.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from core import validation
from core.arrays import Array, BoolArray, IntArray


@dataclass(frozen=True)
class KMeans:
    """Result of :func:`kmeans`: centroids (k, d), labels (N,), objective J after each step."""

    centroids: Array
    labels: IntArray
    objective: Array


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
    x = validation.finite_array(x, "x", ndim=2)
    k = validation.integer(k, "k", 1, x.shape[0])  # at most one cluster per point
    mu = x[_plus_plus(x, k, rng)].copy()
    history = []
    labels = assign(x, mu)
    for _ in range(validation.positive_int(n_iter, "n_iter")):
        history.append(kmeans_objective(x, mu, labels))
        for j in range(k):  # update step: mean of each cluster
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
    """(N, N) Routing Transformer mask: i may attend j iff they share a cluster (and j <= i).

    Causal: j <= i, so a token always sees itself (the released code's lower-triangular
    bias); every row has at least one allowed key.
    """
    c = np.asarray(labels)
    mask = c[:, None] == c[None, :]
    if causal:
        mask &= np.tri(len(c), dtype=bool)
    return mask


def cluster_order(labels: ArrayLike) -> IntArray:
    """Tokens sorted by (cluster, position): the order that lines the mask up in blocks, (N,)."""
    c = np.asarray(labels)
    return np.lexsort((np.arange(c.size), c)).astype(np.int64)


def routing_pairs(labels: ArrayLike, causal: bool = False) -> int:
    """|S|, the pairs routing attention computes: Σ nⱼ², or Σ nⱼ(nⱼ + 1)/2 with j ≤ i."""
    sizes = np.bincount(np.asarray(labels, dtype=np.int64))
    return int((sizes * (sizes + 1) // 2).sum() if causal else (sizes**2).sum())


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
    return np.array(
        [
            len(set(map(int, f)) & set(map(int, t))) / len(t)
            for f, t in zip(found, truth, strict=True)
        ]
    )


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
    keys = validation.finite_array(keys, "keys", ndim=2)
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
    probed = np.zeros((len(q), len(mu)), dtype=bool)  # (Q, k): the clusters each query scans
    np.put_along_axis(probed, best, True, axis=1)
    cands = [np.flatnonzero(row) for row in probed[:, labels]]  # keys in a probed cluster
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
        opened = np.zeros(len(tree.top), dtype=bool)
        opened[order[:n_open]] = True
        leaf_ids = np.flatnonzero(opened[tree.parent])
        best = leaf_ids[np.argsort(-(tree.leaves[leaf_ids] @ row), kind="stable")][:n_leaves]
        scanned = np.zeros(len(tree.leaves), dtype=bool)
        scanned[best] = True
        c = np.flatnonzero(scanned[tree.labels])
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


def _ranks(scores: Array) -> IntArray:
    """Each entry's place in its row, best (largest) first, ties by index: (Q, k)."""
    return np.argsort(np.argsort(-scores, axis=1, kind="stable"), axis=1)


def _rescored_recall(cands: BoolArray, is_true: BoolArray, K: int) -> float:
    """Mean recall@K of rescoring each query's candidates (a (Q, N) mask) exactly.

    No sort is needed: a true top-K key among the candidates ranks among them no lower than
    it ranks among all keys, so the K best candidates hold every true key that is a candidate.
    """
    return float(np.mean(np.sum(cands & is_true, axis=1) / K))


@dataclass(frozen=True)
class RecallCurves:
    """Approximate MIPS against its cost, for L = 1..k probed clusters (each array (k,)).

    Attributes:
        probes: L, the number of clusters (flat) or leaves (tree) scanned.
        flat_dots, flat_recall: mean dot products per query and mean recall@K, flat k-means.
        tree_dots, tree_recall: the same for the two-level tree.
        n_keys: N, the cost of exhaustive search (every key scored).
    """

    probes: Array
    flat_dots: Array
    flat_recall: Array
    tree_dots: Array
    tree_recall: Array
    n_keys: int


def recall_curves(
    q: ArrayLike, keys: ArrayLike, K: int, k1: int, k2: int, rng: np.random.Generator
) -> RecallCurves:
    """Mean recall@K and mean dot products for L = 1..k1*k2 probed clusters (flat and tree).

    The searches of :func:`search_flat` and :func:`search_tree` and the rescoring of
    :func:`rescored_top_k`, for every query at once as (Q, N) masks: every product is computed
    once, and L only moves thresholds on ranks (``tests/core/test_routing.py`` checks the
    curves against those functions, query by query).
    """
    keys = validation.finite_array(keys, "keys", ndim=2)
    K = validation.positive_int(K, "K", len(keys))
    q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    truth = top_k_inner_product(q, keys, K)
    is_true = np.zeros((len(q), len(keys)), dtype=bool)
    np.put_along_axis(is_true, truth, True, axis=1)
    flat = kmeans(keys, int(k1) * int(k2), rng)
    tree = build_tree(keys, k1, k2, rng)
    probes = np.arange(1, len(flat.centroids) + 1)
    flat_rank = _ranks(q @ flat.centroids.T)  # (Q, k): 0 for a query's best centroid
    top_order = np.argsort(-(q @ tree.top.T), axis=1, kind="stable")  # (Q, k1)
    top_rank = np.argsort(top_order, axis=1)
    reach = np.cumsum(np.bincount(tree.parent, minlength=len(tree.top))[top_order], axis=1)
    leaf_scores = q @ tree.leaves.T  # (Q, leaves)
    dots = {"flat": np.zeros(len(probes)), "tree": np.zeros(len(probes))}
    found = {"flat": np.zeros(len(probes)), "tree": np.zeros(len(probes))}
    for i, L in enumerate(probes.tolist()):
        cands = (flat_rank < L)[:, flat.labels]  # the keys of the L best centroids
        dots["flat"][i] = np.mean(len(flat.centroids) + cands.sum(axis=1))
        found["flat"][i] = _rescored_recall(cands, is_true, K)
        # open the best top clusters until they hold at least L leaves, scan the L best leaves
        n_open = np.sum(reach < L, axis=1) + 1
        opened = (top_rank < n_open[:, None])[:, tree.parent]  # (Q, leaves)
        best = np.argsort(-np.where(opened, leaf_scores, -np.inf), axis=1, kind="stable")[:, :L]
        scanned = np.zeros_like(opened)
        np.put_along_axis(scanned, best, np.take_along_axis(opened, best, axis=1), axis=1)
        cands = scanned[:, tree.labels]
        dots["tree"][i] = np.mean(len(tree.top) + opened.sum(axis=1) + cands.sum(axis=1))
        found["tree"][i] = _rescored_recall(cands, is_true, K)
    return RecallCurves(
        probes.astype(float), dots["flat"], found["flat"], dots["tree"], found["tree"], len(keys)
    )
