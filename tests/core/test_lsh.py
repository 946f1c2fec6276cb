"""core.lsh: property tests (Hypothesis) and oracle tests (closed forms, brute force)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import toydata
from core import lsh

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
even_b = st.integers(1, 8).map(lambda k: 2 * k)


def vectors(max_n: int = 12, max_d: int = 6):
    """(N, d) vectors with no near-zero rows (a zero vector has no direction)."""
    shape = st.tuples(st.integers(1, max_n), st.integers(1, max_d))
    return shape.flatmap(lambda s: arrays(np.float64, s, elements=finite)).filter(
        lambda x: np.all(np.linalg.norm(x, axis=1) > 1e-3)
    )


@given(vectors(), even_b, st.integers(1, 4), st.integers(0, 2**31))
def test_bucket_ids_are_in_range_with_one_row_per_round(x, b, n, seed):
    R = lsh.random_rotations(x.shape[1], b, np.random.default_rng(seed), n)
    assert R.shape == (n, x.shape[1], b // 2)
    h = lsh.lsh_buckets(x, R)
    assert h.shape == (n, x.shape[0]) and h.dtype.kind == "i"
    assert h.min() >= 0 and h.max() < b


@given(vectors(), even_b, st.integers(0, 2**31))
def test_negation_moves_half_way_round(x, b, seed):
    R = lsh.random_rotations(x.shape[1], b, np.random.default_rng(seed), 3)
    h = lsh.lsh_buckets(x, R)
    neg = lsh.lsh_buckets(-x, R)
    # ties (measure zero) aside: h(-x) = (h(x) + b/2) mod b
    rot = np.einsum("nd,hdk->hnk", x, R)
    top = np.sort(np.abs(rot), axis=-1)
    clear = top[..., -1] - (top[..., -2] if b > 2 else 0) > 1e-9
    assert np.array_equal(neg[clear], ((h + b // 2) % b)[clear])


@given(vectors(), even_b, st.floats(1e-3, 1e3), st.integers(0, 2**31))
def test_positive_scaling_keeps_the_bucket(x, b, alpha, seed):
    R = lsh.random_rotations(x.shape[1], b, np.random.default_rng(seed), 2)
    assert np.array_equal(lsh.lsh_buckets(alpha * x, R), lsh.lsh_buckets(x, R))


def test_bucket_is_the_argmax_of_the_concatenation_by_hand():
    R = np.array([[[1.0, 0.0], [0.0, 1.0]]])  # d = 2, b = 4: [x1, x2, -x1, -x2]
    x = np.array([[3.0, 1.0], [0.5, 2.0], [-3.0, 1.0], [0.2, -5.0]])
    assert lsh.lsh_buckets(x, R).tolist() == [[0, 1, 2, 3]]


@pytest.mark.parametrize("b", [0, 1, 3, 7, -2])
def test_odd_or_too_few_buckets_are_rejected_with_a_message(b):
    with pytest.raises(ValueError, match="even"):
        lsh.random_rotations(2, b, np.random.default_rng(0))


def test_mismatched_shapes_are_rejected():
    R = lsh.random_rotations(3, 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="agree on d"):
        lsh.lsh_buckets(np.ones((2, 2)), R)


# ---- sort and chunk --------------------------------------------------------------------------


@given(st.integers(1, 40), even_b, st.integers(1, 8), st.integers(0, 2**31), st.booleans())
@settings(max_examples=60)
def test_sorted_chunk_attention_is_block_sparse(N, b, m, seed, look_back):
    rng = np.random.default_rng(seed)
    h = rng.integers(0, b, N)
    mask = lsh.chunked_lsh_mask(h, m, look_back)
    order = lsh.sort_order(h)
    assert np.all(np.diff(h[order]) >= 0)  # sorted by bucket
    sorted_mask = mask[np.ix_(order, order)]
    ci = np.arange(N)[:, None] // m
    cj = np.arange(N)[None, :] // m
    allowed = (ci == cj) | ((ci - cj == 1) & look_back)
    assert np.array_equal(sorted_mask, allowed)
    assert np.all(np.diag(mask))


def test_more_rounds_only_add_pairs():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((24, 4))
    h = lsh.lsh_buckets(x, lsh.random_rotations(4, 8, rng, 3))
    masks = [lsh.chunked_lsh_mask(h[:n], 4) for n in (1, 2, 3)]
    assert np.all(masks[0] <= masks[1]) and np.all(masks[1] <= masks[2])


def test_kept_mass_and_recall_are_one_for_full_attention():
    rng = np.random.default_rng(2)
    x = toydata.unit_clusters(16, 4, 3, 0.3, rng)
    w = lsh.shared_qk_attention(x, 4.0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    full = np.ones((16, 16), bool)
    np.testing.assert_allclose(lsh.kept_attention_mass(w, full), 1.0)
    np.testing.assert_allclose(lsh.top_k_recall(x @ x.T, full, 3), 1.0)
    assert np.all(lsh.top_k_recall(x @ x.T, np.eye(16, dtype=bool), 3) <= 1.0)


def test_mass_kept_grows_with_rounds():
    rng = np.random.default_rng(3)
    x = toydata.unit_clusters(32, 8, 4, 0.3, rng)
    curve = lsh.mass_kept_curve(x, [2, 8], 4, 4, 6.0, rng, repeats=4)
    assert curve.shape == (2, 4)
    assert np.all(np.diff(curve, axis=1) >= -1e-12) and np.all((curve > 0) & (curve <= 1))


# ---- oracles: closed forms -------------------------------------------------------------------

THETAS = np.linspace(0, np.pi, 13)


@pytest.mark.parametrize("dim", [2, 5])
def test_two_buckets_collide_with_probability_one_minus_theta_over_pi(dim):
    trials = 20_000
    p_hat = lsh.estimate_collision_probability(
        THETAS, 2, np.random.default_rng(7), trials=trials, dim=dim
    )
    p = lsh.collision_probability_two_buckets(THETAS)
    se = np.sqrt(p * (1 - p) / trials) + 1e-12
    assert np.all(np.abs(p_hat - p) <= 4.5 * se + 1e-12)
    assert p_hat[0] == 1.0 and p_hat[-1] == 0.0


@pytest.mark.parametrize(("b", "n"), [(2, 3), (8, 2), (4, 4)])
def test_several_rounds_follow_one_minus_one_minus_p_to_the_n(b, n):
    trials = 20_000
    rng = np.random.default_rng(11)
    p1 = lsh.estimate_collision_probability(THETAS, b, rng, trials=trials, dim=3)
    pn = lsh.estimate_collision_probability(THETAS, b, rng, trials=trials, dim=3, n_hashes=n)
    target = lsh.any_round_probability(p1, n)
    se = np.sqrt(target * (1 - target) / trials) + np.sqrt(p1 * (1 - p1) / trials) * n
    assert np.all(np.abs(pn - target) <= 4.5 * se + 1e-3)


def test_collision_probability_falls_with_angle_and_with_more_buckets():
    rng = np.random.default_rng(5)
    p4 = lsh.estimate_collision_probability(THETAS, 4, rng, trials=5000)
    p16 = lsh.estimate_collision_probability(THETAS, 16, rng, trials=5000)
    assert np.all(np.diff(p4) <= 0.03) and p4[0] == 1.0
    assert np.all(p16[1:-1] <= p4[1:-1] + 0.03)
