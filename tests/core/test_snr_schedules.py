"""core.snr_schedules: properties (Hypothesis) and oracles — diffusers' rescale_zero_terminal_snr,
its "scaled_linear" (Stable Diffusion) schedule, the time shift of its flow-matching scheduler,
torch's average pooling, numpy's correlation, and Lin et al.'s published terminal SNR."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from diffusers import DDPMScheduler, FlowMatchEulerDiscreteScheduler
from diffusers.schedulers.scheduling_ddim import rescale_zero_terminal_snr as diffusers_rescale
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import diffusion as dif
from core import snr_schedules as snr
from core.errors import CoreError

kinds = st.sampled_from(dif.SCHEDULE_KINDS)


@given(kinds, st.integers(2, 2000))
def test_betas_and_alpha_bars_rebuild_the_same_schedule(kind, T):
    s = dif.make_schedule(kind, T)
    for rebuilt in (snr.schedule_from_betas(s.betas), snr.schedule_from_alpha_bars(s.alpha_bars)):
        assert rebuilt.num_steps == T
        assert np.allclose(rebuilt.alpha_bars, s.alpha_bars, rtol=1e-12, atol=1e-300)
        assert np.allclose(rebuilt.betas, s.betas, rtol=1e-9, atol=1e-12)
        assert not rebuilt.betas.flags.writeable


@given(kinds, st.integers(2, 2000))
def test_zero_terminal_snr_matches_diffusers_and_keeps_the_first_step(kind, T):
    s = dif.make_schedule(kind, T)
    z = snr.rescale_zero_terminal_snr(s)
    theirs = diffusers_rescale(torch.tensor(s.betas, dtype=torch.float64)).numpy()
    assert np.allclose(z.betas, theirs, rtol=1e-9, atol=1e-12)
    assert z.alpha_bars[-1] == 0 and z.betas[-1] == 1.0
    assert math.isclose(z.alpha_bars[0], s.alpha_bars[0], rel_tol=1e-12)
    assert np.all(np.diff(z.alpha_bars) < 0)
    assert snr.log_snr(z)[-1] == -np.inf


def test_stable_diffusions_schedule_and_its_published_terminal_snr():
    """Lin et al. 2024, Sec. 3.1: Stable Diffusion's √ᾱ_T = 0.068265, SNR_T = 0.004682."""
    s = snr.stable_diffusion_schedule()
    theirs = DDPMScheduler(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012)
    assert np.allclose(s.alpha_bars, theirs.alphas_cumprod.numpy(), rtol=1e-5)
    assert f"{math.sqrt(s.alpha_bars[-1]):.6f}" == "0.068265"
    assert f"{math.exp(snr.log_snr(s)[-1]):.6f}" == "0.004682"


@given(kinds, st.integers(2, 1000), st.floats(0.25, 8.0))
def test_a_shift_moves_log_snr_by_minus_two_log_s_at_every_step(kind, T, scale):
    s = dif.make_schedule(kind, T)
    shifted = snr.shift_schedule(s, scale)
    assert np.allclose(snr.log_snr(shifted) - snr.log_snr(s), -2 * math.log(scale), atol=1e-8)
    assert np.allclose(snr.shift_schedule(s, 1.0).alpha_bars, s.alpha_bars, rtol=1e-12)


@pytest.mark.parametrize("shift", [2.0, 3.0])
def test_a_shift_is_the_time_shift_of_diffusers_flow_matching(shift):
    """SD3 shifts rectified-flow times σ → sσ/(1 + (s−1)σ); with x_t = (1−σ) x_0 + σ ε,
    SNR = ((1−σ)/σ)². A VP schedule with the same SNRs, shifted by s, has the shifted SNRs."""

    def vp_alpha_bars(sigmas: np.ndarray) -> np.ndarray:
        ratio = ((1 - sigmas) / sigmas) ** 2  # SNR
        return (ratio / (1 + ratio))[::-1]  # ᾱ = SNR/(1 + SNR), from small σ (t = 1) up

    plain = FlowMatchEulerDiscreteScheduler(num_train_timesteps=1000, shift=1.0)
    moved = FlowMatchEulerDiscreteScheduler(num_train_timesteps=1000, shift=shift)
    sig, sig_shift = (f.sigmas.double().numpy()[:-1][1:] for f in (plain, moved))  # σ < 1, > 0
    ours = snr.shift_schedule(snr.schedule_from_alpha_bars(vp_alpha_bars(sig)), shift)
    assert np.allclose(ours.alpha_bars, vp_alpha_bars(sig_shift), rtol=1e-5, atol=1e-9)


