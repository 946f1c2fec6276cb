"""core.diffusion: property tests (Hypothesis) and oracles (diffusers' DDPMScheduler, torch's
Gaussian KL, Gaussian conditioning in closed form, the published numbers of DDPM and improved
DDPM)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from diffusers import DDPMScheduler
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import diffusion as dif

kinds = st.sampled_from(dif.SCHEDULE_KINDS)
finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)
variances = st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False)


@st.composite
def schedules_and_steps(draw, max_steps: int = 2000):
    """(schedule, t) with t in 1..T."""
    schedule = dif.make_schedule(draw(kinds), draw(st.integers(1, max_steps)))
    return schedule, draw(st.integers(1, schedule.num_steps))


def diffusers_scheduler(beta_schedule: str, T: int = 1000) -> DDPMScheduler:
    return DDPMScheduler(num_train_timesteps=T, beta_schedule=beta_schedule)


# ---- properties ----
@given(kinds, st.integers(1, 2000))
def test_alpha_bar_decreases_inside_zero_one(kind, T):
    s = dif.make_schedule(kind, T)
    assert s.kind == kind and s.num_steps == T
    for values in (s.betas, s.alphas, s.alpha_bars):
        assert values.shape == (T,) and values.dtype == np.float64
        assert not values.flags.writeable
    assert np.all((s.betas > 0) & (s.betas <= dif.MAX_BETA))
    assert np.allclose(s.alphas, 1 - s.betas, rtol=0, atol=0)
    assert np.all((s.alpha_bars > 0) & (s.alpha_bars <= 1))
    assert np.all(np.diff(s.alpha_bars) < 0)


@given(schedules_and_steps(), arrays(np.float64, st.integers(1, 6), elements=finite))
def test_fixed_noise_gives_the_same_sample_and_the_closed_form(case, x0):
    s, t = case
    noise = np.linspace(-1, 1, x0.size)
    first = dif.q_sample(x0, t, s, noise)
    assert np.array_equal(first, dif.q_sample(x0.copy(), t, s, noise.copy()))
    a = s.alpha_bars[t - 1]
    assert np.allclose(first, math.sqrt(a) * x0 + math.sqrt(1 - a) * noise)
    assert np.allclose(dif.q_sample(x0, t, s, np.zeros_like(x0)), math.sqrt(a) * x0)


@given(schedules_and_steps(max_steps=60), finite)
def test_the_chain_of_t_steps_has_the_mean_and_variance_of_one_jump(case, x0):
    """The chain is linear in x0 and the noises: run it with zero noise for the mean and with one
    unit noise at a time for each noise's coefficient; their squares add up to 1 - ᾱ_t."""
    s, t = case
    x = np.array(x0)
    for step in range(1, t + 1):
        x = dif.q_step(x, step, s, np.zeros(()))
    assert math.isclose(x, math.sqrt(s.alpha_bars[t - 1]) * x0, rel_tol=1e-9, abs_tol=1e-12)
    coefficients = []
    for k in range(1, t + 1):
        x = np.zeros(())
        for step in range(1, t + 1):
            x = dif.q_step(x, step, s, np.ones(()) if step == k else np.zeros(()))
        coefficients.append(float(x))
    assert math.isclose(sum(c * c for c in coefficients), 1 - s.alpha_bars[t - 1], rel_tol=1e-9)


@pytest.mark.parametrize(("kind", "T", "t"), [("linear", 1000, 50), ("cosine", 20, 7)])
def test_many_draws_follow_the_mean_and_variance_of_q(kind, T, t):
    s = dif.make_schedule(kind, T)
    rng = np.random.default_rng(0)
    n, x0 = 200_000, 0.8
    jumps = dif.q_sample(np.full(n, x0), t, s, rng.standard_normal(n))
    chain = np.full(n, x0)
    for step in range(1, t + 1):
        chain = dif.q_step(chain, step, s, rng.standard_normal(n))
    mean, var = math.sqrt(s.alpha_bars[t - 1]) * x0, 1 - s.alpha_bars[t - 1]
    se_mean, se_var = math.sqrt(var / n), var * math.sqrt(2 / n)
    for draws in (jumps, chain):
        assert abs(draws.mean() - mean) < 5 * se_mean
        assert abs(draws.var() - var) < 5 * se_var


