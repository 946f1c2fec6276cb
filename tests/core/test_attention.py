"""core.attention: property tests (Hypothesis) and oracle tests against torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import attention as at
from core.errors import CoreError

finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


def qkv(max_n: int = 8, max_d: int = 6):
    """(q, k, v) of shapes (L, d), (S, d), (S, dv)."""
    dims = st.tuples(*(st.integers(1, m) for m in (max_n, max_n, max_d, max_d)))
    return dims.flatmap(
        lambda s: st.tuples(
            arrays(np.float64, (s[0], s[2]), elements=finite),
            arrays(np.float64, (s[1], s[2]), elements=finite),
            arrays(np.float64, (s[1], s[3]), elements=finite),
        )
    )


def qkv_with_mask():
    return qkv().flatmap(
        lambda t: st.tuples(
            st.just(t), arrays(np.bool_, (t[0].shape[0], t[1].shape[0]), elements=st.booleans())
        )
    )


def self_qkv(max_n: int = 10, max_d: int = 6):
    """(q, k, v) all with N tokens, for linear attention."""
    dims = st.tuples(st.integers(1, max_n), st.integers(1, max_d), st.integers(1, max_d))
    return dims.flatmap(
        lambda s: st.tuples(
            arrays(np.float64, (s[0], s[1]), elements=finite),
            arrays(np.float64, (s[0], s[1]), elements=finite),
            arrays(np.float64, (s[0], s[2]), elements=finite),
        )
    )


def torch_sdpa(q, k, v, **kw) -> np.ndarray:
    return F.scaled_dot_product_attention(*(torch.tensor(x) for x in (q, k, v)), **kw).numpy()


# ---- properties ----------------------------------------------------------------------------


@given(qkv_with_mask())
def test_rows_sum_to_one_or_are_all_zero_when_fully_masked(case):
    (q, k, v), mask = case
    out, w = at.scaled_dot_product_attention(q, k, v, mask)
    assert np.all(np.isfinite(out)) and np.all(w >= 0)
    sums = w.sum(axis=-1)
    blocked = ~mask.any(axis=-1)
    np.testing.assert_allclose(sums[~blocked], 1.0, atol=1e-12)
    assert np.all(w[blocked] == 0) and np.all(out[blocked] == 0)
    assert np.all(w[~mask] == 0)


@given(qkv(), st.randoms(use_true_random=False))
def test_permuting_the_queries_permutes_the_output(case, random):
    q, k, v = case
    perm = np.array(random.sample(range(len(q)), len(q)))
    out, w = at.scaled_dot_product_attention(q, k, v)
    out_p, w_p = at.scaled_dot_product_attention(q[perm], k, v)
    np.testing.assert_allclose(out_p, out[perm], atol=1e-12)
    np.testing.assert_allclose(w_p, w[perm], atol=1e-12)


@given(qkv(), st.randoms(use_true_random=False))
def test_permuting_keys_and_values_together_changes_nothing(case, random):
    q, k, v = case
    perm = np.array(random.sample(range(len(k)), len(k)))
    out, w = at.scaled_dot_product_attention(q, k, v)
    out_p, w_p = at.scaled_dot_product_attention(q, k[perm], v[perm])
    np.testing.assert_allclose(out_p, out, atol=1e-10)
    np.testing.assert_allclose(w_p, w[:, perm], atol=1e-12)


@given(self_qkv())
def test_linear_attention_explicit_equals_reordered(case):
    q, k, v = case
    explicit, w = at.linear_attention_explicit(q, k, v)
    np.testing.assert_allclose(
        at.linear_attention_reordered(q, k, v), explicit, rtol=1e-9, atol=1e-10
    )
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)
    out, weights = at.linear_attention(q, k, v)
    np.testing.assert_allclose(out, explicit, rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(weights, w)


@given(self_qkv())
def test_causal_linear_attention_cumsum_equals_lower_triangular_masking(case):
    q, k, v = case
    phi_q, phi_k = at.elu_feature_map(q), at.elu_feature_map(k)
    A = np.tril(phi_q @ phi_k.T)  # including the diagonal
    expected = (A / A.sum(axis=1, keepdims=True)) @ v
    np.testing.assert_allclose(
        at.linear_attention_reordered(q, k, v, causal=True), expected, rtol=1e-9, atol=1e-10
    )
    out, w = at.linear_attention(q, k, v, causal=True)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-10)
    assert np.all(np.triu(w, 1) == 0)


def test_elu_feature_map_is_elu_plus_one_and_positive():
    x = np.linspace(-30, 30, 601)
    expected = F.elu(torch.tensor(x)).numpy() + 1
    np.testing.assert_allclose(
        at.elu_feature_map(x), expected, rtol=1e-12, atol=1e-15
    )  # torch: (e^x - 1) + 1
    assert np.all(at.elu_feature_map(x) > 0)


def test_linear_attention_has_no_sqrt_d_scaling():
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((5, 4)) for _ in range(3))
    phi_q, phi_k = at.elu_feature_map(q), at.elu_feature_map(k)
    A = phi_q @ phi_k.T
    np.testing.assert_allclose(at.linear_attention(q, k, v)[1], A / A.sum(1, keepdims=True))


def test_masked_softmax_ignores_huge_blocked_scores():
    scores = np.array([[1e300, 0.0, 1.0]])
    w = at.masked_softmax(scores, np.array([[False, True, True]]))
    np.testing.assert_allclose(w, [[0.0, 1 / (1 + np.e), np.e / (1 + np.e)]])


# ---- masks and patterns ------------------------------------------------------------------


def test_causal_mask_is_top_left_aligned():
    assert at.causal_mask(2, 3).astype(int).tolist() == [[1, 0, 0], [1, 1, 0]]
    assert at.causal_mask(3, 2).astype(int).tolist() == [[1, 0], [1, 1], [1, 1]]
    np.testing.assert_array_equal(at.causal_mask(4), np.tril(np.ones((4, 4), bool)))


@pytest.mark.parametrize(("n", "width"), [(1, 0), (7, 0), (7, 2), (9, 20)])
def test_band_mask_is_a_window(n, width):
    m = at.band_mask(n, width)
    for i in range(n):
        for j in range(n):
            assert m[i, j] == (abs(i - j) <= width)


def test_dilated_mask_keeps_every_dilation_th_token_in_the_window():
    m = at.dilated_mask(12, 2, 3)
    assert np.flatnonzero(m[6]).tolist() == [0, 3, 6, 9]
    np.testing.assert_array_equal(at.dilated_mask(10, 3, 1), at.band_mask(10, 3))


@pytest.mark.parametrize("n", [1, 5, 13])
@pytest.mark.parametrize("width", [0, 1, 3])
@pytest.mark.parametrize("dilation", [1, 2, 4])
def test_dilated_mask_is_its_definition_cell_by_cell(n, width, dilation):
    m = at.dilated_mask(n, width, dilation)
    for i in range(n):
        for j in range(n):
            assert m[i, j] == (abs(i - j) <= width * dilation and (i - j) % dilation == 0)


def test_global_random_block_and_presets():
    g = at.global_mask(6, [0, 5])
    assert g[0].all() and g[:, 5].all() and not g[2, 3]
    r = at.random_mask(10, 3, np.random.default_rng(0))
    assert (r.sum(axis=1) == 3).all()
    b = at.block_local_mask(6, 2)
    assert b.astype(int).sum() == 12 and b[0, 1] and not b[1, 2]
    n = 16
    star = at.preset_mask("star", n)
    np.testing.assert_array_equal(star, at.star_mask(n))
    big = at.preset_mask("bigbird", n, width=1, n_global=2, per_row=2, rng=np.random.default_rng(3))
    expected = (
        at.global_mask(n, [0, 1])
        | at.band_mask(n, 1)
        | at.random_mask(n, 2, np.random.default_rng(3))
    )
    np.testing.assert_array_equal(big, expected)
    lf = at.preset_mask("longformer", n, width=2, dilation=3, n_global=1)
    assert at.density(lf) < 1 and lf[0].all()


@pytest.mark.parametrize(
    "call",
    [
        lambda: at.band_mask(0, 1),
        lambda: at.band_mask(5, -1),
        lambda: at.dilated_mask(5, 1, 0),
        lambda: at.global_mask(5, [5]),
        lambda: at.random_mask(5, 6, np.random.default_rng()),
        lambda: at.block_local_mask(5, 0),
        lambda: at.preset_mask("nonsense", 5),  # type: ignore[arg-type]
        lambda: at.check_heads(32, 3),
        lambda: at.tokenize("   "),
        lambda: at.tokenize("a " * 40),
        lambda: at.scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 1))),
        lambda: at.scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 1))),
        lambda: at.scaled_dot_product_attention(
            np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 1)), np.ones((2, 2))
        ),
        lambda: at.scaled_dot_product_attention([[np.nan]], [[1.0]], [[1.0]]),
    ],
)
def test_bad_arguments_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_receptive_field_of_a_band_grows_by_the_width_per_layer():
    m = at.band_mask(20, 2)
    for layers in range(5):
        np.testing.assert_array_equal(at.receptive_field(m, layers), at.band_mask(20, 2 * layers))
    # a global token connects everything in two layers
    g = at.global_mask(20, [0])
    assert at.receptive_field(g, 2).all() and not at.receptive_field(g, 1).all()


@given(
    arrays(np.bool_, st.tuples(st.integers(1, 8)).map(lambda s: (s[0], s[0]))), st.integers(0, 4)
)
def test_receptive_field_is_the_boolean_matrix_power(mask, layers):
    A = (mask | np.eye(len(mask), dtype=bool)).astype(float)
    expected = np.linalg.matrix_power(A, layers) > 0
    np.testing.assert_array_equal(at.receptive_field(mask, layers), expected)


# ---- oracles: torch ------------------------------------------------------------------------


@given(qkv())
def test_matches_torch_scaled_dot_product_attention(case):
    q, k, v = case
    out, _ = at.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(out, torch_sdpa(q, k, v), rtol=1e-9, atol=1e-10)


@given(qkv_with_mask())
def test_matches_torch_with_a_bool_mask_true_means_attend(case):
    (q, k, v), mask = case
    out, _ = at.scaled_dot_product_attention(q, k, v, mask)
    expected = torch_sdpa(q, k, v, attn_mask=torch.tensor(mask))
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(("L", "S"), [(4, 4), (3, 6), (6, 3), (1, 5)])
def test_causal_mask_matches_torch_is_causal_when_L_differs_from_S(L, S):
    rng = np.random.default_rng(L * 10 + S)
    q, k, v = (
        rng.standard_normal((2, L, 5)),
        rng.standard_normal((2, S, 5)),
        rng.normal(size=(2, S, 3)),
    )
    out, _ = at.scaled_dot_product_attention(q, k, v, at.causal_mask(L, S))
    np.testing.assert_allclose(out, torch_sdpa(q, k, v, is_causal=True), rtol=1e-9, atol=1e-10)


def test_custom_scale_matches_torch_scale():
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((3, 4, 8)) for _ in range(3))
    out, _ = at.scaled_dot_product_attention(q, k, v, scale=0.5)
    np.testing.assert_allclose(out, torch_sdpa(q, k, v, scale=0.5), rtol=1e-9, atol=1e-10)


def torch_mha(x, w_q, w_k, w_v, w_o, h, mask=None):
    """nn.MultiheadAttention with our weights: torch computes x @ W.T, so W_torch = w.T."""
    D = x.shape[-1]
    mha = torch.nn.MultiheadAttention(D, h, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(np.concatenate([w_q.T, w_k.T, w_v.T])))
        mha.out_proj.weight.copy_(torch.tensor(w_o.T))
    t = torch.tensor(x)
    blocked = None if mask is None else torch.tensor(~mask)  # torch: True = blocked
    out, w = mha(t, t, t, attn_mask=blocked, need_weights=True, average_attn_weights=False)
    return out.detach().numpy(), w.detach().numpy()


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 3),
    st.sampled_from([1, 2, 4]),
    st.integers(1, 7),
    st.integers(0, 10**6),
    st.booleans(),
)
def test_matches_torch_multihead_attention_with_copied_weights(B, h, N, seed, causal):
    rng = np.random.default_rng(seed)
    D = 8
    x = rng.standard_normal((B, N, D))
    ws = at.random_projections(D, rng)
    mask = at.causal_mask(N) if causal else None
    out, w = at.multi_head_attention(x, *ws, h, mask)
    expected_out, expected_w = torch_mha(x, *ws, h, mask)
    assert w.shape == (B, h, N, N)
    np.testing.assert_allclose(out, expected_out, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(w, expected_w, rtol=1e-9, atol=1e-12)


def test_multi_head_scale_is_one_over_sqrt_of_the_head_size():
    """Vaswani et al.: D = 512, h = 8, d = 64 -> scores divided by 8."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 512))
    eye = np.eye(512)
    _, w = at.multi_head_attention(x, eye, eye, eye, eye, 8)
    head0 = x[:, :64]
    expected = at.masked_softmax(head0 @ head0.T / 8.0)
    np.testing.assert_allclose(w[0], expected, atol=1e-12)


