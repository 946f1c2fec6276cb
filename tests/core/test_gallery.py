"""core.gallery: every efficient attention on one input, against full attention.

Oracles: torch's scaled_dot_product_attention (full and masked), torch's avg_pool2d for PVT's
reduction, Swin's window partition and mask assembled from core.windows' reference-style
helpers, Reformer's argmax([xR; −xR]) recomputed in torch, k-means labels by brute force.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from core import gallery as g
from core import windows
from core.errors import CoreError


def make(side: int, d: int = 4, seed: int = 0, sharpness: float = 1.0, D: int = 5):
    rng = np.random.default_rng(seed)
    return g.make_input(rng.standard_normal((side * side, D)), side, d, rng, sharpness)


sides = st.sampled_from([2, 4, 8])
seeds = st.integers(0, 2**16)


# ---- properties ---------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(side=sides, seed=seeds)
def test_every_method_at_its_dense_limit_is_full_attention(side, seed):
    inp = make(side, seed=seed)
    full = g.run("full", inp)
    for method in g.METHODS:
        if method == "linear":
            continue
        limit = g.run(method, inp, g.dense_limit(method, side), seed)
        np.testing.assert_allclose(limit.out, full.out, atol=1e-12, err_msg=method)
        assert limit.mask is None or limit.mask.all(), method


@settings(max_examples=25, deadline=None)
@given(
    seed=seeds,
    knobs=st.fixed_dictionaries(
        {
            "width": st.sampled_from([1, 2, 4]),
            "dilation": st.integers(1, 3),
            "n_global": st.integers(0, 3),
            "per_row": st.integers(0, 4),
            "window": st.sampled_from([2, 4]),
            "shift": st.booleans(),
            "ratio": st.sampled_from([1, 2, 4]),
            "buckets": st.sampled_from([1, 2, 4]),
            "rounds": st.integers(1, 3),
            "clusters": st.integers(1, 5),
        }
    ),
)
def test_a_method_reads_only_its_own_knobs(seed, knobs):
    """KNOBS is complete: a method run with only its own knobs (the rest at their defaults)
    gives the same output, mask, FLOPs and dense limit as with every knob set."""
    inp, s = make(4, seed=seed), g.Settings(**knobs)
    for method in g.METHODS:
        own = g.own_settings(method, s)
        a, b = g.run(method, inp, s, seed), g.run(method, inp, own, seed)
        np.testing.assert_array_equal(a.out, b.out, err_msg=method)
        assert (a.flops, a.peak) == (b.flops, b.peak), method
        assert (a.mask is None) == (b.mask is None), method
        if a.mask is not None:
            np.testing.assert_array_equal(a.mask, b.mask, err_msg=method)
        if method != "linear":
            limit = g.dense_limit(method, 4, s)
            assert g.own_settings(method, limit) == g.dense_limit(method, 4, own), method
    assert set(g.KNOBS) == set(g.METHODS)
    assert {k for ks in g.KNOBS.values() for k in ks} == set(g.Settings.__dataclass_fields__)
    with pytest.raises(CoreError):
        g.own_settings("magic", s)


@settings(max_examples=25, deadline=None)
@given(side=sides, seed=seeds)
def test_rows_are_distributions_and_zero_outside_the_pattern(side, seed):
    inp = make(side, seed=seed)
    N = side * side
    s = g.Settings(width=1, window=2, ratio=2, buckets=4, clusters=3, per_row=1)
    for method in g.METHODS:
        r = g.run(method, inp, s, seed)
        assert r.out.shape == (N, inp.v.shape[1]) and r.weights.shape == (N, N)
        sums = r.weights.sum(axis=1)
        if r.mask is None:
            np.testing.assert_allclose(sums, 1.0, atol=1e-12, err_msg=method)
        else:
            empty = ~r.mask.any(axis=1)
            np.testing.assert_allclose(sums[~empty], 1.0, atol=1e-12, err_msg=method)
            assert np.all(sums[empty] == 0) and np.all(r.weights[~r.mask] == 0)
            assert r.peak == r.mask.sum()


@settings(max_examples=20, deadline=None)
@given(side=sides, seed=seeds)
def test_full_scores_itself_perfectly_and_tops_the_ranking(side, seed):
    scores = g.compare(make(side, seed=seed), g.Settings(window=2, ratio=2), seed)
    assert [s.method for s in scores] == list(g.METHODS)
    full = scores[0]
    assert full.error == 0.0 and full.kept_mass == 1.0 and full.recall == 1.0
    assert g.ranking(scores)[0] == 0 or scores[g.ranking(scores)[0]].error == 0.0
    for s in scores:
        assert s.error >= 0 and s.flops > 0 and s.peak > 0
        if s.kept_mass is not None:
            assert -1e-12 <= s.kept_mass <= 1 + 1e-12 and 0 <= s.recall <= 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 9)), min_size=1, max_size=12))
def test_the_pareto_front_is_exactly_the_undominated_points(points):
    cost, err = zip(*points, strict=True)
    front = g.pareto_front(cost, err)
    for i, (c, e) in enumerate(points):
        dominated = any(c2 <= c and e2 <= e and (c2 < c or e2 < e) for c2, e2 in points)
        assert front[i] == (not dominated)


def test_ranking_orders_by_error_then_flops():
    mk = lambda m, e, f: g.Score(m, e, None, None, f, 1)  # noqa: E731
    scores = [mk("a", 0.3, 5), mk("b", 0.1, 9), mk("c", 0.1, 2), mk("d", 0.0, 100)]
    assert g.ranking(scores) == [3, 2, 1, 0]


def test_sharpness_scales_the_scores_and_zero_makes_every_row_uniform():
    a, b = make(4, sharpness=1.0), make(4, sharpness=3.0)
    np.testing.assert_allclose(b.q, 3 * a.q)
    np.testing.assert_allclose(b.k, a.k)
    flat = make(4, sharpness=0.0)
    np.testing.assert_allclose(g.run("full", flat).weights, 1 / 16)


def test_bad_arguments_raise_core_errors():
    with pytest.raises(CoreError):
        g.make_input(np.zeros((10, 3)), 4, 2, np.random.default_rng(0))  # 10 ≠ 4²
    with pytest.raises(CoreError):
        g.run("swin", make(4), g.Settings(window=3))  # 3 does not divide 4
    with pytest.raises(CoreError):
        g.run("nonsense", make(4))
    with pytest.raises(CoreError):
        g.dense_limit("linear", 4)


# ---- oracles ------------------------------------------------------------------------------


def torch_attention(q, k, v, mask=None):
    t = lambda a: torch.from_numpy(np.asarray(a, dtype=np.float64))  # noqa: E731
    m = None if mask is None else torch.from_numpy(mask)
    return F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=m).numpy()


def test_full_and_masked_outputs_match_torch():
    inp = make(4, d=6, seed=3)
    np.testing.assert_allclose(
        g.run("full", inp).out, torch_attention(inp.q, inp.k, inp.v), atol=1e-12
    )
    for method in ("band", "dilated", "bigbird", "swin"):  # every row keeps ≥ 1 key
        r = g.run(method, inp, g.Settings(width=2, window=2), 5)
        np.testing.assert_allclose(
            r.out, torch_attention(inp.q, inp.k, inp.v, r.mask), atol=1e-12, err_msg=method
        )


@pytest.mark.parametrize("R", [1, 2, 4])
def test_pvt_reduction_matches_torch_average_pooling(R):
    side = 8
    inp = make(side, d=4, seed=1)
    D = inp.x.shape[1]
    grid = torch.from_numpy(inp.x).T.reshape(1, D, side, side)  # (1, D, H, W)
    pooled = F.avg_pool2d(grid, R).flatten(2)[0].T.numpy()  # (N/R², D)
    expected = torch_attention(inp.q, pooled @ inp.w_k, pooled @ inp.w_v)
    np.testing.assert_allclose(g.run("sra", inp, g.Settings(ratio=R)).out, expected, atol=1e-12)


@pytest.mark.parametrize("side, M, shift", [(8, 4, True), (8, 4, False), (8, 2, True)])
def test_swin_mask_is_swins_window_mask_in_the_original_order(side, M, shift):
    s = M // 2 if shift else 0
    ids = np.arange(side * side).reshape(side, side, 1)
    rolled = windows.cyclic_shift(ids, s)  # the token at each place after the roll
    parts = windows.window_partition(rolled, M).reshape(-1, M * M)  # (nW, M²) token ids
    same_region = windows.shifted_window_mask(side, side, M, s)  # (nW, M², M²)
    expected = np.zeros((side * side, side * side), dtype=bool)
    for w, tokens in enumerate(parts):
        expected[np.ix_(tokens, tokens)] = same_region[w]
    np.testing.assert_array_equal(g.swin_mask(side, M, shift), expected)


def test_swin_regions_follow_the_published_example():
    # ORACLES.md: H = W = 8, M = 4, s = 2 — rows 0–3 are regions 0 0 0 0 1 1 2 2
    mask = g.swin_mask(8, 4, True)
    token = lambda r, c: 8 * r + c  # noqa: E731
    # tokens (2, 2) and (2, 5) are in one window after the roll, but in regions 0 and 1
    assert not mask[token(4, 4), token(4, 1)]
    assert mask[token(2, 2), token(3, 3)]


def test_reformer_buckets_are_argmax_of_x_r_and_minus_x_r():
    inp = make(4, d=3, seed=2)
    rng = np.random.default_rng(9)
    mask = g.reformer_mask(inp.q, inp.k, 4, 1, np.random.default_rng(9))
    R = torch.from_numpy(rng.standard_normal((1, 3, 2)))[0]  # the same draw as the core's

    def buckets(x):
        u = torch.from_numpy(x / np.linalg.norm(x, axis=1, keepdims=True))
        return torch.argmax(torch.cat([u @ R, -(u @ R)], dim=1), dim=1).numpy()

    hq, hk = buckets(inp.q), buckets(inp.k)
    np.testing.assert_array_equal(mask, hq[:, None] == hk[None, :])


def test_routing_pairs_share_the_nearest_centroid():
    inp = make(4, d=3, seed=4)
    mask = g.routing_mask(inp.q, inp.k, 3, np.random.default_rng(0))
    from core import routing

    unit = lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)  # noqa: E731
    fit = routing.kmeans(np.concatenate([unit(inp.q), unit(inp.k)]), 3, np.random.default_rng(0))
    near = lambda x: np.argmin(((x[:, None] - fit.centroids[None]) ** 2).sum(-1), 1)  # noqa: E731
    np.testing.assert_array_equal(mask, near(unit(inp.q))[:, None] == near(unit(inp.k))[None])


def test_linear_attention_matches_the_elu_plus_one_kernel_in_torch():
    inp = make(4, d=3, seed=6)
    phi = lambda x: (F.elu(torch.from_numpy(x)) + 1).numpy()  # noqa: E731
    A = phi(inp.q) @ phi(inp.k).T
    expected = (A / A.sum(1, keepdims=True)) @ inp.v
    for with_weights in (True, False):
        out = g.run("linear", inp, with_weights=with_weights).out
        np.testing.assert_allclose(out, expected, atol=1e-12)


def test_flop_counts_follow_their_closed_forms():
    inp = make(8, d=4)
    N, d, dv = 64, 4, 4
    assert g.run("full", inp).flops == 2 * N * N * (d + dv)
    band = g.run("band", inp, g.Settings(width=2))
    pairs = N * 5 - 2 * 3  # N(2w + 1) − w(w + 1)
    assert band.peak == pairs and band.flops == 2 * pairs * (d + dv)
    sra = g.run("sra", inp, g.Settings(ratio=2))
    assert sra.peak == N * N // 4 and sra.flops == 2 * N * (N // 4) * (d + dv) + 2 * N * 5 * 5
    assert g.run("linear", inp).peak == d * dv


# ---- what the page says ---------------------------------------------------------------------


def sample_input(side: int = 16, sharpness: float = 1.0, seed: int = 0) -> g.GalleryInput:
    from PIL import Image

    from core import sra
    from ui.registry import ROOT

    with Image.open(ROOT / "assets/images/scene.png") as im:
        image = np.asarray(im.convert("RGB"), dtype=np.float64) / 255.0
    x = sra.image_features(sra.block_mean(image, side))
    return g.make_input(x, side, 16, np.random.default_rng(seed), sharpness)


def test_at_sharpness_zero_averaging_costs_pvt_nothing_but_not_linear_attention():
    """Try-this 2 and the compare section: with every score 0, full attention and PVT both
    return the plain average of the values; linear attention's φ(q)·φ(k) still varies."""
    scores = {s.method: s for s in g.compare(sample_input(sharpness=0.0))}
    assert scores["sra"].error < 1e-12 and scores["linear"].error > 0.01
    assert min(scores[m].error for m in ("band", "dilated", "swin")) > 0.01


