"""backprop_by_hand: the statements of the explanation that are not a single number, each
recomputed — the sizes in single digits, the error levels, and every point where the page
says the course's hand derivation goes wrong (checked against torch autograd)."""

from __future__ import annotations

import numpy as np
import torch

from core import backprop as bp
from tests.content.claims import content_text
from ui import cache_backprop as cb

EN, JA = content_text("backprop_by_hand", "en"), content_text("backprop_by_hand", "ja")


def test_the_block_sizes_in_the_text_are_the_pages():
    assert (cb.D_MODEL, cb.HEADS, cb.D_MODEL // cb.HEADS) == (8, 2, 4)
    assert "D = 8" in EN and "h = 2" in EN and "d_k = 4" in EN
    assert "D = 8" in JA and "h = 2" in JA and "d_k = 4" in JA
    assert (cb.TASK_LENGTH, cb.TASK_VOCAB) == (5, 3) and "5 symbols from 3" in EN


def test_error_levels_autograd_near_1e_15_and_finite_differences_near_1e_8():
    """'about 10⁻¹⁵ for autograd; finite differences with step 10⁻⁵ agree to about 10⁻⁸'."""
    from core import backprop_torch as bt

    x, p, t = bp.example(5, cb.D_MODEL, cb.HEADS, cb.D_FF, 0)
    y, cache = bp.block_forward(x, p)
    _, dy = bp.squared_error_loss(y, t)
    g = bp.all_gradients(dy, cache)
    _, auto = bt.autograd_gradients(x, p, dy)
    worst_abs = max(float(np.abs(g[k] - auto[k]).max()) for k in auto)
    assert worst_abs < 1e-13
    fd = bp.finite_difference_gradient(x, p, t, "W_1", step=1e-5)
    assert 1e-11 < float(np.abs(fd - g["W_1"]).max()) < 1e-6
    assert "10⁻¹⁵" in EN and "10⁻⁵" in EN and "10⁻⁸" in EN


def test_b_k_gradient_is_exactly_zero_for_every_seed():
    for seed in range(10):
        x, p, t = bp.example(6, 8, 2, 16, seed)
        y, cache = bp.block_forward(x, p)
        g = bp.block_backward(bp.squared_error_loss(y, t)[1], cache)
        assert float(np.abs(g["b_k"]).max()) < 1e-14


def _attention_case(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = torch.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    G = torch.tensor(rng.standard_normal((5, 5)))
    return X, G


def test_course_rule_d_xxt_equals_2x_is_wrong_and_g_plus_gt_is_right():
    X, G = _attention_case()
    (X @ X.T).backward(G)
    right = (G + G.T) @ X.detach()
    course = 2 * G @ X.detach()
    assert torch.allclose(X.grad, right, atol=1e-12)
    assert not torch.allclose(X.grad, course, atol=1e-2)


def test_course_weighted_sum_backward_needs_a_transpose():
    rng = np.random.default_rng(1)
    A = torch.softmax(torch.tensor(rng.standard_normal((5, 5))), -1)
    h = torch.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    dm = torch.tensor(rng.standard_normal((5, 3)))
    (A @ h).backward(dm)
    assert torch.allclose(h.grad, A.T @ dm, atol=1e-12)
    assert not torch.allclose(h.grad, A @ dm, atol=1e-2)


def test_course_softmax_backward_is_the_diagonal_only():
    s = torch.tensor([0.2, 1.0, -0.5, 0.7], dtype=torch.float64, requires_grad=True)
    g = torch.tensor([1.0, -2.0, 0.5, 0.3], dtype=torch.float64)
    a = torch.softmax(s, 0)
    a.backward(g)
    an = a.detach().numpy()
    np.testing.assert_allclose(bp.softmax_backward(an, g.numpy()), s.grad.numpy(), atol=1e-14)
    course = bp.diagonal_only_softmax_backward(an, g.numpy())
    np.testing.assert_allclose(course, np.diag(bp.softmax_jacobian(an)) * g.numpy(), atol=1e-15)
    assert np.abs(course - s.grad.numpy()).max() > 0.1


def test_a_layernorm_gradient_sums_to_zero_per_token():
    rng = np.random.default_rng(2)
    u, g = rng.standard_normal((4, 8)), rng.standard_normal((4, 8))
    _, xhat, inv = bp.layer_norm_forward(u, np.ones(8) * 1.3, np.zeros(8))
    du, _, _ = bp.layer_norm_backward(g, xhat, inv, np.ones(8) * 1.3)
    np.testing.assert_allclose(du.sum(-1), 0, atol=1e-12)


def test_reverse_training_learns_the_anti_diagonal_and_numpy_equals_torch():
    """'query i turns to key N − 1 − i' for one head, and 'the same to rounding'."""
    from core import backprop_torch as bt

    task = bp.tiny_task("reverse", cb.TASK_LENGTH, cb.TASK_VOCAB)
    model = bp.init_model(task, cb.D_MODEL, cb.HEADS, cb.D_FF, 0)
    shown = int(np.flatnonzero((task.tokens == cb.SHOWN).all(1))[0])
    mine = bp.train(task, model, cb.TRAIN_STEPS, 0.3, shown)
    theirs = bt.train(task, model, cb.TRAIN_STEPS, 0.3, shown)
    assert float(np.abs(mine.losses - theirs.losses).max()) < 1e-9
    assert mine.losses[-1] < 0.01 * mine.losses[0] and mine.accuracies[-1] == 1.0
    N = cb.TASK_LENGTH
    looks_at = [mine.attention[-1, k].argmax(-1).tolist() for k in range(cb.HEADS)]
    assert list(range(N))[::-1] in looks_at  # one head: query i looks most at key N − 1 − i
    assert "mostly at key N − 1 − i" in EN and "N − 1 − i" in JA
