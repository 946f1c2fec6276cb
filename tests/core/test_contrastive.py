"""core.contrastive and core.simclr: property tests (Hypothesis) and oracles — a torch NT-Xent
written here (F.cross_entropy over the masked similarity logits), torch autograd for the
gradient, closed forms for the bounds, and torchvision-style definitions of the augmentations."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import contrastive as ct
from core import simclr as sc
from core.errors import CoreError

taus = st.floats(ct.TAU_MIN, 20.0)


@st.composite
def embeddings(draw, max_n: int = 6, max_d: int = 6):
    """(2N, d) embeddings with rows of length ≥ 0.1 (cosine defined)."""
    n, d = draw(st.integers(1, max_n)), draw(st.integers(1, max_d))
    z = draw(arrays(np.float64, (2 * n, d), elements=st.floats(-3, 3)))
    z[np.linalg.norm(z, axis=1) < 0.1, 0] = 1.0
    return z


def torch_nt_xent(z: np.ndarray, tau: float) -> float:
    """The oracle: Eq. (1) with torch's own cross-entropy over the masked similarity logits."""
    t = F.normalize(torch.as_tensor(z, dtype=torch.float64), dim=1)
    two_n = t.shape[0]
    logits = (t @ t.T) / tau
    logits = logits.masked_fill(torch.eye(two_n, dtype=torch.bool), float("-inf"))
    target = (torch.arange(two_n) + two_n // 2) % two_n
    return float(F.cross_entropy(logits, target))


# ---- oracles -------------------------------------------------------------------------------


@given(embeddings(), taus)
def test_nt_xent_equals_torch_cross_entropy(z, tau):
    assert ct.nt_xent(z, tau) == pytest.approx(torch_nt_xent(z, tau), rel=1e-9, abs=1e-10)


def test_worked_example_two_orthogonal_images():
    """Both views equal, images orthogonal: p(positive) = e/(e + 2) at τ = 1."""
    z = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
    assert ct.nt_xent(z, 1.0) == pytest.approx(-math.log(math.e / (math.e + 2)), rel=1e-14)


@given(embeddings(max_n=4, max_d=5), taus)
@settings(max_examples=40)
def test_gradient_equals_autograd(z, tau):
    loss, grad = ct.nt_xent_gradient(z, tau)
    t = torch.tensor(z, dtype=torch.float64, requires_grad=True)
    u = F.normalize(t, dim=1)
    two_n = t.shape[0]
    logits = ((u @ u.T) / tau).masked_fill(torch.eye(two_n, dtype=torch.bool), float("-inf"))
    target = (torch.arange(two_n) + two_n // 2) % two_n
    ref = F.cross_entropy(logits, target)
    ref.backward()
    assert loss == pytest.approx(float(ref.detach()), rel=1e-9, abs=1e-10)
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_training_backward_equals_autograd_through_the_networks():
    """z.backward(∂L/∂z) gives every weight the gradient autograd gives for the loss."""
    rng = np.random.default_rng(0)
    views = rng.random((6, 16, 16, 3))
    grads = []
    for by_hand in (True, False):
        net = sc.SimCLRNet(4, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
        z = net(views)
        if by_hand:
            _, g = ct.nt_xent_gradient(z.detach().numpy(), 0.3)
            z.backward(torch.from_numpy(g))
        else:
            u = F.normalize(z, dim=1)
            logits = ((u @ u.T) / 0.3).masked_fill(torch.eye(6, dtype=torch.bool), -math.inf)
            F.cross_entropy(logits, (torch.arange(6) + 3) % 6).backward()
        grads.append([p.grad.clone() for p in net.parameters()])
    for a, b in zip(*grads, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("n", [2, 3, 5, 8])
@pytest.mark.parametrize("tau", [0.05, 0.2, 1.0, 5.0])
def test_simplex_reaches_the_closed_form_minimum(n, tau):
    z = ct.simplex_embeddings(n)
    sim = ct.cosine_similarity(z)
    off = ~np.eye(n, dtype=bool)
    assert np.allclose(sim[:n, :n][off], -1 / (n - 1))  # regular simplex
    assert ct.nt_xent(z, tau) == pytest.approx(ct.loss_lower_bound(n, tau), rel=1e-12)


@given(embeddings(max_n=5), taus)
def test_no_embedding_beats_the_closed_form_minimum(z, tau):
    n = z.shape[0] // 2
    assert ct.nt_xent(z, tau) >= ct.loss_lower_bound(n, tau) - 1e-12


@given(st.integers(1, 8), taus, st.integers(1, 4))
def test_collapse_gives_exactly_ln_2n_minus_1(n, tau, d):
    """All 2N views map to one point: every logit is equal, p(positive) = 1/(2N − 1)."""
    z = np.ones((2 * n, d))
    assert ct.nt_xent(z, tau) == pytest.approx(math.log(2 * n - 1), abs=1e-12)
    assert ct.chance_level(n) == pytest.approx(math.log(2 * n - 1))


# ---- properties ----------------------------------------------------------------------------


@given(embeddings(), taus)
def test_loss_is_non_negative_and_probabilities_are_a_softmax(z, tau):
    r = ct.explain_nt_xent(z, tau)
    assert r.loss >= 0 and np.all(r.per_anchor >= 0)
    np.testing.assert_allclose(r.probs.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(np.diag(r.probs) == 0)
    assert r.loss == pytest.approx(r.per_anchor.mean())


@given(embeddings(), taus, st.randoms(use_true_random=False))
def test_invariant_to_the_order_of_the_pairs_and_of_the_two_views(z, tau, rnd):
    N = z.shape[0] // 2
    order = list(range(N))
    rnd.shuffle(order)
    perm = np.array(order + [i + N for i in order])  # pairs reordered, layout kept
    swap = np.r_[np.arange(N, 2 * N), np.arange(N)]  # view 1 ↔ view 2
    L = ct.nt_xent(z, tau)
    assert ct.nt_xent(z[perm], tau) == pytest.approx(L, rel=1e-10)
    assert ct.nt_xent(z[swap], tau) == pytest.approx(L, rel=1e-10)


@given(embeddings(), taus, st.floats(0.01, 100))
def test_scale_invariance_of_cosine(z, tau, scale):
    assert ct.nt_xent(scale * z, tau) == pytest.approx(ct.nt_xent(z, tau), rel=1e-9)


@given(embeddings(max_n=5))
def test_large_temperature_tends_to_chance(z):
    n = z.shape[0] // 2
    # |ℓᵢ − ln(2N − 1)| ≤ 2/τ: every logit lies in [−1/τ, 1/τ]
    assert abs(ct.nt_xent(z, 1e4) - ct.chance_level(n)) <= 2e-4


def test_small_temperature_limit():
    """τ → 0: the loss → 0 when each positive is its anchor's nearest view, and grows like
    (s_max − s_pos)/τ when it is not."""
    z = np.array([[1.0, 0.0], [0.0, 1.0], [0.9, 0.1], [0.2, 0.8]])
    assert ct.nt_xent(z, 0.01) < 1e-10
    bad = z[[0, 1, 3, 2]]  # pairs (0, 3) and (1, 2): the positives are the far views
    assert ct.nt_xent(bad, 0.01) > 50 and ct.nt_xent(bad, 0.02) < ct.nt_xent(bad, 0.01)


def test_bounds_closed_forms():
    assert ct.loss_lower_bound(1, 0.5) == 0.0
    # N = 2: ln(1 + 2 e^{−2/τ})
    assert ct.loss_lower_bound(2, 0.5) == pytest.approx(math.log(1 + 2 * math.exp(-4)))
    for n in (2, 4, 8):  # the bound rises with τ towards ln(2N − 1)
        b = [ct.loss_lower_bound(n, t) for t in (0.05, 0.5, 5, 500)]
        assert b == sorted(b) and b[-1] < ct.chance_level(n)


def test_bad_arguments_raise_core_errors():
    with pytest.raises(CoreError, match="even number"):
        ct.nt_xent(np.ones((3, 2)), 1.0)
    with pytest.raises(CoreError, match="length 0"):
        ct.nt_xent([[0.0, 0.0], [1.0, 0.0]], 1.0)
    with pytest.raises(CoreError) as err:
        ct.nt_xent(np.eye(2), 0.001)
    assert err.value.code == "contrastive_temperature"
    with pytest.raises(CoreError):
        ct.nt_xent(np.eye(2), float("nan"))
    with pytest.raises(CoreError):
        ct.nt_xent([[1.0, float("inf")], [1.0, 0.0]], 1.0)
    with pytest.raises(CoreError, match="fraction"):
        ct.draw_augmentation(8, 8, np.random.default_rng(0), 0.5, 1.5)
    with pytest.raises(CoreError):
        ct.synthetic_image("cat", 16)


# ---- augmentations -------------------------------------------------------------------------


@given(
    st.integers(4, 40),
    st.integers(4, 40),
    st.floats(0.05, 1.0),
    st.floats(0, 2),
    st.integers(0, 2**32 - 1),
)
def test_augmented_views_stay_images_and_crops_stay_inside(H, W, area, strength, seed):
    rng = np.random.default_rng(seed)
    image = rng.random((H, W, 3))
    aug = ct.draw_augmentation(H, W, rng, strength, area)
    assert ct.crop_inside(aug, H, W)
    top, left, h, w = aug.box
    assert h * w <= H * W * (1 + 1e-9)
    view = ct.apply_augmentation(image, aug, 8)
    assert view.shape == (8, 8, 3) and view.min() >= 0 and view.max() <= 1


def test_the_same_seed_draws_the_same_views():
    images = np.stack([ct.synthetic_image(n, 24) for n in ct.SYNTHETIC])
    a = ct.two_views(images, np.random.default_rng(5), 12)
    b = ct.two_views(images, np.random.default_rng(5), 12)
    assert np.array_equal(a.images, b.images) and a.augmentations == b.augmentations
    assert a.images.shape == (8, 12, 12, 3)


def test_resized_crop_of_the_whole_image_at_its_size_is_the_identity():
    square = np.random.default_rng(2).random((10, 10, 3))
    assert np.allclose(ct.resized_crop(square, (0, 0, 10, 10), 10), square)


def test_resized_crop_matches_torch_bilinear_interpolation():
    """Oracle: F.interpolate(bilinear, align_corners=False) of the cropped region."""
    image = np.random.default_rng(3).random((16, 16, 3))
    out = ct.resized_crop(image, (4, 2, 8, 8), 4)  # an 8×8 region halved
    x = torch.from_numpy(image[4:12, 2:10]).permute(2, 0, 1)[None]
    ref = F.interpolate(x, size=(4, 4), mode="bilinear", align_corners=False)[0].permute(1, 2, 0)
    np.testing.assert_allclose(out, ref.numpy(), atol=1e-12)


def test_colour_jitter_identities():
    image = np.random.default_rng(4).random((6, 6, 3))
    assert np.allclose(ct.colour_jitter(image, 1, 1, 1, 0), image)
    assert np.allclose(ct.colour_jitter(image, 1, 1, 1, 1.0), image)  # a full hue turn
    greyed = ct.colour_jitter(image, 1, 1, 0, 0)  # saturation 0: R = G = B = luma
    assert np.allclose(greyed, np.repeat(ct.grey(image), 3, axis=2))
    flat = ct.colour_jitter(image, 1, 0, 1, 0)  # contrast 0: the mean grey everywhere
    assert np.allclose(flat, ct.grey(image).mean())


@given(st.floats(-1, 1))
def test_hue_rotation_keeps_greys_and_the_channel_mean(turn):
    image = np.random.default_rng(6).random((4, 4, 3))
    out = ct.rotate_hue(image, turn)
    assert np.allclose(out.mean(axis=2), image.mean(axis=2))
    grey = np.full((2, 2, 3), 0.4)
    assert np.allclose(ct.rotate_hue(grey, turn), grey)


def test_synthetic_images_are_distinct_pictures():
    pics = [ct.synthetic_image(n, 32) for n in ct.SYNTHETIC]
    for p in pics:
        assert p.shape == (32, 32, 3) and p.min() >= 0 and p.max() <= 1
    flat = np.stack([p.ravel() for p in pics])
    assert len({tuple(np.round(r, 6)) for r in flat}) == len(pics)


def test_mean_similarities():
    sim = ct.cosine_similarity(ct.simplex_embeddings(3))
    pos, neg = ct.mean_similarities(sim)
    assert pos == pytest.approx(1.0) and neg == pytest.approx(-0.5)


# ---- the networks and a few training steps -------------------------------------------------


def test_encoder_and_head_shapes_and_seeding():
    images = np.random.default_rng(0).random((4, 32, 32, 3))
    net = sc.SimCLRNet(8, 16, generator=torch.Generator().manual_seed(1))
    r = net.explain(images)
    assert tuple(r.h.shape) == (4, 16) and tuple(r.z.shape) == (4, 16)
    same = sc.SimCLRNet(8, 16, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(same(images), net(images))
    conv = net.encoder.convs[0]
    assert conv.stride == (2, 2) and conv.weight.abs().max() <= 1 / math.sqrt(27)


def test_a_few_steps_pull_the_pairs_together():
    torch.set_num_threads(1)
    images = np.stack([ct.synthetic_image(n, 32) for n in ct.SYNTHETIC])
    fixed = ct.two_views(images, np.random.default_rng([0, 2]), 16).images
    run = sc.train_steps(images, fixed, 0.2, 30, 0, side=16)
    seen = []
    run2 = sc.train_steps(
        images,
        fixed,
        0.2,
        30,
        0,
        side=16,
        on_progress=lambda k, losses: seen.append((k, len(losses))),
    )
    np.testing.assert_array_equal(run.fixed_losses, run2.fixed_losses)  # seeded
    assert seen[-1] == (30, 31) and [k for k, _ in seen] == [5, 10, 15, 20, 25, 30]
    assert run.fixed_losses.shape == (31,) and run.similarities.shape == (31, 8, 8)
    assert run.fixed_losses[-1] < 0.6 * run.fixed_losses[0]
    pos0, neg0 = ct.mean_similarities(run.similarities[0])
    pos1, neg1 = ct.mean_similarities(run.similarities[-1])
    assert pos1 - neg1 > pos0 - neg0
    assert np.all(run.fixed_losses >= ct.loss_lower_bound(4, 0.2) - 1e-9)
