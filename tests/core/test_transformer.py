"""core.transformer: property tests (Hypothesis) and oracles (torch's nn.MultiheadAttention,
nn.TransformerEncoderLayer / DecoderLayer parameter counts, the causal mask torch generates,
GPT-2 small's published size)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core import attention as att
from core import transformer as tf
from core.errors import CoreError

HEADS_AND_D = st.sampled_from([(1, 4), (2, 4), (2, 8), (4, 8), (4, 16)])


def torch_mha(w: tf.AttentionWeights, n_heads: int) -> torch.nn.MultiheadAttention:
    """torch's layer holding our projections: it computes x Wᵀ, and stacks Q, K, V weights."""
    D = w.w_q.shape[0]
    mha = torch.nn.MultiheadAttention(D, n_heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([w.w_q.T, w.w_k.T, w.w_v.T])))
        mha.out_proj.weight.copy_(torch.from_numpy(w.w_o.T.copy()))
    return mha


# ---- masks and objectives ------------------------------------------------------------------


@given(st.integers(1, 12), st.integers(1, 12))
def test_masks_shapes_and_the_causal_one_matches_torch(S, T):
    m = tf.family_masks(S, T)
    assert m.encoder.shape == (S, S) and m.encoder.all()
    assert m.cross.shape == (T, S) and m.cross.all()
    # torch: 0 where allowed, −inf above the diagonal
    ref = torch.nn.Transformer.generate_square_subsequent_mask(T).numpy() == 0
    assert np.array_equal(m.decoder, ref)


words = st.lists(st.sampled_from(["a", "cat", "sat", "on", "mat", "猫"]), min_size=2, max_size=8)


@given(words, st.data())
def test_objectives_line_up_inputs_and_targets(tokens, data):
    k = data.draw(st.integers(0, len(tokens) - 1))
    mlm = tf.masked_lm_objective(tokens, [k])
    assert mlm.inputs[k] == tf.MASK and mlm.targets[k] == tokens[k] and mlm.n_predictions == 1
    assert all(a == b for i, (a, b) in enumerate(zip(mlm.inputs, tokens, strict=True)) if i != k)
    lm = tf.next_token_objective(tokens)
    assert lm.targets[:-1] == tuple(tokens[1:]) and lm.targets[-1] is None
    s2s = tf.seq2seq_objective(tokens, tokens[::-1])
    assert s2s.inputs[0] == tf.BOS and s2s.targets[-1] == tf.EOS
    assert s2s.inputs[1:] == s2s.targets[:-1]  # teacher forcing: shifted right by one
    assert s2s.context == tuple(tokens)


def test_parse_sentence_refuses_bad_text_with_codes():
    assert tf.parse_sentence("  the  cat ", "s") == ("the", "cat")
    for text, code in (
        ("one", "transformer_token_count"),
        ("a " * 11, "transformer_token_count"),
        ("a " + "x" * 17, "transformer_long_word"),
    ):
        with pytest.raises(CoreError) as err:
            tf.parse_sentence(text, "s")
        assert err.value.code == code
    for value, code in ((None, "transformer_not_text"), ("a " * 150, "transformer_too_long")):
        with pytest.raises(CoreError) as err:
            tf.parse_sentence(value)
        assert err.value.code == code
    with pytest.raises(CoreError):
        tf.masked_lm_objective(["a", "b"], [2])


def test_sinusoidal_positions_follow_the_paper():
    pe = tf.sinusoidal_positions(50, 16)
    for pos in (0, 7, 49):
        for i in range(8):
            angle = pos / 10000 ** (2 * i / 16)
            assert pe[pos, 2 * i] == pytest.approx(np.sin(angle))
            assert pe[pos, 2 * i + 1] == pytest.approx(np.cos(angle))
    assert tf.sinusoidal_positions(3, 5).shape == (3, 5)


# ---- attention of the families ----------------------------------------------------------------


@settings(max_examples=25)
@given(HEADS_AND_D, st.integers(1, 6), st.integers(1, 6), st.integers(0, 10**6))
def test_cross_attention_equals_torch_multihead_attention(hd, T, S, seed):
    h, D = hd
    rng = np.random.default_rng(seed)
    w = tf.init_attention(D, rng)
    x, mem = rng.standard_normal((T, D)), rng.standard_normal((S, D))
    out, weights = tf.cross_attention(x, mem, w, h)
    q, kv = torch.from_numpy(x)[None], torch.from_numpy(mem)[None]
    ref, ref_w = torch_mha(w, h)(q, kv, kv, need_weights=True, average_attn_weights=False)
    assert np.allclose(out, ref[0].detach().numpy(), atol=1e-10)
    assert np.allclose(weights, ref_w[0].detach().numpy(), atol=1e-12)
    assert weights.shape == (h, T, S)


@settings(max_examples=25)
@given(HEADS_AND_D, st.integers(2, 7), st.integers(0, 10**6))
def test_causal_self_attention_equals_torch_with_its_opposite_mask_polarity(hd, N, seed):
    h, D = hd
    rng = np.random.default_rng(seed)
    w = tf.init_attention(D, rng)
    x = rng.standard_normal((N, D))
    allowed = att.causal_mask(N)
    out, weights = tf.self_attention(x, w, h, allowed)
    X = torch.from_numpy(x)[None]
    ref, ref_w = torch_mha(w, h)(
        X,
        X,
        X,
        attn_mask=torch.from_numpy(~allowed),  # True = blocked
        average_attn_weights=False,
    )
    assert np.allclose(out, ref[0].detach().numpy(), atol=1e-10)
    assert np.allclose(weights, ref_w[0].detach().numpy(), atol=1e-12)