@given(arrays(np.float64, (12, 18, 3), elements=st.floats(-1, 1)), st.sampled_from([1, 2, 3, 6]))
def test_block_means_are_average_pooling(image, b):
    pooled = torch.nn.functional.avg_pool2d(torch.tensor(image).permute(2, 0, 1)[None], b)
    assert np.allclose(snr.block_means(image, b), pooled[0].permute(1, 2, 0).numpy())


@given(
    arrays(np.float64, (30,), elements=st.floats(-5, 5)),
    arrays(np.float64, (30,), elements=st.floats(-5, 5)),
)
def test_correlation_is_numpys(a, b):
    if np.ptp(a) < 1e-6 or np.ptp(b) < 1e-6:
        return
    assert math.isclose(snr.correlation(a, b), np.corrcoef(a, b)[0, 1], abs_tol=1e-9)


@pytest.mark.parametrize(("alpha_bar", "block"), [(0.0047, 1), (0.0047, 8), (4e-5, 16), (0.0, 8)])
def test_expected_block_correlation_matches_simulation(alpha_bar, block):
    """A smooth image (constant over blocks) plus noise: measured corr ≈ the formula."""
    rng = np.random.default_rng(0)
    coarse = rng.uniform(-1, 1, (24, 24, 3))
    image = np.kron(coarse, np.ones((block, block, 1)))  # constant on b × b blocks
    noise = rng.standard_normal(image.shape)
    x_T = math.sqrt(alpha_bar) * image + math.sqrt(1 - alpha_bar) * noise
    measured = snr.correlation(snr.block_means(image, block), snr.block_means(x_T, block))
    expected = snr.expected_block_correlation(alpha_bar, coarse.var(), block)
    se = (1 - expected**2) / math.sqrt(coarse.size)  # standard error of a correlation
    assert abs(measured - expected) < 4 * se + 1e-12


def test_bad_schedules_are_refused():
    with pytest.raises(CoreError) as err:
        snr.schedule_from_alpha_bars([0.9, 0.95])
    assert err.value.code == "snr_alpha_bars"
    with pytest.raises(CoreError) as err:
        snr.schedule_from_betas([0.1, 0.0])
    assert err.value.code == "snr_betas"
    with pytest.raises(CoreError):
        snr.shift_schedule(dif.make_schedule("linear", 10), 0.0)


# ---- named schedules: diffusers' DDPMScheduler at T = 1000 --------------------------------
DIFFUSERS_NAMES = {
    "linear": {"beta_schedule": "linear"},
    "cosine": {"beta_schedule": "squaredcos_cap_v2"},
    "quadratic": {"beta_schedule": "scaled_linear"},  # √β evenly spaced, DDPM's endpoints
    "sigmoid": {"beta_schedule": "sigmoid"},
    "stable_diffusion": {
        "beta_schedule": "scaled_linear",
        "beta_start": 0.00085,
        "beta_end": 0.012,
    },
}


@pytest.mark.parametrize("name", snr.SCHEDULE_NAMES)
@pytest.mark.parametrize("zero", [False, True])
def test_named_schedules_are_diffusers_ddpm_schedules(name, zero):
    ours = snr.named_schedule(name, 1000, zero)
    theirs = DDPMScheduler(
        num_train_timesteps=1000, rescale_betas_zero_snr=zero, **DIFFUSERS_NAMES[name]
    )
    # diffusers computes in float32: compare at float32 precision
    assert np.allclose(
        ours.alpha_bars, theirs.alphas_cumprod.double().numpy(), rtol=2e-5, atol=1e-7
    )
    assert bool(ours.alpha_bars[-1] == 0) is zero


def test_unknown_schedule_names_are_refused():
    with pytest.raises(CoreError) as err:
        snr.named_schedule("exponential")
    assert err.value.code == "out_of_range" or "schedule" in str(err.value)