@pytest.mark.parametrize("sharpness", [1.0, 2.0, 4.0])
def test_content_based_methods_keep_more_mass_than_fixed_patterns(sharpness):
    """The maps section: the content-based methods keep more of full attention's weight."""
    scores = {s.method: s for s in g.compare(sample_input(sharpness=sharpness))}
    content = min(scores[m].kept_mass for m in ("reformer", "routing"))
    fixed = max(scores[m].kept_mass for m in ("band", "dilated", "bigbird", "swin"))
    assert content > fixed


def test_measured_time_has_one_row_per_method_and_column_per_side():
    seconds = g.time_methods(lambda s: make(s), (2, 4), ("full", "linear"), repeats=1)
    assert seconds.shape == (2, 2) and np.all(seconds > 0)


@settings(max_examples=15, deadline=None)
@given(side=sides, seed=seeds, k=st.integers(1, 12))
def test_a_shared_sort_of_the_top_keys_scores_every_method_as_its_own_sort_does(side, seed, k):
    """compare (and the page's cache) sorts each query's top-k keys once for every method."""
    from core import lsh

    inp = make(side, seed=seed)
    full = g.run("full", inp)
    dots = inp.q @ inp.k.T / np.sqrt(inp.q.shape[1])
    top = lsh.top_k_keys(dots, k)
    for method in g.METHODS:
        result = full if method == "full" else g.run(method, inp, g.Settings(window=2), seed)
        assert g.score(method, result, full, dots, k, top) == g.score(method, result, full, dots, k)
    shared = g.compare(inp, g.Settings(window=2), seed, top_k=k)
    one_by_one = [
        g.score(
            m, full if m == "full" else g.run(m, inp, g.Settings(window=2), seed), full, dots, k
        )
        for m in g.METHODS
    ]
    assert shared == one_by_one
