"""core.sra (PVT): property tests (Hypothesis) and oracles (torch Conv2d + LayerNorm, PVT's
Table 1 and its token counts)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import sra
from core.errors import CoreError

finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


@st.composite
def sr_cases(draw):
    """(x (H·W, C), H, W, R, w_s (R²C, C)) with H, W multiples of R."""
    R = draw(st.sampled_from([1, 2, 3, 4]))
    H, W = R * draw(st.integers(1, 3)), R * draw(st.integers(1, 3))
    C = draw(st.integers(2, 5))
    x = draw(arrays(np.float64, (H * W, C), elements=finite))
    w_s = draw(arrays(np.float64, (R * R * C, C), elements=finite))
    return x, H, W, R, w_s


@given(sr_cases())
def test_sr_output_shape_and_per_token_layer_norm(case):
    x, H, W, R, w_s = case
    y = sra.spatial_reduction(x, H, W, R, w_s)
    assert y.shape == (H * W // R**2, x.shape[1])
    pre = sra.reshape_for_reduction(x, H, W, R) @ w_s
    v = pre.var(axis=1)
    assert np.allclose(y.mean(axis=1), 0, atol=1e-9)
    # LayerNorm: variance exactly v / (v + eps), i.e. 1 unless the token is (near) constant
    assert np.allclose(y.var(axis=1), v / (v + 1e-5), atol=1e-9)
    big = v > 1e-2
    assert np.allclose(y.var(axis=1)[big], 1, atol=1e-3)


@given(sr_cases())
def test_reshape_moves_every_value_exactly_once(case):
    x, H, W, R, _ = case
    patched = sra.reshape_for_reduction(x, H, W, R)
    assert patched.shape == (H * W // R**2, R * R * x.shape[1])
    assert np.array_equal(np.sort(patched, axis=None), np.sort(x, axis=None))
    assert np.array_equal(sra.reshape_for_reduction(x, H, W, 1), x)


@given(sr_cases())
def test_sra_rows_are_distributions(case):
    x, H, W, R, w_s = case
    C = x.shape[1]
    a = sra.sra_weights(x, H, W, R, np.eye(C), np.eye(C), w_s)
    assert a.shape == (H * W, H * W // R**2)
    assert np.all(a >= 0) and np.allclose(a.sum(axis=1), 1)


@given(sr_cases())
def test_conv2d_plus_layer_norm_equals_patchify_plus_linear(case):
    """Oracle: PVT's code form (torch nn.Conv2d kernel = stride = R, then LayerNorm)."""
    x, H, W, R, w_s = case
    assert np.allclose(
        sra.conv_spatial_reduction(x, H, W, R, w_s),
        sra.spatial_reduction(x, H, W, R, w_s),
        atol=1e-9,
    )


def test_against_an_independent_torch_unfold_and_layer_norm():
    rng = np.random.default_rng(0)
    H, W, R, C = 8, 4, 2, 3
    x, w_s = rng.standard_normal((H * W, C)), rng.standard_normal((R * R * C, C))
    img = torch.from_numpy(x).T.reshape(1, C, H, W)
    cols = F.unfold(img, kernel_size=R, stride=R)[0].T  # (N/R², C·R·R) ordered (c, r1, r2)
    w = torch.from_numpy(w_s).reshape(R, R, C, C).permute(2, 0, 1, 3).reshape(C * R * R, C)
    ref = F.layer_norm(cols @ w, (C,)).numpy()
    assert np.allclose(sra.spatial_reduction(x, H, W, R, w_s), ref, atol=1e-12)
    assert np.allclose(sra.layer_norm(x), F.layer_norm(torch.from_numpy(x), (C,)).numpy())


def test_mean_pool_projection_averages_each_patch():
    x = np.arange(32.0).reshape(16, 2)
    pooled = sra.reshape_for_reduction(x, 4, 4, 2) @ sra.mean_pool_projection(2, 2)
    assert np.allclose(pooled[0], x[[0, 1, 4, 5]].mean(axis=0))


