"""core.lsh: property tests (Hypothesis) and oracle tests (closed forms, the paper's sets
written out as loops, a trax-style chunked implementation, sympy's convex hull, torch)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import lsh, toydata
from core.errors import CoreError

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


def test_buckets_match_a_torch_argmax_of_the_concatenation():
    """trax's hash_vecs: argmax(concat([xR, -xR])) — here with torch, float64."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((50, 7))
    R = lsh.random_rotations(7, 12, rng, 3)
    rotated = torch.einsum("nd,hdk->hnk", torch.from_numpy(x), torch.from_numpy(R))
    expected = torch.argmax(torch.cat([rotated, -rotated], dim=-1), dim=-1).numpy()
    assert np.array_equal(lsh.lsh_buckets(x, R), expected)


@pytest.mark.parametrize("b", [0, 1, 3, 7, -2])
def test_odd_or_too_few_buckets_are_rejected_with_a_message(b):
    with pytest.raises(CoreError, match="even") as err:
        lsh.random_rotations(2, b, np.random.default_rng(0))
    assert err.value.code == "lsh_even_buckets"


def test_mismatched_shapes_and_bad_sizes_are_rejected():
    R = lsh.random_rotations(3, 4, np.random.default_rng(0))
    with pytest.raises(CoreError, match="agree on d"):
        lsh.lsh_buckets(np.ones((2, 2)), R)
    with pytest.raises(CoreError, match="finite"):
        lsh.lsh_buckets(np.array([[np.nan, 1.0, 0.0]]), R)
    with pytest.raises(CoreError):
        lsh.chunked_lsh_mask(np.zeros(4, int), 0)
    with pytest.raises(CoreError, match="plane"):
        lsh.sector_angles(R)


# ---- sectors in the plane --------------------------------------------------------------------


def hull_exterior_angles(rotation):
    """Oracle (sympy): the exterior angle of the convex hull of ±columns at each corner."""
    p = np.concatenate([rotation, -rotation], axis=1).T  # (b, 2)
    pts = [sympy.Point(sympy.Rational(a), sympy.Rational(c)) for a, c in p]
    hull = sympy.convex_hull(*pts)
    out = np.zeros(len(p))
    if isinstance(hull, sympy.Segment):  # b = 2: two opposite points, two half-planes
        for k in range(len(p)):
            out[k] = math.pi if pts[k] in (hull.p1, hull.p2) else 0.0
        return out
    for corner, interior in hull.angles.items():
        k = pts.index(corner)
        out[k] = math.pi - float(interior)
    return out


@pytest.mark.parametrize(("b", "seed"), [(2, 0), (4, 1), (6, 2), (8, 3), (16, 4), (16, 5)])
def test_sector_angles_are_the_exterior_angles_of_the_convex_hull(b, seed):
    R = lsh.random_rotations(2, b, np.random.default_rng(seed))[0]
    np.testing.assert_allclose(lsh.sector_angles(R)[0], hull_exterior_angles(R), atol=1e-9)