def test_fully_masked_query_gives_zeros_like_torch_2_13_and_never_nan():
    q = np.random.default_rng(0).standard_normal((3, 4))
    mask = np.array([[True, True, True], [False, False, False], [True, False, False]])
    out, w = at.scaled_dot_product_attention(q, q, q, mask)
    assert np.all(out[1] == 0) and np.all(w[1] == 0)
    np.testing.assert_allclose(out, torch_sdpa(q, q, q, attn_mask=torch.tensor(mask)), atol=1e-12)


# ---- tokens, entropy, timing ---------------------------------------------------------------


def test_equal_words_get_equal_embeddings_independent_of_the_sentence():
    x = at.token_embeddings(at.tokenize("The cat saw the dog"), 16, seed=3)
    np.testing.assert_array_equal(x[0], x[3])
    y = at.token_embeddings(["dog"], 16, seed=3)
    np.testing.assert_array_equal(x[4], y[0])
    assert not np.array_equal(at.token_embeddings(["dog"], 16, seed=4), y)


def test_row_entropy_bounds():
    assert at.row_entropy(np.full(8, 1 / 8)) == pytest.approx(np.log(8))
    assert at.row_entropy(np.eye(3)).tolist() == [0.0, 0.0, 0.0]
    assert at.row_entropy(np.zeros(4)) == 0.0