@given(kinds, st.integers(1, 2000))
def test_posterior_identities(kind, T):
    s = dif.make_schedule(kind, T)
    coef_x0, coef_xt, variance = dif.posterior_coefficients(s)
    alpha_bar_prev = np.concatenate(([1.0], s.alpha_bars[:-1]))
    assert np.allclose(coef_x0 + coef_xt * np.sqrt(s.alpha_bars), np.sqrt(alpha_bar_prev))
    assert variance[0] == 0
    assert np.all(variance >= 0) and np.all(variance <= s.betas)


@given(schedules_and_steps(), finite, finite)
def test_posterior_is_gaussian_conditioning_of_the_joint(case, x0, x_t):
    """x_{t-1} ~ N(√ᾱ_{t-1} x0, 1-ᾱ_{t-1}), x_t = √α_t x_{t-1} + √β_t ε: condition on x_t."""
    s, t = case
    a_prev = 1.0 if t == 1 else s.alpha_bars[t - 2]
    a, alpha = s.alpha_bars[t - 1], s.alphas[t - 1]
    cov = math.sqrt(alpha) * (1 - a_prev)  # Cov(x_{t-1}, x_t)
    mean = math.sqrt(a_prev) * x0 + cov / (1 - a) * (x_t - math.sqrt(a) * x0)
    var = (1 - a_prev) - cov**2 / (1 - a)
    got_mean, got_var = dif.q_posterior(np.array([x_t]), np.array([x0]), t, s)
    assert got_mean.shape == got_var.shape == (1,)
    assert math.isclose(got_mean[0], mean, rel_tol=1e-7, abs_tol=1e-9)
    assert math.isclose(got_var[0], var, rel_tol=1e-6, abs_tol=1e-12)


@given(schedules_and_steps(max_steps=100), st.integers(1, 4), st.integers(0, 2**16))
def test_a_batch_of_steps_equals_one_call_per_row(case, B, seed):
    s, _ = case
    rng = np.random.default_rng(seed)
    t = rng.integers(1, s.num_steps + 1, size=B)
    x0, noise = rng.standard_normal((B, 3)), rng.standard_normal((B, 3))
    batch = dif.q_sample(x0, t, s, noise)
    mean, var = dif.q_posterior(batch, x0, t, s)
    for b in range(B):
        assert np.array_equal(batch[b], dif.q_sample(x0[b], int(t[b]), s, noise[b]))
        row_mean, row_var = dif.q_posterior(batch[b], x0[b], int(t[b]), s)
        assert np.allclose(mean[b], row_mean) and np.allclose(var[b], row_var)


@given(finite, variances, finite, variances)
def test_gaussian_kl_is_non_negative_and_zero_only_for_equal_gaussians(m_a, v_a, m_b, v_b):
    kl = float(dif.gaussian_kl(m_a, v_a, m_b, v_b))
    assert kl >= -1e-12
    assert float(dif.gaussian_kl(m_a, v_a, m_a, v_a)) == 0
    if abs(m_a - m_b) > 1e-3 or abs(math.log(v_a / v_b)) > 1e-3:
        assert kl > 0


@given(finite, variances, finite, variances)
def test_gaussian_kl_matches_torch(m_a, v_a, m_b, v_b):
    p = torch.distributions.Normal(torch.tensor(m_a, dtype=torch.float64), math.sqrt(v_a))
    q = torch.distributions.Normal(torch.tensor(m_b, dtype=torch.float64), math.sqrt(v_b))
    expected = float(torch.distributions.kl_divergence(p, q))
    assert math.isclose(
        float(dif.gaussian_kl(m_a, v_a, m_b, v_b)), expected, rel_tol=1e-9, abs_tol=1e-12
    )


@pytest.mark.parametrize(
    ("m_a", "v_a", "m_b", "v_b"), [(0.0, 1.0, 1.0, 2.0), (0.5, 0.3, -0.2, 0.8)]
)
def test_gaussian_kl_matches_a_monte_carlo_estimate(m_a, v_a, m_b, v_b):
    x = np.random.default_rng(1).normal(m_a, math.sqrt(v_a), 400_000)

    def log_density(x, m, v):
        return -0.5 * (np.log(2 * np.pi * v) + (x - m) ** 2 / v)

    log_ratio = log_density(x, m_a, v_a) - log_density(x, m_b, v_b)
    se = log_ratio.std() / math.sqrt(x.size)
    assert abs(log_ratio.mean() - float(dif.gaussian_kl(m_a, v_a, m_b, v_b))) < 5 * se


