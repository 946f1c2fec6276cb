"""core.windows (Swin): property tests (Hypothesis) and oracles (torch, Swin's reference code,
the paper's complexity numbers)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import windows as win
from core.errors import CoreError

finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


@st.composite
def feature_maps(draw, max_windows: int = 4, max_window: int = 5, max_c: int = 3):
    """(x (H, W, C), M) with H, W multiples of M."""
    M = draw(st.integers(1, max_window))
    h, w, c = (draw(st.integers(1, m)) for m in (max_windows, max_windows, max_c))
    x = draw(arrays(np.float64, (h * M, w * M, c), elements=finite))
    return x, M


@st.composite
def shifted_grids(draw):
    """(H, W, M, s) with H, W multiples of M and 0 <= s < M."""
    M = draw(st.integers(1, 6))
    H, W = M * draw(st.integers(1, 4)), M * draw(st.integers(1, 4))
    return H, W, M, draw(st.integers(0, M - 1))


# ---- reference: microsoft/Swin-Transformer models/swin_transformer.py, in torch ----
def ref_window_partition(x: torch.Tensor, window_size: int) -> torch.Tensor:
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


def ref_attn_mask(H: int, W: int, window_size: int, shift_size: int) -> torch.Tensor:
    img_mask = torch.zeros((1, H, W, 1))
    h_slices = (slice(0, -window_size), slice(-window_size, -shift_size), slice(-shift_size, None))
    w_slices = (slice(0, -window_size), slice(-window_size, -shift_size), slice(-shift_size, None))
    cnt = 0
    for h in h_slices:
        for w in w_slices:
            img_mask[:, h, w, :] = cnt
            cnt += 1
    mask_windows = ref_window_partition(img_mask, window_size).view(-1, window_size * window_size)
    attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
    return attn_mask.masked_fill(attn_mask != 0, (-100.0)).masked_fill(attn_mask == 0, 0.0)


def ref_relative_position_index(M: int) -> torch.Tensor:
    coords = torch.stack(torch.meshgrid([torch.arange(M), torch.arange(M)], indexing="ij"))
    coords_flatten = torch.flatten(coords, 1)
    relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :]
    relative_coords = relative_coords.permute(1, 2, 0).contiguous()
    relative_coords[:, :, 0] += M - 1
    relative_coords[:, :, 1] += M - 1
    relative_coords[:, :, 0] *= 2 * M - 1
    return relative_coords.sum(-1)


# ---- properties ----
@given(feature_maps())
def test_window_reverse_undoes_window_partition(case):
    x, M = case
    H, W, C = x.shape
    windows = win.window_partition(x, M)
    assert windows.shape == ((H // M) * (W // M), M, M, C)
    assert np.array_equal(win.window_reverse(windows, M, H, W), x)


@given(feature_maps(), st.integers(-12, 12))
def test_the_reverse_roll_undoes_the_cyclic_shift(case, s):
    x, _ = case
    assert np.array_equal(win.cyclic_shift(win.cyclic_shift(x, s), -s), x)


@given(shifted_grids())
def test_the_mask_is_symmetric_reflexive_and_marks_equal_regions(grid):
    H, W, M, s = grid
    mask = win.shifted_window_mask(H, W, M, s)
    regions = win.shifted_window_regions(H, W, M, s)
    assert mask.shape == ((H // M) * (W // M), M * M, M * M)
    assert np.array_equal(mask, mask.transpose(0, 2, 1))
    assert mask[:, np.arange(M * M), np.arange(M * M)].all()
    assert set(np.unique(regions)) <= set(range(9))
    if s == 0:
        assert mask.all()
    if H > M and W > M:  # the top-left window mixes no regions (unless it is also the last)
        assert mask[0].all()


@given(st.integers(1, 9))
def test_relative_position_index_is_a_valid_table_lookup(M):
    index = win.relative_position_index(M)
    K = 2 * M - 1
    assert index.shape == (M * M, M * M)
    assert index.min() == 0 and index.max() == K * K - 1
    assert np.array_equal(index + index.T, np.full_like(index, 2 * (M - 1) * (K + 1)))


# ---- oracles ----
def test_region_ids_match_the_published_table():
    expected = np.array(
        [[0, 0, 0, 0, 1, 1, 2, 2]] * 4
        + [[3, 3, 3, 3, 4, 4, 5, 5]] * 2
        + [[6, 6, 6, 6, 7, 7, 8, 8]] * 2
    )
    assert np.array_equal(win.shifted_window_regions(8, 8, 4, 2), expected)


@given(shifted_grids())
def test_mask_matches_swin_reference_code(grid):
    H, W, M, s = grid
    if s == 0:
        return  # Swin builds no mask without a shift
    ref = ref_attn_mask(H, W, M, s).numpy()
    assert np.array_equal(win.shifted_window_mask(H, W, M, s), ref == 0)


@given(feature_maps(), st.integers(0, 6))
def test_cyclic_shift_and_partition_match_torch(case, s):
    x, M = case
    t = torch.from_numpy(x)
    assert np.array_equal(win.cyclic_shift(x, s), torch.roll(t, (-s, -s), dims=(0, 1)).numpy())
    assert np.array_equal(win.window_partition(x, M), ref_window_partition(t[None], M).numpy())


@pytest.mark.parametrize("M", [1, 2, 3, 7, 12])
def test_relative_position_index_matches_swin_reference_code(M):
    assert np.array_equal(win.relative_position_index(M), ref_relative_position_index(M).numpy())


def test_relative_position_bias_reads_the_table():
    M = 3
    table = np.arange(25.0)
    bias = win.relative_position_bias(table, M)
    assert bias[0, 0] == table[(M - 1) * 5 + (M - 1)] == 12.0
    with pytest.raises(ValueError, match="entries"):  # a CoreError is a ValueError
        win.relative_position_bias(np.zeros(24), M)


def test_published_complexity_numbers():
    assert win.msa_flops(56, 56, 96) == 2_003_828_736
    assert win.window_msa_flops(56, 56, 96, 7) == 145_108_992


def test_patch_partition_and_merging_shapes_and_order():
    image = np.random.default_rng(0).random((16, 16, 3))
    patches = win.patch_partition(image, 4)
    assert patches.shape == (4, 4, 48)
    assert np.array_equal(patches[1, 2], image[4:8, 8:12].reshape(-1))
    x = torch.from_numpy(np.random.default_rng(1).random((8, 8, 5)))
    ref = torch.cat([x[0::2, 0::2], x[1::2, 0::2], x[0::2, 1::2], x[1::2, 1::2]], -1)
    assert np.array_equal(win.patch_merging(x.numpy()), ref.numpy())
    sides = [(r.H, r.C) for r in win.stage_shapes(224)]
    assert sides == [(56, 96), (28, 192), (14, 384), (7, 768)]


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: win.window_partition(np.zeros((6, 6, 1)), 4), "swin_window"),
        (lambda: win.window_partition(np.zeros((4, 4, 1)), 0), "out_of_range"),
        (lambda: win.shifted_window_regions(8, 8, 4, 4), "out_of_range"),
        (lambda: win.window_reverse(np.zeros((3, 2, 2, 1)), 2, 4, 4), "swin_reverse"),
        (lambda: win.relative_position_bias(np.zeros(24), 3), "swin_bias_table"),
        (lambda: win.relative_position_index(0), "out_of_range"),
        (lambda: win.patch_partition(np.zeros((6, 8, 3)), 4), "swin_patch"),
        (lambda: win.patch_merging(np.zeros((3, 4, 1))), "swin_merge_even"),
        (lambda: win.stage_shapes(100), "swin_image_side"),
    ],
)
def test_bad_arguments_raise_a_core_error_with_its_code(call, code):
    """A CoreError (a ValueError) whose code names a text in both languages."""
    with pytest.raises(CoreError) as err:
        call()
    assert err.value.code == code and str(err.value)


def test_the_illustrative_bias_table_peaks_at_zero_offset_and_is_symmetric():
    """B̂ of the bias view: the centre (Δ = 0) is the largest entry, |Δ| alone decides."""
    for M in (2, 3, 7):
        table = win.illustrative_bias_table(M)
        assert table.shape == (2 * M - 1, 2 * M - 1)
        assert table[M - 1, M - 1] == 0 == table.max()
        assert np.array_equal(table, table[::-1]) and np.array_equal(table, table[:, ::-1])
    # B[i, i] reads the centre: every token's bias to itself is the table's maximum
    bias = win.relative_position_bias(win.illustrative_bias_table(4), 4)
    assert np.array_equal(np.diag(bias), bias.max(axis=1))