def test_split_and_merge_heads_are_inverse():
    x = np.arange(2 * 5 * 12, dtype=float).reshape(2, 5, 12)
    s = at.split_heads(x, 3)
    assert s.shape == (2, 3, 5, 4)
    np.testing.assert_array_equal(s[:, 1], x[..., 4:8])
    np.testing.assert_array_equal(at.merge_heads(s), x)


def test_timing_returns_medians_and_slope_recovers_a_power_law():
    calls = []
    e, r = at.time_orderings([16, 32], 4, 2, np.random.default_rng(0), calls.append)
    assert e.shape == r.shape == (2,) and np.all(e > 0) and calls == [0.5, 1.0]
    n = np.array([10, 100, 1000])
    assert at.loglog_slope(n, 3 * n**2.0) == pytest.approx(2.0)


def test_the_diagonal_is_not_always_the_brightest_with_identity_projections():
    """xᵢ·xⱼ > |xᵢ|² when a longer key points close to xᵢ: row 0 prefers key 1."""
    x = np.array([[1.0, 0.0], [2.0, 0.2], [0.0, 1.0]])
    _, w = at.scaled_dot_product_attention(x, x, x)
    assert at.diagonal_max_rows(w).tolist() == [False, True, True]
    # the page's default sentence at d = 4, seed 0: 6 of 10 rows (the explanation says so)
    tokens = at.tokenize("the cat sat on the mat because it was tired")
    e = at.token_embeddings(tokens, 4, 0)
    assert int(at.diagonal_max_rows(at.scaled_dot_product_attention(e, e, e)[1]).sum()) == 6


