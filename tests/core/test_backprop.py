"""The hand-written backward pass of a post-LN Transformer block, checked three ways:
torch autograd (of our torch twin and of torch's own ``nn.TransformerEncoderLayer``), central
finite differences, and Hypothesis properties (shapes, linearity in dy, sums, symmetries)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core import backprop as bp
from core import backprop_torch as bt
from core.errors import CoreError

ALL = (*bp.TENSOR_NAMES, *bp.PARAM_NAMES)
# (N, D, h, F): one token, one head, the page's sizes, a wider block
SIZES = [(1, 4, 1, 8), (5, 8, 2, 16), (3, 12, 3, 8), (6, 16, 4, 32)]


def grads_of(N, D, h, F, seed):
    x, p, t = bp.example(N, D, h, F, seed)
    y, cache = bp.block_forward(x, p)
    _, dy = bp.squared_error_loss(y, t)
    return x, p, t, y, dy, cache, bp.all_gradients(dy, cache)


sizes = st.tuples(
    st.integers(1, 6),
    st.sampled_from([(4, 1), (4, 2), (6, 3), (8, 2)]),
    st.integers(1, 12),
    st.integers(0, 10_000),
)


# ---- oracles -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("N", "D", "h", "F"), SIZES)
@pytest.mark.parametrize("seed", [0, 1])
def test_forward_equals_torch_transformer_encoder_layer(N, D, h, F, seed):
    x, p, _ = bp.example(N, D, h, F, seed)
    y, _ = bp.block_forward(x, p)
    layer = bt.encoder_layer(p)
    with torch.no_grad():
        expected = layer(torch.from_numpy(x)[None])[0].numpy()
    np.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("N", "D", "h", "F"), SIZES)
@pytest.mark.parametrize("seed", [0, 3])
def test_every_gradient_equals_autograd_of_the_torch_layer(N, D, h, F, seed):
    x, p, _, y, dy, _, g = grads_of(N, D, h, F, seed)
    y_torch, expected = bt.layer_gradients(x, p, dy)
    np.testing.assert_allclose(y, y_torch, atol=1e-12)
    assert set(expected) == {*bp.PARAM_NAMES, "x"}
    for name, grad in expected.items():
        assert bp.max_relative_error(g[name], grad) < 1e-8, name


@pytest.mark.parametrize(("N", "D", "h", "F"), SIZES)
def test_every_inner_gradient_equals_autograd_of_the_torch_twin(N, D, h, F):
    x, p, _, _, dy, _, g = grads_of(N, D, h, F, 7)
    _, expected = bt.autograd_gradients(x, p, dy)
    for name in ALL:
        assert g[name].shape == expected[name].shape, name
        assert bp.max_relative_error(g[name], expected[name]) < 1e-8, name


def test_the_twin_and_the_layer_agree_on_the_parameters():
    x, p, _, _, dy, _, _ = grads_of(4, 8, 2, 16, 2)
    _, twin = bt.autograd_gradients(x, p, dy)
    _, layer = bt.layer_gradients(x, p, dy)
    for name in layer:
        np.testing.assert_allclose(twin[name], layer[name], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ALL)
def test_every_gradient_equals_central_finite_differences(name):
    x, p, t, _, _, _, g = grads_of(4, 8, 2, 16, 11)
    fd = bp.finite_difference_gradient(x, p, t, name)
    assert bp.max_relative_error(g[name], fd) < 1e-3, name


def test_a_wrong_gradient_is_caught_by_both_checks():
    """The checks can fail: the course's diagonal-only softmax rule is far off."""
    x, p, t, _, dy, cache, g = grads_of(5, 8, 2, 16, 0)
    wrong = bp.diagonal_only_softmax_backward(cache.A, g["A"])
    assert bp.max_relative_error(wrong, g["S"]) > 0.1
    assert bp.max_relative_error(wrong, bp.finite_difference_gradient(x, p, t, "S")) > 0.1


def test_softmax_jacobian_equals_torch_jacobian():
    s = torch.tensor([0.3, -1.2, 2.0, 0.5], dtype=torch.float64)
    J = torch.autograd.functional.jacobian(lambda z: torch.softmax(z, 0), s).numpy()
    a = torch.softmax(s, 0).numpy()
    np.testing.assert_allclose(bp.softmax_jacobian(a), J, atol=1e-15)