# ---- the four targets --------------------------------------------------------------------
values = arrays(np.float64, (6,), elements=st.floats(-3, 3))
alpha_bars = st.floats(0.0, 0.9999)


@given(values, values, alpha_bars)
def test_targets_are_a_rotation_and_convert_into_each_other(x0, eps, a):
    truth = snr.targets(x0, eps, a)
    # a rotation keeps lengths: ‖x_t‖² + ‖v‖² = ‖x_0‖² + ‖ε‖²
    assert math.isclose(
        np.sum(truth.x_t**2) + np.sum(truth.v**2),
        np.sum(x0**2) + np.sum(eps**2),
        rel_tol=1e-9,
        abs_tol=1e-9,
    )
    assert np.allclose(truth.score, -eps / math.sqrt(1 - a))
    schedule = snr.schedule_from_alpha_bars([a]) if a > 0 else None
    if schedule is not None:
        worst, undefined = snr.conversion_errors(truth, 1, schedule)
        assert undefined == 0 and worst < 1e-6 * (1 + 1 / math.sqrt(a))


def test_targets_match_diffusers_add_noise_and_get_velocity():
    scheduler = DDPMScheduler(num_train_timesteps=1000, beta_schedule="squaredcos_cap_v2")
    rng = np.random.default_rng(1)
    x0, eps = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    for k in (0, 99, 500, 999):  # diffusers' timestep k is our t = k + 1
        a = float(scheduler.alphas_cumprod[k])
        truth = snr.targets(x0, eps, a)
        steps = torch.tensor([k] * 3)
        xt = scheduler.add_noise(torch.tensor(x0), torch.tensor(eps), steps).numpy()
        v = scheduler.get_velocity(torch.tensor(x0), torch.tensor(eps), steps).numpy()
        assert np.allclose(truth.x_t, xt, atol=1e-6) and np.allclose(truth.v, v, atol=1e-6)


def test_at_zero_terminal_snr_four_conversions_are_undefined_and_v_still_gives_x0():
    s = snr.named_schedule("linear", 100, zero_snr=True)
    truth = snr.targets(np.array([0.7, -0.2]), np.array([0.1, 1.3]), 0.0)
    worst, undefined = snr.conversion_errors(truth, 100, s)
    assert undefined == 4 and worst < 1e-12
    assert np.allclose(truth.x_t, truth.eps) and np.allclose(truth.v, -truth.x0)


@given(alpha_bars, st.integers(0, 2**31))
def test_target_weights_are_the_measured_loss_ratios(a, seed):
    """A wrong x̂_0 converted at the same x_t: each target's error is w times x_0's."""
    rng = np.random.default_rng(seed)
    x0, eps, err = rng.uniform(-1, 1, 16), rng.standard_normal(16), rng.standard_normal(16)
    truth = snr.targets(x0, eps, a)
    s = snr.schedule_from_alpha_bars([a]) if a > 0 else snr.schedule_from_alpha_bars([0.5, 0.0])
    t = 1 if a > 0 else 2
    losses = snr.target_losses(truth, x0 + 0.1 * err, t, s)
    w = snr.target_weights(a)
    snr_a = a / (1 - a)  # closed forms: ε SNR, x_0 1, v 1 + SNR, score SNR/(1 − ᾱ)
    for p, closed in (("eps", snr_a), ("x0", 1.0), ("v", 1 + snr_a), ("score", snr_a / (1 - a))):
        assert math.isclose(w[p], closed, rel_tol=1e-12)
        assert math.isclose(losses[p] / losses["x0"], closed, rel_tol=1e-7, abs_tol=1e-12)


@given(st.sampled_from(snr.SCHEDULE_NAMES), st.integers(2, 1000))
def test_target_weights_agree_with_core_reverse_over_a_whole_schedule(name, T):
    from core import reverse

    s = snr.named_schedule(name, T)
    for p in reverse.PREDICTIONS:
        ours = np.array([snr.target_weights(a)[p] for a in s.alpha_bars])
        assert np.allclose(ours, reverse.x0_loss_weights(s, p), rtol=1e-12)


