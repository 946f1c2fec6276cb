"""core.vit: property tests (Hypothesis) and oracles (torch nn.Conv2d, nn.MultiheadAttention,
core.attention, the ViT paper's token counts), and uploads refused with a code."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PIL import Image

from core import attention as att
from core import images, vit
from core.errors import CoreError
from tests.core.test_images import jpeg_declaring, png_declaring

pytestmark = pytest.mark.filterwarnings("error")
finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@st.composite
def image_cases(draw):
    """(image (H, W, C), P) with P dividing H and W."""
    P = draw(st.sampled_from([1, 2, 3, 4]))
    H, W = P * draw(st.integers(1, 4)), P * draw(st.integers(1, 4))
    C = draw(st.integers(1, 3))
    return draw(arrays(np.float64, (H, W, C), elements=finite)), P


# ---- patches -----------------------------------------------------------------------------------


@given(image_cases())
def test_patchify_then_unpatchify_is_the_identity(case):
    x, P = case
    H, W, C = x.shape
    xp = vit.patchify(x, P)
    assert xp.shape == (H * W // P**2, P * P * C)
    assert np.array_equal(vit.unpatchify(xp, P, H, W), x)


@given(image_cases(), st.data())
def test_each_row_is_one_patch_in_row_major_order(case, data):
    x, P = case
    H, W, _ = x.shape
    n = data.draw(st.integers(0, H * W // P**2 - 1))
    r, c = divmod(n, W // P)
    assert np.array_equal(
        vit.patchify(x, P)[n], x[r * P : (r + 1) * P, c * P : (c + 1) * P].ravel()
    )


def test_patchify_matches_torch_unfold():
    """torch's unfold orders a patch (c p1 p2); ours is (p1 p2 c) like einops' ViT code."""
    x = np.random.default_rng(0).standard_normal((8, 12, 3))
    P = 4
    cols = torch.nn.functional.unfold(torch.from_numpy(x.transpose(2, 0, 1))[None], P, stride=P)
    ref = cols[0].T.reshape(-1, 3, P, P).permute(0, 2, 3, 1).reshape(-1, P * P * 3).numpy()
    assert np.array_equal(vit.patchify(x, P), ref)


@settings(max_examples=30)
@given(image_cases(), st.integers(1, 6), st.integers(0, 10**6))
def test_linear_patch_embedding_equals_a_strided_conv2d(case, D, seed):
    x, P = case
    C = x.shape[2]
    rng = np.random.default_rng(seed)
    E, b = rng.standard_normal((P * P * C, D)), rng.standard_normal(D)
    # torch's Conv2d(kernel = stride = P), built here independently of core.vit
    conv = torch.nn.Conv2d(C, D, P, stride=P, dtype=torch.float64)
    with torch.no_grad():
        conv.weight.copy_(torch.from_numpy(E.reshape(P, P, C, D).transpose(3, 2, 0, 1).copy()))
        conv.bias.copy_(torch.from_numpy(b))
        y = conv(torch.from_numpy(x.transpose(2, 0, 1).copy())[None])[0]
    ref = y.reshape(D, -1).T.numpy()
    assert np.allclose(vit.patch_embedding(vit.patchify(x, P), E, b), ref, atol=1e-10)
    assert np.allclose(vit.conv_patch_embedding(x, E, b, P), ref, atol=1e-12)


def test_input_tokens_put_the_class_token_first_and_add_positions():
    rng = np.random.default_rng(1)
    x = rng.random((16, 16, 3))
    w = vit.init_vit(4, 3, 8, 16, rng)
    z = vit.input_tokens(x, w, 4)
    assert z.shape == (17, 8)
    assert np.allclose(z[0], w.cls + w.pos[0])
    assert np.allclose(z[1:], vit.patchify(x, 4) @ w.E + w.b + w.pos[1:])
    with pytest.raises(CoreError) as err:
        vit.input_tokens(x, vit.init_vit(4, 3, 8, 9, rng), 4)  # 16 patches, 10 positions
    assert err.value.code == "vit_positions"
    with pytest.raises(CoreError) as err:
        vit.input_tokens(x, w, 8)  # patches of 8·8·3 numbers, E made for 4·4·3
    assert err.value.code == "vit_embedding_shape"


def test_a_patch_that_does_not_divide_the_side_is_refused():
    with pytest.raises(CoreError) as err:
        vit.patchify(np.zeros((10, 10, 3)), 4)
    assert err.value.code == "vit_patch"


# ---- multi-head self-attention -----------------------------------------------------------


@st.composite
def attention_cases(draw):
    h, d = draw(st.sampled_from([1, 2, 3, 4])), draw(st.sampled_from([1, 2, 4]))
    T, D = draw(st.integers(1, 9)), h * d
    x = draw(arrays(np.float64, (T, D), elements=finite))
    ws = [draw(arrays(np.float64, (D, D), elements=finite)) for _ in range(4)]
    return x, ws, h


@settings(max_examples=40)
@given(attention_cases())
def test_einsum_steps_have_their_shapes_and_equal_torch_and_core(case):
    x, (wq, wk, wv, wo), h = case
    T, D = x.shape
    s = vit.mhsa_steps(x, wq, wk, wv, wo, h)
    d = D // h
    assert s.q_heads.shape == s.heads.shape == (h, T, d)
    assert s.scores.shape == s.weights.shape == (h, T, T)
    assert s.merged.shape == s.out.shape == (T, D) and s.scale == pytest.approx(d**-0.5)
    assert np.allclose(s.weights.sum(-1), 1)
    out, weights = vit.torch_mha(x, wq, wk, wv, wo, h)
    assert np.allclose(s.out, out, atol=1e-9) and np.allclose(s.weights, weights, atol=1e-12)
    ref, ref_w = att.multi_head_attention(x, wq, wk, wv, wo, h)
    assert np.allclose(s.out, ref, atol=1e-9) and np.allclose(s.weights, ref_w)


def test_torch_oracle_built_by_hand_with_its_in_proj_layout():
    """nn.MultiheadAttention set up here without core.vit: in_proj = [W^Q; W^K; W^V]ᵀ."""
    rng = np.random.default_rng(2)
    T, D, h = 5, 6, 3
    x, (wq, wk, wv, wo) = rng.standard_normal((T, D)), rng.standard_normal((4, D, D))
    mha = torch.nn.MultiheadAttention(D, h, bias=False, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight[:D] = torch.from_numpy(wq.T)
        mha.in_proj_weight[D : 2 * D] = torch.from_numpy(wk.T)
        mha.in_proj_weight[2 * D :] = torch.from_numpy(wv.T)
        mha.out_proj.weight[:] = torch.from_numpy(wo.T)
    t = torch.from_numpy(x)[:, None]  # (T, B, D): batch_first=False
    out, w = mha(t, t, t, average_attn_weights=False)
    s = vit.mhsa_steps(x, wq, wk, wv, wo, h)
    assert np.allclose(s.out, out[:, 0].detach().numpy()) and np.allclose(s.weights, w[0].detach())


@given(st.integers(2, 7), st.integers(0, 10**6))
def test_mask_polarity_is_flipped_for_torch(T, seed):
    rng = np.random.default_rng(seed)
    x, ws = rng.standard_normal((T, 4)), rng.standard_normal((4, 4, 4))
    allowed = att.causal_mask(T)
    s = vit.mhsa_steps(x, *ws, 2, allowed)
    out, w = vit.torch_mha(x, *ws, 2, allowed)
    assert np.allclose(s.out, out) and np.allclose(s.weights, w)
    assert np.all(s.weights[:, ~allowed] == 0)
    # torch's own causal mask is True above the diagonal (blocked): the flip of ours
    blocked = torch.nn.Transformer.generate_square_subsequent_mask(T).numpy() < 0
    assert np.array_equal(blocked, ~allowed)


def test_the_course_scale_sqrt_h_is_not_the_papers():
    rng = np.random.default_rng(3)
    x, ws = rng.standard_normal((6, 12)), rng.standard_normal((4, 12, 12))
    right = vit.mhsa_steps(x, *ws, 3)
    course = vit.mhsa_steps(x, *ws, 3, scale=1 / np.sqrt(3))
    sdpa = torch.nn.functional.scaled_dot_product_attention  # scale 1/√(q.size(-1)) = 1/√d
    ref = sdpa(*(torch.from_numpy(a) for a in (right.q_heads, right.k_heads, right.v_heads)))
    assert np.allclose(right.heads, ref.numpy())
    assert not np.allclose(course.weights, right.weights)


# ---- cost --------------------------------------------------------------------------------


def test_vit_paper_token_counts():
    # Dosovitskiy et al.: 224² in 16² patches = 14 × 14 = 196 patches (+ [class]); /32: 49
    assert vit.vit_cost(224, 16, 768, 12).tokens == 197
    assert vit.vit_cost(224, 32, 768, 12).patches == 49
    assert vit.vit_cost(384, 16, 768, 12).patches == 576  # fine-tuning at 384²: 24 × 24
    assert vit.vit_cost(224, 16, 768, 12).patch_dim == 768  # 16·16·3


@given(st.sampled_from([(224, 16), (224, 8), (64, 4), (96, 12)]), st.integers(1, 16))
def test_cost_is_quadratic_in_tokens(sp, h):
    S, P = sp
    c = vit.vit_cost(S, P, 64 * h, h)
    assert c.tokens == (S // P) ** 2 + 1 and c.entries == h * c.tokens**2
    assert c.flops == 4 * c.tokens**2 * 64 * h
    if P % 2 == 0:
        assert vit.vit_cost(S, P // 2, 64 * h, h).patches == 4 * c.patches


# ---- uploads -----------------------------------------------------------------------------


def png_bytes(size=(40, 30)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (10, 200, 30)).save(buf, "PNG")
    return buf.getvalue()


def test_a_good_upload_is_a_square_rgb_image():
    out = vit.load_image(png_bytes(), 64)
    assert out.shape == (64, 64, 3) and out.dtype == np.uint8
    assert tuple(out[32, 32]) == (10, 200, 30)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "vit_upload_empty"),
        (b"GIF89a" + b"\0" * 100, "vit_upload_type"),
        (b"print('hello')", "vit_upload_type"),
        (png_declaring(50_000, 50_000), "vit_upload_pixels"),
        (jpeg_declaring(60_000, 60_000), "vit_upload_pixels"),
        (png_bytes()[:60], "vit_upload_damaged"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * (images.MAX_BYTES + 1), "vit_upload_too_big"),
    ],
)
def test_bad_uploads_are_refused_with_a_code(data, code):
    with pytest.raises(CoreError) as err:
        vit.load_image(data, 64)
    assert err.value.code == code


@settings(max_examples=40)
@given(st.binary(max_size=300))
def test_any_bytes_give_an_image_or_a_coded_error(data):
    try:
        out = vit.load_image(data, 16)
    except CoreError as err:
        assert err.code.startswith("vit_upload_")
    else:
        assert out.shape == (16, 16, 3)


@pytest.mark.parametrize(("S", "P", "h"), [(224, 16, 12), (64, 8, 2)])
def test_cost_flops_are_what_torch_counts_for_qk_and_av(S, P, h):
    """4·T²·D are floating-point operations, not multiply-adds: torch's own counter (2 per
    multiply-add) on QKᵀ and AV of h heads of d = 64 agrees."""
    from torch.utils.flop_counter import FlopCounterMode

    c = vit.vit_cost(S, P, 64 * h, h)
    q, k, v = (torch.randn(h, c.tokens, 64) for _ in range(3))
    with FlopCounterMode(display=False) as counter:
        torch.softmax(q @ k.transpose(1, 2) / 8.0, dim=-1) @ v
    assert counter.get_total_flops() == c.flops