def test_layer_norm_matches_torch():
    rng = np.random.default_rng(0)
    u, g, gamma, beta = (rng.standard_normal((3, 6)) for _ in range(4))
    y, xhat, inv = bp.layer_norm_forward(u, gamma[0], beta[0])
    ut = torch.from_numpy(u).requires_grad_(True)
    gt, bt_ = (torch.from_numpy(a[0]).requires_grad_(True) for a in (gamma, beta))
    yt = torch.nn.functional.layer_norm(ut, (6,), gt, bt_, bp.EPS)
    yt.backward(torch.from_numpy(g))
    np.testing.assert_allclose(y, yt.detach().numpy(), atol=1e-13)
    du, dgamma, dbeta = bp.layer_norm_backward(g, xhat, inv, gamma[0])
    for mine, theirs in ((du, ut), (dgamma, gt), (dbeta, bt_)):
        np.testing.assert_allclose(mine, theirs.grad.numpy(), atol=1e-12)


def test_numpy_and_torch_training_give_the_same_losses():
    task = bp.tiny_task("reverse", 4, 2)
    model = bp.init_model(task, 8, 2, 16, 0)
    mine, theirs = bp.train(task, model, 30, 0.5), bt.train(task, model, 30, 0.5)
    np.testing.assert_allclose(mine.losses, theirs.losses, rtol=1e-10)
    np.testing.assert_allclose(mine.attention, theirs.attention, atol=1e-10)
    np.testing.assert_array_equal(mine.accuracies, theirs.accuracies)
    assert mine.losses[-1] < 0.8 * mine.losses[0]


def test_training_model_gradients_equal_finite_differences():
    task = bp.tiny_task("reverse", 3, 2)
    model = bp.init_model(task, 4, 2, 8, 1)
    _, _, grads, _ = bp.model_loss_and_gradients(model, task)
    h = 1e-5
    for name in ("E", "P", "W_out", "b_out", "W_q", "gamma2"):
        fd = np.zeros_like(model[name])
        for i in np.ndindex(fd.shape):
            plus, minus = dict(model), dict(model)
            e = np.zeros_like(fd)
            e[i] = h
            plus[name], minus[name] = model[name] + e, model[name] - e
            fd[i] = (
                bp.model_loss_and_gradients(plus, task)[0]
                - bp.model_loss_and_gradients(minus, task)[0]
            ) / (2 * h)
        assert bp.max_relative_error(grads[name], fd) < 1e-4, name


# ---- properties ------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(sizes)
def test_every_gradient_has_its_tensors_shape(size):
    N, (D, h), F, seed = size
    x, p, _, y, dy, cache, g = grads_of(N, D, h, F, seed)
    public = bp.block_backward(dy, cache)
    assert set(public) == {*bp.PARAM_NAMES, "x"}
    for name in ALL:
        assert g[name].shape == np.shape(cache.tensor(name)), name
    assert y.shape == x.shape and cache.A.shape == (h, N, N)