@given(kinds, st.integers(1, 2000))
def test_snr_is_alpha_bar_over_one_minus_alpha_bar_and_decreasing(kind, T):
    s = dif.make_schedule(kind, T)
    ratio = dif.snr(s)
    assert np.allclose(ratio * (1 - s.alpha_bars), s.alpha_bars)
    assert np.all(np.diff(ratio) < 0)


@given(kinds, st.integers(2, 2000))
def test_eps_loss_weights_follow_ddpm_eq_12(kind, T):
    s = dif.make_schedule(kind, T)
    with_beta = dif.eps_loss_weights(s)
    assert np.allclose(with_beta, s.betas / (2 * s.alphas * (1 - s.alpha_bars)))
    with_posterior = dif.eps_loss_weights(s, "posterior")
    assert with_posterior[0] == np.inf
    assert np.all(with_posterior[1:] >= with_beta[1:] * (1 - 1e-12))  # β̃_t ≤ β_t


@given(kinds, st.integers(2, 2000))
def test_posterior_weights_are_half_the_snr_ratio_minus_one(kind, T):
    """Kingma et al. 2021 (VDM): with σₜ² = β̃ₜ, λₜ = ½ (SNR(t-1)/SNR(t) − 1) for t ≥ 2."""
    s = dif.make_schedule(kind, T)
    ratio = dif.snr(s)[:-1] / dif.snr(s)[1:]
    assert np.allclose(dif.eps_loss_weights(s, "posterior")[1:], (ratio - 1) / 2, rtol=1e-6)


@given(schedules_and_steps(), finite, finite, finite)
def test_the_kl_term_is_a_weighted_squared_noise_error(case, x0, eps, eps_theta):
    """DDPM Eq. 8-12: KL(q(x_{t-1}|x_t,x0) ‖ N(μ_θ, β_t)) with μ_θ written through ε_θ equals
    λ_t (ε − ε_θ)² plus the KL at ε_θ = ε."""
    s, t = case
    if t == 1:
        return  # β̃₁ = 0: that term is the decoder L₀
    beta, alpha, a = s.betas[t - 1], s.alphas[t - 1], s.alpha_bars[t - 1]
    x_t = dif.q_sample(x0, t, s, eps)
    mean, var = dif.q_posterior(x_t, x0, t, s)
    assert math.isclose(
        mean, (x_t - beta / math.sqrt(1 - a) * eps) / math.sqrt(alpha), rel_tol=1e-7, abs_tol=1e-7
    )
    mu_theta = (x_t - beta / math.sqrt(1 - a) * eps_theta) / math.sqrt(alpha)
    gap = dif.gaussian_kl(mean, var, mu_theta, beta) - dif.gaussian_kl(mean, var, mean, beta)
    expected = dif.eps_loss_weights(s)[t - 1] * (eps - eps_theta) ** 2
    assert math.isclose(gap, expected, rel_tol=1e-6, abs_tol=1e-9)
    assert math.isclose(
        dif.eps_term_excess(x0, t, s, eps, eps_theta), expected, rel_tol=1e-6, abs_tol=1e-9
    )


@given(arrays(np.float64, st.integers(1, 20), elements=st.floats(-10, 10)))
def test_typed_data_values_read_back(values):
    text = ", ".join(repr(float(v)) for v in values)
    assert np.array_equal(dif.parse_data(text), values)


def test_a_tiny_kl_does_not_cancel_to_zero():
    assert math.isclose(float(dif.gaussian_kl(1e-9, 1.0, 0.0, 1.0)), 5e-19, rel_tol=1e-12)
    assert math.isclose(float(dif.gaussian_kl(0.0, 1.0 + 1e-6, 0.0, 1.0)), 0.25e-12, rel_tol=1e-5)
    s, x0 = dif.make_schedule("linear", 10), np.array([-1.0, 0.5, 1.0])
    a = s.alpha_bars[-1]  # ≈ 1e-17: 1 - ᾱ_T rounds to 1, the mean term must survive
    expected = 0.5 * a * np.mean(x0**2) / math.log(2)
    assert math.isclose(dif.prior_kl_bits_per_dim(s, x0), expected, rel_tol=1e-9)


