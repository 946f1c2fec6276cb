"""core.routing: k-means, routing masks and approximate MIPS (properties and oracles)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import routing as rt
from core import toydata

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


def points(max_n: int = 30, max_d: int = 4):
    shape = st.tuples(st.integers(2, max_n), st.integers(1, max_d))
    return shape.flatmap(lambda s: arrays(np.float64, s, elements=finite))


@given(points(), st.integers(1, 6), st.integers(0, 2**31))
@settings(max_examples=60)
def test_kmeans_objective_never_increases_and_labels_are_nearest_centroids(x, k, seed):
    k = min(k, len(x))
    res = rt.kmeans(x, k, np.random.default_rng(seed))
    J = res.objective
    assert np.all(np.diff(J) <= 1e-9 * (1 + J[:-1]))
    assert res.centroids.shape == (k, x.shape[1]) and res.labels.shape == (len(x),)
    assert res.labels.min() >= 0 and res.labels.max() < k
    d2 = rt.squared_distances(x, res.centroids)
    chosen = d2[np.arange(len(x)), res.labels]
    assert np.all(chosen <= d2.min(axis=1) + 1e-9 * (1 + d2.max()))


def test_kmeans_finds_well_separated_clusters():
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    x = np.concatenate([c + 0.1 * rng.standard_normal((20, 2)) for c in centres])
    res = rt.kmeans(x, 3, rng)
    truth = np.repeat(np.arange(3), 20)
    # the same partition up to renaming: contingency table is a permutation
    table = np.zeros((3, 3), int)
    np.add.at(table, (truth, res.labels), 1)
    assert sorted(table.max(axis=1)) == [20, 20, 20]


@pytest.mark.parametrize("k", [0, 5])
def test_bad_k_is_rejected(k):
    with pytest.raises(ValueError, match="between 1"):
        rt.kmeans(np.zeros((4, 2)), k, np.random.default_rng(0))


@given(st.lists(st.integers(0, 4), min_size=1, max_size=30), st.booleans())
def test_routing_mask_is_same_cluster_and_causal(labels, causal):
    mask = rt.routing_mask(labels, causal)
    n = len(labels)
    for i, j in itertools.product(range(n), range(n)):
        assert mask[i, j] == (labels[i] == labels[j] and (not causal or j <= i))
    assert np.all(np.diag(mask))


# ---- MIPS ------------------------------------------------------------------------------------


def brute_force_top_k(q, keys, K):
    """An independent search: every (score, index) pair sorted by hand, python floats."""
    out = []
    for row in q:
        scored = sorted(
            ((-sum(a * b for a, b in zip(row, k, strict=True)), j) for j, k in enumerate(keys))
        )
        out.append([j for _, j in scored[:K]])
    return np.array(out)


@given(st.integers(0, 2**31), st.integers(1, 8))
@settings(max_examples=30)
def test_top_k_inner_product_matches_a_brute_force_search(seed, K):
    rng = np.random.default_rng(seed)
    keys, q = rng.standard_normal((40, 5)), rng.standard_normal((6, 5))
    assert np.array_equal(rt.top_k_inner_product(q, keys, K), brute_force_top_k(q, keys, K))


@given(st.integers(0, 2**31), st.integers(1, 16))
@settings(max_examples=30, deadline=None)
def test_recall_is_in_unit_interval_and_one_when_every_cluster_is_scanned(seed, L):
    rng = np.random.default_rng(seed)
    keys, q = toydata.mips_keys(120, 8, 6, 5, rng)
    truth = rt.top_k_inner_product(q, keys, 5)
    flat = rt.kmeans(keys, 16, rng)
    tree = rt.build_tree(keys, 4, 4, rng)
    for cands, dots in (
        rt.search_flat(q, keys, flat.centroids, flat.labels, L),
        rt.search_tree(q, keys, tree, L),
    ):
        r = rt.recall(rt.rescored_top_k(q, keys, cands, 5), truth)
        assert np.all((r >= 0) & (r <= 1))
        assert np.all(dots >= len(c) for c in cands)
    n_leaves = len(tree.leaves)
    for cands, _ in (
        rt.search_flat(q, keys, flat.centroids, flat.labels, 16),
        rt.search_tree(q, keys, tree, n_leaves),
    ):
        assert all(len(c) == len(keys) for c in cands)  # all dot products computed
        assert np.all(rt.recall(rt.rescored_top_k(q, keys, cands, 5), truth) == 1.0)


def test_recall_curves_rise_to_one_and_the_tree_needs_fewer_centroid_products():
    curves = rt.recall_curves(
        *reversed(toydata.mips_keys(400, 32, 8, 8, np.random.default_rng(1))),
        10,
        4,
        4,
        np.random.default_rng(2),
    )
    assert curves.flat_recall[-1] == 1.0 and curves.tree_recall[-1] == 1.0
    assert np.all((curves.flat_recall >= 0) & (curves.flat_recall <= 1))
    assert np.all(np.diff(curves.flat_recall) >= -1e-12)
    assert curves.tree_dots[0] < curves.flat_dots[0]
    assert curves.n_keys == 400 and curves.probes.tolist() == list(range(1, 17))


@given(st.integers(0, 2**31), st.integers(1, 12), st.sampled_from([(4, 4), (3, 5), (2, 8)]))
@settings(max_examples=25, deadline=None)
def test_recall_curves_are_the_searches_query_by_query(seed, K, ks):
    """The curves (every query at once, as masks) are what search_flat, search_tree,
    rescored_top_k and recall give one query at a time, with the same clusterings."""
    k1, k2 = ks
    keys, q = toydata.mips_keys(120, 9, 6, 4, np.random.default_rng(seed), equal_norms=seed % 2)
    curves = rt.recall_curves(q, keys, K, k1, k2, np.random.default_rng([seed, 2]))
    rng = np.random.default_rng([seed, 2])
    flat, tree = rt.kmeans(keys, k1 * k2, rng), rt.build_tree(keys, k1, k2, rng)
    truth = rt.top_k_inner_product(q, keys, K)
    for i, L in enumerate(curves.probes.astype(int)):
        for (cands, cost), dots, found in (
            (rt.search_flat(q, keys, flat.centroids, flat.labels, L), "flat_dots", "flat_recall"),
            (rt.search_tree(q, keys, tree, L), "tree_dots", "tree_recall"),
        ):
            r = rt.recall(rt.rescored_top_k(q, keys, cands, K), truth)
            assert getattr(curves, dots)[i] == pytest.approx(cost.mean())
            assert getattr(curves, found)[i] == pytest.approx(r.mean())


@given(st.integers(0, 2**31), st.integers(1, 6))
@settings(max_examples=30)
def test_with_equal_norms_mips_nearest_neighbour_and_cosine_agree(seed, K):
    rng = np.random.default_rng(seed)
    keys, q = toydata.mips_keys(50, 5, 4, 3, rng, equal_norms=True)
    keys = 2.5 * keys  # any common norm
    mips = rt.top_k_inner_product(q, keys, K)
    assert np.array_equal(mips, rt.top_k_nearest(q, keys, K))
    assert np.array_equal(mips, rt.top_k_cosine(q, keys, K))


def test_with_unequal_norms_mips_prefers_long_keys():
    keys = np.array([[1.0, 0.0], [3.0, 3.0]])
    q = np.array([[1.0, 0.1]])
    assert rt.top_k_inner_product(q, keys, 1)[0, 0] == 1
    assert rt.top_k_nearest(q, keys, 1)[0, 0] == 0
    assert rt.top_k_cosine(q, keys, 1)[0, 0] == 0


def test_equal_norms_are_sufficient_not_necessary_for_mips_to_be_nearest_neighbour():
    """Unequal norms, yet for this query the largest q·k is also the nearest key."""
    keys = np.array([[2.0, 0.0], [0.0, 1.0], [-3.0, 0.0]])
    q = np.array([[1.9, 0.1]])
    assert len(set(np.linalg.norm(keys, axis=1))) == 3
    assert rt.top_k_inner_product(q, keys, 3).tolist() == rt.top_k_nearest(q, keys, 3).tolist()


def test_causal_routing_keeps_the_diagonal_as_the_released_code_does():
    """google-research routing_transformer: a cluster's keys sorted by position, then the
    lower-triangular bias "up to and including its own" position (j ≤ i)."""
    labels = np.array([2, 0, 2, 1, 0, 2])
    mask = rt.routing_mask(labels, causal=True)
    assert np.all(np.diag(mask)) and mask.sum(axis=1).min() == 1
    firsts = [int(np.flatnonzero(labels == c)[0]) for c in np.unique(labels)]
    assert all(mask[i].sum() == 1 for i in firsts)  # the first of a cluster sees only itself
    # oracle: per cluster, a lower triangle over its members in position order
    expected = np.zeros((6, 6), bool)
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        expected[np.ix_(idx, idx)] = np.tril(np.ones((len(idx), len(idx)), bool))
    assert np.array_equal(mask, expected)


def test_bad_points_raise_core_errors_with_codes():
    from core.errors import CoreError

    with pytest.raises(CoreError) as err:
        rt.kmeans(np.array([[0.0, np.nan], [1.0, 1.0]]), 1, np.random.default_rng(0))
    assert err.value.code == "not_finite"
    with pytest.raises(CoreError) as err:
        rt.kmeans(np.zeros(4), 1, np.random.default_rng(0))
    assert err.value.code == "wrong_ndim"