@given(st.integers(2, 12), st.integers(0, 10_000))
def test_diagonal_max_rows_agree_on_scores_and_weights(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)) * rng.uniform(0.2, 3, (n, 1))
    scores = x @ x.T / np.sqrt(3)
    _, w = at.scaled_dot_product_attention(x, x, x)
    assert np.array_equal(at.diagonal_max_rows(scores), at.diagonal_max_rows(w))


@given(st.integers(5, 40))
def test_star_transformer_has_its_relay_and_its_ring(n):
    """Guo et al. 2019: relay 0 ↔ everyone; satellite i ↔ i ± 1 around a closed ring."""
    m = at.star_mask(n)
    assert m[0].all() and m[:, 0].all()  # the relay
    satellites = range(1, n)
    for i in satellites:
        left, right = 1 + (i - 2) % (n - 1), 1 + i % (n - 1)
        assert m[i, left] and m[i, right] and m[i, i]
        assert m[i].sum() == 4  # relay, itself, two neighbours
    assert m[1, n - 1] and m[n - 1, 1]  # the ring closes
    assert m.sum() == 5 * n - 4
    assert at.receptive_field(m, 2).all()  # any two tokens within two steps


@given(st.integers(4, 24), st.integers(0, 3), st.integers(0, 5))
def test_path_counts_are_positive_exactly_on_the_receptive_field(n, width, layers):
    mask = at.band_mask(n, width)
    np.testing.assert_array_equal(
        at.path_counts(mask, layers) > 0, at.receptive_field(mask, layers)
    )