def test_pvt_table_one_and_token_counts_at_224():
    rows = sra.pvt_stages(224, "Tiny")
    assert [r.tokens for r in rows] == [3136, 784, 196, 49]
    assert [r.kv_tokens for r in rows] == [49, 49, 49, 49]
    assert [r.side for r in rows] == [56, 28, 14, 7]
    assert [r.in_side for r in rows] == [224, 56, 28, 14]
    assert [(c.P, c.C, c.heads, c.R, c.E) for c in sra.PVT_STAGES] == [
        (4, 64, 1, 8, 8),
        (2, 128, 2, 4, 8),
        (2, 320, 5, 2, 4),
        (2, 512, 8, 1, 4),
    ]
    assert [(r.P, r.C, r.heads, r.R, r.E) for r in rows] == [
        (4, 64, 1, 8, 8),
        (2, 128, 2, 4, 8),
        (2, 320, 5, 2, 4),
        (2, 512, 8, 1, 4),
    ]
    assert rows[0].entries == 64 * rows[0].sra_entries
    depths = {v: tuple(r.L for r in sra.pvt_stages(224, v)) for v in sra.PVT_DEPTHS}
    assert depths == {
        "Tiny": (2, 2, 2, 2),
        "Small": (3, 4, 6, 3),
        "Medium": (3, 4, 18, 3),
        "Large": (3, 8, 27, 3),
    }


@given(st.integers(1, 32))
def test_kv_tokens_are_image_over_32_squared_at_every_stage(k):
    assert {r.kv_tokens for r in sra.pvt_stages(32 * k)} == {k * k}


def test_attention_cost_shrinks_by_r_squared():
    cost = sra.attention_cost(3136, 8)
    assert cost.entries == 3136**2 == 64 * cost.sra_entries
    assert cost.bytes == 4 * 3136**2


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: sra.spatial_reduction(np.zeros((16, 2)), 4, 4, 3, np.zeros((18, 2))), "sra_ratio"),
        (
            lambda: sra.spatial_reduction(np.zeros((16, 2)), 4, 4, 2, np.zeros((4, 2))),
            "sra_ws_shape",
        ),
        (lambda: sra.reshape_for_reduction(np.zeros((15, 2)), 4, 4, 2), "sra_tokens"),
        (lambda: sra.reshape_for_reduction(np.zeros((16, 2)), 4, 4, 0), "out_of_range"),
        (lambda: sra.reshape_for_reduction(np.full((16, 2), np.nan), 4, 4, 2), "not_finite"),
        (lambda: sra.pvt_stages(100), "sra_image_side"),
        (lambda: sra.pvt_stages(224, "Huge"), "not_an_option"),
        (lambda: sra.attention_cost(10, 2), "sra_cost_tokens"),
        (lambda: sra.block_mean(np.zeros((64, 64, 3)), 12), "sra_block_side"),
        (
            lambda: sra.conv_spatial_reduction(np.zeros((16, 2)), 4, 4, 3, np.zeros((18, 2))),
            "sra_ratio",
        ),
    ],
)
def test_bad_arguments_raise_a_core_error_with_its_code(call, code):
    """A CoreError (a ValueError) whose code names a text in both languages."""
    with pytest.raises(CoreError) as err:
        call()
    assert err.value.code == code and str(err.value)


def test_sra_weights_are_a_masked_softmax_of_the_reduced_scores_and_match_torch_sdpa():
    """Oracle: torch's scaled_dot_product_attention on (x W^Q, SR(x) W^K) gives the same map."""
    rng = np.random.default_rng(4)
    H, W, R, C = 8, 8, 4, 5
    x, w_q, w_k = (rng.standard_normal(s) for s in ((H * W, C), (C, C), (C, C)))
    w_s = rng.standard_normal((R * R * C, C))
    a = sra.sra_weights(x, H, W, R, w_q, w_k, w_s)
    q = torch.from_numpy(x @ w_q)[None]  # (1, HW, C)
    k = torch.from_numpy(sra.spatial_reduction(x, H, W, R, w_s) @ w_k)[None]  # (1, HW/R², C)
    # SDPA with V = I returns the weights themselves
    ref = F.scaled_dot_product_attention(q, k, torch.eye(k.shape[1], dtype=torch.float64)[None])
    assert np.allclose(a, ref[0].numpy(), atol=1e-12)
    big = sra.attention_weights(np.array([[800.0]]), np.array([[1.0], [0.999]]))  # no overflow
    assert np.isfinite(big).all() and np.allclose(big.sum(), 1)