# ---- oracles: published numbers ----
def test_linear_schedule_published_numbers():
    s = dif.make_schedule("linear", 1000)
    assert (s.betas[0], s.betas[-1]) == (1e-4, 0.02)
    assert f"{s.alpha_bars[-1]:.6e}" == "4.035830e-05"
    assert math.isclose(dif.snr(s)[0], 9999, rel_tol=1e-9)


def test_cosine_schedule_published_numbers():
    s = dif.make_schedule("cosine", 1000)
    assert f"{s.betas[0]:.6e}" == "4.128422e-05"
    assert np.flatnonzero(s.betas == dif.MAX_BETA).tolist() == [999]


@pytest.mark.parametrize("T", [10, 50, 250, 4000])
def test_other_lengths_scale_the_linear_endpoints_by_1000_over_t(T):
    s = dif.make_schedule("linear", T)
    expected = np.minimum(np.linspace(0.1 / T, 20 / T, T), dif.MAX_BETA)
    assert np.allclose(s.betas, expected, rtol=1e-12)
    assert s.alpha_bars[-1] < 1e-4  # x_T is close to pure noise whatever T


def test_prior_kl_is_about_1e_5_bits_per_dim_as_ddpm_reports():
    s = dif.make_schedule("linear", 1000)
    x0 = np.random.default_rng(2).uniform(-1, 1, 3 * 32 * 32)
    assert 0.5e-5 < dif.prior_kl_bits_per_dim(s, x0) < 2e-5
    assert dif.prior_kl_bits_per_dim(s, np.ones(4)) < 3e-5  # the worst case on [-1, 1]
    assert dif.prior_kl_bits_per_dim(s, np.zeros(4)) < 1e-8


# ---- oracles: diffusers (timestep k there is our t = k + 1) ----
@pytest.mark.parametrize(("kind", "name"), [("linear", "linear"), ("cosine", "squaredcos_cap_v2")])
def test_schedule_matches_diffusers(kind, name):
    ours, ref = dif.make_schedule(kind, 1000), diffusers_scheduler(name)
    # diffusers keeps float32 tensors, so compare at float32 precision
    assert np.allclose(ours.betas, ref.betas.double().numpy(), rtol=1e-6, atol=0)
    assert np.allclose(ours.alpha_bars, ref.alphas_cumprod.double().numpy(), rtol=5e-5, atol=1e-9)


@pytest.mark.parametrize("T", [10, 50])
def test_cosine_schedule_matches_diffusers_at_other_lengths(T):
    ours, ref = dif.make_schedule("cosine", T), diffusers_scheduler("squaredcos_cap_v2", T)
    assert np.allclose(ours.betas, ref.betas.double().numpy(), rtol=1e-6)


@pytest.mark.parametrize(("kind", "name"), [("linear", "linear"), ("cosine", "squaredcos_cap_v2")])
def test_q_sample_matches_diffusers_add_noise_offset_by_one(kind, name):
    s, ref = dif.make_schedule(kind, 1000), diffusers_scheduler(name)
    rng = np.random.default_rng(3)
    t = np.array([1, 2, 10, 500, 999, 1000])
    x0, noise = rng.uniform(-1, 1, (6, 3, 4, 4)), rng.standard_normal((6, 3, 4, 4))
    x0_t, noise_t = torch.from_numpy(x0), torch.from_numpy(noise)
    expected = ref.add_noise(x0_t, noise_t, torch.from_numpy(t - 1)).numpy()
    # diffusers' float32 ᾱ (off by ~3e-7) moves √(1-ᾱ_1) ≈ 0.01 by ~1e-6 relative to it
    assert np.allclose(dif.q_sample(x0, t, s, noise), expected, rtol=0, atol=1e-5)
    early = t[:3]
    unshifted = ref.add_noise(x0_t[:3], noise_t[:3], torch.from_numpy(early)).numpy()
    assert not np.allclose(dif.q_sample(x0[:3], early, s, noise[:3]), unshifted, rtol=0, atol=1e-4)


def test_posterior_variance_matches_diffusers_fixed_small():
    s, ref = dif.make_schedule("linear", 1000), diffusers_scheduler("linear")
    variance = dif.posterior_coefficients(s)[2]
    ref_variance = np.array([float(ref._get_variance(k)) for k in (1, 2, 500, 999)])
    assert np.allclose(variance[[1, 2, 500, 999]], ref_variance, rtol=1e-4)