def test_layers_to_full_for_a_band_and_a_split_pattern():
    assert at.layers_to_full(at.band_mask(9, 2)) == 4  # ⌈(9 − 1)/2⌉ hops of at most 2
    assert at.layers_to_full(at.block_local_mask(8, 4)) is None  # two blocks never meet
    assert at.layers_to_full(at.star_mask(10)) == 2


def _hops_to_full(mask: np.ndarray) -> int | None:
    """Breadth-first search: the most attention steps any token needs to hear from any other
    (token i hears j in one step where mask[i, j]); at least 1; None if one never does."""
    n, worst = len(mask), 1
    for source in range(n):
        hops = {source: 0}
        frontier = [source]
        while frontier:
            reached = []
            for j in frontier:
                for i in map(int, np.flatnonzero(mask[:, j])):
                    if i not in hops:
                        hops[i] = hops[j] + 1
                        reached.append(i)
            frontier = reached
        if len(hops) < n:
            return None
        worst = max(worst, *hops.values())
    return worst


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 16), st.floats(0.0, 0.4), st.integers(0, 2**32 - 1))
def test_layers_to_full_is_the_first_full_receptive_field_and_the_longest_shortest_chain(
    n, density, seed
):
    mask = np.random.default_rng(seed).random((n, n)) < density
    first = next((k for k in range(1, n + 1) if at.receptive_field(mask, k).all()), None)
    assert at.layers_to_full(mask) == first == _hops_to_full(mask)


def test_extrapolated_pairs_grow_linearly_after_the_last_count():
    lengths = [64, 128, 256, 512]
    counted = [at.band_mask(n, 2).sum() for n in lengths[:2]]
    out = at.extrapolate_pairs(lengths, counted)
    np.testing.assert_array_equal(out[:2], counted)
    np.testing.assert_allclose(out[2:], counted[1] / 128 * np.array([256, 512]))
    # a band really is (almost) linear: the extrapolation is within 1 % of the true count
    assert abs(out[3] - at.band_mask(512, 2).sum()) / out[3] < 0.01


# ---- the attention-maps page's building blocks ---------------------------------------------


def test_projections_are_seeded_random_or_identities():
    random = at.projections(6, "random", np.random.default_rng(3))
    again = at.random_projections(6, np.random.default_rng(3))
    assert all(np.array_equal(a, b) for a, b in zip(random, again, strict=True))
    assert all(np.array_equal(w, np.eye(5)) for w in at.projections(5, "identity", None))
    with pytest.raises(CoreError) as err:
        at.projections(4, "orthogonal", np.random.default_rng(0))
    assert err.value.code == "not_an_option"


@settings(max_examples=40, deadline=None)
@given(qkv())
def test_score_table_holds_the_scores_and_the_weights_of_attention(case):
    q, k, _ = case
    table = at.score_table(q, k)
    d = q.shape[1]
    assert table.shape == (q.shape[0], k.shape[0], 3)
    np.testing.assert_allclose(table[..., 0], np.einsum("id,jd->ij", q, k), atol=1e-9)
    np.testing.assert_allclose(table[..., 1], table[..., 0] / np.sqrt(d), atol=1e-12)
    # exactly the weights of attention (the same computation), and torch's softmax
    np.testing.assert_array_equal(table[..., 2], at.scaled_dot_product_attention(q, k, k)[1])
    expected = torch.softmax(torch.tensor(q) @ torch.tensor(k).T / np.sqrt(d), dim=-1)
    np.testing.assert_allclose(table[..., 2], expected.numpy(), atol=1e-12)


