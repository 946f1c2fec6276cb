"""core.convolution and core.convolution_layers: property tests (Hypothesis) and oracles
(torch Conv2d / ConvTranspose2d / PixelShuffle, and the numbers MobileNets publishes)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

from core import convolution as cv
from core import convolution_layers as cl
from core.errors import CoreError

DT = torch.float64
sizes = st.integers(1, 2048)
kernels = st.sampled_from([1, 3, 5, 7])


# ---- costs -----------------------------------------------------------------------------------


@given(kernels, sizes, sizes, st.integers(1, 256))
def test_the_ratio_is_one_over_n_plus_one_over_dk_squared(k, m, n, f):
    standard, separable = cv.standard_conv_cost(k, m, n, f), cv.depthwise_separable_cost(k, m, n, f)
    assert Fraction(separable.mult_adds, standard.mult_adds) == cv.cost_ratio(k, n)
    assert Fraction(separable.params, standard.params) == cv.cost_ratio(k, n)  # no D_F in either
    assert separable.mult_adds == separable.depthwise.mult_adds + separable.pointwise.mult_adds
    # every weight is used once at each of the D_F² positions
    assert standard.mult_adds == standard.params * f * f
    assert separable.mult_adds == separable.params * f * f


@given(st.sampled_from([3, 5, 7]), st.integers(2, 4096), sizes, st.integers(1, 64))
def test_separable_is_cheaper_for_any_real_kernel(k, n, m, f):
    assert (
        cv.depthwise_separable_cost(k, m, n, f).mult_adds
        < cv.standard_conv_cost(k, m, n, f).mult_adds
    )


def test_the_course_example_and_the_papers_table_3():
    assert f"{float(cv.cost_ratio(3, 128)):.4f}" == "0.1189"
    # Howard et al. 2017, Table 3 (D_K = 3, M = N = 512, D_F = 14): 462M / 2.36M, 52.3M / 0.27M,
    # α = 0.75: 29.6M / 0.15M, ρ = 0.714 (D_F = 10): 15.1M / 0.15M
    table = [
        (cv.standard_conv_cost(3, 512, 512, 14), 462, 2.36),
        (cv.depthwise_separable_cost(3, 512, 512, 14), 52.3, 0.27),
        (cv.depthwise_separable_cost(3, 384, 384, 14), 29.6, 0.15),
        (cv.depthwise_separable_cost(3, 384, 384, 10), 15.1, 0.15),
    ]
    for cost, mult_adds, params in table:
        assert round(cost.mult_adds / 1e6, 1 if mult_adds < 100 else 0) == mult_adds
        assert round(cost.params / 1e6, 2) == params


def test_costs_match_the_parameters_of_torch_layers():
    m, n, k = 24, 40, 5
    separable = cl.DepthwiseSeparable(m, n, k)
    cost = cv.depthwise_separable_cost(k, m, n, 7)
    assert sum(p.numel() for p in separable.parameters()) == cost.params
    assert separable.depthwise.weight.numel() == cost.depthwise.params
    assert cl.conv2d(m, n, k).weight.numel() == cv.standard_conv_cost(k, m, n, 7).params


@pytest.mark.parametrize("bad", [0, -3, 2.5, "3", True, 1 << 21])
def test_bad_sizes_are_refused(bad):
    with pytest.raises(CoreError):
        cv.standard_conv_cost(bad, 4, 4, 4)
    with pytest.raises(CoreError):
        cv.depthwise_separable_cost(3, bad, 4, 4)


# ---- MobileNet v1 against the paper ----------------------------------------------------------


TABLE_6 = [(1.0, 569, 4.2), (0.75, 325, 2.6), (0.5, 149, 1.3), (0.25, 41, 0.5)]


@pytest.mark.parametrize(("alpha", "mult_adds", "params"), TABLE_6)
def test_width_multiplier_totals_match_table_6(alpha, mult_adds, params):
    layers = cv.mobilenet_v1_layers(alpha, 224)
    assert round(sum(l.cost.mult_adds for l in layers) / 1e6) == mult_adds
    assert round(sum(l.cost.params for l in layers) / 1e6, 1) == params


@pytest.mark.parametrize(("side", "mult_adds"), [(224, 569), (192, 418), (160, 290), (128, 186)])
def test_resolution_multiplier_totals_match_table_7(side, mult_adds):
    layers = cv.mobilenet_v1_layers(1.0, side)
    # the paper prints whole millions; at 160 it prints 290 for 290.68M (elsewhere it rounds)
    assert abs(sum(l.cost.mult_adds for l in layers) / 1e6 - mult_adds) < 1
    assert round(sum(l.cost.params for l in layers) / 1e6, 1) == 4.2  # ρ changes no weight


def test_the_body_is_table_1():
    layers = cv.mobilenet_v1_layers()
    assert len(layers) == 28  # 27 convolutions (13 dw + 13 pw + the first) and the classifier
    assert [l.kind for l in layers].count("dw") == 13 == [l.kind for l in layers].count("pw")
    assert [l.side_out for l in layers if l.kind == "dw"] == [
        112,
        56,
        56,
        28,
        28,
        14,
        *[14] * 5,
        7,
        7,
    ]
    assert (layers[0].m, layers[0].n, layers[0].side_out) == (3, 32, 112)
    assert (layers[-1].m, layers[-1].n) == (1024, 1000)
    for a, b in zip(layers, layers[1:], strict=False):
        assert a.n == b.m and (a.side_out == b.side_in or b.kind == "fc")
    shares = cv.layer_shares(
        layers
    )  # Table 2: 1×1 94.86% / 74.59%, dw 3.06% / 1.06%, FC 0.18% / 24.33%
    assert [round(100 * s, 2) for s in shares["pw"]] == [94.86, 74.59]
    assert [round(100 * s, 2) for s in shares["dw"]] == [3.06, 1.06]
    assert [round(100 * s, 2) for s in shares["fc"]] == [0.18, 24.33]
    assert sum(s[0] for s in shares.values()) == pytest.approx(1.0)


def test_mobilenet_layers_agree_with_torch_modules():
    """Each layer's weights counted from a real torch layer of that shape."""
    for layer in cv.mobilenet_v1_layers(0.25, 128):
        if layer.kind == "dw":
            module = cl.conv2d(layer.m, layer.m, 3, groups=layer.m)
        elif layer.kind == "fc":
            module = torch.nn.Linear(layer.m, layer.n, bias=False)
        else:
            module = cl.conv2d(layer.m, layer.n, layer.kernel)
        assert module.weight.numel() == layer.cost.params
        if layer.kind != "fc":
            x = torch.zeros(1, layer.m, layer.side_in, layer.side_in)
            y = F.conv2d(
                x,
                module.weight,
                stride=layer.stride,
                padding=layer.kernel // 2,
                groups=module.groups,
            )
            assert y.shape[-1] == layer.side_out