@settings(max_examples=25, deadline=None)
@given(sizes, st.floats(-3, 3), st.floats(-3, 3))
def test_backward_is_linear_in_dy(size, a, b):
    N, (D, h), F, seed = size
    _, _, _, _, dy, cache, _ = grads_of(N, D, h, F, seed)
    dy2 = np.random.default_rng(seed + 1).standard_normal(dy.shape)
    g1, g2 = bp.block_backward(dy, cache), bp.block_backward(dy2, cache)
    g = bp.block_backward(a * dy + b * dy2, cache)
    for name in g:
        np.testing.assert_allclose(g[name], a * g1[name] + b * g2[name], atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(sizes)
def test_invariances_show_up_as_zero_gradients(size):
    """LN₂ makes y blind to a shift of v: Σ_D ∂L/∂v = 0 per token; softmax is blind to a
    shift of a score row: Σ_j ∂L/∂S = 0, and so ∂L/∂b_k = 0 exactly; β₂ gets Σ dy."""
    N, (D, h), F, seed = size
    _, _, _, _, dy, cache, g = grads_of(N, D, h, F, seed)
    np.testing.assert_allclose(g["v"].sum(-1), 0, atol=1e-10)
    np.testing.assert_allclose(g["u"].sum(-1), 0, atol=1e-10)
    np.testing.assert_allclose(g["S"].sum(-1), 0, atol=1e-12)
    np.testing.assert_allclose(g["b_k"], 0, atol=1e-12)
    np.testing.assert_allclose(g["beta2"], dy.sum(0), atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(sizes)
def test_gradient_of_a_sum_of_ln_outputs_is_zero_through_the_norm(size):
    """L = Σ y with γ₂ = 1, β₂ = 0: each token's outputs sum to 0 for every input, so
    every gradient below LN₂ vanishes and only β₂ gets N per entry."""
    N, (D, h), F, seed = size
    x, p, _ = bp.example(N, D, h, F, seed)
    p["gamma2"] = np.ones(D)
    _, cache = bp.block_forward(x, p)
    g = bp.block_backward(np.ones((N, D)), cache)
    np.testing.assert_allclose(g["x"], 0, atol=1e-10)
    np.testing.assert_allclose(g["W_1"], 0, atol=1e-10)
    np.testing.assert_allclose(g["beta2"], N, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=8), st.integers(0, 1000))
def test_softmax_jacobian_properties(s, seed):
    a = bp.masked_softmax(np.array(s))
    J = bp.softmax_jacobian(a)
    np.testing.assert_allclose(J, J.T, atol=1e-15)
    np.testing.assert_allclose(J.sum(1), 0, atol=1e-15)
    g = np.random.default_rng(seed).standard_normal(len(s))
    np.testing.assert_allclose(J @ g, bp.softmax_backward(a, g), atol=1e-14)
    assert np.all(np.linalg.eigvalsh(J) > -1e-12)  # positive semi-definite


def test_batched_forward_and_backward_equal_one_sequence_at_a_time():
    rng = np.random.default_rng(0)
    p = bp.init_params(8, 2, 16, rng)
    x, dy = rng.standard_normal((3, 4, 8)), rng.standard_normal((3, 4, 8))
    y, cache = bp.block_forward(x, p)
    g = bp.block_backward(dy, cache)
    singles = [bp.block_backward(dy[b], bp.block_forward(x[b], p)[1]) for b in range(3)]
    for b in range(3):
        np.testing.assert_allclose(y[b], bp.block_forward(x[b], p)[0], atol=1e-14)
        np.testing.assert_allclose(g["x"][b], singles[b]["x"], atol=1e-12)
    for name in bp.PARAM_NAMES:
        np.testing.assert_allclose(g[name], sum(s[name] for s in singles), atol=1e-12)


def test_tiny_task_lists_every_sequence_and_reverses_it():
    task = bp.tiny_task("reverse", 3, 2)
    assert task.tokens.shape == (8, 3) and len({tuple(r) for r in task.tokens}) == 8
    np.testing.assert_array_equal(task.targets, task.tokens[:, ::-1])
    np.testing.assert_array_equal(bp.tiny_task("copy", 3, 2).targets, task.tokens)


# ---- bad input -------------------------------------------------------------------------------


def test_bad_arguments_raise_core_errors():
    p = bp.init_params(8, 2, 16, np.random.default_rng(0))
    with pytest.raises(CoreError, match="channels"):
        bp.block_forward(np.zeros((3, 6)), p)
    with pytest.raises(CoreError, match="finite"):
        bp.block_forward(np.full((3, 8), np.nan), p)
    with pytest.raises(ValueError, match="divisible"):
        bp.init_params(8, 3, 16, np.random.default_rng(0))
    _, cache = bp.block_forward(np.zeros((3, 8)), p)
    with pytest.raises(CoreError, match="shape of y"):
        bp.block_backward(np.zeros((2, 8)), cache)
    with pytest.raises(CoreError, match="lack"):
        bp.block_forward(np.zeros((3, 8)), {"n_heads": 2})
    with pytest.raises(CoreError):
        bp.tiny_task("sort", 3, 2)
    task = bp.tiny_task("reverse", 3, 2)
    with pytest.raises(CoreError, match="blew up"):
        bp.train(task, bp.init_model(task, 8, 2, 16, 0), 50, 1e4)