# ---- errors a student can act on ----
LINEAR = dif.make_schedule("linear", 10)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: dif.make_schedule("exponential", 10), "unknown schedule"),
        (lambda: dif.make_schedule("linear", 0), "at least 1"),
        (lambda: dif.make_schedule("linear", 2.5), "whole number"),
        (lambda: dif.q_sample(1.0, 0, LINEAR, 0.0), r"outside 1\.\.10"),
        (lambda: dif.q_sample(1.0, 11, LINEAR, 0.0), r"outside 1\.\.10"),
        (lambda: dif.q_sample(1.0, 2.5, LINEAR, 0.0), "whole number"),
        (lambda: dif.q_sample(np.zeros(3), 1, LINEAR, np.zeros(4)), "must match"),
        (lambda: dif.q_step(np.zeros(3), 1, LINEAR, np.zeros(2)), "must match"),
        (
            lambda: dif.q_sample(np.zeros((2, 3)), np.array([1, 2, 3]), LINEAR, np.zeros((2, 3))),
            "one t per",
        ),
        (lambda: dif.q_posterior(np.zeros(2), np.zeros(3), 1, LINEAR), "must match"),
        (lambda: dif.gaussian_kl(0, 0, 0, 1), "positive"),
        (lambda: dif.gaussian_kl(0, 1, 0, -2), "positive"),
        (lambda: dif.gaussian_kl(np.zeros(2), 1, np.zeros(3), 1), "do not match"),
        (lambda: dif.prior_kl_bits_per_dim(LINEAR, np.zeros(0)), "empty"),
        (lambda: dif.eps_loss_weights(LINEAR, "learned"), "'beta' or 'posterior'"),
        (lambda: dif.parse_data(""), "at least one"),
        (lambda: dif.parse_data("1, two"), "'two' is not a number"),
        (lambda: dif.parse_data("1e999"), "not a finite"),
        (lambda: dif.parse_data("11"), "between -10 and 10"),
        (lambda: dif.parse_data("1 " * 65), "at most 64"),
        (lambda: dif.parse_data("1" * 1001), "too long"),
        (lambda: dif.parse_data("__import__('os')"), "not a number"),
    ],
)
def test_bad_arguments_raise_a_helpful_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_the_schedule_cannot_be_changed_by_accident():
    s = dif.make_schedule("cosine", 10)
    with pytest.raises(ValueError):
        s.betas[0] = 0.5
    with pytest.raises(AttributeError):
        s.num_steps = 3  # type: ignore[misc]


# ---- what the forward-diffusion and DDPM-loss pages measure (moved from the pages) ----
@pytest.mark.parametrize(("kind", "name"), [("linear", "linear"), ("cosine", "squaredcos_cap_v2")])
def test_log_snr_is_torch_logit_of_diffusers_alpha_bar(kind, name):
    ours, ref = dif.make_schedule(kind, 1000), diffusers_scheduler(name)
    logit = torch.logit(ref.alphas_cumprod.double()).numpy()
    # diffusers keeps ᾱ in float32: compare where neither ᾱ nor 1 − ᾱ is tiny
    keep = (ours.alpha_bars > 1e-3) & (ours.alpha_bars < 0.999)
    assert np.allclose(dif.log_snr(ours)[keep], logit[keep], atol=1e-3)
    assert np.all(np.diff(dif.log_snr(ours)) < 0)


@given(
    schedules_and_steps(),
    arrays(np.float64, st.integers(1, 6), elements=finite),
    arrays(np.float64, st.integers(1, 6), elements=finite),
)
def test_q_moments_and_noise_of_invert_one_jump(case, x0, eps):
    s, t = case
    eps = np.resize(eps, x0.shape)
    mean, var = dif.q_moments(x0, t, s)
    assert np.array_equal(mean, dif.q_sample(x0, t, s, np.zeros_like(x0)))
    assert math.isclose(var, float(dif.q_sample(0.0, t, s, 1.0)) ** 2, rel_tol=1e-12)
    x_t = dif.q_sample(x0, t, s, eps)
    assert np.allclose(dif.noise_of(x_t, x0, t, s), eps, atol=1e-6 / math.sqrt(var))