@pytest.mark.parametrize(("alpha", "side"), [(0.3, 224), (1.0, 16)])
def test_unknown_multipliers_are_refused(alpha, side):
    with pytest.raises(CoreError):
        cv.mobilenet_v1_layers(alpha, side)


# ---- the convolutions against torch ----------------------------------------------------------


@st.composite
def feature_maps(draw):
    M, N = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    H, W = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    k = draw(st.sampled_from([1, 3, 5]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return (
        rng.standard_normal((M, H, W)),
        rng.standard_normal((N, M, k, k)),
        rng.standard_normal((M, k, k)),
        rng.standard_normal((N, M)),
    )


@given(feature_maps())
def test_numpy_convolutions_equal_torch_conv2d(maps):
    x, w, d, p = maps
    M, k = x.shape[0], w.shape[-1]
    X = torch.from_numpy(x)[None]
    assert np.allclose(cv.standard_conv(x, w), F.conv2d(X, torch.from_numpy(w), padding=k // 2)[0])
    depthwise = F.conv2d(X, torch.from_numpy(d)[:, None], padding=k // 2, groups=M)[0]
    assert np.allclose(cv.depthwise_conv(x, d), depthwise)
    assert np.allclose(
        cv.pointwise_conv(x, p), F.conv2d(X, torch.from_numpy(p)[..., None, None])[0]
    )
    # depthwise then pointwise = one standard convolution with the factorised kernel
    assert np.allclose(
        cv.pointwise_conv(cv.depthwise_conv(x, d), p),
        cv.standard_conv(x, cv.separable_as_standard(d, p)),
    )


@given(st.integers(1, 6), st.integers(1, 6), st.sampled_from([1, 3, 5]), st.integers(0, 10**6))
def test_the_torch_separable_layer_equals_its_standard_form(m, n, k, seed):
    g = torch.Generator().manual_seed(seed)
    layer = cl.DepthwiseSeparable(m, n, k, generator=g, dtype=DT)
    x = torch.randn(2, m, 6, 5, generator=g, dtype=DT)
    with torch.no_grad():
        assert torch.allclose(layer(x), layer.as_standard()(x), atol=1e-12)
        D, P = layer.depthwise.weight[:, 0].numpy(), layer.pointwise.weight[:, :, 0, 0].numpy()
        assert np.allclose(cv.pointwise_conv(cv.depthwise_conv(x[0].numpy(), D), P), layer(x)[0])


def test_touched_counts():
    assert cv.touched("standard", 3, 4, 7, 3, 3).sum() == 9 * 4
    assert cv.touched("standard", 3, 4, 7, 0, 0).sum() == 4 * 4  # clipped at the corner
    dw = cv.touched("depthwise", 5, 3, 7, 3, 3)
    assert [int((dw[c] == c + 1).sum()) for c in range(3)] == [25, 25, 25]
    assert cv.touched("pointwise", 5, 6, 7, 2, 4).sum() == 6
    with pytest.raises(CoreError):
        cv.touched("standard", 3, 4, 7, 7, 0)


# ---- sub-pixel convolution ---------------------------------------------------------------------


@given(
    st.integers(1, 3),
    st.integers(1, 4),
    st.integers(1, 5),
    st.integers(1, 5),
    st.integers(0, 10**6),
)
def test_pixel_shuffle_equals_torch_and_inverts(C, r, H, W, seed):
    x = np.random.default_rng(seed).standard_normal((C * r * r, H, W))
    y = cv.pixel_shuffle(x, r)
    assert np.array_equal(y, torch.nn.PixelShuffle(r)(torch.from_numpy(x)[None])[0].numpy())
    assert np.array_equal(cv.pixel_unshuffle(y, r), x)
    assert np.array_equal(
        cv.pixel_unshuffle(y, r), F.pixel_unshuffle(torch.from_numpy(y)[None], r)[0]
    )


def test_pixel_shuffle_places_each_channel_on_its_sub_pixel():
    x = np.arange(4 * 2 * 3, dtype=float).reshape(4, 2, 3)  # C = 1, r = 2
    y = cv.pixel_shuffle(x, 2)
    assert y.shape == (1, 4, 6)
    for c in range(4):
        i, j = divmod(c, 2)
        assert np.array_equal(y[0, i::2, j::2], x[c])
    with pytest.raises(CoreError):
        cv.pixel_shuffle(np.zeros((3, 2, 2)), 2)


@given(
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 4),
    st.sampled_from([1, 3, 5]),
    st.integers(1, 5),
    st.integers(0, 10**6),
)
def test_sub_pixel_convolution_equals_a_transposed_convolution(M, C, r, k, H, seed):
    g = torch.Generator().manual_seed(seed)
    layer = cl.SubPixelUpsample(M, C, r, k, generator=g, dtype=DT)
    x = torch.randn(1, M, H, H + 1, generator=g, dtype=DT)
    with torch.no_grad():
        y, t = layer(x), layer.as_transposed()(x)
        assert t.shape == y.shape == (1, C, H * r, (H + 1) * r)
        assert torch.allclose(y, t, atol=1e-12)
        # and with torch's own functional transposed convolution on the numpy weight
        T = torch.from_numpy(cv.subpixel_to_transposed(layer.conv.weight.numpy(), r))
        assert torch.allclose(
            F.conv_transpose2d(x, T, stride=r, padding=r * (k - 1) // 2), y, atol=1e-12
        )


def test_icnr_starts_as_nearest_neighbour_upsampling():
    g = torch.Generator().manual_seed(3)
    layer = cl.SubPixelUpsample(2, 3, 2, 3, icnr=True, generator=g, dtype=DT)
    x = torch.randn(1, 2, 5, 5, generator=g, dtype=DT)
    with torch.no_grad():
        low = F.conv2d(x, layer.conv.weight[::4], padding=1)  # one filter per output channel
        assert torch.allclose(layer(x), F.interpolate(low, scale_factor=2, mode="nearest"))


def test_checkerboards_on_a_flat_image():
    outputs = cl.upsample_all(np.full((12, 12, 3), 0.4), 2, seed=1)
    spreads = {name: cv.phase_spread(y.transpose(2, 0, 1), 2) for name, y in outputs.items()}
    assert spreads["resize"] < 1e-12 and spreads["icnr"] < 1e-12
    assert spreads["transposed"] > 0.1 and spreads["subpixel"] > 0.1
    assert all(y.shape == (24, 24, 3) for y in outputs.values())


@given(st.integers(1, 7), st.integers(1, 4), st.integers(1, 9))
def test_overlap_counts(k, s, n):
    counts = cv.overlap_counts(k, s, n)
    assert counts.sum() == n * k and len(counts) == (n - 1) * s + k
    middle = counts[k : len(counts) - k]
    if k % s == 0 and middle.size:
        assert np.all(middle == k // s)  # even overlap when the stride divides the kernel
    if k % s and middle.size >= s:
        assert middle.max() > middle.min()


def test_transposed_upsampler_output_size():
    for k in (2, 3, 4, 5):
        for r in (2, 3):
            layer = cl.transposed_upsampler(3, 2, r, k)
            assert layer(torch.zeros(1, 3, 5, 4)).shape == (1, 2, 5 * r, 4 * r)


def test_timing_measures_three_forward_passes():
    timing = cl.time_convolutions(8, 8, 3, 8, 2, torch.Generator().manual_seed(0))
    assert min(timing.standard, timing.depthwise, timing.pointwise) > 0
    assert timing.separable == timing.depthwise + timing.pointwise


@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 4), st.integers(1, 4))
def test_shuffle_sources_follow_torchs_pixel_shuffle(C, r, H, W):
    sources = cv.shuffle_sources(C, r, H, W)
    assert sources.shape == (C, H * r, W * r, 3)
    ids = torch.arange(C * r * r * H * W, dtype=DT).reshape(1, C * r * r, H, W)
    moved = torch.nn.PixelShuffle(r)(ids)[0].numpy().astype(int)  # (C, Hr, Wr) input ids
    k, h, w = (sources[..., i] for i in range(3))
    channel = np.arange(C)[:, None, None] * r * r + k
    assert np.array_equal(moved, (channel * H + h) * W + w)