@given(even_b, st.integers(1, 3), st.integers(0, 2**31))
@settings(max_examples=40, deadline=None)
def test_sectors_cover_the_circle_in_mirror_pairs_and_match_a_dense_sweep(b, n, seed):
    R = lsh.random_rotations(2, b, np.random.default_rng(seed), n)
    widths = lsh.sector_angles(R)
    assert widths.shape == (n, b)
    np.testing.assert_allclose(widths.sum(axis=1), 2 * math.pi)
    np.testing.assert_allclose(widths[:, : b // 2], widths[:, b // 2 :], atol=1e-9)
    K = 36_000
    angles = (np.arange(K) + 0.5) * 2 * math.pi / K
    u = np.c_[np.cos(angles), np.sin(angles)]
    for r in range(n):
        share = np.bincount(lsh.lsh_buckets(u, R[r])[0], minlength=b) / K
        np.testing.assert_allclose(widths[r] / (2 * math.pi), share, atol=b / K + 1e-12)


def test_four_buckets_always_have_four_sectors_and_sixteen_usually_fewer():
    """b = 4: ±r1, ±r2 span a parallelogram, every point a corner. b = 16: points inside
    the hull of 16 Gaussian points are the rule, so empty buckets are normal."""
    rng = np.random.default_rng(9)
    four = lsh.sector_angles(lsh.random_rotations(2, 4, rng, 200))
    assert np.all(four > 0)
    sixteen = lsh.sector_angles(lsh.random_rotations(2, 16, rng, 200))
    used = (sixteen > 0).sum(axis=1)
    assert np.all(used % 2 == 0) and used.max() <= 16 and np.mean(used < 16) > 0.9


def test_circle_buckets_are_the_buckets_of_unit_directions():
    R = lsh.random_rotations(2, 6, np.random.default_rng(3), 2)
    angles, h = lsh.circle_buckets(R, 8)
    np.testing.assert_allclose(angles, np.arange(-4, 4) * math.pi / 4)
    assert np.array_equal(h, lsh.lsh_buckets(np.c_[np.cos(angles), np.sin(angles)], R[0])[0])


# ---- principal plane ---------------------------------------------------------------------------


def test_principal_plane_matches_torch_eigenvectors_of_the_covariance():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((40, 5)) * np.array([5.0, 3.0, 1.0, 0.5, 0.1])
    got = lsh.principal_plane(x)
    xt = torch.from_numpy(x - x.mean(axis=0))
    _, vecs = torch.linalg.eigh(xt.T @ xt)  # ascending eigenvalues
    ref = (torch.from_numpy(x) @ vecs[:, [-1, -2]]).numpy()
    ref /= np.abs(ref).max()
    signs = np.sign(np.sum(got * ref, axis=0))  # each principal axis is defined up to sign
    np.testing.assert_allclose(got, ref * signs, atol=1e-9)
    assert np.abs(got).max() == pytest.approx(1.0)


def test_principal_plane_of_one_dimensional_data_pads_a_zero_axis():
    pts = lsh.principal_plane(np.array([[1.0], [2.0], [4.0]]))
    assert pts.shape == (3, 2) and np.all(pts[:, 1] == 0) and np.abs(pts).max() == 1.0


# ---- sort, chunk, attend -----------------------------------------------------------------------


@given(st.lists(st.integers(0, 7), min_size=1, max_size=40))
def test_sort_order_is_by_bucket_then_position(h):
    order = lsh.sort_order(h)
    assert sorted(order.tolist()) == list(range(len(h)))
    keys = [(h[i], i) for i in order]
    assert keys == sorted(keys)


def paper_mask(buckets, m, look_back=True):
    """Oracle: Kitaev et al. §2 written out pair by pair, in plain Python.

    s_i = place of i after sorting by (bucket, position); allowed in a round when
    h_j = h_i (P_i) and ⌊s_i/m⌋ − 1 ≤ ⌊s_j/m⌋ ≤ ⌊s_i/m⌋ (P̃_i); union over rounds; then
    i → i is dropped unless i has no other key.
    """
    rounds = [list(map(int, r)) for r in np.atleast_2d(buckets)]
    N = len(rounds[0])
    allowed = [[False] * N for _ in range(N)]
    for h in rounds:
        ranked = sorted(range(N), key=lambda t: (h[t], t))
        s = {token: place for place, token in enumerate(ranked)}
        for i in range(N):
            for j in range(N):
                lo = s[i] // m - (1 if look_back else 0)
                if h[i] == h[j] and lo <= s[j] // m <= s[i] // m:
                    allowed[i][j] = True
    for i in range(N):
        if any(allowed[i][j] for j in range(N) if j != i):
            allowed[i][i] = False
    return np.array(allowed)


def trax_style_mask(buckets, m):
    """Oracle: the reference code's route (trax LSHCausalAttention, reformer-pytorch), as a mask.

    Sort, reshape into (chunks, m), keys = own chunk + the chunk before by a circular roll
    (so chunk 0 also sees the last chunk), bucket mask, self mask only when nothing else.
    Needs m | N.
    """
    h_all = np.atleast_2d(buckets)
    N = h_all.shape[1]
    score = np.full((N, N), -np.inf)
    for h in h_all:
        st_ = np.lexsort((np.arange(N), h))  # sorted token ids
        bq_t = st_.reshape(-1, m)  # (chunks, m)
        bkv_t = np.concatenate([bq_t, np.roll(bq_t, 1, axis=0)], axis=1)  # look one back
        for q_row, kv_row in zip(bq_t, bkv_t, strict=True):
            for i in q_row:
                for j in kv_row:
                    if h[i] == h[j]:
                        score[i, j] = max(score[i, j], -1e5 if i == j else 0.0)
    best = score.max(axis=1, keepdims=True)
    return score == best  # -1e5 only wins when it is the only finite score


@given(
    st.integers(1, 40),
    even_b,
    st.integers(1, 8),
    st.integers(1, 3),
    st.integers(0, 2**31),
    st.booleans(),
)
@settings(max_examples=80, deadline=None)
def test_chunked_mask_is_the_papers_sets_p_and_p_tilde(N, b, m, n, seed, look_back):
    h = np.random.default_rng(seed).integers(0, b, (n, N))
    assert np.array_equal(lsh.chunked_lsh_mask(h, m, look_back), paper_mask(h, m, look_back))


@given(st.integers(1, 6), st.integers(1, 6), even_b, st.integers(1, 3), st.integers(0, 2**31))
@settings(max_examples=60, deadline=None)
def test_chunked_mask_matches_the_reference_codes_route(chunks, m, b, n, seed):
    N = chunks * m
    h = np.random.default_rng(seed).integers(0, b, (n, N))
    ours, ref = lsh.chunked_lsh_mask(h, m), trax_style_mask(h, m)
    # the reference's circular look-back adds (first chunk -> last chunk) pairs in the same
    # bucket: possible only when one bucket runs from the first chunk to the last
    wraps = np.zeros_like(ours)
    for row in h:
        order = np.lexsort((np.arange(N), row))
        first, last = order[:m], order[-m:]
        same = row[first][:, None] == row[last][None, :]
        wraps[np.ix_(first, last)] |= same
    eye = np.eye(N, dtype=bool)
    may_differ = wraps | (eye & wraps.any(axis=1, keepdims=True))  # and then i -> i
    assert not np.any((ours != ref) & ~may_differ)
    if not wraps.any():
        assert np.array_equal(ours, ref)


def test_only_the_circular_look_back_of_the_reference_code_differs():
    """All tokens in one bucket, 3 chunks of 2: the reference's chunk 0 also sees chunk 2."""
    h = np.zeros(6, int)
    ours, ref = lsh.chunked_lsh_mask(h, 2), trax_style_mask(h, 2)
    assert np.array_equal(
        ours != ref, np.isin(np.arange(6), [0, 1])[:, None] & np.isin(np.arange(6), [4, 5])[None, :]
    )


def test_a_query_never_attends_to_another_bucket_and_itself_only_when_alone():
    h = np.array([0, 1, 0, 0, 2, 1, 0, 3])  # buckets 2 and 3 hold one token each
    mask = lsh.chunked_lsh_mask(h, 2)
    i, j = np.nonzero(mask)
    assert np.all(h[i] == h[j])
    assert np.flatnonzero(np.diag(mask)).tolist() == [4, 7]  # the lone tokens
    assert mask.sum(axis=1).min() >= 1  # nobody is left without a key


def test_every_pair_in_two_chunks_of_one_bucket_and_only_looking_back():
    """One bucket, m = 3, N = 6: chunk 1 (tokens 3..5) sees chunks 0 and 1; chunk 0 only itself."""
    mask = lsh.chunked_lsh_mask(np.zeros(6, int), 3)
    expected = np.zeros((6, 6), bool)
    expected[:3, :3] = True
    expected[3:, :] = True
    np.fill_diagonal(expected, False)
    assert np.array_equal(mask, expected)


def test_more_rounds_only_add_pairs_and_self_only_shrinks():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((24, 4))
    h = lsh.lsh_buckets(x, lsh.random_rotations(4, 8, rng, 3))
    masks = [lsh.chunked_lsh_mask(h[:n], 4) for n in (1, 2, 3)]
    off = ~np.eye(24, dtype=bool)
    assert np.all(masks[0][off] <= masks[1][off]) and np.all(masks[1][off] <= masks[2][off])
    assert np.all(np.diag(masks[1]) <= np.diag(masks[0]))


def test_shared_qk_attention_excludes_itself_and_renormalises_over_the_mask():
    rng = np.random.default_rng(2)
    x = toydata.unit_clusters(16, 4, 3, 0.3, rng)
    w = lsh.shared_qk_attention(x, 4.0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert np.all(np.diag(w) == 0)
    s = 4.0 * x @ x.T  # oracle: softmax over j ≠ i with torch
    ref = torch.softmax(
        torch.from_numpy(s).masked_fill(torch.eye(16, dtype=torch.bool), -math.inf), dim=-1
    ).numpy()
    np.testing.assert_allclose(w, ref, atol=1e-12)
    h = lsh.lsh_buckets(x, lsh.random_rotations(4, 4, rng, 1))
    mask = lsh.chunked_lsh_mask(h, 4)
    kept = lsh.shared_qk_attention(x, 4.0, mask)
    np.testing.assert_allclose(kept.sum(axis=1), 1.0)
    assert np.all(kept[~mask] == 0)
    full = np.where(mask, w, 0.0)  # renormalising the full weights over the kept keys
    rows = full.sum(axis=1) > 0
    np.testing.assert_allclose(kept[rows], (full / full.sum(1, keepdims=True))[rows], atol=1e-12)
    assert lsh.shared_qk_attention(x[:1], 4.0).tolist() == [[1.0]]  # alone: itself


def test_kept_mass_and_recall_are_one_for_full_attention():
    rng = np.random.default_rng(2)
    x = toydata.unit_clusters(16, 4, 3, 0.3, rng)
    w = lsh.shared_qk_attention(x, 4.0)
    full = lsh.shared_qk_mask(16)
    np.testing.assert_allclose(lsh.kept_attention_mass(w, full), 1.0)
    np.testing.assert_allclose(lsh.top_k_recall(x @ x.T, full, 3, full), 1.0)
    # without ``allowed`` the top-1 of a unit vector is itself: the diagonal alone recalls it
    assert np.all(lsh.top_k_recall(x @ x.T, np.eye(16, dtype=bool), 1) == 1.0)
    assert np.all(lsh.top_k_recall(x @ x.T, np.eye(16, dtype=bool), 1, full) == 0.0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 12), k=st.integers(1, 14), seed=st.integers(0, 2**16))
def test_top_k_keys_are_torch_topk_and_recall_counts_the_kept_ones(n, k, seed):
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal((n, n))  # no ties
    allowed = rng.random((n, n)) < 0.7
    top = lsh.top_k_keys(scores, k)
    oracle = torch.topk(torch.from_numpy(scores), min(k, n), dim=-1).indices.numpy()
    np.testing.assert_array_equal(top, oracle)  # both in order of score
    mask = rng.random((n, n)) < 0.5
    expected = [mask[i, top[i]].mean() for i in range(n)]
    np.testing.assert_allclose(lsh.recall_of_top(top, mask), expected)
    np.testing.assert_allclose(lsh.top_k_recall(scores, mask, k), expected)
    # among the allowed keys only (a query with fewer allowed keys lists disallowed ones last)
    kept = lsh.top_k_keys(scores, k, allowed)
    for i in range(n):
        best = np.flatnonzero(allowed[i])[np.argsort(-scores[i, allowed[i]], kind="stable")]
        assert kept[i, : len(best)].tolist() == best[: min(k, n)].tolist()


def test_tied_scores_keep_the_lower_index_first():
    assert lsh.top_k_keys(np.zeros((2, 5)), 3).tolist() == [[0, 1, 2], [0, 1, 2]]


def test_mass_kept_grows_with_rounds():
    rng = np.random.default_rng(3)
    x = toydata.unit_clusters(32, 8, 4, 0.3, rng)
    curve = lsh.mass_kept_curve(x, [2, 8], 4, 4, 6.0, rng, repeats=4)
    assert curve.shape == (2, 4)
    assert np.all(np.diff(curve, axis=1) >= -1e-12) and np.all((curve > 0) & (curve <= 1))


def test_a_chunk_of_two_buckets_worth_keeps_almost_everything():
    """The paper's m = 2N/b: a bucket rarely outgrows two chunks, so few keys are lost."""
    rng = np.random.default_rng(5)
    x = toydata.unit_clusters(32, 8, 4, 0.4, rng)
    w = lsh.shared_qk_attention(x, 8.0)
    h = lsh.lsh_buckets(x, lsh.random_rotations(8, 4, rng, 8))
    assert lsh.kept_attention_mass(w, lsh.chunked_lsh_mask(h, 2 * 32 // 4)).mean() > 0.95


# ---- oracles: closed forms -------------------------------------------------------------------

THETAS = np.linspace(0, np.pi, 13)


@pytest.mark.parametrize("dim", [2, 5])
def test_two_buckets_collide_with_probability_one_minus_theta_over_pi(dim):
    trials = 20_000
    p_hat = lsh.estimate_collision_probability(
        THETAS, 2, np.random.default_rng(7), trials=trials, dim=dim
    )
    p = lsh.collision_probability_two_buckets(THETAS)
    assert np.all(lsh.binomial_z(p_hat, p, trials) <= 4.5)
    assert p_hat[0] == 1.0 and p_hat[-1] == 0.0


@pytest.mark.parametrize(("b", "n"), [(2, 3), (8, 2), (4, 4)])
def test_several_rounds_follow_one_minus_one_minus_p_to_the_n(b, n):
    trials = 20_000
    rng = np.random.default_rng(11)
    p1 = lsh.estimate_collision_probability(THETAS, b, rng, trials=trials, dim=3)
    pn = lsh.estimate_collision_probability(THETAS, b, rng, trials=trials, dim=3, n_hashes=n)
    assert np.all(lsh.rounds_z(p1, pn, n, trials) <= 4.5)


def test_the_badge_threshold_rarely_fires_when_the_closed_form_holds():
    """The page's b = 2 badge: max over 37 angles of |z| ≤ 4.5 with 4000 draws. Under the null
    the per-angle rate is ≈ 7e-6 (normal tail), ≤ 37 × that per page: no alarm in 200 pages."""
    theta = np.linspace(0, np.pi, 37)
    p = lsh.collision_probability_two_buckets(theta)
    alarms = sum(
        lsh.binomial_z(
            lsh.estimate_collision_probability(
                theta, 2, np.random.default_rng([seed, 1]), trials=4000
            ),
            p,
            4000,
        ).max()
        > 4.5
        for seed in range(200)
    )
    assert alarms == 0
    assert 2 * (1 - 0.5 * (1 + math.erf(4.5 / math.sqrt(2)))) < 1e-5  # the stated tail


def test_binomial_z_at_certain_outcomes():
    assert lsh.binomial_z([1.0, 0.9], [1.0, 1.0], 100).tolist() == [0.0, math.inf]
    assert lsh.binomial_z(0.6, 0.5, 100) == pytest.approx(2.0)
    assert lsh.binomial_se(0.5, 100) == pytest.approx(0.05) and lsh.binomial_se(1.0, 9) == 0


def test_collision_probability_falls_with_angle_and_with_more_buckets():
    rng = np.random.default_rng(5)
    p4 = lsh.estimate_collision_probability(THETAS, 4, rng, trials=5000)
    p16 = lsh.estimate_collision_probability(THETAS, 16, rng, trials=5000)
    assert np.all(np.diff(p4) <= 0.03) and p4[0] == 1.0
    assert np.all(p16[1:-1] <= p4[1:-1] + 0.03)


@pytest.mark.parametrize("pair", list(itertools.combinations(range(4), 2)))
def test_the_four_bucket_hash_of_a_pair_at_ninety_degrees_in_the_plane(pair):
    """d = 2, b = 4, R = I: the four buckets are the quadrants around ±e1, ±e2."""
    R = np.eye(2)[None]
    dirs = np.array([[1.0, 0.1], [-0.1, 1.0], [-1.0, -0.1], [0.1, -1.0]])
    i, j = pair
    h = lsh.lsh_buckets(dirs[[i, j]], R)[0]
    assert h.tolist() == [i, j]


def test_varied_length_toy_tokens_keep_the_directions_of_unit_clusters():
    x = toydata.varied_length_clusters(24, 2, 4, 0.5, np.random.default_rng(0))
    unit = toydata.unit_clusters(24, 2, 4, 0.5, np.random.default_rng(0))
    lengths = np.linalg.norm(x, axis=1)
    assert np.all((lengths >= 0.35) & (lengths <= 1.0))
    np.testing.assert_allclose(x / lengths[:, None], unit, atol=1e-12)