def test_score_table_refuses_mismatched_sizes():
    with pytest.raises(CoreError, match="same size d") as err:
        at.score_table(np.ones((2, 3)), np.ones((2, 4)))
    assert err.value.code == "attention_maps_qk_size" and err.value.params == {"q": 3, "k": 4}


@given(arrays(np.float64, st.integers(1, 12), elements=finite), st.integers(1, 5))
def test_strongest_keys_are_the_largest_weights_largest_first(row, count):
    top = at.strongest_keys(row, count)
    assert len(top) == min(count, len(row)) and len(set(top.tolist())) == len(top)
    assert np.all(np.diff(row[top]) <= 0)
    rest = np.delete(row, top)
    assert rest.size == 0 or row[top].min() >= rest.max()


@given(st.integers(1, 12), st.data())
def test_attention_masks_of_the_demo(n, data):
    pad = data.draw(st.integers(0, n))
    assert at.attention_mask("none", n).all() and at.attention_mask("none", n).shape == (n, n)
    causal = torch.ones(n, n, dtype=torch.bool).tril().numpy()  # torch's is_causal mask
    np.testing.assert_array_equal(at.attention_mask("causal", n), causal)
    padded = at.attention_mask("padding", n, pad)
    assert padded.sum() == (n - pad) ** 2 and not padded[n - pad :].any()
    np.testing.assert_array_equal(padded, at.padding_mask(n, pad))


def test_attention_mask_refuses_an_unknown_kind_and_too_much_padding():
    with pytest.raises(CoreError):
        at.attention_mask("diagonal", 4)
    with pytest.raises(ValueError, match="padding"):
        at.attention_mask("padding", 4, 5)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from([(8, 1), (8, 2), (8, 4), (12, 3), (12, 6)]),
    st.integers(1, 7),
    st.integers(0, 10**6),
)
def test_each_head_alone_is_that_head_of_multi_head_attention(shape, N, seed):
    D, h = shape
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, D))
    ws = at.random_projections(D, rng)
    _, w = at.multi_head_attention(x, *ws, h)
    _, torch_w = torch_mha(x, *ws, h)  # the oracle: nn.MultiheadAttention's heads
    for head in range(-h, h):
        out, alone = at.head_on_its_own(x, *ws[:3], h, head)
        assert out.shape == (N, D // h)
        np.testing.assert_allclose(alone, w[head], atol=1e-12)
        np.testing.assert_allclose(alone, torch_w[head], atol=1e-12)
    with pytest.raises(CoreError):
        at.head_on_its_own(x, *ws[:3], h, h)


def test_scaling_curves_match_a_torch_recomputation():
    """Column 0 divides by √(D/h), column 1 by √h; both recomputed with torch's SDPA."""
    dims, n, h = (16, 64, 256), 16, 8
    entropy, top = at.scaling_curves(dims, n, h, seed=0)
    assert entropy.shape == top.shape == (3, 2)
    for row, D in enumerate(dims):
        rng = np.random.default_rng([0, D])
        x = rng.standard_normal((n, D))
        ws = at.random_projections(D, rng)
        q, k, v = (torch.tensor(x @ w).reshape(n, h, D // h).transpose(0, 1) for w in ws[:3])
        for col, scale in enumerate((1 / np.sqrt(D // h), 1 / np.sqrt(h))):
            scores = (q @ k.transpose(-1, -2)) * scale
            w = torch.softmax(scores, dim=-1)
            assert entropy[row, col] == pytest.approx(torch.special.entr(w).sum(-1).mean().item())
            assert top[row, col] == pytest.approx(w.max(-1).values.mean().item())
    # D/h = h at D = 64: both scalings are the same
    assert entropy[1, 0] == entropy[1, 1] and top[1, 0] == top[1, 1]
    assert np.all((entropy >= 0) & (entropy <= np.log(n) + 1e-12))
    assert np.all((top >= 1 / n - 1e-12) & (top <= 1))