def test_the_derivation_steps_of_the_weights():
    """The numbered steps of the explanation, each checked on numbers."""
    rng = np.random.default_rng(3)
    a = 0.37
    x0, x0_hat, eps = rng.standard_normal(5), rng.standard_normal(5), rng.standard_normal(5)
    x_t = math.sqrt(a) * x0 + math.sqrt(1 - a) * eps
    eps_hat = (x_t - math.sqrt(a) * x0_hat) / math.sqrt(1 - a)  # step 1
    assert np.allclose(eps - eps_hat, -math.sqrt(a) / math.sqrt(1 - a) * (x0 - x0_hat))  # 2
    assert math.isclose(np.sum((eps - eps_hat) ** 2), a / (1 - a) * np.sum((x0 - x0_hat) ** 2))
    v, v_hat = (math.sqrt(a) * e - math.sqrt(1 - a) * x for e, x in ((eps, x0), (eps_hat, x0_hat)))
    assert np.allclose(v - v_hat, -(x0 - x0_hat) / math.sqrt(1 - a))  # step 4
    assert math.isclose(1 / (1 - a), 1 + a / (1 - a))


def test_loss_ratio_needs_an_error():
    with pytest.raises(CoreError) as err:
        snr.loss_ratio([1.0], [1.0], [0.5], [0.5])
    assert err.value.code == "snr_no_error"
    assert snr.loss_ratio([1.0, 2.0], [0.0, 2.0], [0.5, 0.0], [0.0, 0.0]) == 4.0
    with pytest.raises(CoreError) as err:
        snr.targets([1.0], [0.0], 1.0)
    assert err.value.code == "snr_alpha_bar_below_one"


# ---- what x_T keeps ------------------------------------------------------------------------
def test_leak_is_the_formula_and_the_measured_correlation():
    rng = np.random.default_rng(5)
    image = np.kron(rng.uniform(-1, 1, (8, 8, 3)), np.ones((4, 4, 1)))  # (32, 32, 3)
    noise = rng.standard_normal(image.shape)
    found = snr.leak(image, 0.01, [1, 2, 4], noise)
    assert np.allclose(found.x_T, 0.1 * image + math.sqrt(0.99) * noise)
    for k, b in enumerate([1, 2, 4]):
        m0 = snr.block_means(image, b)
        assert math.isclose(found.expected[k], snr.expected_block_correlation(0.01, m0.var(), b))
        assert math.isclose(
            found.measured[k], np.corrcoef(m0.ravel(), snr.block_means(found.x_T, b).ravel())[0, 1]
        )
    assert np.all(snr.leak(image, 0.0, [1, 2, 4], noise).expected == 0)


def test_leak_averaged_over_noise_draws_is_the_formula():
    """Monte Carlo: the mean measured correlation over 200 noises ≈ the formula."""
    rng = np.random.default_rng(11)
    image = np.kron(rng.uniform(-1, 1, (16, 16, 3)), np.ones((4, 4, 1)))
    runs = [snr.leak(image, 0.005, [4], rng.standard_normal(image.shape)) for _ in range(200)]
    measured = np.mean([r.measured[0] for r in runs])
    assert abs(measured - runs[0].expected[0]) < 0.02


@given(arrays(np.float64, (12, 12, 3), elements=st.floats(-1, 1)), st.sampled_from([1, 2, 3, 4]))
def test_blocky_is_average_pooling_then_nearest_upsampling(image, b):
    x = torch.tensor(image).permute(2, 0, 1)[None]
    up = torch.nn.functional.interpolate(
        torch.nn.functional.avg_pool2d(x, b), scale_factor=b, mode="nearest"
    )
    assert np.allclose(snr.blocky(image, b), up[0].permute(1, 2, 0).numpy())


@given(
    arrays(np.float64, (40,), elements=st.floats(-5, 5)),
    arrays(np.float64, (40,), elements=st.floats(-5, 5)),
)
def test_contrast_match_copies_mean_and_spread(x, ref):
    out = snr.contrast_match(x, ref)
    assert math.isclose(out.mean(), ref.mean(), abs_tol=1e-9)
    if x.std() > 1e-6:
        assert math.isclose(out.std(), ref.std(), rel_tol=1e-6, abs_tol=1e-9)
        if ref.std() > 1e-6:
            assert snr.correlation(out, x) > 0.999999
    if np.ptp(x) == 0:
        assert np.allclose(out, ref.mean())
