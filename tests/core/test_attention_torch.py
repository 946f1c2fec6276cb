"""core.attention_torch: our inputs through torch's attentions, against core.attention and a
hand-written torch computation; torch is loaded only when called."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core import attention as att
from core import attention_torch as ref
from core.errors import CoreError
from tests.app.conftest import ROOT


def example(N: int, D: int, seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((N, D)), att.random_projections(D, rng)


def by_hand(x: np.ndarray, ws: list[np.ndarray], h: int, mask: np.ndarray):
    """Multi-head attention written out in torch ops (no nn.MultiheadAttention, no SDPA)."""
    N, D = x.shape
    tx, allowed = torch.tensor(x), torch.tensor(mask)
    q, k, v = (tx @ torch.tensor(w) for w in ws[:3])

    def attend(q, k, v):
        scores = (q @ k.transpose(-1, -2)) / np.sqrt(q.shape[-1])
        w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        return w @ v, w

    single, _ = attend(q, k, v)
    heads = [t.reshape(N, h, D // h).transpose(0, 1) for t in (q, k, v)]
    out, w = attend(*heads)
    merged = out.transpose(0, 1).reshape(N, D) @ torch.tensor(ws[3])
    return single.numpy(), merged.numpy(), w.numpy()


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([(4, 1), (8, 2), (8, 8), (12, 3), (16, 4)]),
    st.integers(1, 10),
    st.integers(0, 10**6),
    st.booleans(),
)
def test_torch_attention_is_attention_written_out_by_hand(shape, N, seed, causal):
    D, h = shape
    x, ws = example(N, D, seed)
    mask = att.attention_mask("causal" if causal else "none", N)
    got = ref.torch_attention(x, *ws, h, mask)
    single, out, w = by_hand(x, ws, h, mask)
    assert got.sdpa.shape == (N, D) and got.mha_out.shape == (N, D)
    assert got.mha_weights.shape == (h, N, N)
    np.testing.assert_allclose(got.sdpa, single, atol=1e-12)
    np.testing.assert_allclose(got.mha_out, out, atol=1e-12)
    np.testing.assert_allclose(got.mha_weights, w, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([(4, 2), (8, 4), (16, 2), (16, 8)]),
    st.integers(1, 12),
    st.integers(0, 10**6),
    st.booleans(),
)
def test_our_attention_agrees_with_torch_to_rounding(shape, N, seed, causal):
    D, h = shape
    x, ws = example(N, D, seed)
    gap = ref.gap_to_torch(x, *ws, h, att.attention_mask("causal" if causal else "none", N))
    assert max(gap.sdpa, gap.mha_out, gap.weights) < 1e-12
    assert gap.weights_map.shape == (N, N) and gap.weights_map.max() == gap.weights


def test_a_wrong_convention_would_show_as_a_gap():
    """The comparison can fail: hand torch the weights untransposed, or the mask un-negated,
    and the gap is large (so a green badge means something)."""
    x, ws = example(6, 8, 1)
    mask = att.causal_mask(6)
    ours, _ = att.multi_head_attention(x, *ws, 2, mask)
    transposed = ref.torch_attention(x, *(w.T for w in ws), 2, mask)
    assert np.abs(ours - transposed.mha_out).max() > 1e-3
    unmasked = ref.torch_attention(x, *ws, 2, None)
    assert np.abs(ours - unmasked.mha_out).max() > 1e-3
    assert ref.gap_to_torch(x, *ws, 2, None).mha_out < 1e-12  # None: all allowed, both sides


def test_bad_arguments_are_refused_before_torch_runs():
    x, ws = example(4, 8, 0)
    with pytest.raises(ValueError, match="not divisible"):
        ref.torch_attention(x, *ws, 3)
    with pytest.raises(CoreError, match="W_O") as err:
        ref.torch_attention(x, *ws[:3], np.eye(4), 2)
    assert err.value.code == "attention_maps_weight_shape"
    with pytest.raises(CoreError, match="mask") as err:
        ref.gap_to_torch(x, *ws, 2, np.ones((4, 4), dtype=int))
    assert err.value.code == "attention_maps_mask"
    with pytest.raises(ValueError, match="finite"):
        ref.gap_to_torch(np.full((4, 8), np.nan), *ws, 2)


def test_importing_the_module_does_not_load_torch():
    code = "import sys, json, core.attention_torch; print(json.dumps('torch' in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert json.loads(out.stdout) is False


@given(st.integers(1, 96), st.lists(st.integers(1, 16), min_size=1, max_size=8, unique=True))
@settings(max_examples=60, deadline=None)
def test_divisors_among_are_exactly_the_heads_torch_accepts(d_model, candidates):
    """Oracle: nn.MultiheadAttention refuses a head count that does not divide embed_dim."""
    offered = att.divisors_among(d_model, candidates)
    assert offered == [h for h in candidates if h in offered]  # the candidates' order
    for h in candidates:
        try:
            torch.nn.MultiheadAttention(d_model, h)
            accepted = True
        except AssertionError:
            accepted = False
        assert (h in offered) == accepted, (d_model, h)
        if h in offered:
            assert att.check_heads(d_model, h) * h == d_model