def test_q_moments_match_diffusers_add_noise_without_noise():
    s, ref = dif.make_schedule("linear", 1000), diffusers_scheduler("linear")
    x0 = np.linspace(-1, 1, 7)
    for t in (1, 10, 500, 1000):
        want = ref.add_noise(
            torch.tensor(x0), torch.zeros(7, dtype=torch.float64), torch.tensor([t - 1])
        ).numpy()
        assert np.allclose(dif.q_moments(x0, t, s)[0], want, atol=1e-6)


@given(schedules_and_steps(), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_q_sample_steps_is_one_jump_per_step_with_the_same_noise(case, k, seed):
    s, _ = case
    rng = np.random.default_rng(seed)
    x0, eps = rng.uniform(-1, 1, (3, 2)), rng.standard_normal((3, 2))
    steps = rng.integers(1, s.num_steps + 1, size=k)
    frames = dif.q_sample_steps(x0, steps, s, eps)
    assert frames.shape == (k, 3, 2)
    for frame, t in zip(frames, steps, strict=True):
        assert np.allclose(frame, dif.q_sample(x0, int(t), s, eps), rtol=0, atol=1e-15)


@given(schedules_and_steps(), finite, finite)
def test_the_mean_through_the_true_noise_is_the_posterior_mean(case, x0, eps):
    """DDPM Eq. 10: μ̃_t(x_t, x_0) = (x_t − β_t/√(1−ᾱ_t) ε)/√α_t, against Eq. 7's form."""
    s, t = case
    x_t = dif.q_sample(x0, t, s, eps)
    mean, _ = dif.q_posterior(x_t, x0, t, s)
    assert math.isclose(dif.p_mean_from_noise(x_t, eps, t, s), mean, rel_tol=1e-7, abs_tol=1e-6)


@given(kinds, st.integers(1, 2000), st.data())
def test_the_induction_step_holds_to_rounding_and_a_broken_schedule_fails_it(kind, T, data):
    s = dif.make_schedule(kind, T)
    t = data.draw(st.integers(1, T))
    assert dif.induction_gap(s, t) <= 1e-12
    if t >= 2:  # ᾱ that is not the running product of α: the step catches it
        broken = dif.Schedule(s.kind, T, s.betas, s.alphas, s.alpha_bars * 0.99)
        assert dif.induction_gap(broken, t) > 1e-4


@given(schedules_and_steps(max_steps=80), st.integers(2, 70), st.integers(0, 2**32 - 1))
def test_run_chain_is_t_links_of_q_step_measured_at_most_points_times(case, points, seed):
    s, t = case
    x0 = np.linspace(-1, 1, 12).reshape(2, 2, 3)
    run = dif.run_chain(x0, t, s, np.random.default_rng(seed), points=points)
    rng, x = np.random.default_rng(seed), x0
    for step in range(1, t + 1):
        x = dif.q_step(x, step, s, rng.standard_normal(x0.shape))
    assert np.array_equal(run.x, x)
    assert run.steps[0] == 1 and run.steps[-1] == t and len(run.steps) <= min(points, t)
    assert np.all(np.diff(run.steps) > 0)
    assert run.slope.shape == run.variance.shape == run.steps.shape


@pytest.mark.parametrize(("kind", "T", "t"), [("linear", 1000, 300), ("cosine", 100, 90)])
def test_run_chain_moments_follow_the_closed_form(kind, T, t):
    """On 30,000 values the chain's slope and residual variance sit on √ᾱ_s and 1 − ᾱ_s (DDPM
    Eq. 4), within 5 standard errors at every measured s."""
    s = dif.make_schedule(kind, T)
    x0 = np.random.default_rng(1).uniform(-1, 1, 30_000)
    run = dif.run_chain(x0, t, s, np.random.default_rng(2), points=20)
    a = s.alpha_bars[run.steps - 1]
    n, norm = x0.size, float(np.sum(x0 * x0))
    assert np.all(np.abs(run.slope - np.sqrt(a)) < 5 * np.sqrt((1 - a) / norm))
    assert np.all(np.abs(run.variance - (1 - a)) < 5 * (1 - a) * math.sqrt(2 / n))


@given(
    schedules_and_steps(max_steps=80),
    st.integers(1, 12),
    st.lists(st.integers(1, 80), min_size=1, max_size=6),
    st.integers(2, 70),
    st.integers(0, 2**32 - 1),
)
def test_a_chain_trace_gives_what_run_chain_gives_at_any_t_in_any_order(
    case, every, asks, points, seed
):
    """Forward, back and to where it already was: x_t bit for bit, and the same moments at
    the same steps, as running all t links from the same source."""
    s, _ = case
    x0 = np.linspace(-1, 1, 12).reshape(2, 2, 3)
    rng = np.random.default_rng(seed)
    trace = dif.start_chain(x0, s, rng, every)
    assert rng.bit_generator.state == np.random.default_rng(seed).bit_generator.state
    furthest = 0
    for t in (min(a, s.num_steps) for a in asks):
        trace = dif.extend_chain(trace, t)
        furthest = max(furthest, t)
        assert trace.reached == furthest
        assert len(trace.saved) == furthest // every + 1
        got = dif.chain_at(trace, t, points)
        want = dif.run_chain(x0, t, s, np.random.default_rng(seed), points)
        assert np.array_equal(got.x, want.x)
        assert np.array_equal(got.steps, want.steps)
        assert np.array_equal(got.slope, want.slope)
        assert np.array_equal(got.variance, want.variance)


def test_a_chain_trace_gives_only_the_steps_it_reached_and_extends_only_forward():
    s = dif.make_schedule("linear", 100)
    trace = dif.extend_chain(dif.start_chain(np.ones(3), s, np.random.default_rng(0)), 40)
    assert dif.extend_chain(trace, 25) is trace
    with pytest.raises(ValueError, match="extend it first"):
        dif.chain_at(trace, 41)
    with pytest.raises(ValueError, match="all zero"):
        dif.start_chain(np.zeros(3), s, np.random.default_rng(0))


def test_run_chain_refuses_an_all_zero_image():
    with pytest.raises(ValueError, match="all zero"):
        dif.run_chain(np.zeros(4), 3, dif.make_schedule("linear", 10), np.random.default_rng(0))


def torch_kl(m_p, v_p, m_q, v_q) -> float:
    normal = torch.distributions.Normal
    f64 = torch.float64
    p = normal(torch.tensor(m_p, dtype=f64), torch.tensor(math.sqrt(v_p), dtype=f64))
    q = normal(torch.tensor(m_q, dtype=f64), torch.tensor(math.sqrt(v_q), dtype=f64))
    return torch.distributions.kl_divergence(p, q).item()


@given(
    st.floats(-3, 3),
    st.sampled_from([0.1, 0.5, 1.0, 2.0, 4.0]),
    st.floats(-3, 3),
    st.sampled_from([0.1, 0.5, 1.0, 2.0, 4.0]),
)
def test_the_kl_integrand_integrates_to_torchs_kl(m_p, v_p, m_q, v_q):
    x = np.linspace(-30, 30, 6001)
    f = dif.gaussian_kl_integrand(x, m_p, v_p, m_q, v_q)
    assert np.all(np.isfinite(f))
    assert math.isclose(
        dif.gaussian_kl_quadrature(m_p, v_p, m_q, v_q, x),
        torch_kl(m_p, v_p, m_q, v_q),
        rel_tol=1e-6,
        abs_tol=1e-9,
    )
    f64 = torch.float64
    p = torch.distributions.Normal(torch.tensor(m_p, dtype=f64), math.sqrt(v_p))
    q = torch.distributions.Normal(torch.tensor(m_q, dtype=f64), math.sqrt(v_q))
    mid = torch.tensor(x[2900:3100])
    ref = (p.log_prob(mid).exp() * (p.log_prob(mid) - q.log_prob(mid))).numpy()
    assert np.allclose(f[2900:3100], ref, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize(("m_p", "v_p", "m_q", "v_q"), [(0, 1, 1, 2), (-1.5, 0.1, 2.75, 4)])
def test_the_monte_carlo_kl_is_within_its_standard_error(m_p, v_p, m_q, v_q):
    mc, se = dif.gaussian_kl_monte_carlo(m_p, v_p, m_q, v_q, np.random.default_rng(0), 20_000)
    assert 0 < se < 0.05 and abs(mc - torch_kl(m_p, v_p, m_q, v_q)) < 5 * se


@given(st.integers(1, 5000), st.integers(1, 400))
def test_log_spaced_steps_are_distinct_ends_included_and_at_most_count(T, count):
    steps = dif.log_spaced_steps(T, count)
    assert steps[0] == 1 and (steps[-1] == T or count == 1)
    assert np.all(np.diff(steps) > 0) and len(steps) <= count