@settings(max_examples=20)
@given(words, words, st.integers(0, 100))
def test_family_maps_rows_sum_to_one_and_respect_their_masks(src, tgt, seed):
    m = tf.family_maps(src, src, src, [tf.BOS, *tgt], 16, 4, seed)
    for a in (m.encoder, m.decoder, m.cross, m.decoder_self):
        assert np.allclose(a.sum(-1), 1, atol=1e-12)
    assert m.cross.shape == (4, len(tgt) + 1, len(src))
    assert np.all(np.triu(m.decoder, 1) == 0) and np.all(np.triu(m.decoder_self, 1) == 0)
    assert np.all(m.encoder > 0)  # bidirectional: nothing blocked


@given(st.integers(2, 8), st.integers(0, 10**6))
def test_the_past_does_not_see_the_future_under_the_causal_mask_only(N, seed):
    rng = np.random.default_rng(seed)
    w = tf.init_attention(8, rng)
    x = rng.standard_normal((N, 8))
    for p in range(1, N):
        assert tf.future_influence(x, w, 2, att.causal_mask(N), p, rng) == 0.0
        assert tf.future_influence(x, w, 2, None, p, rng) > 0.0


@given(st.integers(2, 8), st.integers(0, 10**6))
def test_masking_after_the_softmax_loses_weight_on_every_row_but_the_last(N, seed):
    rng = np.random.default_rng(seed)
    sums = tf.mask_after_softmax_row_sums(rng.standard_normal((N, 8)), tf.init_attention(8, rng), 2)
    assert np.allclose(sums[:, -1], 1) and np.all(sums[:, :-1] < 1)


# ---- parameters -------------------------------------------------------------------------------


@settings(max_examples=30)
@given(st.sampled_from([(1, 4), (2, 8), (4, 16), (3, 24), (8, 64)]), st.integers(1, 200))
def test_block_parameters_equal_torch_layers(hd, F):
    h, D = hd
    enc = torch.nn.TransformerEncoderLayer(D, h, F)
    dec = torch.nn.TransformerDecoderLayer(D, h, F)
    assert tf.block_parameters(D, F).total == sum(p.numel() for p in enc.parameters())
    assert tf.block_parameters(D, F, cross=True).total == sum(p.numel() for p in dec.parameters())
    assert tf.torch_layer_parameters(D, F, h) == (
        tf.block_parameters(D, F).total,
        tf.block_parameters(D, F, True).total,
        tf.block_parameters(D, F).total,
    )


def test_the_transformer_base_and_gpt2_small():
    # Vaswani et al. Table 3, base: d_model 512, d_ff 2048
    base = torch.nn.TransformerEncoderLayer(512, 8, 2048)
    assert tf.block_parameters(512, 2048).total == sum(p.numel() for p in base.parameters())
    # GPT-2 small (Radford et al. 2019; the "124M" checkpoint): 124,439,808 parameters
    assert tf.gpt2_parameters(12, 768, 50257, 1024) == 124_439_808


def test_a_block_is_about_twelve_d_squared_when_f_is_four_d():
    ratios = [tf.block_parameters(D, 4 * D).total / D**2 for D in (64, 512, 4096)]
    assert ratios[0] > ratios[1] > ratios[2] > 12 and round(ratios[2]) == 12


# ---- KV cache -----------------------------------------------------------------------------------


@given(st.integers(1, 100), st.integers(1, 5000), st.integers(1, 4096), st.sampled_from([1, 2, 4]))
def test_kv_cache_is_linear_in_length_and_layers(L, n, D, b):
    c = tf.kv_cache_size(L, n, D, b)
    assert c.numbers == 2 * L * n * D and c.bytes == c.numbers * b
    assert tf.kv_cache_size(2 * L, n, D, b).bytes == 2 * c.bytes
    assert tf.kv_cache_size(L, 2 * n, D, b).bytes == 2 * c.bytes


def test_gpt2_small_cache_at_full_context():
    # 12 layers, d_model 768, n_ctx 1024 (GPT-2 paper Table 2; the released config)
    assert tf.kv_cache_size(12, 1024, 768, 4).bytes == 75_497_472
    assert tf.kv_cache_size(12, 1024, 768, 2).bytes == 37_748_736


@settings(max_examples=20)
@given(st.integers(1, 4), st.integers(1, 7), HEADS_AND_D, st.integers(0, 10**6))
def test_cached_decoding_equals_the_full_causal_pass(L, n, hd, seed):
    h, D = hd
    rng = np.random.default_rng(seed)
    layers = [tf.init_attention(D, rng) for _ in range(L)]
    x = rng.standard_normal((n, D))
    run = tf.cached_decoding(x, layers, h)
    assert np.allclose(run.outputs, tf.decoder_stack(x, layers, h), atol=1e-10)
    assert run.numbers == tf.kv_cache_size(L, n, D).numbers


def test_cached_decoding_matches_torch_causal_attention_for_one_layer():
    rng = np.random.default_rng(3)
    w = tf.init_attention(8, rng)
    x = rng.standard_normal((6, 8))
    X = torch.from_numpy(x)[None]
    ref, _ = torch_mha(w, 2)(X, X, X, attn_mask=torch.from_numpy(~att.causal_mask(6)))
    run = tf.cached_decoding(x, [w], 2)
    assert np.allclose(run.outputs, x + ref[0].detach().numpy(), atol=1e-10)
    demo = tf.demo_cached_decoding(3, 0)
    assert demo.gap < 1e-12 and demo.stored == demo.formula == 2 * 3 * 8 * 16
